//===- Buffers.cpp - a model's buffers and their updates ------------------===//

#include "amp/Dialect/Amp/Transforms/Buffers.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/ArgumentNames.h"

using namespace mlir;
using namespace mlir::amp;

SmallVector<unsigned> amp::getBufferArguments(func::FuncOp func) {
  SmallVector<unsigned> buffers;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, AmpDialect::kBufferAttrName))
      buffers.push_back(i);
  return buffers;
}

double amp::getBufferInitialValue(func::FuncOp func, unsigned index) {
  if (auto initial =
          func.getArgAttrOfType<FloatAttr>(index, AmpDialect::kBufferAttrName))
    return initial.getValueAsDouble();
  return 0.0;
}

FailureOr<SmallVector<Value>> amp::getBufferUpdates(func::FuncOp func,
                                                    StringRef pass) {
  SmallVector<unsigned> buffers = getBufferArguments(func);
  SmallVector<Value> next;
  DenseMap<Value, unsigned> slot;
  for (unsigned i : buffers) {
    slot[func.getArgument(i)] = next.size();
    next.push_back(func.getArgument(i));
  }
  // The (buffer, next value) pairs an op updates: a training batch norm's
  // running statistics, delayed FP8 scaling's state.
  auto updatesOf = [](Operation *op) {
    SmallVector<std::pair<Value, Value>, 3> pairs;
    if (auto norm = dyn_cast<BatchNormOp>(op)) {
      if (norm.getTraining())
        pairs = {{norm.getRunningMean(), norm.getNewMean()},
                 {norm.getRunningVar(), norm.getNewVar()}};
    } else if (auto update = dyn_cast<Fp8ScalingUpdateOp>(op)) {
      pairs = {{update.getScale(), update.getNewScale()},
               {update.getAmaxHistory(), update.getNewAmaxHistory()},
               {update.getOverflows(), update.getNewOverflows()}};
    }
    return pairs;
  };
  WalkResult walk =
      func.walk([&](Operation *op) {
        for (auto [running, updated] : updatesOf(op)) {
          auto it = slot.find(running);
          if (it == slot.end())
            continue;
          Value &value = next[it->second];
          if (value != running) {
            op->emitOpError()
                << "updates buffer "
                << describeArgument(func,
                                    cast<BlockArgument>(running).getArgNumber())
                << " that an earlier op updates too; " << pass
                << " needs one updating op per buffer";
            return WalkResult::interrupt();
          }
          value = updated;
        }
        return WalkResult::advance();
      });
  if (walk.wasInterrupted())
    return failure();
  return next;
}
