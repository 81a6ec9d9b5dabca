//===- RowKernels.cpp - softmax, the norms and cross-entropy --------------===//
//
// Row ops run one index per row (or line, for a softmax along an inner
// dimension): the functor calls the row's function of
// amp_runtime/row_math.h, the interpreter's too, with loads and stores of
// the row's memory. Under nvcc the runtime's warp-per-row kernel runs
// instead where it takes the op's types and layout (deviceCall).
//
//===----------------------------------------------------------------------===//

#include "StepEmitter.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Backend.h"

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::backend;
using namespace mlir::amp::cuda;

namespace {

bool isF32OrAbsent(Value v) { return !v || elementOf(v).isF32(); }

/// `x` as the runtime's [rows, cols], with the dimensions from
/// `firstColumn` on as the columns; empty where the runtime cannot.
std::string rowsOf(Value x, int64_t firstColumn) {
  std::string dtype = runtimeDtype(elementOf(x)).str();
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

/// `const auto name = [&](int64_t j) { return static_cast<t>(value); };`:
/// the Load of row_math.h reading `value`, an expression of j.
std::string loadLambda(StringRef name, StringRef t, StringRef value) {
  return fitLine(("const auto " + name +
                  " = [&](int64_t j) { return static_cast<" + t + ">(" + value +
                  "); };")
                     .str(),
                 4) +
         "\n";
}

/// The Store of row_math.h writing result 0 of the kernel's op at `index`
/// (an expression of j), rounded to its type.
std::string storeLambda(OpKernel &kernel, StringRef t, StringRef index) {
  Type type = elementOf(kernel.getOp()->getResult(0));
  return fitLine(("const auto store = [&](int64_t j, " + t + " v) { " +
                  kernel.store(0, index, roundExpr(type, "v")) + " };")
                     .str(),
                 4) +
         "\n";
}

/// A C++ bool literal.
StringRef boolean(bool value) { return value ? "true" : "false"; }

//===----------------------------------------------------------------------===//
// softmax and log_softmax
//===----------------------------------------------------------------------===//

template <typename Op> LogicalResult emitSoftmax(Op op, OpKernel &kernel) {
  Type type = elementOf(op.getResult());
  std::string t = registerType(type);
  ArrayRef<int64_t> shape = tensorOf(op.getInput()).getShape();
  auto [n, at] = lineAlong(shape, op.getDim());
  bool log = std::is_same_v<Op, LogSoftmaxOp>;
  raw_indented_ostream &body = kernel.functor().body();
  body << loadLambda("x", t, kernel.load(0, at)) << storeLambda(kernel, t, at)
       << "amprt::softmaxRow<" << t << ">(" << n << ", x, store, "
       << boolean(log) << ");\n";

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
  kernel.functor().body() << loadLambda("y", t, kernel.load(0, at))
                          << loadLambda("g", t, kernel.load(1, at))
                          << storeLambda(kernel, t, at)
                          << "amprt::softmaxGradRow<" << t << ">(" << n
                          << ", y, g, store, " << boolean(log) << ");\n";
  kernel.functor().launch(product(shape) / n);
  return success();
}

//===----------------------------------------------------------------------===//
// layer_norm and rms_norm
//===----------------------------------------------------------------------===//

template <typename Op> LogicalResult emitNorm(Op op, OpKernel &kernel) {
  constexpr bool centered = std::is_same_v<Op, LayerNormOp>;
  Value x = op.getInput();
  int64_t n =
      product(tensorOf(x).getShape().drop_front(op.getNormalizedAxis()));
  // f64 when any operand is.
  std::string ct = "float";
  for (Value v : op->getOperands())
    if (elementOf(v).isF64())
      ct = "double";
  std::string row = "i * " + std::to_string(n) + " + j";
  Value biasOperand;
  if constexpr (centered)
    biasOperand = op.getBias();
  raw_indented_ostream &body = kernel.functor().body();
  body << loadLambda("x", ct, kernel.load(0, row));
  unsigned next = 1;
  if (op.getWeight())
    body << loadLambda("weight", ct, kernel.load(next++, "j"));
  if (biasOperand)
    body << loadLambda("bias", ct, kernel.load(next++, "j"));
  body << storeLambda(kernel, ct, row);
  StringRef weight = op.getWeight() ? "weight" : "amprt::NoOperand()";
  std::string eps = literal(op.getEpsilon().convertToDouble(), ct);
  if (centered)
    body << fitLine("amprt::layerNormRow<" + ct + ">(" + std::to_string(n) +
                        ", x, " + boolean(bool(op.getWeight())).str() + ", " +
                        weight.str() + ", " + boolean(bool(biasOperand)).str() +
                        ", " + (biasOperand ? "bias" : "amprt::NoOperand()") +
                        ", " + eps + ", store);",
                    4)
         << "\n";
  else
    body << fitLine("amprt::rmsNormRow<" + ct + ">(" + std::to_string(n) +
                        ", x, " + boolean(bool(op.getWeight())).str() + ", " +
                        weight.str() + ", " + eps + ", store);",
                    4)
         << "\n";

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
  std::string t = registerType(elementOf(op.getResult()));
  Value x = op.getInput();
  int64_t n =
      product(tensorOf(x).getShape().drop_front(op.getNormalizedAxis()));
  std::string row = "i * " + std::to_string(n) + " + j";
  kernel.functor().body() << loadLambda("x", t, kernel.load(0, row))
                          << loadLambda("g", t, kernel.load(1, row))
                          << storeLambda(kernel, t, row)
                          << (centered ? "amprt::layerNormGradRow<"
                                       : "amprt::rmsNormGradRow<")
                          << t << ">(" << n << ", x, g, "
                          << literal(op.getEpsilon().convertToDouble(), t)
                          << ", store);\n";

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

/// The arguments of row_math.h's cross-entropy functions after the logits:
/// the label and the ignored index.
template <typename Op> std::string labelArguments(Op op) {
  std::optional<int64_t> ignored = op.getIgnoreIndex();
  return "label, " + boolean(ignored.has_value()).str() + ", " +
         std::to_string(ignored.value_or(0));
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
  int64_t classes = tensorOf(logits).getShape().back();
  int64_t rows = countOf(op.getLabels());
  FailureOr<std::string> partials = kernel.scratch(ct);
  if (failed(partials))
    return failure();
  // Per row into scratch, then the rows in order (emitRowSum).
  kernel.functor().body()
      << loadLambda("x", ct,
                    kernel.load(0, "i * " + std::to_string(classes) + " + j"))
      << "const int64_t label = " << kernel.load(1, "i") << ";\n"
      << fitLine(*partials + "[i] = amprt::crossEntropyRowLoss<" + ct + ">(" +
                     std::to_string(classes) + ", x, " + labelArguments(op) +
                     ");",
                 4)
      << "\n";

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
  int64_t classes = tensorOf(logits).getShape().back();
  int64_t rows = countOf(op.getLabels());
  bool mean = op.getReduction() == LossReduction::mean;
  if (mean && op.getIgnoreIndex())
    return op->emitError()
           << "amp-to-cuda: a cross_entropy_grad with ignore_index and "
              "reduction = mean is not supported; write it with reduction = "
              "sum and the loss gradient divided by the count of rows, as "
              "amp-autodiff does";
  std::string at = "i * " + std::to_string(classes) + " + j";
  kernel.functor().body()
      << fitLine("const " + ct + " scale = amprt::crossEntropyGradScale<" + ct +
                     ">(static_cast<" + ct + ">(" + kernel.load(2, "0") +
                     "), " + boolean(mean).str() + ", " + std::to_string(rows) +
                     ");",
                 4)
      << "\n"
      << loadLambda("x", ct, kernel.load(0, at))
      << "const int64_t label = " << kernel.load(1, "i") << ";\n"
      << storeLambda(kernel, ct, at)
      << fitLine("amprt::crossEntropyGradRow<" + ct + ">(" +
                     std::to_string(classes) + ", x, " + labelArguments(op) +
                     ", scale, store);",
                 4)
      << "\n";

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

} // namespace

void cuda::attachRowModels(MLIRContext &context) {
  SoftmaxOp::attachInterface<KernelModel<SoftmaxOp, emitSoftmax<SoftmaxOp>>>(
      context);
  LogSoftmaxOp::attachInterface<
      KernelModel<LogSoftmaxOp, emitSoftmax<LogSoftmaxOp>>>(context);
  SoftmaxGradOp::attachInterface<
      KernelModel<SoftmaxGradOp, emitSoftmaxGrad<SoftmaxGradOp>>>(context);
  LogSoftmaxGradOp::attachInterface<
      KernelModel<LogSoftmaxGradOp, emitSoftmaxGrad<LogSoftmaxGradOp>>>(
      context);
  LayerNormOp::attachInterface<KernelModel<LayerNormOp, emitNorm<LayerNormOp>>>(
      context);
  RmsNormOp::attachInterface<KernelModel<RmsNormOp, emitNorm<RmsNormOp>>>(
      context);
  LayerNormGradOp::attachInterface<
      KernelModel<LayerNormGradOp, emitNormGrad<LayerNormGradOp>>>(context);
  RmsNormGradOp::attachInterface<
      KernelModel<RmsNormGradOp, emitNormGrad<RmsNormGradOp>>>(context);
  CrossEntropyOp::attachInterface<
      KernelModel<CrossEntropyOp, emitCrossEntropy>>(context);
  CrossEntropyGradOp::attachInterface<
      KernelModel<CrossEntropyGradOp, emitCrossEntropyGrad>>(context);
}
