//===- Fusion.cpp - --amp-fuse --------------------------------------------===//
//
// Groups the ops of a step into kernels: elementwise chains into one loop
// over their common shape, an f32 bias add into the matmul before it (its
// bias operand) and the relu after it into the GEMM's epilogue, an
// elementwise chain read only by a reduction or row op into its loads, one
// that reads a row op's result into the row kernel's stores, one that
// computes a row op's input read elsewhere too into the row kernel's loads
// and stores (a residual sum and the layer norm after it), transposes
// and slices into the gather that reads them,
// the found_inf selects into the optimizer update they guard, and adjacent
// like updates into one launch over all their tensors. Each kernel is
// outlined into an amp.fusion that states its kind and root, as
// analyzeKernel (IR/KernelAnalysis.h) finds them.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Backend.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPFUSE
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::backend;

namespace {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// The only user of `value`, if it has exactly one use.
Operation *singleUser(Value value) {
  return value.hasOneUse() ? *value.getUsers().begin() : nullptr;
}

/// Folds each f32 bias add after an f32 amp.matmul (accumulated in f32,
/// without a bias) into the matmul's bias operand: the matmul adds it in
/// its f32 accumulator and rounds to f32, as the add would (a GEMM's bias
/// epilogue). The matmul moves to where the add was, after the bias.
void foldBiasAdds(Block &body) {
  for (auto add : llvm::make_early_inc_range(body.getOps<AddOp>())) {
    for (unsigned i : {0u, 1u}) {
      auto matmul = add->getOperand(i).getDefiningOp<MatmulOp>();
      Value bias = add->getOperand(1 - i);
      auto type = add.getType();
      auto biasType = cast<RankedTensorType>(bias.getType());
      if (!matmul || matmul.getBias() || !matmul.getResult().hasOneUse() ||
          matmul.getType() != type || !type.getElementType().isF32() ||
          !matmul.getAccumulatorType().isF32() || biasType.getRank() != 1 ||
          biasType.getDimSize(0) != type.getShape().back() ||
          !biasType.getElementType().isF32())
        continue;
      matmul->moveBefore(add);
      matmul.getBiasMutable().assign(bias);
      add.getResult().replaceAllUsesWith(matmul.getResult());
      add->erase();
      break;
    }
  }
}

/// The relu a GEMM with a bias applies as it stores (its bias_relu
/// epilogue): the only user of the matmul's result, of its type.
ReluOp epilogueOf(MatmulOp matmul) {
  auto relu = dyn_cast_or_null<ReluOp>(singleUser(matmul.getResult()));
  return matmul.getBias() && relu && relu.getType() == matmul.getType()
             ? relu
             : ReluOp();
}

/// Whether `user` can compute a value it reads as operand `operand` in its
/// own loads, as the rules below fuse such values: a reduction or row op
/// whose operands are read whole (OperandsInLoads), an elementwise op of
/// its shape.
bool computesInLoads(Operation *user, unsigned operand) {
  if (user->hasTrait<OpTrait::amp::OperandsInLoads>())
    return true;
  return isFusibleElementwise(user) && user->getNumResults() == 1 &&
         shapeOf(user->getResult(0)) == shapeOf(user->getOperand(operand));
}

/// Gives each reader of a widening cast (bf16 to f32) its own copy when
/// every reader can compute it in its loads: each then reads the narrow
/// tensor instead of the wide copy, which is never stored (a layer norm's
/// output gradient, cast to f32, feeds its scale and bias gradients and
/// its input gradient). Recomputing a cast rounds nothing differently.
void duplicateWideningCasts(Block &body) {
  for (auto cast : llvm::make_early_inc_range(body.getOps<CastOp>())) {
    llvm::SetVector<Operation *> users(cast->user_begin(), cast->user_end());
    if (users.size() < 2 ||
        getByteSize(cast.getInput().getType()) >= getByteSize(cast.getType()) ||
        !llvm::all_of(cast->getUses(), [&](OpOperand &use) {
          return use.getOwner()->getBlock() == &body &&
                 computesInLoads(use.getOwner(), use.getOperandNumber());
        }))
      continue;
    // The first reader keeps the cast; each other gets a copy before it.
    for (Operation *user : users.getArrayRef().drop_front()) {
      OpBuilder builder(user);
      Value copy = builder.clone(*cast)->getResult(0);
      user->replaceUsesOfWith(cast.getResult(), copy);
    }
  }
}

/// Writes a norm without weight and bias (the normalised input that a
/// backward recomputes for a norm's scale gradient) as (x - mean) /
/// deviation from amp.norm_stats of its input, where a norm of the same
/// input, epsilon and axis runs before it (the forward's) and only
/// elementwise ops read it: that norm's row kernel stores the statistics
/// (groupNormStats), and the subtraction and division run in the loads of
/// the kernel that reads them (a scale gradient's column sums), so the
/// normalised tensor is neither computed by a row kernel nor stored. Bit
/// for bit the norm's result: the same statistics (NormStatsOp), and the
/// subtraction and division in the same type, f32 or f64 throughout.
void normalizeFromStats(Block &body) {
  llvm::DenseMap<Operation *, NormStatsOp> statsOf;
  for (Operation &op : llvm::make_early_inc_range(body)) {
    auto layerNorm = dyn_cast<LayerNormOp>(op);
    auto rmsNorm = dyn_cast<RmsNormOp>(op);
    if ((!layerNorm || layerNorm.getWeight() || layerNorm.getBias()) &&
        (!rmsNorm || rmsNorm.getWeight()))
      continue;
    Value x = op.getOperand(0);
    Type element = getElementTypeOrSelf(x.getType());
    if ((!element.isF32() && !element.isF64()) ||
        !llvm::all_of(op.getUsers(), isFusibleElementwise))
      continue;
    FloatAttr epsilon =
        layerNorm ? layerNorm.getEpsilonAttr() : rmsNorm.getEpsilonAttr();
    IntegerAttr axisAttr =
        layerNorm ? layerNorm.getAxisAttr() : rmsNorm.getAxisAttr();
    int64_t axis =
        layerNorm ? layerNorm.getNormalizedAxis() : rmsNorm.getNormalizedAxis();
    // The norm before it whose statistics these are.
    NormStatsOp stats;
    for (Operation *other : x.getUsers()) {
      if (other == &op || other->getBlock() != &body ||
          !other->isBeforeInBlock(&op) || !isa<LayerNormOp, RmsNormOp>(other))
        continue;
      if (NormStatsOp known = statsOf.lookup(other)) {
        if (known.getEpsilonAttr() == epsilon &&
            known.getCentered() == bool(layerNorm) &&
            known.getNormalizedAxis() == axis) {
          stats = known;
          break;
        }
        continue;
      }
      SmallVector<int64_t> shape(shapeOf(x));
      for (size_t d = axis; d < shape.size(); ++d)
        shape[d] = 1;
      auto type = RankedTensorType::get(shape, element);
      OpBuilder builder(other->getBlock(), std::next(other->getIterator()));
      auto built = builder.create<NormStatsOp>(
          op.getLoc(), type, type, x, axisAttr, epsilon,
          layerNorm ? builder.getUnitAttr() : UnitAttr());
      if (!built.isComputedBy(other)) {
        built->erase();
        continue;
      }
      statsOf[other] = stats = built;
      break;
    }
    if (!stats)
      continue;
    OpBuilder builder(&op);
    Value normalized =
        layerNorm ? builder.create<SubOp>(op.getLoc(), x, stats.getMean()) : x;
    normalized =
        builder.create<DivOp>(op.getLoc(), normalized, stats.getDeviation());
    op.getResult(0).replaceAllUsesWith(normalized);
    op.erase();
  }
}

/// Adjacent optimizer updates that can run as one launch over many tensors:
/// like updates (isLikeUpdate), no update reading another's result, and every
/// final value (the guard's select, else the update's result) read only after
/// the run's last op, where the merged kernel runs.
SmallVector<SmallVector<Operation *>> findUpdateRuns(Block &body) {
  llvm::DenseMap<Operation *, int64_t> index;
  for (auto [i, op] : llvm::enumerate(body))
    index[&op] = i;
  auto finalValues = [](Operation *update) {
    SmallVector<Value> values;
    SmallVector<Operation *> selects = getGuardSelects(update);
    for (OpResult result : update->getResults())
      values.push_back(selects.empty()
                           ? Value(result)
                           : selects[result.getResultNumber()]->getResult(0));
    return values;
  };
  auto lastOf = [&](Operation *update) {
    int64_t last = index.lookup(update);
    for (Operation *select : getGuardSelects(update))
      last = std::max(last, index.lookup(select));
    return last;
  };
  auto closeRun = [&](SmallVector<Operation *> &run,
                      SmallVector<SmallVector<Operation *>> &runs) {
    // A reader between a member and the merged kernel would run too early.
    while (run.size() > 1) {
      int64_t last = 0;
      for (Operation *update : run)
        last = std::max(last, lastOf(update));
      bool early = llvm::any_of(run, [&](Operation *update) {
        return llvm::any_of(finalValues(update), [&](Value value) {
          return llvm::any_of(value.getUsers(), [&](Operation *user) {
            return index.lookup(user) <= last;
          });
        });
      });
      if (!early)
        break;
      run.pop_back();
    }
    if (run.size() > 1)
      runs.push_back(run);
    run.clear();
  };

  SmallVector<SmallVector<Operation *>> runs;
  SmallVector<Operation *> run;
  for (Operation &op : body) {
    auto update = dyn_cast<OptimizerUpdateOpInterface>(&op);
    if (update && !run.empty()) {
      bool joins = op.getPrevNode() == run.back() &&
                   isLikeUpdate(&op, run.front()) &&
                   llvm::none_of(op.getOperands(), [&](Value operand) {
                     return llvm::is_contained(run, operand.getDefiningOp());
                   });
      if (joins) {
        run.push_back(&op);
        continue;
      }
    }
    closeRun(run, runs);
    if (update)
      run.push_back(&op);
  }
  closeRun(run, runs);
  return runs;
}

/// Moves the ops of every amp.fusion in `body` back into it, so that a
/// fused step can be fused again.
void inlineFusions(Block &body) {
  for (auto fusion : llvm::make_early_inc_range(body.getOps<FusionOp>())) {
    for (auto [argument, input] :
         llvm::zip(fusion.getBlock().getArguments(), fusion.getInputs()))
      argument.replaceAllUsesWith(input);
    fusion.replaceAllUsesWith(fusion.getYield().getValues());
    for (Operation &op : llvm::make_early_inc_range(fusion.getKernelOps()))
      op.moveBefore(fusion);
    fusion.erase();
  }
}

/// Outlines `ops` (in block order, the last one last) into an amp.fusion
/// in place of the last: its inputs are the values the ops read from
/// outside the group, its results the values read outside it or by
/// nothing, which the rest of the step then reads from the fusion. Fails
/// when the ops make no kernel (analyzeKernel), which the rules below
/// never group.
LogicalResult outline(ArrayRef<Operation *> ops) {
  llvm::SmallPtrSet<Operation *, 8> members(ops.begin(), ops.end());
  auto isMember = [&](Operation *op) { return members.contains(op); };
  SmallVector<Value> inputs, yielded;
  llvm::SmallPtrSet<Value, 8> seen;
  for (Operation *op : ops) {
    for (Value operand : op->getOperands())
      if (!isMember(operand.getDefiningOp()) && seen.insert(operand).second)
        inputs.push_back(operand);
    for (Value result : op->getResults())
      if (result.use_empty() ||
          llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !isMember(user); }))
        yielded.push_back(result);
  }
  Operation *last = ops.back();
  OpBuilder builder(last);
  auto fusion = builder.create<FusionOp>(
      last->getLoc(), ValueRange(yielded).getTypes(), inputs);
  builder.setInsertionPointToEnd(&fusion.getBlock());
  auto yield = builder.create<YieldOp>(last->getLoc(), yielded);
  for (Operation *op : ops)
    op->moveBefore(yield);
  auto inside = [&](OpOperand &use) {
    return fusion->isProperAncestor(use.getOwner());
  };
  for (auto [input, argument] :
       llvm::zip(inputs, fusion.getBlock().getArguments()))
    input.replaceUsesWithIf(argument, inside);
  for (auto [value, result] : llvm::zip(yielded, fusion.getResults()))
    value.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !inside(use) && use.getOwner() != yield;
    });
  return fusion.setKernelFromOps();
}

/// The kernels of a step as the rules below group its ops: the number of
/// each op's kernel, set rule after rule in the order of
/// FusePass::runOnOperation; outlineKernels then makes each group an
/// amp.fusion, whose kind and root analyzeKernel gives.
class KernelGrouping {
public:
  explicit KernelGrouping(Block &body) : body(body) {}

  void groupElementwiseChains();
  void groupGathers();
  void groupGuardsAndRuns();
  void groupPrologues();
  void groupRowEpilogues();
  void groupNormStats();
  void groupStoredPrologues();
  void groupLossGradients();
  void groupCastRuns();
  LogicalResult outlineKernels();

private:
  /// Lists the ops of each kernel so far, in block order.
  void listMembers() {
    members.clear();
    for (Operation &op : body) {
      auto found = kernelOf.find(&op);
      if (found != kernelOf.end())
        members[found->second].push_back(&op);
    }
  }

  Block &body;
  llvm::DenseMap<Operation *, int64_t> kernelOf;
  llvm::DenseMap<int64_t, SmallVector<Operation *>> members;
};

void KernelGrouping::groupElementwiseChains() {
  // Epilogues first: the relus they take are no longer elementwise roots.
  llvm::DenseMap<Operation *, Operation *> epilogueOwner;
  for (auto matmul : body.getOps<MatmulOp>())
    if (ReluOp relu = epilogueOf(matmul))
      epilogueOwner[relu] = matmul;

  // Elementwise chains, from the last op backwards: an op joins the
  // kernel of its users when they all belong to one elementwise kernel
  // of its own shape.
  int64_t next = 0;
  for (Operation &op : llvm::reverse(body)) {
    if (isa<func::ReturnOp>(op) || isView(&op) || epilogueOwner.count(&op))
      continue;
    std::optional<int64_t> joined;
    if (isFusibleElementwise(&op) && op.getNumResults() == 1) {
      Value result = op.getResult(0);
      for (Operation *user : result.getUsers()) {
        auto found = kernelOf.find(user);
        bool fits = isFusibleElementwise(user) && found != kernelOf.end() &&
                    shapeOf(user->getResult(0)) == shapeOf(result) &&
                    (!joined || *joined == found->second);
        if (!fits) {
          joined.reset();
          break;
        }
        joined = found->second;
      }
    }
    kernelOf[&op] = joined ? *joined : next++;
  }
  for (auto [owner, matmul] : epilogueOwner)
    kernelOf[owner] = kernelOf.lookup(matmul);
}

void KernelGrouping::groupGathers() {
  // A transpose or slice read only by another transpose, slice or concat,
  // directly or through reshapes only it reads, runs in that op's loads,
  // which read its operand where it would have (a head split: a slice,
  // reshape and transpose in one pass; a merge of head gradients:
  // transposes, reshapes and their concat in one). From the last op
  // back, so that a chain joins the kernel of its end.
  for (Operation &op : llvm::reverse(body)) {
    if (!isa<TransposeOp, SliceOp>(op) || isView(&op))
      continue;
    SmallVector<Operation *> views;
    Operation *user = singleUser(op.getResult(0));
    while (user && isView(user) && user->getNumResults() == 1) {
      views.push_back(user);
      user = singleUser(user->getResult(0));
    }
    if (!user || !isa<TransposeOp, SliceOp, ConcatOp>(user) || isView(user) ||
        user->getBlock() != &body)
      continue;
    int64_t gather = kernelOf.lookup(user);
    kernelOf[&op] = gather;
    for (Operation *view : views)
      kernelOf[view] = gather;
  }
}

void KernelGrouping::groupGuardsAndRuns() {
  // The selects that keep the old state on a skipped step join their
  // optimizer update: it stores its results over the state it replaces.
  for (Operation &op : body)
    for (Operation *select : getGuardSelects(&op))
      kernelOf[select] = kernelOf.lookup(&op);
  // Runs of like updates become one multi-tensor kernel.
  for (ArrayRef<Operation *> run : findUpdateRuns(body))
    for (Operation *update : run.drop_front()) {
      kernelOf[update] = kernelOf.lookup(run.front());
      for (Operation *select : getGuardSelects(update))
        kernelOf[select] = kernelOf.lookup(run.front());
    }
  // The multiply that scales a gradient by clipping's coefficient joins
  // the update that alone reads the product, which multiplies as it loads
  // (where the multiply is a kernel of its own: one that computes more
  // for other readers stays as it is).
  listMembers();
  for (Operation &op : body) {
    Operation *scale = getGradientScale(&op);
    if (!scale || !kernelOf.count(scale))
      continue;
    int64_t own = kernelOf.lookup(scale);
    if (members.lookup(own).size() == 1)
      kernelOf[scale] = kernelOf.lookup(&op);
  }
}

void KernelGrouping::groupPrologues() {
  // An elementwise kernel read only by one reduction (sum, mean or max)
  // or row op, as its operand, runs in that kernel's loads and its
  // values are never stored: a layer norm's scale gradient sums a
  // product, a layer norm's input gradient reads dy * scale. (Not a
  // cross-entropy gradient's: its logits are read whole for the
  // statistics, its labels and the loss's gradient are not elementwise
  // with it.)
  listMembers();
  for (Operation &op : body) {
    if (!op.hasTrait<OpTrait::amp::OperandsInLoads>())
      continue;
    for (Value operand : op.getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (!producer || !kernelOf.count(producer))
        continue;
      int64_t group = kernelOf.lookup(producer);
      auto listed = members.find(group);
      if (listed == members.end() || group == kernelOf.lookup(&op))
        continue;
      ArrayRef<Operation *> chain = listed->second;
      auto readHereOnly = [&](Operation *member) {
        return !member->use_empty() &&
               llvm::all_of(member->getUsers(), [&](Operation *user) {
                 auto found = kernelOf.find(user);
                 return user == &op ||
                        (found != kernelOf.end() && found->second == group);
               });
      };
      if (chain.back() != producer ||
          !llvm::all_of(chain, isFusibleElementwise) ||
          !llvm::all_of(chain, readHereOnly))
        continue;
      for (Operation *member : chain)
        kernelOf[member] = kernelOf.lookup(&op);
    }
  }
}

void KernelGrouping::groupRowEpilogues() {
  // The elementwise kernel that reads a row op's result (a layer norm's
  // output cast to bf16 for the next GEMM) runs in the row kernel's
  // stores, when it is the only one that reads it and nothing else reads
  // what the row kernel computes before that kernel would run (where its
  // last op is); and so on from that kernel's last value (a layer norm's
  // input gradient added to the residual's, then cast to bf16 for the
  // next GEMM: each value the kernel computes is stored where others
  // read it). From the last row op back, so that a later row kernel has
  // taken the elementwise ops it reads (the next layer norm's gradient
  // adds this one's) before an earlier one looks for its own.
  listMembers();
  for (Operation &op : llvm::reverse(body)) {
    // Its kernel may have a prologue, nothing after it yet.
    if (!op.hasTrait<OpTrait::amp::RowKernel>() ||
        members.lookup(kernelOf.lookup(&op)).back() != &op)
      continue;
    const int64_t rowKernel = kernelOf.lookup(&op);
    ArrayRef<int64_t> shape = shapeOf(op.getResult(0));
    SmallVector<Value> computed{op.getResult(0)};
    Value value = op.getResult(0);
    while (value) {
      // The elementwise kernels (loops: not another row kernel's
      // epilogue) that read it.
      std::optional<int64_t> group;
      bool single = true;
      for (Operation *user : value.getUsers()) {
        auto found = kernelOf.find(user);
        if (found == kernelOf.end() || found->second == rowKernel ||
            !llvm::all_of(members.lookup(found->second), isFusibleElementwise))
          continue;
        single &= !group || *group == found->second;
        group = found->second;
      }
      if (!group || !single)
        break;
      ArrayRef<Operation *> chain = members.find(*group)->second;
      Operation *last = chain.back();
      auto fits = [&](Operation *member) {
        return isFusibleElementwise(member) &&
               shapeOf(member->getResult(0)) == shape;
      };
      auto afterKernel = [&](Operation *user) {
        auto found = kernelOf.find(user);
        return (found != kernelOf.end() &&
                (found->second == rowKernel || found->second == *group)) ||
               (user->getBlock() == &body && last->isBeforeInBlock(user));
      };
      bool readAfter = llvm::all_of(computed, [&](Value computedValue) {
        return llvm::all_of(computedValue.getUsers(), afterKernel);
      });
      if (!llvm::all_of(chain, fits) || !readAfter)
        break;
      value = last->getNumResults() == 1 ? last->getResult(0) : Value();
      for (Operation *member : chain) {
        kernelOf[member] = rowKernel;
        llvm::append_range(computed, member->getResults());
      }
      listMembers();
    }
  }
}

void KernelGrouping::groupNormStats() {
  // An amp.norm_stats joins the kernel of the norm that computes its
  // statistics (normalizeFromStats), which stores them from each row's
  // leading lane, when every reader of them runs after that kernel (where
  // its last op is, its epilogue grouped already), and every reader of
  // the kernel's values after the statistics, where they come last.
  listMembers();
  for (auto stats : body.getOps<NormStatsOp>()) {
    for (Operation *norm : stats.getInput().getUsers()) {
      if (norm->getBlock() != &body || !kernelOf.count(norm) ||
          !stats.isComputedBy(norm))
        continue;
      int64_t kernel = kernelOf.lookup(norm);
      ArrayRef<Operation *> ops = members.find(kernel)->second;
      Operation *last = ops.back();
      if (last->isBeforeInBlock(stats))
        last = stats;
      auto after = [&](Operation *user) {
        Operation *at = body.findAncestorOpInBlock(*user);
        auto found = kernelOf.find(at);
        return at && (last->isBeforeInBlock(at) ||
                      (found != kernelOf.end() && found->second == kernel));
      };
      bool readAfter = llvm::all_of(stats->getUsers(), after);
      for (Operation *member : ops)
        readAfter &= llvm::all_of(member->getUsers(), after);
      if (readAfter) {
        kernelOf[stats] = kernel;
        listMembers();
      }
      break;
    }
  }
}

void KernelGrouping::groupStoredPrologues() {
  // The elementwise kernel that computes a row op's input (its operand 0,
  // of the row op's shape), when others read that value too: the row
  // kernel computes it in its loads and stores it once, as it stores its
  // row, so the value is written without being read back (a residual
  // stream's sum, which the next layer norm, the next residual add and
  // the backward read: llm.c's fused residual and layer norm). Only when
  // the chain's other values have no reader outside it and every other
  // reader of the input runs after the row kernel (where its last op is).
  listMembers();
  for (Operation &op : body) {
    if (!op.hasTrait<OpTrait::amp::RowKernel>() ||
        !op.hasTrait<OpTrait::amp::OperandsInLoads>() ||
        op.getNumOperands() == 0 || !kernelOf.count(&op))
      continue;
    Value input = op.getOperand(0);
    Operation *producer = input.getDefiningOp();
    int64_t rowKernel = kernelOf.lookup(&op);
    // Read once by the row op: its other loads compute nothing stored.
    if (!producer || !kernelOf.count(producer) ||
        kernelOf.lookup(producer) == rowKernel ||
        shapeOf(input) != shapeOf(op.getResult(0)) ||
        llvm::count(op.getOperands(), input) != 1)
      continue;
    int64_t group = kernelOf.lookup(producer);
    ArrayRef<Operation *> chain = members.find(group)->second;
    auto innerOnly = [&](Operation *member) {
      return member == producer ||
             llvm::all_of(member->getUsers(), [&](Operation *user) {
               auto found = kernelOf.find(user);
               return found != kernelOf.end() && found->second == group;
             });
    };
    Operation *last = members.find(rowKernel)->second.back();
    auto afterKernel = [&](Operation *user) {
      // The row op, or the statistics its kernel computes of the same row.
      auto stats = dyn_cast<NormStatsOp>(user);
      if (user == &op || (stats && stats.isComputedBy(&op) &&
                          kernelOf.lookup(user) == rowKernel))
        return true;
      auto found = kernelOf.find(user);
      return (found == kernelOf.end() || found->second != rowKernel) &&
             user->getBlock() == &body && last->isBeforeInBlock(user);
    };
    if (chain.back() != producer ||
        !llvm::all_of(chain, isFusibleElementwise) ||
        !llvm::all_of(chain, innerOnly) ||
        !llvm::all_of(input.getUsers(), afterKernel))
      continue;
    for (Operation *member : chain)
      kernelOf[member] = rowKernel;
    listMembers();
  }
}

void KernelGrouping::groupLossGradients() {
  // A cross-entropy and its gradient over the same logits and labels
  // are one kernel, which reads each row once for both (where the
  // gradient was: the loss's users all come after it).
  for (Operation &op : body) {
    auto grad = dyn_cast<CrossEntropyGradOp>(op);
    if (!grad)
      continue;
    for (Operation *user : grad.getLogits().getUsers()) {
      auto loss = dyn_cast<CrossEntropyOp>(user);
      auto after = [&](Operation *later) {
        return later->getBlock() == &body && grad->isBeforeInBlock(later);
      };
      if (!loss || loss->getBlock() != &body || !loss->isBeforeInBlock(grad) ||
          !grad.isGradientOf(loss) || !llvm::all_of(loss->getUsers(), after))
        continue;
      kernelOf[grad] = kernelOf.lookup(loss);
      break;
    }
  }
}

void KernelGrouping::groupCastRuns() {
  // Casts that are kernels of their own and alike in element types run as
  // one launch (KernelKind::casts): those of the function's arguments (a
  // mixed-precision step's f16 or bf16 copies of its f32 parameters) move
  // up to the first of them, as their operands are there from the start;
  // the others (the f32 copies of the parameters' gradients) move down to
  // the last of them, when nothing reads any before it.
  listMembers();
  using Types = std::pair<Type, Type>;
  llvm::MapVector<Types, SmallVector<Operation *>> hoisted, sunk;
  for (auto cast : body.getOps<CastOp>()) {
    auto found = kernelOf.find(cast);
    if (found == kernelOf.end() || members[found->second].size() != 1)
      continue;
    Types types{getElementTypeOrSelf(cast.getInput().getType()),
                getElementTypeOrSelf(cast.getType())};
    (isa<BlockArgument>(cast.getInput()) ? hoisted : sunk)[types].push_back(
        cast);
  }
  int64_t next = 0;
  for (auto &entry : kernelOf)
    next = std::max(next, entry.second + 1);
  // A launch's functor holds its tensors' addresses and starts (24 bytes
  // a tensor): at most kMaxRun a launch keeps it within the 32 KB of
  // parameters CUDA 12.1 and later allow.
  constexpr size_t kMaxRun = 256;
  auto numberRun = [&](ArrayRef<Operation *> casts) {
    for (size_t i = 0; i < casts.size(); ++i) {
      if (i > 0 && i % kMaxRun == 0)
        ++next;
      kernelOf[casts[i]] = next;
    }
    ++next;
  };
  for (auto &[types, casts] : hoisted) {
    if (casts.size() < 2)
      continue;
    for (size_t i = 1; i < casts.size(); ++i)
      casts[i]->moveAfter(casts[i - 1]);
    numberRun(casts);
  }
  for (auto &[types, casts] : sunk) {
    // Drop the casts read before the last of the run, until none is.
    bool dropped = true;
    while (dropped && casts.size() > 1) {
      Operation *last = casts.back();
      auto readEarly = [&](Operation *cast) {
        return llvm::any_of(cast->getUsers(), [&](Operation *user) {
          Operation *at = body.findAncestorOpInBlock(*user);
          return !at || at == last || at->isBeforeInBlock(last);
        });
      };
      size_t before = casts.size();
      llvm::erase_if(casts, readEarly);
      dropped = casts.size() != before;
    }
    if (casts.size() < 2)
      continue;
    for (Operation *cast : ArrayRef(casts).drop_back())
      cast->moveBefore(casts.back());
    numberRun(casts);
  }
}

LogicalResult KernelGrouping::outlineKernels() {
  // Each kernel becomes an amp.fusion where its last op was: they run
  // in that order.
  llvm::MapVector<int64_t, SmallVector<Operation *>> groups;
  for (Operation &op : body) {
    auto found = kernelOf.find(&op);
    if (found != kernelOf.end())
      groups[found->second].push_back(&op);
  }
  for (auto &[kernel, ops] : groups)
    if (failed(outline(ops)))
      return failure();
  return success();
}

struct FusePass : mlir::amp::impl::AmpFuseBase<FusePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    Block &body = func.getBody().front();
    inlineFusions(body);
    if (failed(checkCompilable(func)))
      return signalPassFailure();
    foldBiasAdds(body);
    duplicateWideningCasts(body);
    normalizeFromStats(body);
    markAttentionViews(body);
    KernelGrouping grouping(body);
    grouping.groupElementwiseChains();
    grouping.groupGathers();
    grouping.groupGuardsAndRuns();
    grouping.groupPrologues();
    grouping.groupRowEpilogues();
    grouping.groupNormStats();
    grouping.groupStoredPrologues();
    grouping.groupLossGradients();
    grouping.groupCastRuns();
    if (failed(grouping.outlineKernels()))
      signalPassFailure();
  }
};

} // namespace
