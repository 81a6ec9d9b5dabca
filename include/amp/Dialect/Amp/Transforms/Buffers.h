//===- Buffers.h - a model's buffers and their updates ----------*- C++ -*-===//
//
// A buffer is a model argument marked `amp.buffer`: state the model updates
// itself rather than by a gradient (batch norm's running statistics, in the
// forward pass; delayed FP8 scaling's state, after the backward pass).
// amp-autodiff returns each buffer's next value from the gradient function,
// amp-optimizer threads the buffers through the step as state (unchanged
// on a skipped step) and amp-evaluation reads them.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_BUFFERS_H
#define AMP_DIALECT_AMP_TRANSFORMS_BUFFERS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::amp {

/// The arguments of `func` marked amp.buffer, in order.
SmallVector<unsigned> getBufferArguments(func::FuncOp func);

/// The starting value of buffer argument `index` of `func`: its amp.buffer
/// float, or 0.
double getBufferInitialValue(func::FuncOp func, unsigned index);

/// The next value of each buffer argument of `func` (getBufferArguments'
/// order): the new running statistic of the training amp.batch_norm that
/// reads it as one, the new state of the amp.fp8_scaling_update that reads
/// it, or the argument itself where no op updates it. A buffer
/// that two ops update is an error, reported at the second and naming
/// `pass`.
FailureOr<SmallVector<Value>> getBufferUpdates(func::FuncOp func,
                                               StringRef pass);

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_TRANSFORMS_BUFFERS_H
