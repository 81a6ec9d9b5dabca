//===- Backend.cpp - what the backend passes and the emitter share --------===//

#include "amp/Dialect/Amp/Transforms/Backend.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "amp_runtime/gemm.h"
#include "amp_runtime/launch_grid.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::backend;

int64_t backend::getByteSize(Type type, int64_t floatBytes16) {
  // checkCompilable checked that it fits.
  return *getCheckedByteSize(cast<RankedTensorType>(type), floatBytes16);
}

int64_t backend::getScratchBytes(Operation *op) {
  if (auto grad = dyn_cast<EmbeddingGradOp>(op)) {
    // The end of each row's bucket, then the ids' positions bucketed, then
    // amp_id_buckets' workspace.
    int64_t rows = grad.getType().getDimSize(0);
    int64_t ids =
        cast<RankedTensorType>(grad.getIndices().getType()).getNumElements();
    int64_t bytes = 0, workspace = amprt::idBucketsWorkspace(ids);
    if (workspace < 0 || llvm::AddOverflow(rows, ids, bytes) ||
        llvm::MulOverflow(bytes, int64_t(8), bytes) ||
        llvm::AddOverflow(bytes, workspace, bytes))
      return INT64_MAX; // --amp-plan-buffers reports that it does not fit
    return bytes;
  }
  if (std::optional<amp_conv2d_t> conv = getRuntimeConvolution(op)) {
    // The decomposition's intermediates (amprt::conv2dWorkspace); cuDNN
    // takes this or the stream's workspace, the larger.
    amp_conv2d_pass_t pass = isa<Conv2dOp>(op) ? AMP_CONV2D_FORWARD
                             : isa<Conv2dGradInputOp>(op)
                                 ? AMP_CONV2D_BACKWARD_DATA
                                 : AMP_CONV2D_BACKWARD_FILTER;
    auto forward = dyn_cast<Conv2dOp>(op);
    return amprt::conv2dWorkspace(*conv, pass, forward && forward.getBias())
        .bytes;
  }
  if (std::optional<amp_batch_norm_t> norm = getRuntimeBatchNorm(op))
    return amprt::batchNormWorkspace(*norm).bytes;
  if (auto grad = dyn_cast<AttentionGradOp>(op)) {
    // amp_attention_backward_workspace: the f32 sums of dK and dV, or
    // cuDNN's workspace, unless they are f32 and summed in place.
    auto query = cast<RankedTensorType>(grad.getQuery().getType());
    auto key = cast<RankedTensorType>(grad.getKey().getType());
    int64_t bytes = amprt::attentionBackwardWorkspace(
        !key.getElementType().isF32(),
        query.getDimSize(0) * query.getDimSize(1), query.getDimSize(2),
        key.getDimSize(2), query.getDimSize(3));
    return bytes < 0 ? INT64_MAX : bytes;
  }
  if (auto matmul = dyn_cast<MatmulOp>(op); matmul && matmul.isFp8()) {
    // amp_gemm_fp8_scratch_bytes of the one GEMM the step calls: the scales
    // and the operands' FP8 copies, every batch of each.
    auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
    auto rhs = cast<RankedTensorType>(matmul.getRhs().getType());
    int64_t k = matmul.getTransposeLhs() ? lhs.getDimSize(lhs.getRank() - 2)
                                         : lhs.getShape().back();
    amp_gemm_t gemm{};
    gemm.a_fp8 = AMP_FP8_E4M3;
    // Operands cast before (amp.fp8_cast): the scales only.
    Type element = lhs.getElementType();
    gemm.fp8_operands = element.isFloat8E4M3FN() || element.isFloat8E5M2();
    gemm.m = k ? lhs.getNumElements() / k : 0;
    gemm.n = k ? rhs.getNumElements() / k : 0;
    gemm.k = k;
    gemm.batch = 1;
    int64_t bytes = amp_gemm_fp8_scratch_bytes(&gemm);
    return bytes ? bytes : INT64_MAX;
  }
  auto loss = dyn_cast<CrossEntropyOp>(op);
  if (!loss)
    return 0;
  auto logits = cast<RankedTensorType>(loss.getLogits().getType());
  int64_t rows =
      cast<RankedTensorType>(loss.getLabels().getType()).getNumElements();
  return rows * (logits.getElementType().isF64() ? 8 : 4);
}

/// amp_conv2d_t's storage type of `type`, if it has one.
static std::optional<amp_dtype_t> runtimeDtypeOf(Type type) {
  Type element = cast<RankedTensorType>(type).getElementType();
  if (element.isF32())
    return AMP_F32;
  if (element.isF16())
    return AMP_F16;
  if (element.isBF16())
    return AMP_BF16;
  return std::nullopt;
}

std::optional<amp_conv2d_t> backend::getRuntimeConvolution(Operation *op) {
  // The image (or the image's gradient), the weight (or its gradient), the
  // output (or its gradient), whichever are operands or the result.
  Value image, weight, output;
  FloatType acc;
  Conv2dWindow window;
  int64_t groups = 1;
  if (auto conv = dyn_cast<Conv2dOp>(op)) {
    image = conv.getInput();
    weight = conv.getWeight();
    output = conv.getResult();
    acc = conv.getAccumulatorType();
    window = conv.getWindow();
    groups = conv.getGroupCount();
  } else if (auto grad = dyn_cast<Conv2dGradInputOp>(op)) {
    image = grad.getResult();
    weight = grad.getWeight();
    output = grad.getGrad();
    acc = grad.getAccumulatorType();
    window = grad.getWindow();
    groups = grad.getGroupCount();
  } else if (auto grad = dyn_cast<Conv2dGradWeightOp>(op)) {
    image = grad.getInput();
    weight = grad.getResult();
    output = grad.getGrad();
    acc = grad.getAccumulatorType();
    window = grad.getWindow();
    groups = grad.getGroupCount();
  } else {
    return std::nullopt;
  }
  std::optional<amp_dtype_t> dtype = runtimeDtypeOf(image.getType());
  std::optional<amp_dtype_t> yDtype = runtimeDtypeOf(output.getType());
  if (!dtype || !yDtype || !acc.isF32() ||
      runtimeDtypeOf(weight.getType()) != dtype)
    return std::nullopt;
  // Only the forward's result may be wider than its operands.
  if (yDtype != dtype && (!isa<Conv2dOp>(op) || *yDtype != AMP_F32))
    return std::nullopt;
  ArrayRef<int64_t> x = cast<RankedTensorType>(image.getType()).getShape();
  ArrayRef<int64_t> w = cast<RankedTensorType>(weight.getType()).getShape();
  ArrayRef<int64_t> y = cast<RankedTensorType>(output.getType()).getShape();
  // The sizes the runtime accepts (amp_conv2d_*'s checks): the columns and
  // the output, as f32 with room to spare, so that the workspace's sizes
  // fit in int64 too.
  if (!getCheckedProduct({x[0], x[1], w[2], w[3], y[2], y[3], 16}) ||
      !getCheckedProduct({y[0], y[1], y[2], y[3], 16}))
    return std::nullopt;
  amp_conv2d_t conv{*dtype, *yDtype, x[0], x[1], x[2], x[3],
                    w[0],   groups,  {},   {},   {},   {}};
  llvm::copy(window.kernel, conv.kernel);
  llvm::copy(window.strides, conv.strides);
  llvm::copy(window.dilations, conv.dilations);
  llvm::copy(window.padding, conv.padding);
  return conv;
}

std::optional<amp_batch_norm_t> backend::getRuntimeBatchNorm(Operation *op) {
  Value input, runningMean;
  SmallVector<Value> f32Values; // the parameters and their gradients
  double epsilon, momentum = 0.0;
  bool training;
  if (auto norm = dyn_cast<BatchNormOp>(op)) {
    input = norm.getInput();
    runningMean = norm.getRunningMean();
    f32Values = {norm.getWeight(), norm.getBias()};
    epsilon = norm.getEpsilon().convertToDouble();
    momentum = norm.getMomentum().convertToDouble();
    training = norm.getTraining();
  } else if (auto grad = dyn_cast<BatchNormGradOp>(op)) {
    input = grad.getInput();
    runningMean = grad.getRunningMean();
    f32Values = {grad.getWeight(), grad.getScaleGrad(), grad.getBiasGrad()};
    epsilon = grad.getEpsilon().convertToDouble();
    training = grad.getTraining();
  } else {
    return std::nullopt;
  }
  std::optional<amp_dtype_t> dtype = runtimeDtypeOf(input.getType());
  if (!dtype || runtimeDtypeOf(runningMean.getType()) != AMP_F32)
    return std::nullopt;
  for (Value value : f32Values)
    if (value && runtimeDtypeOf(value.getType()) != AMP_F32)
      return std::nullopt;
  ArrayRef<int64_t> shape = cast<RankedTensorType>(input.getType()).getShape();
  // The sizes the runtime accepts: the activations as f32 in int64 bytes.
  std::optional<int64_t> spatial =
      shape.size() == 4 ? getCheckedProduct({shape[2], shape[3]}) : 1;
  if (!spatial || !getCheckedProduct({shape[0], shape[1], *spatial, 4}))
    return std::nullopt;
  return amp_batch_norm_t{*dtype,  shape[0], shape[1],        *spatial,
                          epsilon, momentum, training ? 1 : 0};
}

Value backend::getOutsideValue(Value value) {
  auto argument = dyn_cast<BlockArgument>(value);
  if (!argument)
    return value;
  if (auto fusion = dyn_cast<FusionOp>(argument.getOwner()->getParentOp()))
    return fusion.getInputs()[argument.getArgNumber()];
  return value;
}

Operation *backend::getComputingOp(Value value) {
  value = getOutsideValue(value);
  auto fusion = value.getDefiningOp<FusionOp>();
  if (!fusion)
    return value.getDefiningOp();
  return getComputingOp(
      fusion.getYield().getValues()[cast<OpResult>(value).getResultNumber()]);
}

void backend::getUsesInKernels(Value value,
                               SmallVectorImpl<OpOperand *> &uses) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (auto fusion = dyn_cast<FusionOp>(user))
      getUsesInKernels(fusion.getBlock().getArgument(use.getOperandNumber()),
                       uses);
    else if (isa<YieldOp>(user))
      getUsesInKernels(user->getParentOp()->getResult(use.getOperandNumber()),
                       uses);
    else
      uses.push_back(&use);
  }
}

//===----------------------------------------------------------------------===//
// Attention operands read and written in place by strides
//===----------------------------------------------------------------------===//

namespace {
/// A view of memory: element (i0, i1, ...) at offset + sum(i_k * strides[k]).
struct StridedView {
  SmallVector<int64_t> shape, strides;
  int64_t offset = 0;
};

StridedView denseView(Value value) {
  StridedView view;
  auto shape = cast<RankedTensorType>(value.getType()).getShape();
  view.shape.assign(shape.begin(), shape.end());
  view.strides.assign(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    view.strides[d - 1] = view.strides[d] * shape[d];
  return view;
}

/// `view` read as `shape`, where its strides can say it: each group of
/// dimensions whose sizes multiply to the same on both sides must be
/// contiguous among themselves on the old side.
bool reshapeView(StridedView &view, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  size_t i = 0, j = 0;
  const size_t n = view.shape.size(), m = shape.size();
  while (i < n || j < m) {
    // Dimensions of size 1 take no part: their strides do not matter.
    if (i < n && view.shape[i] == 1) {
      ++i;
      continue;
    }
    if (j < m && shape[j] == 1) {
      ++j;
      continue;
    }
    if (i == n || j == m)
      return false;
    size_t oldEnd = i + 1, newEnd = j + 1;
    int64_t oldSize = view.shape[i], newSize = shape[j];
    while (oldSize != newSize) {
      if (oldSize < newSize) {
        if (oldEnd == n)
          return false;
        oldSize *= view.shape[oldEnd++];
      } else {
        if (newEnd == m)
          return false;
        newSize *= shape[newEnd++];
      }
    }
    // The group's old dimensions (those not of size 1) must be contiguous
    // among themselves; its innermost stride steps the new ones.
    int64_t step = -1, span = 0;
    for (size_t k = oldEnd; k-- > i;) {
      if (view.shape[k] == 1)
        continue;
      if (step >= 0 && view.strides[k] != span)
        return false;
      if (step < 0)
        step = view.strides[k];
      span = view.strides[k] * view.shape[k];
    }
    for (size_t k = newEnd; k-- > j;) {
      strides[k] = step;
      step *= shape[k];
    }
    i = oldEnd;
    j = newEnd;
  }
  view.shape.assign(shape.begin(), shape.end());
  view.strides = std::move(strides);
  return true;
}

/// `view` as `op` (a slice, a transpose or a reshape) reads it.
bool applyView(Operation *op, StridedView &view) {
  if (auto slice = dyn_cast<SliceOp>(op)) {
    for (auto [d, start] : llvm::enumerate(slice.getStart())) {
      view.offset += start * view.strides[d];
      view.shape[d] = slice.getLimit()[d] - start;
    }
    return true;
  }
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    StridedView moved = view;
    for (auto [d, from] : llvm::enumerate(transpose.getPermutation())) {
      moved.shape[d] = view.shape[from];
      moved.strides[d] = view.strides[from];
    }
    view = std::move(moved);
    return true;
  }
  if (op->hasTrait<OpTrait::amp::MemoryView>() && op->getNumResults() == 1)
    return reshapeView(
        view, cast<RankedTensorType>(op->getResult(0).getType()).getShape());
  return false;
}

/// The layout of the [batch, heads, seq, head_dim] tensor that `chain`
/// (the views from the last to the first) makes of `owner`'s memory, laid
/// out as `start`.
std::optional<AttentionLayout> layoutThrough(Value owner, StridedView view,
                                             ArrayRef<Operation *> chain) {
  for (Operation *op : llvm::reverse(chain))
    if (!applyView(op, view))
      return std::nullopt;
  if (view.shape.size() != 4 || view.strides[3] != 1)
    return std::nullopt;
  AttentionLayout layout;
  layout.owner = owner;
  layout.offset = view.offset;
  layout.batch = view.strides[0];
  layout.head = view.strides[1];
  layout.seq = view.strides[2];
  const int64_t heads = view.shape[1], seq = view.shape[2], dim = view.shape[3];
  layout.dense = layout.offset == 0 && layout.seq == dim &&
                 layout.head == seq * dim && layout.batch == heads * seq * dim;
  return layout;
}

/// Whether `use` reads an attention's query, key, value, output or output
/// gradient (not its log-sum-exp).
bool isAttentionTensorUse(OpOperand &use) {
  Operation *user = use.getOwner();
  if (isa<AttentionOp>(user))
    return use.getOperandNumber() < 3;
  if (auto grad = dyn_cast<AttentionGradOp>(user))
    return use.get() != grad.getLse();
  return false;
}

bool isHeadMerge(Operation *op) {
  auto transpose = dyn_cast<TransposeOp>(op);
  return transpose &&
         transpose.getPermutation() == ArrayRef<int64_t>{0, 2, 1, 3};
}

/// The value outside every amp.fusion that `value` stands for: the input
/// bound to a fusion's argument, or the fusion's result that yields an
/// op's result inside it.
Value outsideOf(Value value) {
  value = getOutsideValue(value);
  if (auto result = dyn_cast<OpResult>(value))
    if (isa_and_nonnull<FusionOp>(result.getOwner()->getParentOp()))
      for (OpOperand &use : result.getUses())
        if (isa<YieldOp>(use.getOwner()))
          return use.getOwner()->getParentOp()->getResult(
              use.getOperandNumber());
  return value;
}

/// Whether `owner` (outside every fusion) is an attention's result that a
/// marked head merge reads: it is stored in the merge's order.
bool storedAsMerged(Value owner) {
  return isa_and_nonnull<AttentionOp>(getComputingOp(owner)) &&
         llvm::any_of(owner.getUsers(), [](Operation *user) {
           return isHeadMerge(user) && user->hasAttr(kAttentionViewAttr);
         });
}
} // namespace

std::optional<AttentionLayout> backend::getAttentionLayout(Value value) {
  Value owner = outsideOf(value);
  SmallVector<Operation *> chain;
  while (Operation *def = owner.getDefiningOp()) {
    if (!isView(def))
      break;
    chain.push_back(def);
    owner = def->getOperand(0);
  }
  if (storedAsMerged(owner)) {
    // [batch, heads, seq, dim] stored as [batch, seq, heads, dim].
    if (!chain.empty())
      return std::nullopt;
    auto shape = cast<RankedTensorType>(owner.getType()).getShape();
    AttentionLayout layout;
    layout.owner = owner;
    layout.batch = shape[1] * shape[2] * shape[3];
    layout.head = shape[3];
    layout.seq = shape[1] * shape[3];
    layout.dense = false;
    return layout;
  }
  return layoutThrough(owner, denseView(owner), chain);
}

void backend::markAttentionViews(Block &body) {
  auto mark = [](Operation *op) {
    op->setAttr(kAttentionViewAttr, UnitAttr::get(op->getContext()));
  };
  // Head merges first: an attention whose result only its merge and
  // attention gradients (as their output) read writes it in the merge's
  // order, and the merge moves nothing.
  for (auto attention : body.getOps<AttentionOp>()) {
    Operation *merge = nullptr;
    bool alone = true;
    for (OpOperand &use : attention.getResult().getUses()) {
      Operation *user = use.getOwner();
      if (isHeadMerge(user) && !merge)
        merge = user;
      else if (!isa<AttentionGradOp>(user) || use.getOperandNumber() != 3)
        alone = false;
    }
    if (merge && alone)
      mark(merge);
  }
  // Head splits: a transpose only attentions read, after slices,
  // transposes and reshapes that only the next reads.
  for (auto transpose : body.getOps<TransposeOp>()) {
    Value result = transpose.getResult();
    if (transpose->hasAttr(kAttentionViewAttr) || result.use_empty() ||
        !llvm::all_of(result.getUses(), isAttentionTensorUse))
      continue;
    SmallVector<Operation *> chain{transpose};
    Value owner = transpose.getInput();
    while (Operation *def = owner.getDefiningOp()) {
      bool moves =
          isa<SliceOp, TransposeOp>(def) && !def->hasAttr(kAttentionViewAttr);
      if (!owner.hasOneUse() || (!moves && !isView(def)))
        break;
      chain.push_back(def);
      owner = def->getOperand(0);
    }
    if (storedAsMerged(owner) || !layoutThrough(owner, denseView(owner), chain))
      continue;
    for (Operation *op : chain)
      if (isa<SliceOp, TransposeOp>(op))
        mark(op);
  }
}

SmallVector<unsigned> backend::getThreadedArguments(func::FuncOp func) {
  SmallVector<unsigned> threaded;
  bool scaled = false;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    if (!func.getArgAttr(i, AmpDialect::kParamAttrName) &&
        !func.getArgAttr(i, AmpDialect::kStateAttrName))
      continue;
    scaled |=
        static_cast<bool>(func.getArgAttr(i, AmpDialect::kLossScaleAttrName));
    threaded.push_back(i);
  }
  if (func.getNumResults() != threaded.size() + (scaled ? 2 : 1))
    return {};
  for (auto [k, i] : llvm::enumerate(threaded))
    if (func.getResultTypes()[k] != func.getArgumentTypes()[i])
      return {};
  return threaded;
}

/// Element types the generated code loads and stores (FP8: amp.fp8_cast's
/// results, which only the runtime's FP8 GEMMs read).
static bool isSupportedElement(Type type) {
  if (type.isF16() || type.isBF16() || type.isF32() || type.isF64() ||
      type.isFloat8E4M3FN() || type.isFloat8E5M2())
    return true;
  auto integer = dyn_cast<IntegerType>(type);
  return integer && (integer.getWidth() == 1 || integer.getWidth() == 32 ||
                     integer.getWidth() == 64);
}

static LogicalResult checkType(Location loc, Type type, const Twine &what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return emitError(loc) << "the backend needs static shapes; " << what
                          << " is " << type;
  if (!isSupportedElement(tensor.getElementType()))
    return emitError(loc) << "the backend cannot store " << what << " of type "
                          << type;
  // Values no amp op verified (arguments only returned, say) included.
  if (failed(verifyStorableTensor([&] { return emitError(loc); }, type, what)))
    return failure();
  if (!getCheckedByteSize(tensor, 4))
    return emitError(loc) << what << " of type " << type
                          << " is too large: its size as f32, which the "
                             "memory report gives, does not fit in 64 bits";
  return success();
}

LogicalResult backend::checkCompilable(func::FuncOp func) {
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return func.emitError() << "the backend compiles functions with one "
                               "block; @"
                            << func.getSymName() << " has "
                            << (func.isExternal() ? "no body" : "several");
  for (BlockArgument arg : func.getArguments())
    if (failed(checkType(arg.getLoc(), arg.getType(),
                         "argument #" + Twine(arg.getArgNumber()))))
      return failure();
  WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
    if (op == func.getOperation() || isa<func::ReturnOp>(op))
      return WalkResult::advance();
    if (isa<func::CallOp>(op))
      return op->emitError() << "the backend compiles one function; inline "
                                "the calls first (--inline)";
    if (!isa<AmpDialect>(op->getDialect()))
      return op->emitError() << "'" << op->getName()
                             << "' is not supported by the backend (only "
                                "amp ops are compiled)";
    for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
      if (failed(checkType(op->getLoc(), type, "result #" + Twine(i))))
        return WalkResult::interrupt();
    if (auto matmul = dyn_cast<MatmulOp>(op)) {
      Type a = matmul.getLhs().getType().getElementType();
      Type c = matmul.getType().getElementType();
      Type acc = matmul.getAccumulatorType();
      // FP8 operands (cast before) give f16, bf16 or f32.
      bool fp8 = a.isFloat8E4M3FN() || a.isFloat8E5M2();
      if (a.isF64() || !acc.isF32() || (c != a && !c.isF32() && !fp8) ||
          (fp8 && c.isF64()))
        return op->emitError()
               << "the backend runs matmuls on f16, bf16 or f32 operands "
                  "with f32 accumulation and a result of the operand type "
                  "or f32 (as cuBLASLt does); this one has "
               << a << " operands, " << acc << " accumulation and a " << c
               << " result";
    }
    auto checkAttention = [&](auto attention) -> LogicalResult {
      auto q = cast<RankedTensorType>(attention.getQuery().getType());
      auto k = cast<RankedTensorType>(attention.getKey().getType());
      auto v = cast<RankedTensorType>(attention.getValue().getType());
      if (q.getElementType().isF64() || q.getDimSize(3) > 256 ||
          v.getDimSize(3) != q.getDimSize(3))
        return op->emitError()
               << "the backend's attention takes f16, bf16 or f32 heads of "
                  "at most 256 channels, with values as wide as keys";
      if (attention.getCausal() && q.getDimSize(2) != k.getDimSize(2))
        return op->emitError()
               << "the backend's causal attention needs as many queries as "
                  "keys; this one has "
               << q.getDimSize(2) << " and " << k.getDimSize(2);
      return success();
    };
    if (auto attention = dyn_cast<AttentionOp>(op))
      if (failed(checkAttention(attention)))
        return WalkResult::interrupt();
    if (auto grad = dyn_cast<AttentionGradOp>(op))
      if (failed(checkAttention(grad)))
        return WalkResult::interrupt();
    if (auto unscale = dyn_cast<UnscaleOp>(op))
      for (Value grad : unscale.getGrads())
        if (!cast<RankedTensorType>(grad.getType()).getElementType().isF32())
          return op->emitError() << "the backend unscales f32 gradients";
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

FailureOr<SmallVector<backend::IndexCheck>>
backend::getIndexChecks(func::FuncOp func) {
  SmallVector<IndexCheck> checks;
  auto inRange = [](int64_t value, int64_t bound,
                    std::optional<int64_t> ignored) {
    return (value >= 0 && value < bound) || value == ignored;
  };
  WalkResult walk = func.walk([&](IndexReaderOpInterface reader) {
    int64_t bound = reader.getIndexBound();
    std::optional<int64_t> ignored = reader.getIgnoredIndex();
    SmallVector<Value> worklist{reader.getIndexOperand()};
    llvm::SmallPtrSet<Operation *, 8> seen;
    while (!worklist.empty()) {
      Value value = getOutsideValue(worklist.pop_back_val());
      if (auto argument = dyn_cast<BlockArgument>(value)) {
        IndexCheck check{argument.getArgNumber(), bound, ignored, reader};
        if (llvm::none_of(checks, [&](const IndexCheck &c) {
              return c.argument == check.argument && c.bound == bound &&
                     c.ignored == ignored;
            }))
          checks.push_back(check);
        continue;
      }
      Operation *source = value.getDefiningOp();
      if (!seen.insert(source).second)
        continue;
      if (auto fusion = dyn_cast<FusionOp>(source)) {
        // The value its kernel computes.
        seen.erase(source);
        worklist.push_back(
            fusion.getYield()
                .getValues()[cast<OpResult>(value).getResultNumber()]);
        continue;
      }
      if (source->hasTrait<OpTrait::amp::ShapeFamily>()) {
        llvm::append_range(worklist, source->getOperands());
        continue;
      }
      if (auto constant = dyn_cast<ConstantOp>(source)) {
        auto values = dyn_cast<DenseIntElementsAttr>(constant.getValue());
        if (values) {
          for (const APInt &element : values.getValues<APInt>()) {
            int64_t index = element.getSExtValue();
            if (inRange(index, bound, ignored))
              continue;
            InFlightDiagnostic diag = reader->emitError()
                                      << "index " << index
                                      << " of a constant is outside [0, "
                                      << bound << ")";
            diag.attachNote(source->getLoc()) << "the constant";
            return WalkResult::interrupt();
          }
          continue;
        }
      }
      if (auto iota = dyn_cast<IotaOp>(source)) {
        auto type = cast<RankedTensorType>(iota.getType());
        int64_t largest = type.getDimSize(iota.getDim()) - 1;
        if (type.getNumElements() == 0 || inRange(largest, bound, ignored))
          continue;
        InFlightDiagnostic diag = reader->emitError()
                                  << "index " << largest
                                  << " of an iota is outside [0, " << bound
                                  << ")";
        diag.attachNote(source->getLoc()) << "the iota";
        return WalkResult::interrupt();
      }
      InFlightDiagnostic diag =
          reader->emitError()
          << "these indices come from '" << source->getName()
          << "', whose values cannot be checked before the step runs";
      diag.attachNote(source->getLoc()) << "the op that computes them";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return checks;
}

backend::ParamInit backend::getParamInit(func::FuncOp func, unsigned argument) {
  // A layer amp-decompose rewrote said how it starts.
  if (auto init = func.getArgAttrOfType<DenseF64ArrayAttr>(
          argument, AmpDialect::kParamInitAttrName))
    return {static_cast<int64_t>(init[0]), init[1]};
  // The inner dimension of a matmul: the one its products sum over.
  auto innerOf = [](MatmulOp matmul) {
    auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
    return lhs.getDimSize(lhs.getRank() - (matmul.getTransposeLhs() ? 2 : 1));
  };
  // The op that computes `value`, looking through casts (and into the
  // kernel that yields it, on a fused step).
  auto producerOf = [](Value value) -> Operation * {
    Operation *op = getComputingOp(value);
    while (auto cast = dyn_cast_or_null<CastOp>(op))
      op = getComputingOp(cast.getInput());
    return op;
  };
  // Its uses through casts, in program order: the forward op that reads
  // a parameter comes before the backward ops (a weight is also the
  // transposed operand of its input's gradient).
  SmallVector<OpOperand *> uses;
  SmallVector<Value> worklist{func.getArgument(argument)};
  while (!worklist.empty()) {
    SmallVector<OpOperand *> direct;
    getUsesInKernels(worklist.pop_back_val(), direct);
    for (OpOperand *use : direct) {
      if (auto cast = dyn_cast<CastOp>(use->getOwner()))
        worklist.push_back(cast.getResult());
      else
        uses.push_back(use);
    }
  }
  // In the order the ops run: by their kernels, then inside a kernel.
  Block &body = func.getBody().front();
  llvm::stable_sort(uses, [&](OpOperand *a, OpOperand *b) {
    Operation *x = a->getOwner(), *y = b->getOwner();
    if (x->getBlock() == y->getBlock())
      return x->isBeforeInBlock(y);
    Operation *kernelX = body.findAncestorOpInBlock(*x);
    Operation *kernelY = body.findAncestorOpInBlock(*y);
    return kernelX != kernelY && kernelX->isBeforeInBlock(kernelY);
  });
  for (OpOperand *use : uses) {
    Operation *user = use->getOwner();
    if (auto norm = dyn_cast<LayerNormOp>(user)) {
      if (use->get() == norm.getWeight())
        return {0, 1.0};
      if (use->get() == norm.getBias())
        return {0, 0.0};
    }
    if (auto norm = dyn_cast<RmsNormOp>(user);
        norm && use->get() == norm.getWeight())
      return {0, 1.0};
    // The weight, or the bias, of a matmul.
    if (auto matmul = dyn_cast<MatmulOp>(user);
        matmul && use->getOperandNumber() >= 1)
      return {innerOf(matmul), 0.0};
    if (isa<AddOp>(user)) {
      Value other = user->getOperand(1 - use->getOperandNumber());
      if (auto matmul = dyn_cast_or_null<MatmulOp>(producerOf(other)))
        return {innerOf(matmul), 0.0};
    }
  }
  auto type = cast<RankedTensorType>(func.getArgument(argument).getType());
  return {type.getRank() >= 1 ? std::max<int64_t>(type.getDimSize(0), 1) : 1,
          0.0};
}
