//===- InitAll.h - register every amp dialect and pass ----------*- C++ -*-===//
//
// What amp-opt and the other tools load: the amp dialect, the upstream
// dialects a training graph uses, and the passes that make sense on it.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_INITALL_H
#define AMP_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::amp {

/// Adds amp, func, arith and math to `registry`, with the autocast
/// external models of the arith and math ops.
void registerAllDialects(DialectRegistry &registry);

/// Registers the amp passes and the upstream ones that apply to training
/// graphs (canonicalize, cse, inline, symbol-dce, ...).
void registerAllPasses();

} // namespace mlir::amp

#endif // AMP_INITALL_H
