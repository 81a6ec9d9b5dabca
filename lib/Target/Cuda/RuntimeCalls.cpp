//===- RuntimeCalls.cpp - GEMMs, attention, convolutions, loss scaling ----===//
//
// Kernels the runtime provides (amp_runtime/runtime.h): the GEMMs, with
// their bias and relu epilogues (cuBLASLt on the GPU), attention, the
// convolutions and their gradients (cuDNN on the GPU), the
// dynamic loss scaler's unscale and update, and clipping's sum of squares.
// The step calls them with the pointers of the plan; the runtime's host
// backend runs the same calls in CI.
//
//===----------------------------------------------------------------------===//

#include "StepEmitter.h"

#include "amp_runtime/float_formats.h"
#include "amp_runtime/launch_grid.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Backend.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::backend;
using namespace mlir::amp::cuda;

/// What a GEMM of `ab` operands and a `c` result with these leading
/// dimensions (in elements, row-major) lacks of cuBLASLt's fast path on
/// Hopper, or empty: tensor-core kernels fed by TMA, which want each
/// matrix's rows to start on 16 bytes (the cuBLAS documentation's
/// "Tensor Core Usage"); f32 GEMMs run on the f32 units either way.
static std::string gemmPrecondition(Type ab, Type c, int64_t lda, int64_t ldb,
                                    int64_t ldc) {
  if (ab.isF32())
    return {};
  int64_t abBytes = 2, cBytes = c.isF32() ? 4 : 2;
  if ((lda * abBytes) % 16 == 0 && (ldb * abBytes) % 16 == 0 &&
      (ldc * cBytes) % 16 == 0)
    return {};
  return "cuBLASLt's Hopper tensor-core kernels want rows in multiples of "
         "16 bytes; A's are " +
         std::to_string(lda * abBytes) + ", B's " +
         std::to_string(ldb * abBytes) + ", C's " +
         std::to_string(ldc * cBytes) +
         " (pad the dimensions to multiples "
         "of 8)";
}

/// The runtime's amp_fp8_t of an FP8 type (f8E4M3FN or f8E5M2).
static std::string runtimeFp8Format(Type format) {
  return format.isFloat8E5M2() ? "AMP_FP8_E5M2" : "AMP_FP8_E4M3";
}

namespace {
FailureOr<std::string> scratchPointer(Operation *op, StepEmitter &emitter,
                                      StringRef type);
} // namespace

LogicalResult StepEmitter::emitGemm(ArrayRef<Operation *> ops) {
  auto matmul = cast<MatmulOp>(ops.front());
  Operation *last = ops.back();
  auto lhs = tensorOf(matmul.getLhs()), rhs = tensorOf(matmul.getRhs());
  auto out = tensorOf(matmul.getResult());
  int64_t rank = out.getRank();
  int64_t m = out.getDimSize(rank - 2), n = out.getDimSize(rank - 1);
  int64_t k = matmul.getTransposeLhs() ? lhs.getDimSize(lhs.getRank() - 2)
                                       : lhs.getShape().back();
  ArrayRef<int64_t> lhsBatch = lhs.getShape().drop_back(2);
  ArrayRef<int64_t> rhsBatch = rhs.getShape().drop_back(2);
  ArrayRef<int64_t> outBatch = out.getShape().drop_back(2);
  int64_t batch = product(outBatch);
  bool sameBatch = lhsBatch == outBatch && rhsBatch == outBatch;
  bool foldIntoRows = rhsBatch.empty() && !matmul.getTransposeLhs();
  // The kernel is the matmul and, with a bias, the relu its epilogue
  // applies (a `gemm` kernel, KernelAnalysis.h).
  Value bias = matmul.getBias();
  std::string epilogue = ops.size() == 2 ? "AMP_EPILOGUE_BIAS_RELU"
                         : bias          ? "AMP_EPILOGUE_BIAS"
                                         : "AMP_EPILOGUE_NONE";
  std::string kernel = kernelName(ops);
  raw_indented_ostream &s = step();
  s << "// " << kernel << ":\n";
  for (Operation *op : ops)
    s << commentLines("  " + describe(op), 2);
  std::string a = pointerOf(matmul.getLhs(), false),
              b = pointerOf(matmul.getRhs(), false),
              c = pointerOf(last->getResult(0), true),
              biasPointer = bias ? pointerOf(bias, false) : "nullptr";
  // [..., M, K] x [K, N] folds into one GEMM of (batch * M) rows.
  bool one = sameBatch || batch == 1;
  int64_t rows = !one && foldIntoRows ? batch * m : m;
  int64_t count = one ? batch : 1;
  // An FP8 GEMM scales each operand as a whole: one call, its scratch.
  // Operands of FP8 types were cast before (amp.fp8_cast), K-major.
  bool fp8 = matmul.isFp8();
  bool fp8Operands = !isa<BFloat16Type, Float16Type, Float32Type, Float64Type>(
      lhs.getElementType());
  if (fp8Operands && (matmul.getTransposeLhs() || !matmul.getTransposeRhs() ||
                      lhs.getRank() != 2 || rhs.getRank() != 2))
    return matmul.emitError()
           << "amp-to-cuda: an FP8 GEMM of FP8 operands reads them as "
              "matrices, K-major (lhs [M, K], rhs transposed [N, K]), as "
              "amp-fp8-casts writes it";
  std::string fp8Scratch = "nullptr";
  if (fp8) {
    if (!one && !foldIntoRows)
      return matmul.emitError()
             << "amp-to-cuda: an FP8 GEMM whose batches broadcast runs as a "
                "GEMM per batch, and each would scale its own slice; give "
                "both operands the batch dimensions";
    if (rows % 16 || n % 16 || k % 16)
      return matmul.emitError()
             << "amp-to-cuda: an FP8 GEMM of " << rows << " x " << n
             << " outputs over " << k
             << " needs each in multiples of 16 (cuBLASLt's FP8 kernels)";
    FailureOr<std::string> scratch = scratchPointer(matmul, *this, "void");
    if (failed(scratch))
      return failure();
    fp8Scratch = *scratch;
  }
  // An FP8 GEMM's runtime kernels before cuBLASLt's (fp8_bodies.h): the
  // operands' amax (a max an element) unless delayed scaling gives the
  // scales, the scales (one thread), the casts (each element read, its FP8
  // byte written).
  Value delayedScales = matmul.getScales();
  if (fp8) {
    if (!delayedScales) {
      int64_t fp8Elements = lhs.getNumElements() + rhs.getNumElements();
      int64_t largest = std::max(lhs.getNumElements(), rhs.getNumElements());
      amprt::Grid amaxGrid = amprt::elementGrid(largest);
      KernelCost amax{kernel + "_fp8_amax", "elementwise", 1, amaxGrid.blocks,
                      amaxGrid.threads};
      amax.flops = fp8Elements;
      recordLaunch(std::move(amax),
                   {{matmul.getLhs(), false}, {matmul.getRhs(), false}});
    }
    KernelCost scales{kernel + "_fp8_scales", "scalar", 1, 1, 1};
    scales.serialAccesses = 2;
    recordLaunch(std::move(scales), {});
    // A cast each operand: a thread an element where the operand is K-major
    // already, else a block a tile of the transpose.
    // None where the operands were cast before.
    int64_t batchCount = one ? batch : 1;
    SmallVector<std::tuple<const char *, Value, bool, int64_t>, 2> casts;
    if (!fp8Operands)
      casts = {std::tuple("_fp8_cast_a", matmul.getLhs(),
                          matmul.getTransposeLhs(), rows),
               std::tuple("_fp8_cast_b", matmul.getRhs(),
                          !matmul.getTransposeRhs(), n)};
    for (auto [suffix, operand, transposed, rows] : casts) {
      int64_t elements =
          cast<RankedTensorType>(operand.getType()).getNumElements();
      amprt::Grid grid = amprt::elementGrid(elements);
      if (transposed) {
        amprt::Grid3 tiles = amprt::fp8TransposedGrid(rows, k, batchCount);
        grid = {tiles.x * tiles.y * tiles.z, amprt::kBlockThreads};
      }
      KernelCost castCost{kernel + suffix,
                          transposed ? "transpose" : "elementwise", 1,
                          grid.blocks, grid.threads};
      castCost.flops = 2 * elements; // a product and a rounding each
      castCost.bytesWritten = elements;
      recordLaunch(std::move(castCost), {{operand, false}});
    }
  }
  // cuBLASLt picks the grid. The epilogue adds the bias (and the relu) per
  // output; a GEMM per output matrix reads its operands' matrices anew.
  KernelCost cost{kernel, fp8 ? "gemm-fp8" : "gemm",
                  one || foldIntoRows ? 1 : batch};
  cost.fp8 = fp8;
  int64_t epilogueOps = epilogue == "AMP_EPILOGUE_NONE"        ? 0
                        : epilogue == "AMP_EPILOGUE_BIAS_RELU" ? 2
                                                               : 1;
  cost.flops = (2 * k + epilogueOps) * batch * m * n;
  cost.tensorCore = fp8 || !lhs.getElementType().isF32();
  // `rows` of each GEMM, `batch` of them unless folded into the rows.
  cost.gemm = KernelCost::Gemm{rows, n, k, one || !foldIntoRows ? batch : 1};
  // (FP8 rows are multiples of 16 bytes: checked above.)
  if (!fp8)
    cost.precondition = gemmPrecondition(
        lhs.getElementType(), out.getElementType(),
        matmul.getTransposeLhs() ? m : k, matmul.getTransposeRhs() ? k : n, n);
  int64_t lhsBytes = getByteSize(lhs), rhsBytes = getByteSize(rhs);
  if (cost.launches > 1) {
    lhsBytes = batch * (lhsBytes / std::max<int64_t>(product(lhsBatch), 1));
    rhsBytes = batch * (rhsBytes / std::max<int64_t>(product(rhsBatch), 1));
  }
  if (fp8) // the FP8 copies, a byte an element
    lhsBytes = lhs.getNumElements(), rhsBytes = rhs.getNumElements();
  // An f32 output's f32 bias is added after an FP8 GEMM (cuBLASLt's FP8
  // kernels add only a bf16 one to it): a pass over the output.
  bool biasAfter = fp8 && bias && out.getElementType().isF32();
  cost.bytesRead =
      lhsBytes + rhsBytes +
      (bias && !biasAfter ? cost.launches * getByteSize(tensorOf(bias)) : 0);
  cost.bytesWritten = getByteSize(tensorOf(last->getResult(0)));
  if (biasAfter)
    cost.flops -= epilogueOps * batch * m * n;
  recordLaunch(std::move(cost), {});
  if (biasAfter) {
    amprt::Grid grid = amprt::elementGrid(batch * m * n);
    KernelCost add{kernel + "_fp8_bias", "elementwise", 1, grid.blocks,
                   grid.threads};
    add.flops = epilogueOps * batch * m * n;
    add.bytesRead = getByteSize(tensorOf(bias));
    recordLaunch(std::move(add),
                 {{last->getResult(0), false}, {last->getResult(0), true}});
  }
  s << "{\n";
  SmallVector<FieldInit> fields{
      {"ab_dtype",
       runtimeDtype(fp8Operands ? out.getElementType() : lhs.getElementType())
           .str()},
      {"c_dtype", runtimeDtype(out.getElementType()).str()},
      {"trans_a", matmul.getTransposeLhs() ? "1" : "0"},
      {"trans_b", matmul.getTransposeRhs() ? "1" : "0"},
      {"m", std::to_string(rows)},
      {"n", std::to_string(n)},
      {"k", std::to_string(k)},
      {"batch", std::to_string(count)},
      {"alpha", "1.0f"},
      {"beta", "0.0f"},
      {"epilogue", epilogue}};
  if (fp8)
    fields.append({{"a_fp8", runtimeFp8Format(*matmul.getLhsFp8())},
                   {"b_fp8", runtimeFp8Format(*matmul.getRhsFp8())},
                   {"fp8_scratch", fp8Scratch}});
  if (fp8 && delayedScales) {
    std::string scales = pointerOf(delayedScales, false);
    ArrayRef<int64_t> index = *matmul.getFp8ScaleIndex();
    fields.append({{"a_scale", scales + " + " + std::to_string(index[0])},
                   {"b_scale", scales + " + " + std::to_string(index[1])}});
  }
  if (fp8Operands)
    fields.push_back({"fp8_operands", "1"});
  s.indent() << designatedInit("amp_gemm_t", "g", fields) << "\n";
  if (one || foldIntoRows) {
    s << "AMP_STEP_CHECK(amp_gemm(stream, &g, " + a + ", " + b + ", " +
             biasPointer + ", " + c + "));"
      << "\n";
    s.unindent() << "}\n";
    return success();
  }
  // Broadcast batches: one GEMM per output matrix.
  auto batchOffset = [&](ArrayRef<int64_t> own, int64_t matrix) {
    std::string text;
    SmallVector<int64_t> outStrides = computeStrides(outBatch);
    SmallVector<int64_t> ownStrides = computeStrides(own);
    size_t offset = outBatch.size() - own.size();
    for (size_t d = 0; d < own.size(); ++d)
      if (own[d] != 1)
        text += (text.empty() ? "" : " + ") +
                scaled(coordinateOf("j", outStrides[d + offset],
                                    outBatch[d + offset], batch),
                       ownStrides[d] * matrix);
    return text.empty() ? std::string("0") : text;
  };
  s << "for (int64_t j = 0; j < " << batch << "; ++j)\n";
  s.indent() << "AMP_STEP_CHECK(amp_gemm(stream, &g, " + a + " + (" +
                    batchOffset(lhsBatch, m * k) + "), " + b + " + (" +
                    batchOffset(rhsBatch, k * n) + "), " + biasPointer + ", " +
                    c + " + j * " + std::to_string(m * n) + "));"
             << "\n";
  s.unindent().unindent() << "}\n";
  return success();
}

namespace {

/// The pointer to `op`'s scratch memory (getScratchBytes), as `type *`;
/// "nullptr" where it needs none.
FailureOr<std::string> scratchPointer(Operation *op, StepEmitter &emitter,
                                      StringRef type) {
  if (getScratchBytes(op) == 0)
    return std::string("nullptr");
  auto at = op->getAttrOfType<IntegerAttr>(kScratchAttr);
  if (!at)
    return op->emitError() << "amp-to-cuda: this op has no scratch memory; "
                              "run --amp-plan-buffers first";
  return emitter.arenaPointer(type, at.getInt());
}

/// Where an attention reads or writes each of its tensors (named as
/// amp_attention_t's layouts): its memory's pointer, from the element the
/// tensor starts at, and, unless dense, its layout there (markAttentionViews).
struct AttentionTensors {
  SmallVector<std::pair<StringRef, std::string>> layouts;
  llvm::StringMap<std::string> pointers;
};

FailureOr<AttentionTensors>
attentionTensors(Operation *op, StepEmitter &emitter,
                 ArrayRef<std::tuple<StringRef, Value, bool>> tensors) {
  AttentionTensors result;
  for (auto [name, value, writes] : tensors) {
    std::optional<AttentionLayout> layout = getAttentionLayout(value);
    if (!layout)
      return op->emitError() << "amp-to-cuda: the attention's " << name
                             << " has no layout the runtime can read";
    std::string pointer = emitter.pointerOf(value, writes);
    if (layout->offset)
      pointer = "(" + pointer + " + " + std::to_string(layout->offset) + ")";
    result.pointers[name] = pointer;
    if (!layout->dense)
      result.layouts.push_back({name, "amp_attention_layout_t{" +
                                          std::to_string(layout->batch) + ", " +
                                          std::to_string(layout->head) + ", " +
                                          std::to_string(layout->seq) + "}"});
  }
  return result;
}

/// The runtime's description of an attention op (amp_attention_t), with
/// the layouts of `tensors` that are not dense, in amp_attention_t's order.
template <typename OpT>
std::string attentionDescriptor(OpT op, const AttentionTensors &tensors) {
  auto q = tensorOf(op.getQuery());
  SmallVector<std::pair<StringRef, std::string>> fields = {
      {"dtype", runtimeDtype(q.getElementType()).str()},
      {"batch", std::to_string(q.getDimSize(0) * q.getDimSize(1))},
      {"seq_q", std::to_string(q.getDimSize(2))},
      {"seq_k", std::to_string(tensorOf(op.getKey()).getDimSize(2))},
      {"head_dim", std::to_string(q.getDimSize(3))},
      {"scale", hexLiteral(op.getScaleOrDefault())},
      {"causal", op.getCausal() ? "1" : "0"}};
  if (!tensors.layouts.empty()) {
    fields.push_back({"heads", std::to_string(q.getDimSize(1))});
    for (StringRef name : {"q", "k", "v", "out", "dout", "dq", "dk", "dv"})
      for (const auto &[layoutName, layout] : tensors.layouts)
        if (layoutName == name)
          fields.push_back({name, layout});
  }
  return designatedInit("amp_attention_t", "a", fields);
}

/// What the cost of an attention kernel depends on: its rows (batch x
/// heads), queries per row, head dim, the (query, key) pairs of a row it
/// visits (all of them, or with a causal mask those of query t with keys
/// 0..t), and whether the GPU runs it on cuDNN.
struct AttentionShape {
  int64_t rows, queries, keys, dim, pairs;
  bool onCudnn;

  KernelCost::Attention work(bool causal, bool backward) const {
    return {rows, queries, keys, dim, causal, backward};
  }
};

template <typename OpT> AttentionShape attentionShape(OpT op) {
  auto q = tensorOf(op.getQuery());
  int64_t queries = q.getDimSize(2);
  int64_t keys = tensorOf(op.getKey()).getDimSize(2);
  int64_t pairs = queries * keys;
  if (op.getCausal()) {
    pairs = 0;
    for (int64_t t = 0; t < queries; ++t)
      pairs += std::min(keys, t + 1);
  }
  return {q.getDimSize(0) * q.getDimSize(1),
          queries,
          keys,
          q.getDimSize(3),
          pairs,
          amprt::attentionOnCudnn(q.getElementType().isF16() ||
                                      q.getElementType().isBF16(),
                                  q.getDimSize(3))};
}

/// The launch record of the runtime's attention kernels: a warp per query
/// row, kRowsPerBlock rows a block.
KernelCost attentionLaunch(OpKernel &kernel, StringRef strategy,
                           const AttentionShape &shape) {
  int64_t queryRows = shape.rows * shape.queries;
  return {kernel.getName().str(), strategy.str(), 1,
          (queryRows + amprt::kRowsPerBlock - 1) / amprt::kRowsPerBlock,
          amprt::kBlockThreads};
}

LogicalResult emitAttention(AttentionOp op, OpKernel &kernel) {
  kernel.comment();
  StepEmitter &emitter = kernel.getEmitter();
  FailureOr<AttentionTensors> tensors =
      attentionTensors(op, emitter,
                       {{"q", op.getQuery(), false},
                        {"k", op.getKey(), false},
                        {"v", op.getValue(), false},
                        {"out", op.getResult(), true}});
  if (failed(tensors))
    return failure();
  raw_indented_ostream &s = kernel.step();
  s << "{\n";
  s.indent() << attentionDescriptor(op, *tensors) << "\n"
             << "AMP_STEP_CHECK(amp_attention_forward(stream, &a, " +
                    tensors->pointers["q"] + ", " + tensors->pointers["k"] +
                    ", " + tensors->pointers["v"] + ", " +
                    tensors->pointers["out"] + ", " +
                    (op.getLse() ? emitter.pointerOf(op.getLse(), true)
                                 : std::string("nullptr")) +
                    "));"
             << "\n";
  s.unindent() << "}\n";

  AttentionShape shape = attentionShape(op);
  KernelCost cost;
  if (shape.onCudnn) {
    // cuDNN's fused attention: per visible pair of a query and a key, the
    // score's and the output's dot products on tensor cores (4 * head_dim)
    // and an exp; its softmax bookkeeping is not counted. One launch.
    cost = {kernel.getName().str(), "attention-cudnn"};
    cost.flops = shape.rows * shape.pairs * 4 * shape.dim;
    cost.tensorCore = true;
    cost.attention = shape.work(op.getCausal(), /*backward=*/false);
  } else {
    // The runtime's kernel: a warp per query row. Per pair of a query and
    // a key it sees: a dot product and a weighted sum of values of
    // head_dim (4 * head_dim FLOPs), the score's scale and running max and
    // sum (4) and an exp; a causal mask skips the keys after the query.
    cost = attentionLaunch(kernel, "attention", shape);
    cost.flops = shape.rows * shape.pairs * (4 * shape.dim + 4);
  }
  cost.transcendentals = shape.rows * shape.pairs;
  SmallVector<std::pair<Value, bool>> accesses{{op.getQuery(), false},
                                               {op.getKey(), false},
                                               {op.getValue(), false},
                                               {op.getResult(), true}};
  if (op.getLse())
    accesses.push_back({op.getLse(), true});
  emitter.recordLaunch(std::move(cost), accesses);
  return success();
}

LogicalResult emitAttentionGrad(AttentionGradOp op, OpKernel &kernel) {
  kernel.comment();
  StepEmitter &emitter = kernel.getEmitter();
  // f16 and bf16 sum dK and dV in the op's f32 scratch.
  FailureOr<std::string> workspace = scratchPointer(op, emitter, "float");
  if (failed(workspace))
    return failure();
  FailureOr<AttentionTensors> tensors =
      attentionTensors(op, emitter,
                       {{"q", op.getQuery(), false},
                        {"k", op.getKey(), false},
                        {"v", op.getValue(), false},
                        {"out", op.getOutput(), false},
                        {"dout", op.getGrad(), false},
                        {"dq", op.getQueryGrad(), true},
                        {"dk", op.getKeyGrad(), true},
                        {"dv", op.getValueGrad(), true}});
  if (failed(tensors))
    return failure();
  llvm::StringMap<std::string> &at = tensors->pointers;
  raw_indented_ostream &s = kernel.step();
  s << "{\n";
  s.indent() << attentionDescriptor(op, *tensors) << "\n"
             << "AMP_STEP_CHECK(amp_attention_backward(\n";
  s.indent() << "stream, &a, " + at["q"] + ", " + at["k"] + ", " + at["v"] +
                    ", " + at["out"] + ",\n"
             << at["dout"] + ", " + emitter.pointerOf(op.getLse(), false) +
                    ", " + at["dq"] + ", " + at["dk"] + ", " + at["dv"] + ", " +
                    *workspace + "));"
             << "\n";
  s.unindent().unindent() << "}\n";

  AttentionShape shape = attentionShape(op);
  KernelCost cost;
  if (shape.onCudnn) {
    // cuDNN's fused backward, as FlashAttention-2's: per visible pair the
    // score recomputed and the dp, dv, dq and dk products on tensor cores
    // (10 * head_dim) and p's exp; its row sums of dout * out and softmax
    // bookkeeping are not counted. Three launches: those row sums, the
    // main kernel, dq from its f32 accumulator.
    cost = {kernel.getName().str(), "attention-grad-cudnn", 3};
    cost.flops = shape.rows * shape.pairs * 10 * shape.dim;
    cost.tensorCore = true;
    cost.attention = shape.work(op.getCausal(), /*backward=*/true);
  } else {
    // Per row: sum(grad * output) (2 * head_dim). Per visible pair: the
    // score and grad . value dots, the sums into dv, dq and dk (10 *
    // head_dim), p's scale and shift and ds (5) and p's exp. The f32 sums
    // of dK and dV in scratch are not counted, as no kernel's scratch is.
    cost = attentionLaunch(kernel, "attention-grad", shape);
    cost.flops = shape.rows * (shape.queries * 2 * shape.dim +
                               shape.pairs * (10 * shape.dim + 5));
  }
  cost.transcendentals = shape.rows * shape.pairs;
  emitter.recordLaunch(std::move(cost), {{op.getQuery(), false},
                                         {op.getKey(), false},
                                         {op.getValue(), false},
                                         {op.getOutput(), false},
                                         {op.getGrad(), false},
                                         {op.getLse(), false},
                                         {op.getQueryGrad(), true},
                                         {op.getKeyGrad(), true},
                                         {op.getValueGrad(), true}});
  return success();
}

/// amp_conv2d_t's dtype as C++.
StringRef dtypeName(amp_dtype_t dtype) {
  return dtype == AMP_F16    ? "AMP_F16"
         : dtype == AMP_BF16 ? "AMP_BF16"
                             : "AMP_F32";
}

/// A convolution or one of its gradients, which --amp-decompose (with
/// keep-convolutions) left whole: one call of the runtime's amp_conv2d_*
/// (conv.h), cuDNN's fprop, dgrad or wgrad on the GPU.
LogicalResult emitConvolution(Operation *op, OpKernel &kernel) {
  std::optional<amp_conv2d_t> conv = getRuntimeConvolution(op);
  if (!conv)
    return op->emitError() << "amp-to-cuda: the runtime does not run this "
                              "convolution whole; run --amp-decompose first";
  const amp_conv2d_t &c = *conv;
  kernel.comment();
  StepEmitter &emitter = kernel.getEmitter();
  FailureOr<std::string> workspace = scratchPointer(op, emitter, "char");
  if (failed(workspace))
    return failure();
  auto pair = [](const int64_t *values, int count) {
    SmallVector<std::string> texts;
    for (int i = 0; i < count; ++i)
      texts.push_back(std::to_string(values[i]));
    return "{" + llvm::join(texts, ", ") + "}";
  };
  std::string call;
  SmallVector<std::pair<Value, bool>> touched;
  auto operand = [&](Value value) {
    touched.push_back({value, false});
    return emitter.pointerOf(value, false);
  };
  Value bias;
  if (auto forward = dyn_cast<Conv2dOp>(op)) {
    bias = forward.getBias();
    call = "amp_conv2d_forward(stream, &c, " + operand(forward.getInput()) +
           ", " + operand(forward.getWeight()) + ", " +
           (bias ? operand(bias) : std::string("nullptr"));
  } else if (auto grad = dyn_cast<Conv2dGradInputOp>(op)) {
    call = "amp_conv2d_backward_data(stream, &c, " + operand(grad.getGrad()) +
           ", " + operand(grad.getWeight());
  } else {
    auto filter = cast<Conv2dGradWeightOp>(op);
    call = "amp_conv2d_backward_filter(stream, &c, " +
           operand(filter.getInput()) + ", " + operand(filter.getGrad());
  }
  touched.push_back({op->getResult(0), true});
  raw_indented_ostream &s = kernel.step();
  s << "{\n";
  s.indent() << designatedInit(
                    "amp_conv2d_t", "c",
                    {{"dtype", dtypeName(c.dtype).str()},
                     {"y_dtype", dtypeName(c.y_dtype).str()},
                     {"batch", std::to_string(c.batch)},
                     {"channels", std::to_string(c.channels)},
                     {"height", std::to_string(c.height)},
                     {"width", std::to_string(c.width)},
                     {"out_channels", std::to_string(c.out_channels)},
                     {"groups", std::to_string(c.groups)},
                     {"kernel", pair(c.kernel, 2)},
                     {"strides", pair(c.strides, 2)},
                     {"dilations", pair(c.dilations, 2)},
                     {"padding", pair(c.padding, 4)}})
             << "\n"
             << "AMP_STEP_CHECK(" << call << ", "
             << emitter.pointerOf(op->getResult(0), true) << ", " << *workspace
             << "));\n";
  s.unindent() << "}\n";

  // cuDNN's convolution: every output of the pass sums the products of its
  // window (forward), its group's output channels over the windows that
  // read it, or every image's positions (the gradients): as many
  // multiply-adds in each pass, on tensor cores for f16 and bf16; the
  // bias, added in the same kernel, one more per output. One launch; the
  // library chooses the grid.
  int64_t outputs = c.batch * c.out_channels * amprt::conv2dOutputSize(c, 0) *
                    amprt::conv2dOutputSize(c, 1);
  int64_t window = c.channels / c.groups * c.kernel[0] * c.kernel[1];
  KernelCost cost{kernel.getName().str(), "conv-cudnn"};
  cost.flops = 2 * outputs * window + (bias ? outputs : 0);
  cost.tensorCore = c.dtype != AMP_F32;
  emitter.recordLaunch(std::move(cost), touched);
  return success();
}

template <typename OpT> LogicalResult emitConv(OpT op, OpKernel &kernel) {
  return emitConvolution(op, kernel);
}

/// A batch norm or its gradient, which --amp-decompose (with
/// keep-batch-norms) left whole: one call of the runtime's
/// amp_batch_norm_* (batch_norm.h), cuDNN's batch norm on the GPU when
/// training.
LogicalResult emitBatchNormCall(Operation *op, OpKernel &kernel) {
  std::optional<amp_batch_norm_t> norm = getRuntimeBatchNorm(op);
  if (!norm)
    return op->emitError() << "amp-to-cuda: the runtime does not run this "
                              "batch norm whole; run --amp-decompose first";
  const amp_batch_norm_t &n = *norm;
  kernel.comment();
  StepEmitter &emitter = kernel.getEmitter();
  FailureOr<std::string> workspace = scratchPointer(op, emitter, "char");
  if (failed(workspace))
    return failure();
  SmallVector<std::pair<Value, bool>> touched;
  // A value the call reads or writes, or nullptr for an absent parameter.
  // Every result has memory, used or not: the fusion yields it.
  auto pointer = [&](Value value, bool writes) -> std::string {
    if (!value)
      return "nullptr";
    touched.push_back({value, writes});
    return emitter.pointerOf(value, writes);
  };
  std::string call;
  int64_t elements = n.batch * n.channels * n.spatial;
  KernelCost cost{kernel.getName().str(), "batch-norm-cudnn"};
  if (auto forward = dyn_cast<BatchNormOp>(op)) {
    call = "amp_batch_norm_forward(stream, &n, " +
           pointer(forward.getInput(), false) + ", " +
           pointer(forward.getWeight(), false) + ", " +
           pointer(forward.getBias(), false) + ", " +
           pointer(forward.getRunningMean(), false) + ", " +
           pointer(forward.getRunningVar(), false) + ", " +
           pointer(forward.getResult(), true) + ", " +
           pointer(forward.getNewMean(), true) + ", " +
           pointer(forward.getNewVar(), true);
    // Training: the input read twice (the statistics, then the
    // normalisation): a sum and a squared deviation (3) per element, then
    // the subtraction, the scale by the inverse deviation and the affine
    // scale and bias (4). Evaluation: those 4 only, one read.
    cost.flops = elements * (n.training ? 7 : 4);
    cost.launches = n.training ? 2 : 1;
    if (n.training) // the second read of the input
      cost.bytesRead += getByteSize(forward.getInput().getType());
  } else {
    auto grad = cast<BatchNormGradOp>(op);
    call = "amp_batch_norm_backward(stream, &n, " +
           pointer(grad.getInput(), false) + ", " +
           pointer(grad.getGrad(), false) + ", " +
           pointer(grad.getWeight(), false) + ", " +
           pointer(grad.getRunningMean(), false) + ", " +
           pointer(grad.getRunningVar(), false) + ", " +
           pointer(grad.getInputGrad(), true) + ", " +
           pointer(grad.getScaleGrad(), true) + ", " +
           pointer(grad.getBiasGrad(), true);
    // Training: the statistics again (3 per element: cuDNN's forward run
    // in the call, whose normalised output is written and then
    // overwritten), then per element x̂ (2), the sums of dy and dy * x̂ (3)
    // and dx (4). Evaluation: x̂, the sums and dx over one read.
    cost.flops = elements * (n.training ? 3 + 2 + 3 + 4 : 2 + 3 + 2);
    cost.launches = n.training ? 3 : 1;
    if (n.training) { // the forward's read of the input and its output
      cost.bytesRead += getByteSize(grad.getInput().getType());
      cost.bytesWritten += getByteSize(grad.getInputGrad().getType());
    }
  }
  cost.transcendentals = n.channels; // a square root per channel
  raw_indented_ostream &s = kernel.step();
  s << "{\n";
  s.indent() << designatedInit("amp_batch_norm_t", "n",
                               {{"dtype", dtypeName(n.dtype).str()},
                                {"batch", std::to_string(n.batch)},
                                {"channels", std::to_string(n.channels)},
                                {"spatial", std::to_string(n.spatial)},
                                {"epsilon", hexLiteral(n.epsilon)},
                                {"momentum", hexLiteral(n.momentum)},
                                {"training", std::to_string(n.training)}})
             << "\n"
             << "AMP_STEP_CHECK(" << call << ", " << *workspace << "));\n";
  s.unindent() << "}\n";
  emitter.recordLaunch(std::move(cost), touched);
  return success();
}

template <typename OpT> LogicalResult emitBatchNorm(OpT op, OpKernel &kernel) {
  return emitBatchNormCall(op, kernel);
}

LogicalResult emitUnscale(UnscaleOp op, OpKernel &kernel) {
  kernel.comment();
  StepEmitter &emitter = kernel.getEmitter();
  size_t grads = op.getGrads().size();
  raw_indented_ostream &s = kernel.step();
  std::string found = emitter.pointerOf(op->getResult(grads), true);
  s << "{\n";
  s.indent() << "AMP_STEP_CHECK(ampstep::launch(stream, \"" +
                    kernel.getName().str() + "_zero\", 1, ampstep::Fill{" +
                    found + ", 0.0f}));"
             << "\n";
  KernelCost zero{kernel.getName().str() + "_zero", "fill", 1, 1,
                  amprt::kBlockThreads};
  zero.functor = "ampstep::Fill";
  emitter.recordLaunch(std::move(zero), {{op->getResult(grads), true}});
  // The plan puts a result either where its operand is (in place) or
  // where no live value is; only the second needs the copy.
  SmallVector<std::string> data, sizes;
  for (size_t g = 0; g < grads; ++g) {
    Value result = op->getResult(g);
    emitter.emitCopy(kernel.getName().str() + "_copy", op.getGrads()[g],
                     result);
    data.push_back(emitter.pointerOf(result, true));
    sizes.push_back(std::to_string(countOf(result)));
  }
  s << "float *const data[] = {" + llvm::join(data, ", ") + "};" << "\n"
    << "const size_t sizes[] = {" + llvm::join(sizes, ", ") + "};" << "\n"
    << "AMP_STEP_CHECK(amp_unscale(stream, amp_tensor_list_t{" +
           std::to_string(grads) + ", data, sizes}, " +
           emitter.pointerOf(op.getInvScale(), false) + ", " + found + "));"
    << "\n";
  s.unindent() << "}\n";

  // The runtime's multi-tensor kernel: per element a multiply and a
  // finiteness test, read and written in place.
  SmallVector<int64_t> counts;
  for (size_t g = 0; g < grads; ++g)
    counts.push_back(countOf(op->getResult(g)));
  KernelCost cost = multiTensorCost(kernel.getName().str(), counts);
  SmallVector<std::pair<Value, bool>> touched = {{op.getInvScale(), false}};
  for (size_t g = 0; g < grads; ++g) {
    cost.flops += 2 * countOf(op->getResult(g));
    touched.push_back({op->getResult(g), false});
    touched.push_back({op->getResult(g), true});
  }
  touched.push_back({op->getResult(grads), true});
  emitter.recordLaunch(std::move(cost), touched);
  return success();
}

LogicalResult emitSumSquares(SumSquaresOp op, OpKernel &kernel) {
  kernel.comment();
  StepEmitter &emitter = kernel.getEmitter();
  raw_indented_ostream &s = kernel.step();
  std::string list = "amp_typed_tensor_list_t{0, nullptr, nullptr, nullptr}";
  SmallVector<std::string> data, dtypes, sizes;
  int64_t total = 0;
  for (Value input : op.getInputs()) {
    data.push_back(emitter.pointerOf(input, false));
    dtypes.push_back(runtimeDtype(elementOf(input)).str());
    sizes.push_back(std::to_string(countOf(input)));
    total += countOf(input);
  }
  s << "{\n";
  s.indent();
  if (!data.empty()) {
    s << "const void *const data[] = {" + llvm::join(data, ", ") + "};\n"
      << "const amp_dtype_t dtypes[] = {" + llvm::join(dtypes, ", ") + "};\n"
      << "const size_t sizes[] = {" + llvm::join(sizes, ", ") + "};\n";
    list = "amp_typed_tensor_list_t{" + std::to_string(data.size()) +
           ", data, dtypes, sizes}";
  }
  s << "AMP_STEP_CHECK(amp_sum_squares(stream, " + list + ", " +
           emitter.pointerOf(op.getResult(), true) + "));\n";
  s.unindent() << "}\n";

  // A launch per chunk of tensors, each slice of a tensor a block
  // (launch_grid.h), a multiply and an add per element; then one block
  // whose threads combine a tensor's slices each and whose thread 0 adds
  // up the tensors' results in order: dependent accesses, charged as
  // such. The slices' partial sums live in the stream's workspace and are
  // not counted, as no kernel's scratch is.
  size_t inputs = op.getInputs().size();
  int64_t mostSlices = 0;
  for (size_t first = 0; first < inputs; first += amprt::kSumSquaresChunk) {
    size_t end = std::min<size_t>(inputs, first + amprt::kSumSquaresChunk);
    KernelCost chunk{kernel.getName().str(), "sum-squares", 1, 0,
                     amprt::kBlockThreads};
    SmallVector<std::pair<Value, bool>> touched;
    for (Value input : op.getInputs().slice(first, end - first)) {
      int64_t slices = amprt::sumSquaresSplit(countOf(input), total).slices;
      mostSlices = std::max(mostSlices, slices);
      chunk.blocks += slices;
      chunk.flops += 2 * countOf(input);
      touched.push_back({input, false});
    }
    chunk.blocks = std::clamp<int64_t>(chunk.blocks, 1, amprt::kMaxGridBlocks);
    emitter.recordLaunch(std::move(chunk), touched);
  }
  KernelCost finish{kernel.getName().str() + "_finish", "scalar", 1, 1,
                    amprt::kBlockThreads};
  finish.serialAccesses = mostSlices + static_cast<int64_t>(inputs);
  emitter.recordLaunch(std::move(finish), {{op.getResult(), true}});
  return success();
}

/// amp.fp8_cast: the runtime's tiled cast, writing the layouts and the
/// amax that something reads.
LogicalResult emitFp8Cast(Fp8CastOp op, OpKernel &kernel) {
  kernel.comment();
  StepEmitter &emitter = kernel.getEmitter();
  auto input = cast<RankedTensorType>(op.getInput().getType());
  if (input.getRank() != 2)
    return op.emitError() << "amp-to-cuda: amp.fp8_cast casts a matrix; got "
                          << input;
  SmallVector<std::pair<Value, bool>> touched{{op.getInput(), false}};
  auto outputOf = [&](Value result) -> std::string {
    if (result.use_empty())
      return "nullptr";
    touched.push_back({result, true});
    return emitter.pointerOf(result, true);
  };
  std::string data = outputOf(op.getData()),
              transposed = outputOf(op.getTransposed()),
              amax = outputOf(op.getAmax());
  Type format = op.getFormat();
  raw_indented_ostream &s = kernel.step();
  s << "{\n";
  s.indent() << designatedInit(
                    "amp_fp8_cast_t", "cast",
                    {{"dtype", runtimeDtype(input.getElementType()).str()},
                     {"rows", std::to_string(input.getDimSize(0))},
                     {"cols", std::to_string(input.getDimSize(1))},
                     {"format", runtimeFp8Format(format)},
                     {"scale", emitter.pointerOf(op.getScales(), false) +
                                   " + " +
                                   std::to_string(op.getFp8ScaleIndex())}})
             << "\n";
  s << "AMP_STEP_CHECK(amp_fp8_cast(stream, &cast, " +
           emitter.pointerOf(op.getInput(), false) + ", " +
           "reinterpret_cast<uint8_t *>(" + data + "), " +
           "reinterpret_cast<uint8_t *>(" + transposed + "), " + amax + "));"
    << "\n";
  s.unindent() << "}\n";
  // A block a 32 x 32 tile; a product and a rounding a value (and a max).
  amprt::Grid3 tiles =
      amprt::fp8TransposedGrid(input.getDimSize(1), input.getDimSize(0), 1);
  KernelCost castCost{kernel.getName().str(),
                      op.getTransposed().use_empty() ? "elementwise"
                                                     : "transpose",
                      1, tiles.x * tiles.y, amprt::kBlockThreads};
  castCost.flops = 3 * input.getNumElements();
  emitter.recordLaunch(std::move(castCost), touched);
  return success();
}

/// amp.fp8_amax: the runtime's reduction (an atomic maximum of the
/// magnitudes' bits), its result zeroed first.
LogicalResult emitFp8Amax(Fp8AmaxOp op, OpKernel &kernel) {
  kernel.comment();
  StepEmitter &emitter = kernel.getEmitter();
  auto input = cast<RankedTensorType>(op.getInput().getType());
  kernel.step() << "AMP_STEP_CHECK(amp_fp8_amax(stream, "
                << runtimeDtype(input.getElementType()) << ", "
                << emitter.pointerOf(op.getInput(), false) << ", "
                << input.getNumElements() << ", "
                << emitter.pointerOf(op.getResult(), true) << "));\n";
  amprt::Grid grid = amprt::elementGrid(input.getNumElements());
  KernelCost amax{kernel.getName().str(), "elementwise", 1, grid.blocks,
                  grid.threads};
  amax.flops = input.getNumElements();
  emitter.recordLaunch(std::move(amax),
                       {{op.getInput(), false}, {op.getResult(), true}});
  return success();
}

/// amp.fp8_scaling_update: the state where the plan put the results, then
/// the runtime's update, a block a column.
LogicalResult emitFp8ScalingUpdate(Fp8ScalingUpdateOp op, OpKernel &kernel) {
  kernel.comment();
  StepEmitter &emitter = kernel.getEmitter();
  raw_indented_ostream &s = kernel.step();
  auto history = cast<RankedTensorType>(op.getAmaxHistory().getType());
  SmallVector<std::string> formats, amax, scaledMax;
  for (auto [format, value] : llvm::zip(op.getFormats(), op.getAmax())) {
    Type type = cast<TypeAttr>(format).getValue();
    amprt::Fp8Format fp8 =
        type.isFloat8E5M2() ? amprt::Fp8Format::E5M2 : amprt::Fp8Format::E4M3FN;
    formats.push_back(runtimeFp8Format(type));
    amax.push_back(emitter.pointerOf(value, false));
    scaledMax.push_back(
        hexLiteral(amprt::fp8ScaledMax(fp8, op.getMargin().convertToDouble())));
  }
  for (unsigned r = 0; r < 3; ++r)
    emitter.emitCopy(kernel.getName().str() + "_copy", op->getOperand(r),
                     op->getResult(r));
  s << "{\n";
  s.indent() << designatedInit(
                    "amp_fp8_scaling_t", "update",
                    {{"columns", std::to_string(history.getDimSize(1))},
                     {"rows", std::to_string(history.getDimSize(0))},
                     {"formats", "{" + llvm::join(formats, ", ") + "}"},
                     {"amax", "{" + llvm::join(amax, ", ") + "}"},
                     {"scaled_max", "{" + llvm::join(scaledMax, ", ") + "}"},
                     {"most_recent", op.getMostRecent() ? "1" : "0"}})
             << "\n";
  s << "AMP_STEP_CHECK(amp_fp8_scaling_update(stream, &update, " +
           emitter.pointerOf(op->getResult(0), true) + ", " +
           emitter.pointerOf(op->getResult(1), true) + ", " +
           emitter.pointerOf(op->getResult(2), true) + "));"
    << "\n";
  s.unindent() << "}\n";
  // A block a column, its threads a row of each stride: each walks its
  // rows twice (the maximum, the roll), then the block combines the
  // maxima (a halving per step) and thread 0 updates the scale.
  int64_t strides = llvm::divideCeil(
      history.getDimSize(0), static_cast<int64_t>(amprt::kBlockThreads));
  KernelCost update{kernel.getName().str(), "scalar", 1, history.getDimSize(1),
                    amprt::kBlockThreads};
  update.serialAccesses = 2 * strides + llvm::Log2_64(amprt::kBlockThreads) + 1;
  SmallVector<std::pair<Value, bool>> touched;
  for (Value value : op.getAmax())
    touched.push_back({value, false});
  for (unsigned r = 0; r < 3; ++r) {
    touched.push_back({op->getResult(r), false});
    touched.push_back({op->getResult(r), true});
  }
  emitter.recordLaunch(std::move(update), touched);
  return success();
}

LogicalResult emitScalerUpdate(ScalerUpdateOp op, OpKernel &kernel) {
  kernel.comment();
  StepEmitter &emitter = kernel.getEmitter();
  raw_indented_ostream &s = kernel.step();
  s << "{\n";
  auto bound = [](std::optional<APFloat> value) {
    return hexLiteral(value ? value->convertToDouble() : 0);
  };
  s.indent() << designatedInit(
                    "amp_scaler_config_t", "config",
                    {{"growth_factor",
                      hexLiteral(op.getGrowthFactor().convertToDouble())},
                     {"backoff_factor",
                      hexLiteral(op.getBackoffFactor().convertToDouble())},
                     {"growth_interval",
                      std::to_string(op.getGrowthInterval())},
                     {"hysteresis", std::to_string(op.getHysteresis())},
                     {"min_scale", bound(op.getMinScale())},
                     {"max_scale", bound(op.getMaxScale())}})
             << "\n";
  // The scale, the growth tracker and the hysteresis, updated where the
  // plan put the results.
  for (unsigned r = 0; r < 3; ++r)
    emitter.emitCopy(kernel.getName().str() + "_copy", op->getOperand(r),
                     op->getResult(r));
  s << "AMP_STEP_CHECK(amp_scaler_update(stream, &config, " +
           emitter.pointerOf(op->getResult(0), true) + ", " +
           emitter.pointerOf(op->getResult(1), true) + ", " +
           emitter.pointerOf(op->getResult(2), true) + ", " +
           emitter.pointerOf(op->getOperand(3), false) + "));"
    << "\n";
  s.unindent() << "}\n";
  // One thread updates three scalars from found_inf.
  emitter.recordLaunch({kernel.getName().str(), "scalar", 1, 1, 1},
                       {{op->getResult(0), false},
                        {op->getResult(1), false},
                        {op->getResult(2), false},
                        {op->getOperand(3), false},
                        {op->getResult(0), true},
                        {op->getResult(1), true},
                        {op->getResult(2), true}});
  return success();
}

/// A bucket of amp.all_reduce: the runtime's amp_replica_all_reduce_start
/// (replicas.h), in place on the results, which the plan puts over the
/// inputs where nothing else reads them. The step goes on while the
/// transport reduces, and waits (amp_replica_all_reduce_wait) before the
/// first kernel that touches the results' memory.
LogicalResult emitAllReduce(AllReduceOp op, OpKernel &kernel) {
  kernel.comment();
  StepEmitter &emitter = kernel.getEmitter();
  raw_indented_ostream &s = kernel.step();
  std::string ticket = kernel.getName().str() + "_ticket";
  s << "int64_t " << ticket << " = 0;\n{\n";
  s.indent();
  SmallVector<std::string> data, sizes;
  SmallVector<std::pair<Value, bool>> touched;
  SmallVector<int64_t> counts;
  for (auto [input, result] : llvm::zip(op.getInputs(), op.getResults())) {
    emitter.emitCopy(kernel.getName().str() + "_copy", input, result);
    data.push_back(emitter.pointerOf(result, true));
    sizes.push_back(std::to_string(countOf(result)));
    counts.push_back(countOf(result));
    touched.push_back({result, false});
    touched.push_back({result, true});
  }
  std::string when = "nullptr";
  if (Value flag = op.getWhen()) {
    when = emitter.pointerOf(flag, false);
    touched.push_back({flag, false});
  }
  s << "float *const data[] = {" + llvm::join(data, ", ") + "};\n"
    << "const size_t sizes[] = {" + llvm::join(sizes, ", ") + "};\n"
    << "AMP_STEP_CHECK(amp_replica_all_reduce_start(stream, "
       "amp_tensor_list_t{" +
           std::to_string(data.size()) + ", data, sizes}, " +
           (op.getKind() == AllReduceKind::sum ? "AMP_REDUCE_SUM"
                                               : "AMP_REDUCE_MAX") +
           ", " + when + ", &" + ticket + "));\n";
  s.unindent() << "}\n";
  emitter.startReduction(ticket, SmallVector<Value>(op.getResults()));
  // The transport's: the values read and written once on the device (a
  // ring all-reduce over two ranks moves each once); the time on the wire
  // is not the device's and is not modelled.
  KernelCost cost{kernel.getName().str(), "all-reduce"};
  emitter.recordLaunch(std::move(cost), touched);
  return success();
}

/// amp.replica_shard: a copy of the replica's part, whose offset the
/// runtime's rank gives when the step runs.
LogicalResult emitReplicaShard(ReplicaShardOp op, OpKernel &kernel) {
  kernel.comment();
  StepEmitter &emitter = kernel.getEmitter();
  int64_t part = countOf(op.getResult());
  kernel.step() << "AMP_STEP_CHECK(ampstep::launch(stream, \""
                << kernel.getName() << "\", " << part << ", ampstep::Shard{"
                << emitter.pointerOf(op.getInput(), false) << ", "
                << emitter.pointerOf(op.getResult(), true) << ", int64_t{"
                << countOf(op.getInput())
                << "}, int64_t{amp_replica_rank(stream)} * " << part
                << "}));\n";
  amprt::Grid grid = amprt::elementGrid(part);
  KernelCost shard{kernel.getName().str(), "copy", 1, grid.blocks,
                   grid.threads};
  shard.functor = "ampstep::Shard";
  // The part is read, not the whole.
  emitter.recordLaunch(
      std::move(shard), {{op.getInput(), false}, {op.getResult(), true}},
      {{op.getInput(), getByteSize(op.getResult().getType())}});
  return success();
}

/// A bucket of amp.all_gather: the runtime's amp_replica_all_gather
/// (replicas.h), from the parts into the results.
LogicalResult emitAllGather(AllGatherOp op, OpKernel &kernel) {
  kernel.comment();
  StepEmitter &emitter = kernel.getEmitter();
  raw_indented_ostream &s = kernel.step();
  SmallVector<std::string> parts, wholes, partSizes, sizes, bytes;
  SmallVector<std::pair<Value, bool>> touched;
  // With `when`: the priors where the results are, for the runs that do
  // not gather (the plan puts each result over its prior where it can).
  for (auto [prior, whole] : llvm::zip(op.getPriors(), op.getResults()))
    emitter.emitCopy(kernel.getName().str() + "_copy", prior, whole);
  std::string when = "nullptr";
  if (Value flag = op.getWhen()) {
    when = emitter.pointerOf(flag, false);
    touched.push_back({flag, false});
  }
  for (auto [part, whole] : llvm::zip(op.getInputs(), op.getResults())) {
    parts.push_back(emitter.pointerOf(part, false));
    wholes.push_back(emitter.pointerOf(whole, true));
    partSizes.push_back(std::to_string(countOf(part)));
    sizes.push_back(std::to_string(countOf(whole)));
    bytes.push_back(std::to_string(
        cast<RankedTensorType>(whole.getType()).getElementTypeBitWidth() / 8));
    touched.push_back({part, false});
    touched.push_back({whole, true});
  }
  s << "{\n";
  s.indent()
      << "const void *const parts[] = {" + llvm::join(parts, ", ") + "};\n"
      << "void *const wholes[] = {" + llvm::join(wholes, ", ") + "};\n"
      << "const size_t part_sizes[] = {" + llvm::join(partSizes, ", ") + "};\n"
      << "const size_t sizes[] = {" + llvm::join(sizes, ", ") + "};\n"
      << "const size_t element_bytes[] = {" + llvm::join(bytes, ", ") + "};\n"
      << "AMP_STEP_CHECK(amp_replica_all_gather(stream, "
         "amp_gather_list_t{" +
             std::to_string(parts.size()) +
             ", parts, wholes, part_sizes, sizes, element_bytes}, " +
             std::to_string(op.getReplicas()) + ", " + when + "));\n";
  s.unindent() << "}\n";
  // The transport's: each replica's part read once, every whole written
  // once; the time on the wire is not modelled.
  KernelCost cost{kernel.getName().str(), "all-gather"};
  emitter.recordLaunch(std::move(cost), touched);
  return success();
}

/// amp.replica_count: the runtime's count, written where the plan put it.
LogicalResult emitReplicaCount(ReplicaCountOp op, OpKernel &kernel) {
  kernel.comment();
  StepEmitter &emitter = kernel.getEmitter();
  std::string result = emitter.pointerOf(op.getResult(), true);
  kernel.step() << "AMP_STEP_CHECK(ampstep::launch(stream, \""
                << kernel.getName() << "\", 1, ampstep::Fill{" << result
                << ", static_cast<float>(amp_replica_count(stream))}));\n";
  KernelCost fill{kernel.getName().str(), "fill", 1, 1, amprt::kBlockThreads};
  fill.functor = "ampstep::Fill";
  emitter.recordLaunch(std::move(fill), {{op.getResult(), true}});
  return success();
}

} // namespace

void cuda::attachRuntimeCallModels(MLIRContext &context) {
  AttentionOp::attachInterface<KernelModel<AttentionOp, emitAttention>>(
      context);
  AttentionGradOp::attachInterface<
      KernelModel<AttentionGradOp, emitAttentionGrad>>(context);
  Conv2dOp::attachInterface<KernelModel<Conv2dOp, emitConv<Conv2dOp>>>(context);
  Conv2dGradInputOp::attachInterface<
      KernelModel<Conv2dGradInputOp, emitConv<Conv2dGradInputOp>>>(context);
  Conv2dGradWeightOp::attachInterface<
      KernelModel<Conv2dGradWeightOp, emitConv<Conv2dGradWeightOp>>>(context);
  BatchNormOp::attachInterface<
      KernelModel<BatchNormOp, emitBatchNorm<BatchNormOp>>>(context);
  BatchNormGradOp::attachInterface<
      KernelModel<BatchNormGradOp, emitBatchNorm<BatchNormGradOp>>>(context);
  UnscaleOp::attachInterface<KernelModel<UnscaleOp, emitUnscale>>(context);
  SumSquaresOp::attachInterface<KernelModel<SumSquaresOp, emitSumSquares>>(
      context);
  ScalerUpdateOp::attachInterface<
      KernelModel<ScalerUpdateOp, emitScalerUpdate>>(context);
  Fp8CastOp::attachInterface<KernelModel<Fp8CastOp, emitFp8Cast>>(context);
  Fp8AmaxOp::attachInterface<KernelModel<Fp8AmaxOp, emitFp8Amax>>(context);
  Fp8ScalingUpdateOp::attachInterface<
      KernelModel<Fp8ScalingUpdateOp, emitFp8ScalingUpdate>>(context);
  AllReduceOp::attachInterface<KernelModel<AllReduceOp, emitAllReduce>>(
      context);
  ReplicaCountOp::attachInterface<
      KernelModel<ReplicaCountOp, emitReplicaCount>>(context);
  ReplicaShardOp::attachInterface<
      KernelModel<ReplicaShardOp, emitReplicaShard>>(context);
  AllGatherOp::attachInterface<KernelModel<AllGatherOp, emitAllGather>>(
      context);
}
