//===- KernelAnalysis.cpp - what kind of kernel an amp.fusion is ----------===//
//
// The rules by which the backend runs a group of ops as one kernel, one
// function per kind of kernel (see KernelAnalysis.h and #amp.kernel).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/KernelAnalysis.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::amp;

SmallVector<Operation *> KernelAnalysis::getOthers() const {
  SmallVector<Operation *> others;
  for (auto [i, op] : llvm::enumerate(ops))
    if (i != root)
      others.push_back(op);
  return others;
}

SmallVector<Operation *> KernelAnalysis::getOps(KernelRole role) const {
  SmallVector<Operation *> found;
  for (auto [op, opRole] : llvm::zip(ops, roles))
    if (opRole == role)
      found.push_back(op);
  return found;
}

SmallVector<Operation *> mlir::amp::getGuardSelects(Operation *update) {
  auto optimizer = dyn_cast<OptimizerUpdateOpInterface>(update);
  if (!optimizer)
    return {};
  SmallVector<Operation *> selects;
  Value condition;
  for (OpResult result : update->getResults()) {
    auto select = dyn_cast_or_null<SelectOp>(
        result.hasOneUse() ? *result.getUsers().begin() : nullptr);
    if (!select || select.getOnTrue() != result ||
        select.getOnFalse() !=
            optimizer.getReplacedOperand(result.getResultNumber()).get() ||
        select.getType() != result.getType() ||
        cast<RankedTensorType>(select.getCondition().getType())
                .getNumElements() != 1 ||
        (condition && select.getCondition() != condition))
      return {};
    condition = select.getCondition();
    selects.push_back(select);
  }
  return selects;
}

Value mlir::amp::getGuard(Operation *update) {
  SmallVector<Operation *> selects = getGuardSelects(update);
  return selects.empty() ? Value()
                         : cast<SelectOp>(selects.front()).getCondition();
}

Operation *mlir::amp::getGradientScale(Operation *update) {
  auto optimizer = dyn_cast<OptimizerUpdateOpInterface>(update);
  if (!optimizer)
    return nullptr;
  Value grad = optimizer.getGradOperand();
  auto mul = grad.getDefiningOp<MulOp>();
  if (!mul || !grad.hasOneUse() || mul->getBlock() != update->getBlock())
    return nullptr;
  auto isF32 = [](Value value) {
    return cast<RankedTensorType>(value.getType()).getElementType().isF32();
  };
  auto isScalar = [](Value value) {
    return cast<RankedTensorType>(value.getType()).getNumElements() == 1;
  };
  Value lhs = mul.getLhs(), rhs = mul.getRhs();
  bool scaled = isF32(grad) && isF32(lhs) && isF32(rhs) &&
                ((lhs.getType() == grad.getType() && isScalar(rhs)) ||
                 (rhs.getType() == grad.getType() && isScalar(lhs)));
  return scaled ? mul.getOperation() : nullptr;
}

Value mlir::amp::getGradientScaleFactor(Operation *update) {
  auto mul = dyn_cast_or_null<MulOp>(getGradientScale(update));
  if (!mul)
    return {};
  return mul.getLhs().getType() == mul.getType() ? mul.getRhs() : mul.getLhs();
}

Value mlir::amp::getUnscaledGradient(Operation *update) {
  auto mul = dyn_cast_or_null<MulOp>(getGradientScale(update));
  if (!mul)
    return cast<OptimizerUpdateOpInterface>(update).getGradOperand();
  return mul.getLhs().getType() == mul.getType() ? mul.getLhs() : mul.getRhs();
}

bool mlir::amp::isLikeUpdate(Operation *op, Operation *first) {
  auto update = dyn_cast<OptimizerUpdateOpInterface>(op);
  auto base = dyn_cast<OptimizerUpdateOpInterface>(first);
  return update && base && op->getName() == first->getName() &&
         op->getPropertiesAsAttribute() == first->getPropertiesAsAttribute() &&
         update.getStepOperand() == base.getStepOperand() &&
         llvm::equal(update.getHyperParameterOperands(),
                     base.getHyperParameterOperands()) &&
         getGuard(op) == getGuard(first) &&
         getGradientScaleFactor(op) == getGradientScaleFactor(first);
}

namespace {

bool isElementwise(Operation *op) {
  return op->hasTrait<OpTrait::amp::FusibleElementwise>() &&
         op->getNumResults() == 1;
}

bool isView(Operation *op) { return op->hasTrait<OpTrait::amp::MemoryView>(); }

/// A transpose, slice or concat: an op a gather kernel is built on.
bool isGather(Operation *op) { return isa<TransposeOp, SliceOp, ConcatOp>(op); }

bool isReduction(Operation *op) {
  return op->hasTrait<OpTrait::amp::ReductionFamily>() &&
         op->hasTrait<OpTrait::amp::OperandsInLoads>();
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// Whether the kernel stores `op`'s results: the region yields one.
bool isStored(Operation *op) {
  return llvm::any_of(op->getUsers(),
                      [](Operation *user) { return isa<YieldOp>(user); });
}

/// The rules, one method per kind: each fills the analysis or fails with
/// the reason.
class KernelRules {
public:
  KernelRules(Block &block, std::string &why) : why(why) {
    for (Operation &op : block.without_terminator())
      analysis.ops.push_back(&op);
    analysis.roles.assign(analysis.ops.size(), KernelRole::member);
  }

  FailureOr<KernelAnalysis> run();

private:
  ArrayRef<Operation *> ops() const { return analysis.ops; }

  FailureOr<KernelAnalysis> fail(const Twine &reason) {
    why = reason.str();
    return failure();
  }
  /// The analysis of a kernel of `kind` on the op at `root`, whose other
  /// ops have the roles set so far.
  KernelAnalysis make(KernelKind kind, unsigned root) {
    analysis.kind = kind;
    analysis.root = root;
    analysis.roles[root] = KernelRole::root;
    return analysis;
  }

  FailureOr<KernelAnalysis> loop();
  FailureOr<KernelAnalysis> casts();
  FailureOr<KernelAnalysis> gemm();
  FailureOr<KernelAnalysis> updates();
  FailureOr<KernelAnalysis> gather();
  FailureOr<KernelAnalysis> reduction(unsigned root);
  FailureOr<KernelAnalysis> rows(unsigned root);

  KernelAnalysis analysis;
  std::string &why;
};

FailureOr<KernelAnalysis> KernelRules::run() {
  if (ops().empty())
    return fail("holds no ops; a kernel computes at least one");
  if (ops().size() > 1 && llvm::all_of(ops(), [&](Operation *op) {
        return isa<CastOp>(op) && isa<BlockArgument>(op->getOperand(0));
      }))
    return casts();
  if (llvm::all_of(ops(), isElementwise))
    return loop();
  if (isa<MatmulOp>(ops().front()))
    return gemm();
  if (llvm::any_of(ops(), [](Operation *op) {
        return isa<OptimizerUpdateOpInterface>(op);
      }))
    return updates();
  if (llvm::all_of(ops(),
                   [](Operation *op) { return isGather(op) || isView(op); }) &&
      isGather(ops().back()))
    return gather();
  if (ops().size() == 2) {
    auto loss = dyn_cast<CrossEntropyOp>(ops()[0]);
    auto grad = dyn_cast<CrossEntropyGradOp>(ops()[1]);
    if (loss && grad && grad.isGradientOf(loss)) {
      analysis.roles[1] = KernelRole::member;
      return make(KernelKind::loss_grad, 0);
    }
  }
  // A reduction or row op with elementwise ops around it (and, for a
  // norm, the amp.norm_stats it computes).
  auto computedStats = [&](Operation *op) {
    auto stats = dyn_cast<NormStatsOp>(op);
    return stats && llvm::any_of(ops(), [&](Operation *other) {
             return stats.isComputedBy(other);
           });
  };
  SmallVector<unsigned> roots;
  for (auto [i, op] : llvm::enumerate(ops()))
    if (!isElementwise(op) && !computedStats(op))
      roots.push_back(i);
  if (roots.size() == 1 && isReduction(ops()[roots.front()]))
    return reduction(roots.front());
  if (roots.size() == 1 &&
      ops()[roots.front()]->hasTrait<OpTrait::amp::RowKernel>())
    return rows(roots.front());
  if (ops().size() == 1)
    return make(KernelKind::single, 0);
  StringRef first = ops()[roots.front()]->getName().getStringRef();
  if (roots.size() == 1)
    return fail("is no kernel the backend runs: '" + first +
                "' is a kernel of its own and computes no other op");
  return fail("is no kernel the backend runs: it holds " + Twine(roots.size()) +
              " ops that are not elementwise ('" + first +
              "' first), where a kernel has one at most");
}

/// Whether a value of `shape` broadcasts to `to` (numpy's rule: aligned
/// from the last dimension, each of size 1 or `to`'s).
bool broadcastsTo(ArrayRef<int64_t> shape, ArrayRef<int64_t> to) {
  if (shape.size() > to.size())
    return false;
  ArrayRef<int64_t> tail = to.take_back(shape.size());
  return llvm::all_of(llvm::zip(shape, tail), [](auto dims) {
    return std::get<0>(dims) == 1 || std::get<0>(dims) == std::get<1>(dims);
  });
}

FailureOr<KernelAnalysis> KernelRules::loop() {
  // The loop runs over the last op's shape; each op is computed where the
  // index falls in its own (a constant's, a bias's broadcast) shape.
  ArrayRef<int64_t> shape = shapeOf(ops().back()->getResult(0));
  for (Operation *op : ops())
    if (!broadcastsTo(shapeOf(op->getResult(0)), shape))
      return fail("is no loop: '" + op->getName().getStringRef() +
                  "' has a result that does not broadcast to the last op's "
                  "shape, which the loop runs over");
  return make(KernelKind::loop, ops().size() - 1);
}

FailureOr<KernelAnalysis> KernelRules::casts() {
  // Casts of the kernel's inputs, each its own tensor, all alike.
  Operation *first = ops().front();
  Type from = getElementTypeOrSelf(first->getOperand(0).getType());
  Type to = getElementTypeOrSelf(first->getResult(0).getType());
  for (auto [i, op] : llvm::enumerate(ops())) {
    if (getElementTypeOrSelf(op->getOperand(0).getType()) != from ||
        getElementTypeOrSelf(op->getResult(0).getType()) != to)
      return fail("is no run of casts: one launch casts tensors of one "
                  "element type to one other");
    if (i > 0)
      analysis.roles[i] = KernelRole::member;
  }
  return make(KernelKind::casts, 0);
}

FailureOr<KernelAnalysis> KernelRules::gemm() {
  auto matmul = cast<MatmulOp>(ops().front());
  if (ops().size() == 1)
    return make(KernelKind::gemm, 0);
  auto relu = ops().size() == 2 ? dyn_cast<ReluOp>(ops()[1]) : ReluOp();
  if (!relu || relu.getInput() != matmul.getResult() ||
      !matmul.getResult().hasOneUse() || relu.getType() != matmul.getType() ||
      !matmul.getBias())
    return fail("is no GEMM: an amp.matmul's kernel holds only the matmul "
                "and, when it has a bias, the amp.relu that alone reads its "
                "result");
  analysis.roles[1] = KernelRole::epilogue;
  return make(KernelKind::gemm, 0);
}

FailureOr<KernelAnalysis> KernelRules::updates() {
  SmallVector<Operation *> updates;
  llvm::SmallPtrSet<Operation *, 8> guards, scales;
  for (Operation *op : ops())
    if (isa<OptimizerUpdateOpInterface>(op)) {
      updates.push_back(op);
      for (Operation *select : getGuardSelects(op))
        guards.insert(select);
      if (Operation *scale = getGradientScale(op))
        scales.insert(scale);
    }
  for (auto [i, op] : llvm::enumerate(ops())) {
    if (guards.contains(op)) {
      analysis.roles[i] = KernelRole::guard;
      continue;
    }
    if (scales.contains(op)) {
      analysis.roles[i] = KernelRole::prologue;
      continue;
    }
    if (!isa<OptimizerUpdateOpInterface>(op))
      return fail("is no run of updates: '" + op->getName().getStringRef() +
                  "' is neither an optimizer update, the select that "
                  "guards one nor the multiply that scales its gradient");
    bool alike = isLikeUpdate(op, updates.front()) &&
                 llvm::none_of(op->getOperands(), [&](Value operand) {
                   return llvm::is_contained(updates, operand.getDefiningOp());
                 });
    if (!alike)
      return fail("is no run of updates: one launch runs updates of one op "
                  "with the same attributes, step, hyperparameters, guard "
                  "and gradient scale, none reading another's result");
  }
  return make(KernelKind::updates,
              llvm::find(ops(), updates.front()) - ops().begin());
}

FailureOr<KernelAnalysis> KernelRules::gather() {
  for (Operation *op : ops().drop_back()) {
    if (isa<ConcatOp>(op))
      return fail("is no gather: only its last op may be an amp.concat");
    analysis.roles[llvm::find(ops(), op) - ops().begin()] =
        KernelRole::prologue;
  }
  return make(KernelKind::gather, ops().size() - 1);
}

FailureOr<KernelAnalysis> KernelRules::reduction(unsigned root) {
  Operation *reduce = ops()[root];
  if (root + 1 != ops().size() ||
      (root > 0 && ops()[root - 1]->getResult(0) != reduce->getOperand(0)))
    return fail("is no reduction: its kernel computes only the elementwise "
                "ops before it that make its operand");
  for (unsigned i = 0; i < root; ++i) {
    if (isStored(ops()[i]))
      return fail("is no reduction: '" + ops()[i]->getName().getStringRef() +
                  "', which its loads compute, is yielded; a value "
                  "computed in a load is never stored");
    analysis.roles[i] = KernelRole::prologue;
  }
  return make(KernelKind::reduction, root);
}

FailureOr<KernelAnalysis> KernelRules::rows(unsigned root) {
  Operation *row = ops()[root];
  // The prologue: the ops the row op's operands are computed from.
  llvm::SmallPtrSet<Operation *, 8> prologue;
  SmallVector<Value> pending(row->getOperands());
  while (!pending.empty()) {
    Operation *def = pending.pop_back_val().getDefiningOp();
    if (def && prologue.insert(def).second)
      llvm::append_range(pending, def->getOperands());
  }
  ArrayRef<int64_t> shape = shapeOf(row->getResult(0));
  for (auto [i, op] : llvm::enumerate(ops())) {
    if (i == root)
      continue;
    // The statistics the norm computes, which its kernel stores.
    if (auto stats = dyn_cast<NormStatsOp>(op);
        stats && stats.isComputedBy(row)) {
      analysis.roles[i] = KernelRole::member;
      continue;
    }
    if (prologue.contains(op)) {
      if (!row->hasTrait<OpTrait::amp::OperandsInLoads>())
        return fail("is no row kernel: '" + row->getName().getStringRef() +
                    "' does not compute its operands in its loads");
      // The row's input (operand 0, of the row's shape) may be stored:
      // the row kernel stores it once, as it stores the row.
      bool input = op->getResult(0) == row->getOperand(0) &&
                   shapeOf(op->getResult(0)) == shape;
      if (isStored(op) && !input)
        return fail("is no row kernel: '" + op->getName().getStringRef() +
                    "', which its loads compute, is yielded; a value "
                    "computed in a load is never stored, but for the row's "
                    "input, which the row kernel stores as it stores the "
                    "row");
      analysis.roles[i] = KernelRole::prologue;
      continue;
    }
    if (i > root && shapeOf(op->getResult(0)) != shape)
      return fail("is no row kernel: '" + op->getName().getStringRef() +
                  "', which its stores compute, has a result of another "
                  "shape than the row op's");
    analysis.roles[i] = KernelRole::epilogue;
  }
  return make(KernelKind::rows, root);
}

} // namespace

FailureOr<KernelAnalysis> mlir::amp::analyzeKernel(Block &block,
                                                   std::string &why) {
  return KernelRules(block, why).run();
}
