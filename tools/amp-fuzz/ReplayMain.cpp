//===- ReplayMain.cpp - run inputs through the fuzz target ----------------===//
//
// amp-fuzz-replay FILE-OR-DIR...: feeds every file (each `// -----` split of
// it, as -split-input-file does) to LLVMFuzzerTestOneInput, the way CI
// replays the regression corpus without a fuzzing build. A crash fails the
// run; diagnostics do not.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replayFile(llvm::StringRef path, unsigned &inputs) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    llvm::errs() << "amp-fuzz-replay: cannot read " << path << "\n";
    return 1;
  }
  llvm::SmallVector<llvm::StringRef> splits;
  (*buffer)->getBuffer().split(splits, "// -----");
  for (llvm::StringRef split : splits) {
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(split.data()),
                           split.size());
    ++inputs;
  }
  return 0;
}

int main(int argc, char **argv) {
  unsigned inputs = 0;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (!llvm::sys::fs::is_directory(arg)) {
      if (replayFile(arg, inputs))
        return 1;
      continue;
    }
    std::error_code ec;
    for (llvm::sys::fs::recursive_directory_iterator it(arg, ec), end;
         it != end && !ec; it.increment(ec))
      if (llvm::sys::fs::is_regular_file(it->path()) &&
          replayFile(it->path(), inputs))
        return 1;
  }
  llvm::outs() << "replayed " << inputs << " inputs without a crash\n";
  return 0;
}
