//===- llvm-asan-shim.h - LLVM's headers as its libraries were built ------===//
//
// Included before every C++ source of the sanitizer build (make
// test-sanitize). Debian's LLVM and MLIR libraries are built without
// AddressSanitizer, but LLVM's headers turn on BumpPtrAllocator's slab
// poisoning in code compiled with it (LLVM_ADDRESS_SANITIZER_BUILD); an
// allocator function the linker then takes from our objects poisons memory
// the uninstrumented libraries write to, and reads of it are reported. The
// headers are compiled here in their form without ASan, as the libraries
// were; the instrumentation of our code stays.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CMAKE_LLVM_ASAN_SHIM_H
#define AMP_CMAKE_LLVM_ASAN_SHIM_H

// A source compiled without LLVM's headers on its path (CMake's checks of
// the compiler) is left as it is.
#if __has_include("llvm/Support/Compiler.h")
#include "llvm/Support/Compiler.h"

#undef LLVM_ADDRESS_SANITIZER_BUILD
#define LLVM_ADDRESS_SANITIZER_BUILD 0
#define __asan_poison_memory_region(p, size)
#define __asan_unpoison_memory_region(p, size)
#endif

#endif // AMP_CMAKE_LLVM_ASAN_SHIM_H
