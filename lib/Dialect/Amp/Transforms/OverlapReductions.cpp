//===- OverlapReductions.cpp - --amp-overlap-reductions -------------------===//
//
// Moves each bucket of a data-parallel step's gradient all-reduce up to
// where its gradients are final, so that the transport reduces it while
// the rest of the backward runs: the multi-tensor unscale that every
// gradient passes through is split into one per bucket, and each bucket's
// chain (the unscale, the accumulation, the reduction) is scheduled as
// soon as its operands are. The backend starts a moved reduction where it
// stands and waits for it where its result is first touched.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPOVERLAPREDUCTIONS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

bool isGradientSum(Operation *op) {
  auto reduce = dyn_cast<AllReduceOp>(op);
  return reduce && reduce.getKind() == AllReduceKind::sum;
}

/// The one gradient sum that `value` flows into through ops of its block,
/// or null when it reaches none or several.
AllReduceOp bucketOf(Value value) {
  Block *block = value.getParentBlock();
  AllReduceOp found;
  SmallVector<Value> work{value};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Value next = work.pop_back_val();
    for (Operation *user : next.getUsers()) {
      if (user->getBlock() != block || !seen.insert(user).second)
        continue;
      if (isGradientSum(user)) {
        if (found && found != user)
          return {};
        found = cast<AllReduceOp>(user);
        continue;
      }
      llvm::append_range(work, user->getResults());
    }
  }
  return found;
}

/// Splits `unscale` into one unscale per bucket its gradients flow into
/// (those that reach no bucket, or several, in one more), their found_inf
/// flags joined by maximum: each element is multiplied and checked as
/// before, so the values and the flag are the same.
void splitByBucket(UnscaleOp unscale) {
  llvm::MapVector<Operation *, SmallVector<unsigned>> groups;
  for (auto [i, result] : llvm::enumerate(unscale.getUnscaled()))
    groups[bucketOf(result).getOperation()].push_back(i);
  if (groups.size() < 2)
    return;
  OpBuilder b(unscale);
  Location loc = unscale.getLoc();
  Value foundInf;
  for (auto &[bucket, members] : groups) {
    SmallVector<Value> grads;
    for (unsigned i : members)
      grads.push_back(unscale.getGrads()[i]);
    auto part = b.create<UnscaleOp>(loc, unscale.getInvScale(), grads);
    for (auto [k, i] : llvm::enumerate(members))
      unscale.getUnscaled()[i].replaceAllUsesWith(part.getUnscaled()[k]);
    foundInf =
        foundInf
            ? b.create<MaximumOp>(loc, foundInf, part.getFoundInf()).getResult()
            : part.getFoundInf();
  }
  unscale.getFoundInf().replaceAllUsesWith(foundInf);
  unscale.erase();
}

bool isScalar(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 0;
}

/// Moves `op` up to just after the last of its operands defined in its
/// block. One that reads none there stays, unless it computes scalars
/// only (a flag of the arguments), which go to the block's start.
void hoist(Operation *op) {
  Block *block = op->getBlock();
  Operation *last = nullptr;
  for (Value operand : op->getOperands()) {
    Operation *def = operand.getDefiningOp();
    if (!def || def->getBlock() != block)
      continue;
    if (!last || last->isBeforeInBlock(def))
      last = def;
  }
  if (last)
    op->moveAfter(last);
  else if (llvm::all_of(op->getResultTypes(), isScalar))
    op->moveBefore(&block->front());
}

/// Whether `op` moves up with a bucket whose moving ops are `moved`: it
/// computes for them alone (what it returns to the caller aside), it is an
/// unscale (whose flag is joined later), or it computes scalars only (the
/// micro-batch count, the flag that says whether this one reduces).
bool movesWith(Operation *op, const llvm::SmallPtrSetImpl<Operation *> &moved) {
  if (isa<UnscaleOp>(op))
    return true;
  if (llvm::all_of(op->getResultTypes(), isScalar))
    return true;
  return llvm::all_of(op->getUsers(), [&](Operation *user) {
    return moved.contains(user) || user->hasTrait<OpTrait::IsTerminator>();
  });
}

struct AmpOverlapReductions
    : amp::impl::AmpOverlapReductionsBase<AmpOverlapReductions> {
  void runOnOperation() override {
    Block &block = getOperation().getBody().front();
    if (llvm::none_of(llvm::make_pointer_range(block), isGradientSum))
      return;
    for (auto unscale : llvm::to_vector(block.getOps<UnscaleOp>()))
      splitByBucket(unscale);
    // Each bucket, with what it alone reads, as early as their operands
    // allow: a moved op stays after its operands and before its users,
    // which came after its old place.
    for (Operation *reduce : llvm::to_vector(llvm::make_filter_range(
             llvm::make_pointer_range(block), isGradientSum))) {
      SetVector<Operation *> slice;
      BackwardSliceOptions options;
      options.filter = [&](Operation *op) { return op->getBlock() == &block; };
      getBackwardSlice(reduce, &slice, options);
      SmallVector<Operation *> ordered(slice.begin(), slice.end());
      llvm::sort(ordered, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
      // Users come after what they use: walking backwards, a user's
      // membership is known before its operands ask.
      llvm::SmallPtrSet<Operation *, 32> moved{reduce};
      for (Operation *op : llvm::reverse(ordered))
        if (movesWith(op, moved))
          moved.insert(op);
      for (Operation *op : ordered)
        if (moved.contains(op))
          hoist(op);
      hoist(reduce);
    }
  }
};

} // namespace
