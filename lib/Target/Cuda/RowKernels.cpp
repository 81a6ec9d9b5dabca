//===- RowKernels.cpp - softmax, the norms and cross-entropy --------------===//
//
// Row ops run one row kernel (Functor::launchRows) over the rows (or
// lines, for a softmax along an inner dimension): the functor calls the
// row's function of amp_runtime/row_math.h, the interpreter's too, with the
// row context and loads and stores of the row's memory. The same functor
// runs on the host and, a warp per row, under nvcc, summing in one order.
//
//===----------------------------------------------------------------------===//

#include "StepEmitter.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Backend.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::backend;
using namespace mlir::amp::cuda;

namespace {

/// The fused ops of `kernel` that `values` depend on, in block order.
SmallVector<Operation *> fusedProducers(OpKernel &kernel,
                                        SmallVector<Value> values) {
  llvm::SmallPtrSet<Operation *, 8> needed;
  while (!values.empty()) {
    Operation *def = values.pop_back_val().getDefiningOp();
    if (!def || !llvm::is_contained(kernel.getFused(), def) ||
        !needed.insert(def).second)
      continue;
    llvm::append_range(values, def->getOperands());
  }
  SmallVector<Operation *> ops;
  for (Operation *other : kernel.getFused())
    if (needed.contains(other))
      ops.push_back(other);
  return ops;
}

/// The row op's epilogue: the elementwise ops of its kernel after it and
/// those before it that they read (not a loss's gradient, which a
/// cross-entropy's kernel computes itself).
SmallVector<Operation *> epilogueOf(OpKernel &kernel) {
  SmallVector<Value> read;
  for (Operation *other : kernel.getFused())
    if (isFusibleElementwise(other) && kernel.getOp()->isBeforeInBlock(other))
      read.push_back(other->getResult(0));
  return fusedProducers(kernel, read);
}

/// The prologue ops that compute the row's input (operand 0) where it is
/// read elsewhere too: the row kernel stores it as it stores the row
/// (--amp-fuse's stored prologue).
SmallVector<Operation *> storedInputOf(OpKernel &kernel) {
  Operation *op = kernel.getOp();
  if (op->getNumOperands() == 0 ||
      !kernel.getEmitter().reachesMemory(op->getOperand(0)))
    return {};
  return fusedProducers(kernel, {op->getOperand(0)});
}

/// The Load of row_math.h `name` reading operand `operand` of the kernel's
/// op at `index` (an expression of j) in the register type `t`: from
/// memory, or computed by the ops of its prologue that make it (each call,
/// as the row is read more than once; none of their values is stored here:
/// a stored input is stored by the row's Store).
FailureOr<std::string> loadLambda(OpKernel &kernel, StringRef name, StringRef t,
                                  unsigned operand, StringRef index) {
  // The prologue ops that the operand depends on.
  Value read = kernel.getOp()->getOperand(operand);
  SmallVector<Operation *> chain = fusedProducers(kernel, {read});
  if (chain.empty())
    return ("const auto " + name + " = [&](int64_t j) { return static_cast<" +
            t + ">(" + kernel.load(operand, index) + "); };")
               .str() +
           "\n";
  StepEmitter &emitter = kernel.getEmitter();
  for (Operation *other : chain)
    if (emitter.reachesMemory(other->getResult(0)) &&
        (operand != 0 || other->getResult(0) != read))
      return other->emitError() << "amp-to-cuda: a value computed in a row "
                                   "kernel's loads is read elsewhere";
  std::string text;
  llvm::raw_string_ostream raw(text);
  raw_indented_ostream os(raw);
  os << "const auto " << name << " = [&](int64_t j) {\n";
  os.indent() << "const int64_t at = " << index << ";\n";
  FailureOr<std::string> computed = emitter.emitElementwiseAt(
      kernel.functor(), chain, "at", os, {}, /*storeValues=*/false);
  if (failed(computed))
    return failure();
  os << "return static_cast<" << t << ">(" << *computed << ");\n";
  os.unindent() << "};\n";
  return text;
}

/// The Store of row_math.h writing `result` (of the kernel's op or of an op
/// fused into it; row ops have no guards) at `index` (an expression of j),
/// rounded to its type; with an elementwise epilogue, the value is also
/// its operand there, and the epilogue's values read elsewhere are stored
/// (the result itself only where read elsewhere).
FailureOr<std::string> storeLambda(OpKernel &kernel, Value result, StringRef t,
                                   StringRef index) {
  Type type = elementOf(result);
  StepEmitter &emitter = kernel.getEmitter();
  Functor &functor = kernel.functor();
  SmallVector<Operation *> epilogue = epilogueOf(kernel);
  SmallVector<Operation *> storedInput = storedInputOf(kernel);
  if (epilogue.empty() && storedInput.empty()) {
    std::string out = functor.getParams().add(result, /*writes=*/true);
    return ("const auto store = [&](int64_t j, " + t + " v) { " +
            storeStmt(type, out, index, roundExpr(type, "v")) + " };")
               .str() +
           "\n";
  }
  std::string text;
  llvm::raw_string_ostream raw(text);
  raw_indented_ostream os(raw);
  os << "const auto store = [&](int64_t j, " << t << " v) {\n";
  os.indent() << "const int64_t at = " << index << ";\n";
  if (!storedInput.empty()) {
    // The row's input at its element, computed once more and stored (in
    // a block of its own: its registers are named as the epilogue's).
    os << "{\n";
    os.indent();
    if (failed(emitter.emitElementwiseAt(functor, storedInput, "at", os)))
      return failure();
    os.unindent() << "}\n";
  }
  if (epilogue.empty()) {
    std::string out = functor.getParams().add(result, /*writes=*/true);
    os << storeStmt(type, out, "at", roundExpr(type, "v")) << "\n";
    os.unindent() << "};\n";
    return text;
  }
  os << "const " << registerType(type) << " result = " << roundExpr(type, "v")
     << ";\n";
  if (emitter.reachesMemory(result))
    os << storeHeldStmt(type, functor.getParams().add(result, /*writes=*/true),
                        "at", "result")
       << "\n";
  if (failed(emitter.emitElementwiseAt(functor, epilogue, "at", os,
                                       {{result, "result"}})))
    return failure();
  os.unindent() << "};\n";
  return text;
}

/// The Loads `loads` (the name of operand k's and the index it is read
/// at), then the Store of `result` at `index`, in the register type `t`.
FailureOr<std::string>
rowLambdas(OpKernel &kernel, StringRef t,
           ArrayRef<std::pair<StringRef, std::string>> loads, Value result,
           StringRef index) {
  std::string text;
  for (auto [operand, load] : llvm::enumerate(loads)) {
    FailureOr<std::string> lambda =
        loadLambda(kernel, load.first, t, operand, load.second);
    if (failed(lambda))
      return failure();
    text += *lambda;
  }
  FailureOr<std::string> store = storeLambda(kernel, result, t, index);
  if (failed(store))
    return failure();
  return text + *store;
}

/// Charges the kernel for reading operand `operand`'s rows of `n` values
/// `passes` times where the caches cannot hold them between the passes
/// (getRowRereadBytes: a cross-entropy's rows of a vocabulary's logits).
void chargeRereads(OpKernel &kernel, unsigned operand, int64_t n,
                   int64_t passes) {
  Value value = kernel.getOp()->getOperand(operand);
  std::optional<int64_t> bytes = getCheckedByteSize(tensorOf(value));
  int64_t rows = countOf(value) / std::max<int64_t>(n, 1);
  if (!bytes || rows <= 0)
    return;
  kernel.functor().rereads(getRowRereadBytes(rows, *bytes / rows, passes));
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
  FailureOr<std::string> lambdas =
      rowLambdas(kernel, t, {{"x", at}}, op.getResult(), at);
  if (failed(lambdas))
    return failure();
  raw_indented_ostream &body = kernel.functor().body();
  body << *lambdas << "amprt::softmaxRow<" << t << ">(row, " << n
       << ", x, store, " << boolean(log) << ");\n";
  // Per element: the max, the shifted exp summed, and the output (a
  // subtraction, then an exp and a division or a subtraction); three
  // passes over the row.
  kernel.functor().addWork(5 * product(shape), (log ? 1 : 2) * product(shape));
  chargeRereads(kernel, 0, n, 3);
  kernel.functor().launchRows(product(shape) / n);
  return success();
}

template <typename Op> LogicalResult emitSoftmaxGrad(Op op, OpKernel &kernel) {
  Type type = elementOf(op.getResult());
  std::string t = registerType(type);
  ArrayRef<int64_t> shape = tensorOf(op->getOperand(0)).getShape();
  auto [n, at] = lineAlong(shape, op.getDim());
  bool log = std::is_same_v<Op, LogSoftmaxGradOp>;
  FailureOr<std::string> lambdas =
      rowLambdas(kernel, t, {{"y", at}, {"g", at}}, op.getResult(), at);
  if (failed(lambdas))
    return failure();
  kernel.functor().body() << *lambdas << "amprt::softmaxGradRow<" << t
                          << ">(row, " << n << ", y, g, store, " << boolean(log)
                          << ");\n";
  // Per element: the row's sum of g * y (of g for log) and the output:
  // two passes over y and g.
  kernel.functor().addWork((log ? 3 : 4) * product(shape),
                           (log ? 1 : 0) * product(shape));
  chargeRereads(kernel, 0, n, 2);
  chargeRereads(kernel, 1, n, 2);
  kernel.functor().launchRows(product(shape) / n);
  return success();
}

//===----------------------------------------------------------------------===//
// layer_norm and rms_norm
//===----------------------------------------------------------------------===//

/// The amp.norm_stats --amp-fuse put in the kernel of `norm`, which
/// computes its statistics (NormStatsOp::isComputedBy), or null.
NormStatsOp getFusedStats(Operation *norm, ArrayRef<Operation *> others) {
  for (Operation *other : others)
    if (auto stats = dyn_cast<NormStatsOp>(other))
      if (stats.isComputedBy(norm))
        return stats;
  return {};
}

/// `keep`, which stores a row's statistics (amprt::NormStats<ct> in every
/// lane) as `stats`' results from the row's leading lane.
std::string storeStatsLambda(NormStatsOp stats, OpKernel &kernel,
                             StringRef ct) {
  Type type = elementOf(stats.getMean());
  std::string stores;
  // Those that something reads (an RMS norm's mean, 0, is not).
  for (auto [value, field] :
       {std::pair(stats.getMean(), "stats.mean"),
        std::pair(stats.getDeviation(), "stats.deviation")})
    if (kernel.getEmitter().reachesMemory(value))
      stores += "    " +
                storeStmt(type,
                          kernel.functor().getParams().add(value,
                                                           /*writes=*/true),
                          "i", roundExpr(type, field)) +
                "\n";
  return ("const auto keep = [&](const amprt::NormStats<" + ct +
          "> &stats) {\n  if (row.leads()) {\n" + stores + "  }\n};\n")
      .str();
}

/// amp.norm_stats as a row kernel of its own (where no norm's kernel
/// computes it): the statistics of each row, stored from its leading lane.
LogicalResult emitNormStats(NormStatsOp op, OpKernel &kernel) {
  Value x = op.getInput();
  std::string ct = registerType(elementOf(x));
  int64_t n =
      product(tensorOf(x).getShape().drop_front(op.getNormalizedAxis()));
  FailureOr<std::string> load =
      loadLambda(kernel, "x", ct, 0, "i * " + std::to_string(n) + " + j");
  if (failed(load))
    return failure();
  kernel.functor().body() << *load << storeStatsLambda(op, kernel, ct)
                          << "keep(amprt::normStats<" << ct << ">(row, " << n
                          << ", x, "
                          << literal(op.getEpsilon().convertToDouble(), ct)
                          << ", " << boolean(op.getCentered()) << "));\n";
  // Per element: the mean's sum (centered), the difference, its square
  // and their sum; a pass over x for each sum.
  kernel.functor().addWork((op.getCentered() ? 4 : 2) * countOf(x));
  chargeRereads(kernel, 0, n, op.getCentered() ? 2 : 1);
  kernel.functor().launchRows(countOf(x) / std::max<int64_t>(n, 1));
  return success();
}

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
  SmallVector<std::pair<StringRef, std::string>> loads{{"x", row}};
  if (op.getWeight())
    loads.push_back({"weight", "j"});
  if (biasOperand)
    loads.push_back({"bias", "j"});
  FailureOr<std::string> lambdas =
      rowLambdas(kernel, ct, loads, op.getResult(), row);
  if (failed(lambdas))
    return failure();
  raw_indented_ostream &body = kernel.functor().body();
  body << *lambdas;
  StringRef weight = op.getWeight() ? "weight" : "amprt::NoOperand()";
  std::string eps = literal(op.getEpsilon().convertToDouble(), ct);
  if (NormStatsOp stats = getFusedStats(op, kernel.getFused())) {
    // The statistics, which a backward's normalised input reads: one lane
    // of the row stores them.
    body << storeStatsLambda(stats, kernel, ct)
         << "amprt::normRow<" + ct + ">(row, " + std::to_string(n) + ", x, " +
                boolean(bool(op.getWeight())).str() + ", " + weight.str() +
                ", " + boolean(bool(biasOperand)).str() + ", " +
                (biasOperand ? "bias" : "amprt::NoOperand()") + ", " + eps +
                ", " + boolean(centered).str() + ", store, keep);"
         << "\n";
  } else if (centered)
    body << "amprt::layerNormRow<" + ct + ">(row, " + std::to_string(n) +
                ", x, " + boolean(bool(op.getWeight())).str() + ", " +
                weight.str() + ", " + boolean(bool(biasOperand)).str() + ", " +
                (biasOperand ? "bias" : "amprt::NoOperand()") + ", " + eps +
                ", store);"
         << "\n";
  else
    body << "amprt::rmsNormRow<" + ct + ">(row, " + std::to_string(n) +
                ", x, " + boolean(bool(op.getWeight())).str() + ", " +
                weight.str() + ", " + eps + ", store);"
         << "\n";
  // Per element: the sums of the mean and of the squares, the
  // normalization, the weight and the bias.
  kernel.functor().addWork(((centered ? 6 : 3) + int(bool(op.getWeight())) +
                            int(bool(biasOperand))) *
                           countOf(x));
  // The mean (centered), the squares and the output: passes over x.
  chargeRereads(kernel, 0, n, centered ? 3 : 2);
  kernel.functor().launchRows(countOf(x) / std::max<int64_t>(n, 1));
  return success();
}

template <typename Op> LogicalResult emitNormGrad(Op op, OpKernel &kernel) {
  constexpr bool centered = std::is_same_v<Op, LayerNormGradOp>;
  std::string t = registerType(elementOf(op.getResult()));
  Value x = op.getInput();
  int64_t n =
      product(tensorOf(x).getShape().drop_front(op.getNormalizedAxis()));
  std::string row = "i * " + std::to_string(n) + " + j";
  FailureOr<std::string> lambdas =
      rowLambdas(kernel, t, {{"x", row}, {"g", row}}, op.getResult(), row);
  if (failed(lambdas))
    return failure();
  kernel.functor().body() << *lambdas
                          << (centered ? "amprt::layerNormGradRow<"
                                       : "amprt::rmsNormGradRow<")
                          << t << ">(row, " << n << ", x, g, "
                          << literal(op.getEpsilon().convertToDouble(), t)
                          << ", store);\n";
  // Per element: the statistics again, the means of g and g * h, and the
  // output: x read in the statistics' passes, the mean of g * h and the
  // output; g in its mean (centered), that of g * h and the output.
  kernel.functor().addWork((centered ? 15 : 12) * countOf(x));
  chargeRereads(kernel, 0, n, centered ? 4 : 3);
  chargeRereads(kernel, 1, n, centered ? 3 : 2);
  kernel.functor().launchRows(countOf(x) / std::max<int64_t>(n, 1));
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

/// The gradient's factor (crossEntropyGradScale) as `const ct scale`, in
/// the functor of `kernel`, which computes `grad`.
FailureOr<std::string> gradScale(CrossEntropyGradOp grad, OpKernel &kernel,
                                 StringRef ct) {
  bool mean = grad.getReduction() == LossReduction::mean;
  if (mean && grad.getIgnoreIndex())
    return grad->emitError()
           << "amp-to-cuda: a cross_entropy_grad with ignore_index and "
              "reduction = mean is not supported; write it with reduction = "
              "sum and the loss gradient divided by the count of rows, as "
              "amp-autodiff does";
  Value lossGrad = grad.getGrad();
  std::string load =
      loadExpr(elementOf(lossGrad),
               kernel.functor().getParams().add(lossGrad, false), "0");
  return ("const " + ct + " scale = amprt::crossEntropyGradScale<" + ct +
          ">(static_cast<" + ct + ">(" + load + "), " + boolean(mean) + ", " +
          std::to_string(countOf(grad.getLabels())) + ");\n")
      .str();
}

/// The gradient --amp-fuse put in a cross-entropy's kernel: over the same
/// logits and labels, so one pass over each row gives both.
CrossEntropyGradOp getFusedGrad(CrossEntropyOp loss,
                                ArrayRef<Operation *> others) {
  if (others.size() != 1)
    return {};
  auto grad = dyn_cast<CrossEntropyGradOp>(others.front());
  return grad && grad.isGradientOf(loss) ? grad : CrossEntropyGradOp();
}

LogicalResult emitCrossEntropy(CrossEntropyOp op, OpKernel &kernel) {
  Value logits = op.getLogits();
  std::string ct = registerType(elementOf(logits));
  int64_t classes = tensorOf(logits).getShape().back();
  int64_t rows = countOf(op.getLabels());
  CrossEntropyGradOp grad = getFusedGrad(op, kernel.getFused());
  FailureOr<std::string> partials = kernel.scratch(ct);
  if (failed(partials))
    return failure();
  // Per row into scratch (one lane of the row writes), then the rows in
  // order (emitRowSum); with the gradient, its row from the same
  // statistics.
  std::string at = "i * " + std::to_string(classes) + " + j";
  FailureOr<std::string> x = loadLambda(kernel, "x", ct, 0, at);
  if (failed(x))
    return failure();
  raw_indented_ostream &body = kernel.functor().body();
  body << *x << "const int64_t label = " << kernel.load(1, "i") << ";\n";
  if (grad) {
    FailureOr<std::string> scale = gradScale(grad, kernel, ct);
    FailureOr<std::string> store =
        storeLambda(kernel, grad.getResult(), ct, at);
    if (failed(scale) || failed(store))
      return failure();
    body << *scale << *store
         << "const " + ct + " loss = amprt::crossEntropyRowLossAndGrad<" + ct +
                ">(row, " + std::to_string(classes) + ", x, " +
                labelArguments(op) + ", scale, store);"
         << "\n";
  } else {
    body << "const " + ct + " loss = amprt::crossEntropyRowLoss<" + ct +
                ">(row, " + std::to_string(classes) + ", x, " +
                labelArguments(op) + ");"
         << "\n";
  }
  body << "if (row.leads())\n"
       << "  " << *partials << "[i] = loss;\n";
  // Per logit: the max, and the shifted exp summed; with the gradient, the
  // probability (a subtraction, an exp, a division), less the label's
  // one, scaled.
  if (grad)
    kernel.functor().addWork(7 * rows * classes, 2 * rows * classes);
  else
    kernel.functor().addWork(3 * rows * classes, rows * classes);
  // The max, the exp sum and, with the gradient, its pass over the logits.
  chargeRereads(kernel, 0, classes, grad ? 3 : 2);
  kernel.functor().launchRows(rows);
  return emitRowSum(op, kernel);
}

LogicalResult emitCrossEntropyGrad(CrossEntropyGradOp op, OpKernel &kernel) {
  Value logits = op.getLogits();
  std::string ct = registerType(elementOf(logits));
  int64_t classes = tensorOf(logits).getShape().back();
  int64_t rows = countOf(op.getLabels());
  FailureOr<std::string> scale = gradScale(op, kernel, ct);
  if (failed(scale))
    return failure();
  std::string at = "i * " + std::to_string(classes) + " + j";
  FailureOr<std::string> x = loadLambda(kernel, "x", ct, 0, at);
  if (failed(x))
    return failure();
  std::string loads = *x;
  loads += "const int64_t label = " + kernel.load(1, "i") + ";\n";
  FailureOr<std::string> store = storeLambda(kernel, op.getResult(), ct, at);
  if (failed(store))
    return failure();
  kernel.functor().body() << *scale << loads << *store
                          << "amprt::crossEntropyGradRow<" + ct + ">(row, " +
                                 std::to_string(classes) + ", x, " +
                                 labelArguments(op) + ", scale, store);"
                          << "\n";
  // Per logit: the loss's statistics again, the probability (a
  // subtraction, an exp, a division), less the label's one, scaled; three
  // passes over the logits.
  kernel.functor().addWork(7 * rows * classes, 2 * rows * classes);
  chargeRereads(kernel, 0, classes, 3);
  kernel.functor().launchRows(rows);
  return success();
}

/// amp.cross_entropy's kernel model: the loss, or the loss and its
/// gradient (getFusedGrad).
struct CrossEntropyModel
    : KernelOpInterface::ExternalModel<CrossEntropyModel, CrossEntropyOp> {
  LogicalResult emitKernel(Operation *op, OpKernel &kernel) const {
    return emitCrossEntropy(cast<CrossEntropyOp>(op), kernel);
  }
};

/// The kernel model of a row op of one result, which computes the
/// elementwise prologue and epilogue of its `rows` kernel as it loads and
/// stores.
template <typename Op, LogicalResult (*Emit)(Op, OpKernel &)>
struct RowModel : KernelOpInterface::ExternalModel<RowModel<Op, Emit>, Op> {
  LogicalResult emitKernel(Operation *op, OpKernel &kernel) const {
    return Emit(cast<Op>(op), kernel);
  }
};

} // namespace

void cuda::attachRowModels(MLIRContext &context) {
  SoftmaxOp::attachInterface<RowModel<SoftmaxOp, emitSoftmax<SoftmaxOp>>>(
      context);
  LogSoftmaxOp::attachInterface<
      RowModel<LogSoftmaxOp, emitSoftmax<LogSoftmaxOp>>>(context);
  SoftmaxGradOp::attachInterface<
      RowModel<SoftmaxGradOp, emitSoftmaxGrad<SoftmaxGradOp>>>(context);
  LogSoftmaxGradOp::attachInterface<
      RowModel<LogSoftmaxGradOp, emitSoftmaxGrad<LogSoftmaxGradOp>>>(context);
  LayerNormOp::attachInterface<RowModel<LayerNormOp, emitNorm<LayerNormOp>>>(
      context);
  RmsNormOp::attachInterface<RowModel<RmsNormOp, emitNorm<RmsNormOp>>>(context);
  LayerNormGradOp::attachInterface<
      RowModel<LayerNormGradOp, emitNormGrad<LayerNormGradOp>>>(context);
  RmsNormGradOp::attachInterface<
      RowModel<RmsNormGradOp, emitNormGrad<RmsNormGradOp>>>(context);
  NormStatsOp::attachInterface<RowModel<NormStatsOp, emitNormStats>>(context);
  CrossEntropyOp::attachInterface<CrossEntropyModel>(context);
  CrossEntropyGradOp::attachInterface<
      RowModel<CrossEntropyGradOp, emitCrossEntropyGrad>>(context);
}
