//===- RestoreLocations.cpp - --amp-restore-locations ---------------------===//
//
// Gives ops with an unknown location (constants that canonicalize hoisted
// and merged) the location of their first user, so that every diagnostic
// of the backend points at a line of the model.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPRESTORELOCATIONS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

/// The location of the earliest user of `op`'s results in its block, or
/// null when none has a known location.
std::optional<Location> firstUserLocation(Operation *op) {
  Operation *first = nullptr;
  for (Operation *user : op->getUsers()) {
    Operation *inBlock = op->getBlock()->findAncestorOpInBlock(*user);
    Operation *candidate = inBlock ? inBlock : user;
    if (isa<UnknownLoc>(candidate->getLoc()))
      continue;
    if (!first || (candidate->getBlock() == first->getBlock() &&
                   candidate->isBeforeInBlock(first)))
      first = candidate;
  }
  if (!first)
    return std::nullopt;
  return first->getLoc();
}

struct AmpRestoreLocations
    : amp::impl::AmpRestoreLocationsBase<AmpRestoreLocations> {
  void runOnOperation() override {
    // Users come after the ops they use: walking backwards, a user whose
    // location was unknown has its new one before its operands need it.
    SmallVector<Operation *> unknown;
    getOperation().walk([&](Operation *op) {
      if (isa<UnknownLoc>(op->getLoc()))
        unknown.push_back(op);
    });
    for (Operation *op : llvm::reverse(unknown))
      if (std::optional<Location> loc = firstUserLocation(op))
        op->setLoc(*loc);
  }
};

} // namespace
