//===- RowKernels.cpp - softmax, the norms and cross-entropy --------------===//
//
// Row ops run one index per row (or line, for a softmax along an inner
// dimension). On the host the generated functor runs, rounding exactly as
// the interpreter does; under nvcc the runtime's warp-per-row kernel runs
// instead where it takes the op's types and layout (deviceCall).
//
//===----------------------------------------------------------------------===//

#include "StepEmitter.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Backend.h"

#include <cmath>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::backend;
using namespace mlir::amp::cuda;

namespace {

/// The runtime's name of a row's element type; empty for others.
std::string dtypeOf(Value v) {
  Type type = elementOf(v);
  return type.isF16()    ? "AMP_F16"
         : type.isBF16() ? "AMP_BF16"
         : type.isF32()  ? "AMP_F32"
                         : "";
}

bool isF32OrAbsent(Value v) { return !v || elementOf(v).isF32(); }

/// `x` as the runtime's [rows, cols], with the dimensions from
/// `firstColumn` on as the columns; empty where the runtime cannot.
std::string rowsOf(Value x, int64_t firstColumn) {
  std::string dtype = dtypeOf(x);
  ArrayRef<int64_t> shape = tensorOf(x).getShape();
  int64_t cols = product(shape.drop_front(firstColumn));
  if (dtype.empty() || cols == 0)
    return "";
  return "amp_rows_t{" + dtype + ", " + std::to_string(product(shape) / cols) +
         ", " + std::to_string(cols) + "}";
}

std::string epsilonOf(FloatAttr attr) {
  return literal(attr.getValueAsDouble(), "float");
}

/// The pointer argument of a runtime call for an optional operand.
std::string pointerOrNull(StepEmitter &emitter, Value v) {
  return v ? emitter.pointerOf(v, false) : "nullptr";
}

//===----------------------------------------------------------------------===//
// softmax and log_softmax
//===----------------------------------------------------------------------===//

template <typename Op> LogicalResult emitSoftmax(Op op, OpKernel &kernel) {
  Type type = elementOf(op.getResult());
  std::string t = registerType(type);
  ArrayRef<int64_t> shape = tensorOf(op.getInput()).getShape();
  auto [n, at] = lineAlong(shape, op.getDim());
  bool log = std::is_same_v<Op, LogSoftmaxOp>;
  std::string x = "static_cast<" + t + ">(" + kernel.load(0, at) + ")";
  raw_indented_ostream &body = kernel.functor().body();
  body << t << " m = " << literal(-INFINITY, t) << ";\n"
       << "for (int64_t j = 0; j < " << n << "; ++j)\n"
       << "  m = ampstep::nanMax(m, " << x << ");\n"
       << t << " s = " << literal(0, t) << ";\n"
       << "for (int64_t j = 0; j < " << n << "; ++j)\n"
       << "  s = s + " << math("exp", t) << "(" << x << " - m);\n";
  if (log)
    body << "const " << t << " ls = " << math("log", t) << "(s);\n";
  body << "for (int64_t j = 0; j < " << n << "; ++j) {\n"
       << "  const " << t << " x = " << x << " - m;\n  "
       << kernel.store(
              0, at,
              roundExpr(type, log ? "x - ls" : math("exp", t) + "(x) / s"))
       << "\n}\n";

  // The runtime's kernel takes the last dimension in the result's type.
  std::string call;
  StepEmitter &emitter = kernel.getEmitter();
  Value input = op.getInput();
  if (static_cast<int64_t>(op.getDim()) == tensorOf(input).getRank() - 1 &&
      elementOf(input) == type) {
    std::string rows = rowsOf(input, op.getDim());
    if (!rows.empty())
      call = "amp_softmax_forward(stream, " + rows + ", " +
             emitter.pointerOf(input, false) + ", " +
             emitter.pointerOf(op.getResult(), true) + ", " +
             (log ? "1" : "0") + ")";
  }
  kernel.functor().launch(product(shape) / n, call);
  return success();
}

template <typename Op> LogicalResult emitSoftmaxGrad(Op op, OpKernel &kernel) {
  Type type = elementOf(op.getResult());
  std::string t = registerType(type);
  ArrayRef<int64_t> shape = tensorOf(op->getOperand(0)).getShape();
  auto [n, at] = lineAlong(shape, op.getDim());
  bool log = std::is_same_v<Op, LogSoftmaxGradOp>;
  std::string y = "static_cast<" + t + ">(" + kernel.load(0, at) + ")";
  std::string g = "static_cast<" + t + ">(" + kernel.load(1, at) + ")";
  kernel.functor().body()
      << t << " s = " << literal(0, t) << ";\n"
      << "for (int64_t j = 0; j < " << n << "; ++j)\n"
      << "  s = s + " << (log ? g : g + " * " + y) << ";\n"
      << "for (int64_t j = 0; j < " << n << "; ++j)\n  "
      << kernel.store(0, at,
                      roundExpr(type, log ? g + " - " + math("exp", t) + "(" +
                                                y + ") * s"
                                          : y + " * (" + g + " - s)"))
      << "\n";
  kernel.functor().launch(product(shape) / n);
  return success();
}

//===----------------------------------------------------------------------===//
// layer_norm and rms_norm
//===----------------------------------------------------------------------===//

template <typename Op> LogicalResult emitNorm(Op op, OpKernel &kernel) {
  constexpr bool centered = std::is_same_v<Op, LayerNormOp>;
  Type type = elementOf(op.getResult());
  Value x = op.getInput();
  int64_t n =
      product(tensorOf(x).getShape().drop_front(op.getNormalizedAxis()));
  std::string ct = "float";
  for (Value v : op->getOperands())
    if (elementOf(v).isF64())
      ct = "double";
  auto c = [&](double v) { return literal(v, ct); };
  auto xs = [&](StringRef j) {
    return "static_cast<" + ct + ">(" +
           kernel.load(0, ("i * " + std::to_string(n) + " + " + j).str()) + ")";
  };
  std::string weight, bias;
  unsigned next = 1;
  if (op.getWeight())
    weight = "static_cast<" + ct + ">(" + kernel.load(next++, "j") + ")";
  Value biasOperand;
  if constexpr (centered)
    biasOperand = op.getBias();
  if (biasOperand)
    bias = "static_cast<" + ct + ">(" + kernel.load(next++, "j") + ")";
  std::string eps = c(op.getEpsilon().convertToDouble());
  raw_indented_ostream &body = kernel.functor().body();
  if (centered) {
    body << ct << " sum = " << c(0) << ";\n"
         << "for (int64_t j = 0; j < " << n << "; ++j)\n"
         << "  sum = sum + " << xs("j") << ";\n"
         << "const " << ct << " mean = sum / " << c(n) << ";\n"
         << ct << " sq = " << c(0) << ";\n"
         << "for (int64_t j = 0; j < " << n << "; ++j) {\n"
         << "  const " << ct << " d = " << xs("j") << " - mean;\n"
         << "  sq = sq + d * d;\n}\n";
  } else {
    body << ct << " sq = " << c(0) << ";\n"
         << "for (int64_t j = 0; j < " << n << "; ++j)\n"
         << "  sq = sq + " << xs("j") << " * " << xs("j") << ";\n";
  }
  body << "const " << ct << " den = " << math("sqrt", ct) << "(sq / " << c(n)
       << " + " << eps << ");\n"
       << "for (int64_t j = 0; j < " << n << "; ++j) {\n";
  body.indent() << ct << " y = (" << xs("j") << (centered ? " - mean" : "")
                << ") / den;\n";
  if (!weight.empty())
    body << "y = y * " << weight << ";\n";
  if (!bias.empty())
    body << "y = y + " << bias << ";\n";
  body << kernel.store(0, "i * " + std::to_string(n) + " + j",
                       roundExpr(type, "y"))
       << "\n";
  body.unindent() << "}\n";

  // The runtime's kernels take f32 weights and biases.
  std::string call;
  std::string rows = rowsOf(x, op.getNormalizedAxis());
  StepEmitter &emitter = kernel.getEmitter();
  if (!rows.empty() && isF32OrAbsent(op.getWeight()) &&
      isF32OrAbsent(biasOperand)) {
    std::string out = emitter.pointerOf(op.getResult(), true);
    if (centered)
      call = "amp_layer_norm_forward(stream, " + rows + ", " +
             emitter.pointerOf(x, false) + ", " +
             pointerOrNull(emitter, op.getWeight()) + ", " +
             pointerOrNull(emitter, biasOperand) + ", " +
             epsilonOf(op.getEpsilonAttr()) + ", " + out +
             ", nullptr, nullptr)";
    else
      call = "amp_rms_norm_forward(stream, " + rows + ", " +
             emitter.pointerOf(x, false) + ", " +
             pointerOrNull(emitter, op.getWeight()) + ", " +
             epsilonOf(op.getEpsilonAttr()) + ", " + out + ", nullptr)";
  }
  kernel.functor().launch(countOf(x) / std::max<int64_t>(n, 1), call);
  return success();
}

template <typename Op> LogicalResult emitNormGrad(Op op, OpKernel &kernel) {
  constexpr bool centered = std::is_same_v<Op, LayerNormGradOp>;
  Type type = elementOf(op.getResult());
  std::string t = registerType(type);
  auto c = [&](double v) { return literal(v, t); };
  Value x = op.getInput();
  int64_t n =
      product(tensorOf(x).getShape().drop_front(op.getNormalizedAxis()));
  std::string row = "i * " + std::to_string(n) + " + ";
  auto xs = [&](StringRef j) {
    return "static_cast<" + t + ">(" + kernel.load(0, row + j.str()) + ")";
  };
  auto gs = [&](StringRef j) {
    return "static_cast<" + t + ">(" + kernel.load(1, row + j.str()) + ")";
  };
  raw_indented_ostream &body = kernel.functor().body();
  body << t << " mean = " << c(0) << ";\n";
  if (centered)
    body << "for (int64_t j = 0; j < " << n << "; ++j)\n"
         << "  mean = mean + " << xs("j") << ";\n"
         << "mean = mean / " << c(n) << ";\n";
  body << t << " sq = " << c(0) << ";\n"
       << "for (int64_t j = 0; j < " << n << "; ++j) {\n"
       << "  const " << t << " d = " << xs("j") << " - mean;\n"
       << "  sq = sq + d * d;\n}\n"
       << "const " << t << " r = " << math("sqrt", t) << "(sq / " << c(n)
       << " + " << c(op.getEpsilon().convertToDouble()) << ");\n"
       << t << " gm = " << c(0) << ", gd = " << c(0) << ";\n"
       << "for (int64_t j = 0; j < " << n << "; ++j) {\n"
       << "  const " << t << " h = (" << xs("j") << " - mean) / r;\n"
       << "  gm = gm + " << gs("j") << ";\n"
       << "  gd = gd + " << gs("j") << " * h;\n}\n"
       << "gm = gm / " << c(n) << ";\n"
       << "gd = gd / " << c(n) << ";\n"
       << "for (int64_t j = 0; j < " << n << "; ++j) {\n";
  body.indent() << "const " << t << " h = (" << xs("j") << " - mean) / r;\n"
                << t << " dx = " << gs("j") << " - h * gd;\n";
  if (centered)
    body << "dx = dx - gm;\n";
  body << kernel.store(0, row + "j", roundExpr(type, "dx / r")) << "\n";
  body.unindent() << "}\n";

  // Without a weight, the runtime's dy is the gradient of the normalised
  // value.
  std::string call;
  std::string rows = rowsOf(x, op.getNormalizedAxis());
  StepEmitter &emitter = kernel.getEmitter();
  if (!rows.empty())
    call = std::string(centered ? "amp_layer_norm_backward"
                                : "amp_rms_norm_backward") +
           "(stream, " + rows + ", " + emitter.pointerOf(x, false) + ", " +
           emitter.pointerOf(op.getGrad(), false) + ", nullptr, " +
           epsilonOf(op.getEpsilonAttr()) + ", " +
           emitter.pointerOf(op.getResult(), true) +
           (centered ? ", nullptr, nullptr)" : ", nullptr)");
  kernel.functor().launch(countOf(x) / std::max<int64_t>(n, 1), call);
  return success();
}

//===----------------------------------------------------------------------===//
// cross_entropy and cross_entropy_grad
//===----------------------------------------------------------------------===//

/// A row's statistics: its label, maximum and sum of exp(x - max), for
/// logits loaded by `x(index)`, in register type `ct`.
std::string rowStatistics(OpKernel &kernel, StringRef ct, int64_t classes) {
  std::string x = "static_cast<" + ct.str() + ">(" +
                  kernel.load(0, "row * " + std::to_string(classes) + " + j") +
                  ")";
  std::string n = std::to_string(classes);
  return "const int64_t label = " + kernel.load(1, "row") + ";\n" + ct.str() +
         " mx = " + literal(-INFINITY, ct) + ";\n" +
         "for (int64_t j = 0; j < " + n + "; ++j)\n" +
         "  mx = ampstep::nanMax(mx, " + x + ");\n" + ct.str() +
         " se = " + literal(0, ct) + ";\n" + "for (int64_t j = 0; j < " + n +
         "; ++j)\n" + "  se = se + " + math("exp", ct) + "(" + x + " - mx);\n";
}

/// Rows whose label is ignore_index count for nothing; the runtime has
/// checked the others' labels before the step ran, and one out of range
/// gives NaN, which the inf/NaN check of the step then sees.
struct LabelConditions {
  std::string skipped, outside;
};

template <typename Op> LabelConditions labelConditions(Op op, int64_t classes) {
  LabelConditions conditions;
  conditions.outside =
      "(label < 0 || label >= " + std::to_string(classes) + ")";
  if (std::optional<int64_t> ignored = op.getIgnoreIndex()) {
    conditions.skipped = "(label == " + std::to_string(*ignored) + ")";
    conditions.outside =
        "(!" + conditions.skipped + " && " + conditions.outside + ")";
  }
  return conditions;
}

/// The second kernel of amp.cross_entropy: the rows' losses, which the
/// first wrote to scratch one index per row, summed in order.
LogicalResult emitRowSum(CrossEntropyOp op, OpKernel &rowKernel) {
  OpKernel kernel(rowKernel.getEmitter(), op, {},
                  rowKernel.getName().str() + "_sum");
  std::string ct = registerType(elementOf(op.getLogits()));
  int64_t rows = countOf(op.getLabels());
  FailureOr<std::string> partials = kernel.scratch("const " + ct);
  if (failed(partials))
    return failure();
  Type type = elementOf(op.getResult());
  std::string out = kernel.out(0);
  IntegerAttr ignored = op.getIgnoreIndexAttr();
  std::string finish;
  if (op.getReduction() == LossReduction::mean && ignored) {
    // The mean over the rows that count (at least one), as the
    // interpreter divides.
    finish +=
        "int64_t counted = 0;\nfor (int64_t r = 0; r < " +
        std::to_string(rows) + "; ++r)\n  counted += " + kernel.load(1, "r") +
        " != " + std::to_string(ignored.getInt()) +
        ";\nacc = acc / static_cast<" + ct + ">(counted > 0 ? counted : 1);\n";
  } else if (op.getReduction() == LossReduction::mean) {
    finish += "acc = acc / " + literal(rows, ct) + ";\n";
  }
  finish += storeStmt(type, out, "0", roundExpr(type, "acc")) + "\n";
  kernel.functor().defineReduction(ct, literal(0, ct), "",
                                   "return " + *partials + "[r];\n", "acc + v",
                                   finish, rows);
  kernel.functor().launch(1);
  return success();
}

LogicalResult emitCrossEntropy(CrossEntropyOp op, OpKernel &kernel) {
  Value logits = op.getLogits();
  std::string ct = registerType(elementOf(logits));
  auto c = [&](double v) { return literal(v, ct); };
  int64_t classes = tensorOf(logits).getShape().back();
  int64_t rows = countOf(op.getLabels());
  FailureOr<std::string> partials = kernel.scratch(ct);
  if (failed(partials))
    return failure();
  LabelConditions label = labelConditions(op, classes);
  std::string own =
      "static_cast<" + ct + ">(" +
      kernel.load(0, "row * " + std::to_string(classes) + " + label") + ")";
  // Per row into scratch, then the rows in order (emitRowSum).
  kernel.functor().body() << "const int64_t row = i;\n"
                          << rowStatistics(kernel, ct, classes) << *partials
                          << "[row] =\n"
                          << (label.skipped.empty() ? ""
                                                    : "    " + label.skipped +
                                                          " ? " + c(0) + "\n")
                          << "    " << (label.skipped.empty() ? "" : ": ")
                          << label.outside << " ? " << c(NAN) << "\n"
                          << "    : (mx + " << math("log", ct) << "(se)) - "
                          << own << ";\n";

  // The runtime's kernel writes the row losses to the same scratch.
  std::string call;
  std::string shape = rowsOf(logits, tensorOf(logits).getRank() - 1);
  StepEmitter &emitter = kernel.getEmitter();
  if (!shape.empty() && elementOf(op.getLabels()).isInteger(64) &&
      !op.getIgnoreIndex())
    call = "amp_cross_entropy(stream, " + shape + ", " +
           emitter.pointerOf(logits, false) + ", " +
           emitter.pointerOf(op.getLabels(), false) + ", " +
           emitter.arenaPointer(
               "float", op->getAttrOfType<IntegerAttr>(kScratchAttr).getInt()) +
           ", nullptr, nullptr, AMP_LOSS_SUM)";
  kernel.functor().launch(rows, call);
  return emitRowSum(op, kernel);
}

LogicalResult emitCrossEntropyGrad(CrossEntropyGradOp op, OpKernel &kernel) {
  Value logits = op.getLogits();
  Type type = elementOf(op.getResult());
  std::string ct = registerType(elementOf(logits));
  auto c = [&](double v) { return literal(v, ct); };
  int64_t classes = tensorOf(logits).getShape().back();
  int64_t rows = countOf(op.getLabels());
  bool mean = op.getReduction() == LossReduction::mean;
  if (mean && op.getIgnoreIndex())
    return op->emitError()
           << "amp-to-cuda: a cross_entropy_grad with ignore_index and "
              "reduction = mean is not supported; write it with reduction = "
              "sum and the loss gradient divided by the count of rows, as "
              "amp-autodiff does";
  LabelConditions label = labelConditions(op, classes);
  std::string at = "row * " + std::to_string(classes) + " + j";
  raw_indented_ostream &body = kernel.functor().body();
  body << "const int64_t row = i;\n"
       << ct << " scale = static_cast<" << ct << ">(" << kernel.load(2, "0")
       << ");\n";
  if (mean)
    body << "scale = scale / " << c(rows) << ";\n";
  body << rowStatistics(kernel, ct, classes) << "for (int64_t j = 0; j < "
       << classes << "; ++j) {\n";
  body.indent() << ct << " p = " << math("exp", ct) << "(static_cast<" << ct
                << ">(" << kernel.load(0, at) << ") - mx) / se;\n"
                << "if " << label.outside << "\n  p = " << c(NAN) << ";\n"
                << "if (j == label)\n  p = p - " << c(1) << ";\n"
                << kernel.store(0, at,
                                roundExpr(type, label.skipped.empty()
                                                    ? "p * scale"
                                                    : label.skipped + " ? " +
                                                          c(0) +
                                                          " : p * scale"))
                << "\n";
  body.unindent() << "}\n";

  std::string call;
  std::string shape = rowsOf(logits, tensorOf(logits).getRank() - 1);
  StepEmitter &emitter = kernel.getEmitter();
  if (!shape.empty() && elementOf(op.getLabels()).isInteger(64) &&
      !op.getIgnoreIndex() && elementOf(op.getGrad()).isF32() &&
      type == elementOf(logits))
    call = "amp_cross_entropy(stream, " + shape + ", " +
           emitter.pointerOf(logits, false) + ", " +
           emitter.pointerOf(op.getLabels(), false) + ", nullptr, " +
           emitter.pointerOf(op.getResult(), true) + ", " +
           emitter.pointerOf(op.getGrad(), false) + ", " +
           (mean ? "AMP_LOSS_MEAN" : "AMP_LOSS_SUM") + ")";
  kernel.functor().launch(rows, call);
  return success();
}

//===----------------------------------------------------------------------===//
// Models
//===----------------------------------------------------------------------===//

template <typename Op>
struct RowModel : KernelOpInterface::ExternalModel<RowModel<Op>, Op> {
  LogicalResult emitKernel(Operation *op, OpKernel &kernel) const {
    auto concrete = cast<Op>(op);
    if constexpr (std::is_same_v<Op, SoftmaxOp> ||
                  std::is_same_v<Op, LogSoftmaxOp>)
      return emitSoftmax(concrete, kernel);
    else if constexpr (std::is_same_v<Op, SoftmaxGradOp> ||
                       std::is_same_v<Op, LogSoftmaxGradOp>)
      return emitSoftmaxGrad(concrete, kernel);
    else if constexpr (std::is_same_v<Op, LayerNormOp> ||
                       std::is_same_v<Op, RmsNormOp>)
      return emitNorm(concrete, kernel);
    else if constexpr (std::is_same_v<Op, LayerNormGradOp> ||
                       std::is_same_v<Op, RmsNormGradOp>)
      return emitNormGrad(concrete, kernel);
    else if constexpr (std::is_same_v<Op, CrossEntropyOp>)
      return emitCrossEntropy(concrete, kernel);
    else
      return emitCrossEntropyGrad(concrete, kernel);
  }
};

template <typename... Ops> void attach(MLIRContext &context) {
  (Ops::template attachInterface<RowModel<Ops>>(context), ...);
}

} // namespace

void cuda::attachRowModels(MLIRContext &context) {
  attach<SoftmaxOp, LogSoftmaxOp, SoftmaxGradOp, LogSoftmaxGradOp, LayerNormOp,
         RmsNormOp, LayerNormGradOp, RmsNormGradOp, CrossEntropyOp,
         CrossEntropyGradOp>(context);
}
