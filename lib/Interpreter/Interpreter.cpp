//===- Interpreter.cpp - the reference interpreter of amp graphs ----------===//
//
// Maps each op onto a kernel in Kernels.cpp. Every op of the amp dialect is
// handled here; an op added to the dialect must be added too.
//
//===----------------------------------------------------------------------===//

#include "amp/Interpreter/Interpreter.h"

#include "Kernels.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include "amp_runtime/hyperparameters.h"
#include "amp_runtime/scalar_math.h"

#include <cmath>
#include <cstdlib>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::interp;
namespace k = mlir::amp::interp::kernels;

static constexpr int kMaxCallDepth = 64;

FailureOr<Tensor> interp::tensorFromAttr(DenseElementsAttr attr) {
  auto type = cast<RankedTensorType>(attr.getType());
  std::optional<ElementKind> kind = getElementKind(type.getElementType());
  if (!kind)
    return failure();
  std::vector<double> data;
  data.reserve(type.getNumElements());
  if (isFloatKind(*kind)) {
    // f16, bf16, f32 and f64 values are all exact in f64.
    for (const APFloat &value : attr.getValues<APFloat>())
      data.push_back(value.convertToDouble());
  } else if (*kind == ElementKind::I1) {
    for (bool value : attr.getValues<bool>())
      data.push_back(value);
  } else {
    for (const APInt &value : attr.getValues<APInt>()) {
      int64_t v = value.getSExtValue();
      if (std::fabs(static_cast<double>(v)) > kMaxExactInteger)
        return failure();
      data.push_back(static_cast<double>(v));
    }
  }
  return Tensor(*kind, type.getShape(), std::move(data));
}

LogicalResult interp::verifySizes(func::FuncOp func) {
  auto tooLarge = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return false;
    std::optional<int64_t> count = getCheckedNumElements(tensor);
    return !count || *count > kMaxTensorElements;
  };
  for (BlockArgument arg : func.getArguments())
    if (tooLarge(arg.getType()))
      return func.emitError()
             << "argument #" << arg.getArgNumber() << " (" << arg.getType()
             << ") has more elements than the interpreter holds (2^32)";
  WalkResult walk = func.walk([&](Operation *op) {
    for (OpResult result : op->getResults())
      if (tooLarge(result.getType())) {
        op->emitError() << "result #" << result.getResultNumber() << " ("
                        << result.getType()
                        << ") has more elements than the interpreter holds "
                           "(2^32)";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult interp::verifyArguments(func::FuncOp func,
                                      ArrayRef<Tensor> args) {
  ArrayRef<Type> inputs = func.getArgumentTypes();
  if (inputs.size() != args.size())
    return func.emitError()
           << "@" << func.getSymName() << " takes " << inputs.size()
           << " arguments, got " << args.size();
  for (auto [i, type, arg] : llvm::enumerate(inputs, args)) {
    RankedTensorType expected = dyn_cast<RankedTensorType>(type);
    if (!expected || !expected.hasStaticShape() ||
        !getElementKind(expected.getElementType()))
      return func.emitError() << "argument #" << i << " has type " << type
                              << ", which the interpreter cannot hold";
    RankedTensorType actual = arg.getType(func.getContext());
    if (actual != expected)
      return func.emitError() << "argument #" << i << " expects " << expected
                              << ", got " << actual;
  }
  return success();
}

namespace {
/// Which kinds of non-finite values a tensor holds.
struct NonFiniteKinds {
  bool nan = false, posInf = false, negInf = false;

  NonFiniteKinds() = default;
  explicit NonFiniteKinds(const Tensor &tensor) {
    for (double value : tensor.getData()) {
      nan |= std::isnan(value);
      posInf |= value == INFINITY;
      negInf |= value == -INFINITY;
    }
  }
  /// Whether `value` is a non-finite value of a kind this set lacks.
  bool lacks(double value) const {
    return (std::isnan(value) && !nan) || (value == INFINITY && !posInf) ||
           (value == -INFINITY && !negInf);
  }
};
} // namespace

/// Reports `op` when a result holds a kind of non-finite value (NaN, +inf,
/// -inf) that none of its operands holds: the op created it, by overflow,
/// 0/0, inf - inf, log(0), ... Values merely passed on (a -inf mask through
/// a select) are not reported; constants are literals and never are.
static LogicalResult checkFinite(Operation *op, ArrayRef<Tensor> operands,
                                 ArrayRef<Tensor> results) {
  if (op->hasTrait<OpTrait::ConstantLike>())
    return success();
  NonFiniteKinds inherited;
  for (const Tensor &operand : operands) {
    if (!operand.isFloat())
      continue;
    NonFiniteKinds kinds(operand);
    inherited.nan |= kinds.nan;
    inherited.posInf |= kinds.posInf;
    inherited.negInf |= kinds.negInf;
  }
  for (auto [r, result] : llvm::enumerate(results)) {
    if (!result.isFloat())
      continue;
    ArrayRef<double> data = result.getData();
    const double *bad = llvm::find_if(
        data, [&](double value) { return inherited.lacks(value); });
    if (bad == data.end())
      continue;
    int64_t index = bad - data.begin();
    InFlightDiagnostic diag = op->emitError();
    diag << "first non-finite value: '" << op->getName() << "' produced "
         << (std::isnan(*bad) ? "nan"
             : *bad > 0       ? "inf"
                              : "-inf")
         << " at " << formatIndex(result.getShape(), index) << " of result #"
         << r << " (" << result.countNonFinite() << " of "
         << result.getNumElements() << " elements non-finite)";
    for (auto [o, operand] : llvm::enumerate(operands)) {
      if (!operand.isFloat())
        continue;
      Diagnostic &note = diag.attachNote(op->getOperand(o).getLoc());
      note << "operand #" << o << " (" << op->getOperand(o).getType() << ") ";
      if (std::optional<int64_t> badIn = operand.findNonFinite())
        note << "holds " << operand.countNonFinite()
             << " non-finite values, the first at "
             << formatIndex(operand.getShape(), *badIn);
      else
        note << "is finite, largest magnitude " << [](const Tensor &tensor) {
          double largest = 0;
          for (double value : tensor.getData())
            largest = std::max(largest, std::fabs(value));
          return largest;
        }(operand);
    }
    return failure();
  }
  return success();
}

static std::optional<kernels::UnaryFn> getUnaryFn(Operation *op) {
  return TypeSwitch<Operation *, std::optional<k::UnaryFn>>(op)
      .Case([](NegOp) { return k::UnaryFn::Neg; })
      .Case([](AbsOp) { return k::UnaryFn::Abs; })
      .Case([](ExpOp) { return k::UnaryFn::Exp; })
      .Case([](LogOp) { return k::UnaryFn::Log; })
      .Case([](SqrtOp) { return k::UnaryFn::Sqrt; })
      .Case([](RsqrtOp) { return k::UnaryFn::Rsqrt; })
      .Case([](TanhOp) { return k::UnaryFn::Tanh; })
      .Case([](SigmoidOp) { return k::UnaryFn::Sigmoid; })
      .Case([](SoftplusOp) { return k::UnaryFn::Softplus; })
      .Case([](ReluOp) { return k::UnaryFn::Relu; })
      .Case([](GeluOp op) {
        return op.getApproximate() == GeluApproximation::tanh
                   ? k::UnaryFn::GeluTanh
                   : k::UnaryFn::GeluErf;
      })
      .Case([](PowOp) { return k::UnaryFn::Pow; })
      .Case<arith::NegFOp>([](auto) { return k::UnaryFn::Neg; })
      .Case<math::AbsFOp>([](auto) { return k::UnaryFn::Abs; })
      .Case<math::ExpOp>([](auto) { return k::UnaryFn::Exp; })
      .Case<math::LogOp>([](auto) { return k::UnaryFn::Log; })
      .Case<math::SqrtOp>([](auto) { return k::UnaryFn::Sqrt; })
      .Case<math::RsqrtOp>([](auto) { return k::UnaryFn::Rsqrt; })
      .Case<math::TanhOp>([](auto) { return k::UnaryFn::Tanh; })
      .Default([](Operation *) { return std::nullopt; });
}

static std::optional<kernels::BinaryFn> getBinaryFn(Operation *op) {
  return TypeSwitch<Operation *, std::optional<k::BinaryFn>>(op)
      .Case<AddOp, arith::AddFOp>([](auto) { return k::BinaryFn::Add; })
      .Case<SubOp, arith::SubFOp>([](auto) { return k::BinaryFn::Sub; })
      .Case<MulOp, arith::MulFOp>([](auto) { return k::BinaryFn::Mul; })
      .Case<DivOp, arith::DivFOp>([](auto) { return k::BinaryFn::Div; })
      .Case<MaximumOp, arith::MaximumFOp>(
          [](auto) { return k::BinaryFn::Maximum; })
      .Case<MinimumOp, arith::MinimumFOp>(
          [](auto) { return k::BinaryFn::Minimum; })
      .Default([](Operation *) { return std::nullopt; });
}

static kernels::CompareFn getCompareFn(ComparePredicate predicate) {
  switch (predicate) {
  case ComparePredicate::eq:
    return k::CompareFn::Eq;
  case ComparePredicate::ne:
    return k::CompareFn::Ne;
  case ComparePredicate::lt:
    return k::CompareFn::Lt;
  case ComparePredicate::le:
    return k::CompareFn::Le;
  case ComparePredicate::gt:
    return k::CompareFn::Gt;
  case ComparePredicate::ge:
    return k::CompareFn::Ge;
  }
  llvm_unreachable("unknown predicate");
}

static ElementKind kindOf(Type type) {
  return *getElementKind(getElementTypeOrSelf(type));
}

static amprt::Fp8Format fp8FormatOf(Type type) {
  return type.isFloat8E4M3FN() ? amprt::Fp8Format::E4M3FN
                               : amprt::Fp8Format::E5M2;
}

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

namespace {
/// Executes the ops of one function body against a value map.
class Frame {
public:
  Frame(ModuleOp module, bool checkFiniteValues, int depth,
        function_ref<FailureOr<std::vector<Tensor>>(func::FuncOp,
                                                    ArrayRef<Tensor>, int)>
            call)
      : module(module), checkFiniteValues(checkFiniteValues), depth(depth),
        call(call) {}

  /// Runs `block` and returns the operands of its terminator.
  FailureOr<std::vector<Tensor>> run(Block &block, ArrayRef<Tensor> args,
                                     bool &stoppedAtNonFinite);

private:
  FailureOr<SmallVector<Tensor>> execute(Operation *op,
                                         ArrayRef<Tensor> operands);
  /// The ops of the model: data, shape, contraction, norms, losses and
  /// their gradients; the others go to executeStepOp.
  FailureOr<SmallVector<Tensor>> executeModelOp(Operation *op,
                                                ArrayRef<Tensor> in);
  /// The gradient ops amp-autodiff writes; the others go to executeStepOp.
  FailureOr<SmallVector<Tensor>> executeGradientOp(Operation *op,
                                                   ArrayRef<Tensor> in);
  /// The ops of a training step around the model: the optimizer updates
  /// and schedules, the replicas' collectives, loss scaling, calls.
  FailureOr<SmallVector<Tensor>> executeStepOp(Operation *op,
                                               ArrayRef<Tensor> in);

  ModuleOp module;
  bool checkFiniteValues;
  int depth;
  function_ref<FailureOr<std::vector<Tensor>>(func::FuncOp, ArrayRef<Tensor>,
                                              int)>
      call;
};
} // namespace

FailureOr<SmallVector<Tensor>> Frame::execute(Operation *op,
                                              ArrayRef<Tensor> in) {
  using Result = FailureOr<SmallVector<Tensor>>;
  auto one = [](Tensor t) -> Result { return SmallVector<Tensor>{t}; };
  auto resultShape = [&]() { return shapeOf(op->getResult(0)); };
  if (std::optional<k::UnaryFn> fn = getUnaryFn(op)) {
    auto pow = dyn_cast<PowOp>(op);
    return one(
        k::unary(*fn, in[0], pow ? pow.getExponent().convertToDouble() : 0.0));
  }
  if (std::optional<k::BinaryFn> fn = getBinaryFn(op))
    return one(k::binary(*fn, in[0], in[1], resultShape()));

  return executeModelOp(op, in);
}

FailureOr<SmallVector<Tensor>> Frame::executeModelOp(Operation *op,
                                                     ArrayRef<Tensor> in) {
  using Result = FailureOr<SmallVector<Tensor>>;
  auto one = [](Tensor t) -> Result { return SmallVector<Tensor>{t}; };
  auto resultShape = [&]() { return shapeOf(op->getResult(0)); };
  auto resultKind = [&]() { return kindOf(op->getResult(0).getType()); };
  return TypeSwitch<Operation *, Result>(op)
      .Case<ConstantOp, arith::ConstantOp>([&](auto constant) -> Result {
        auto attr = dyn_cast<DenseElementsAttr>(constant.getValue());
        FailureOr<Tensor> tensor =
            attr ? tensorFromAttr(attr) : FailureOr<Tensor>(failure());
        if (failed(tensor))
          return constant.emitOpError(
              "holds a value the interpreter cannot represent");
        return one(*tensor);
      })
      .Case<CastOp, arith::ExtFOp, arith::TruncFOp>(
          [&](Operation *) { return one(k::cast(in[0], resultKind())); })
      .Case([&](IotaOp iota) {
        return one(k::iota(resultKind(), resultShape(), iota.getDim()));
      })
      .Case([&](SelectOp) {
        return one(k::select(in[0], in[1], in[2], resultShape()));
      })
      .Case([&](CompareOp compare) {
        return one(k::compare(getCompareFn(compare.getPredicate()), in[0],
                              in[1], resultShape()));
      })
      .Case([&](ReshapeOp) { return one(k::reshape(in[0], resultShape())); })
      .Case([&](StopGradientOp) { return one(in[0]); })
      .Case([&](TransposeOp transpose) {
        return one(k::transpose(in[0], transpose.getPermutation()));
      })
      .Case([&](BroadcastToOp) {
        return one(k::broadcastTo(in[0], resultShape()));
      })
      .Case([&](SliceOp slice) {
        return one(k::slice(in[0], slice.getStart(), slice.getLimit()));
      })
      .Case([&](ConcatOp concat) {
        SmallVector<const Tensor *> inputs;
        for (const Tensor &t : in)
          inputs.push_back(&t);
        return one(k::concat(inputs, concat.getDim()));
      })
      .Case([&](MatmulOp matmul) {
        if (matmul.isFp8()) {
          // Each operand scaled and rounded to its format; the f32 sum of
          // the (exact) products times the two inverse scales.
          float lhsInverse = 1.0f, rhsInverse = 1.0f;
          Tensor lhs, rhs;
          if (matmul.getScales()) {
            // Delayed scaling: the scales given; FP8 operands were cast
            // with them already.
            const Tensor &scales = in[matmul.getBias() ? 3 : 2];
            ArrayRef<int64_t> index = *matmul.getFp8ScaleIndex();
            float lhsScale = static_cast<float>(scales[index[0]]),
                  rhsScale = static_cast<float>(scales[index[1]]);
            lhsInverse = 1.0f / lhsScale;
            rhsInverse = 1.0f / rhsScale;
            bool cast = in[0].getKind() == ElementKind::F8E4M3FN ||
                        in[0].getKind() == ElementKind::F8E5M2;
            lhs = cast ? in[0]
                       : k::quantizeFp8(in[0], lhsScale,
                                        fp8FormatOf(*matmul.getLhsFp8()));
            rhs = cast ? in[1]
                       : k::quantizeFp8(in[1], rhsScale,
                                        fp8FormatOf(*matmul.getRhsFp8()));
          } else {
            lhs = k::quantizeFp8Tensorwise(
                in[0], fp8FormatOf(*matmul.getLhsFp8()), lhsInverse);
            rhs = k::quantizeFp8Tensorwise(
                in[1], fp8FormatOf(*matmul.getRhsFp8()), rhsInverse);
          }
          return one(k::matmul(lhs, rhs, matmul.getBias() ? &in[2] : nullptr,
                               matmul.getTransposeLhs(),
                               matmul.getTransposeRhs(), ElementKind::F32,
                               resultKind(), resultShape(),
                               lhsInverse * rhsInverse));
        }
        return one(k::matmul(in[0], in[1], matmul.getBias() ? &in[2] : nullptr,
                             matmul.getTransposeLhs(), matmul.getTransposeRhs(),
                             kindOf(matmul.getAccumulatorType()), resultKind(),
                             resultShape()));
      })
      .Case([&](Conv2dOp conv) {
        return one(k::conv2d(in[0], in[1], conv.getBias() ? &in[2] : nullptr,
                             conv.getWindow(), conv.getGroupCount(),
                             kindOf(conv.getAccumulatorType()), resultKind(),
                             resultShape()));
      })
      .Case([&](Conv2dGradInputOp grad) {
        return one(k::conv2dGradInput(
            in[0], in[1], grad.getWindow(), grad.getGroupCount(),
            kindOf(grad.getAccumulatorType()), resultKind(), resultShape()));
      })
      .Case([&](Conv2dGradWeightOp grad) {
        return one(k::conv2dGradWeight(
            in[0], in[1], grad.getWindow(), grad.getGroupCount(),
            kindOf(grad.getAccumulatorType()), resultKind(), resultShape()));
      })
      .Case([&](Im2colOp im2col) {
        return one(k::im2col(in[0], im2col.getWindow(), resultShape()));
      })
      .Case([&](Col2imOp col2im) {
        return one(
            k::col2im(in[0], col2im.getWindow(), resultKind(), resultShape()));
      })
      .Case([&](AvgPool2dOp pool) {
        return one(k::avgPool2d(in[0], pool.getWindow(), resultShape()));
      })
      .Case([&](AdaptiveAvgPool2dOp pool) {
        ArrayRef<int64_t> image = in[0].getShape();
        ArrayRef<int64_t> out = pool.getOutputSize();
        if (pool.tilesInput()) {
          amprt::Conv2dWindow window;
          window.kernel[0] = window.strides[0] = image[2] / out[0];
          window.kernel[1] = window.strides[1] = image[3] / out[1];
          return one(k::avgPool2d(in[0], window, resultShape()));
        }
        auto windows = [](int64_t size, int64_t outputs) {
          SmallVector<std::pair<int64_t, int64_t>> bounds;
          for (int64_t i = 0; i < outputs; ++i)
            bounds.push_back(
                AdaptiveAvgPool2dOp::getWindowBounds(size, outputs, i));
          return bounds;
        };
        return one(k::adaptiveAvgPool2d(in[0], windows(image[2], out[0]),
                                        windows(image[3], out[1]),
                                        resultShape()));
      })
      .Case([&](MaxPool2dOp pool) {
        return one(k::maxPool2d(in[0], pool.getWindow(), resultShape()));
      })
      .Case([&](MaxPool2dGradOp grad) {
        return one(k::maxPool2dGrad(in[0], in[1], grad.getWindow()));
      })
      .Case([&](BatchNormOp norm) -> Result {
        const Tensor *weight = norm.getWeight() ? &in[3] : nullptr;
        const Tensor *bias =
            norm.getBias() ? &in[norm.getWeight() ? 4 : 3] : nullptr;
        return k::batchNorm(in[0], in[1], in[2], weight, bias,
                            norm.getEpsilon().convertToDouble(),
                            norm.getMomentum().convertToDouble(),
                            norm.getTraining());
      })
      .Case([&](BatchNormGradOp grad) -> Result {
        return k::batchNormGrad(
            in[0], in[1], in[2], in[3], grad.getWeight() ? &in[4] : nullptr,
            grad.getEpsilon().convertToDouble(), grad.getTraining(),
            kindOf(grad.getScaleGrad().getType().getElementType()),
            kindOf(grad.getBiasGrad().getType().getElementType()));
      })
      .Case([&](AttentionOp attention) -> Result {
        auto [out, lse] =
            k::attention(in[0], in[1], in[2], attention.getCausal(),
                         attention.getScaleOrDefault());
        SmallVector<Tensor> results{std::move(out)};
        if (attention.getLse())
          results.push_back(std::move(lse));
        return results;
      })
      .Case([&](AttentionGradOp grad) -> Result {
        return k::attentionGrad(in[0], in[1], in[2], in[3], in[4], in[5],
                                grad.getCausal(), grad.getScaleOrDefault());
      })
      .Case([&](SumOp sum) {
        return one(k::reduce(k::ReduceFn::Sum, in[0], sum.getDims(),
                             kindOf(sum.getAccumulatorType()), resultKind(),
                             resultShape()));
      })
      .Case([&](MeanOp mean) {
        return one(k::reduce(k::ReduceFn::Mean, in[0], mean.getDims(),
                             kindOf(mean.getAccumulatorType()), resultKind(),
                             resultShape()));
      })
      .Case([&](MaxOp max) {
        return one(k::reduce(k::ReduceFn::Max, in[0], max.getDims(),
                             resultKind(), resultKind(), resultShape()));
      })
      .Case([&](SoftmaxOp softmax) {
        return one(k::softmax(in[0], softmax.getDim(), /*log=*/false));
      })
      .Case([&](LogSoftmaxOp softmax) {
        return one(k::softmax(in[0], softmax.getDim(), /*log=*/true));
      })
      .Case([&](LayerNormOp norm) {
        const Tensor *weight = norm.getWeight() ? &in[1] : nullptr;
        const Tensor *bias =
            norm.getBias() ? &in[norm.getWeight() ? 2 : 1] : nullptr;
        return one(k::layerNorm(in[0], weight, bias, norm.getNormalizedAxis(),
                                norm.getEpsilon().convertToDouble()));
      })
      .Case([&](NormStatsOp stats) -> Result {
        auto [mean, deviation] = k::normStats(
            in[0], stats.getNormalizedAxis(),
            stats.getEpsilon().convertToDouble(), stats.getCentered());
        return SmallVector<Tensor>{std::move(mean), std::move(deviation)};
      })
      .Case([&](RmsNormOp norm) {
        return one(k::rmsNorm(in[0], norm.getWeight() ? &in[1] : nullptr,
                              norm.getNormalizedAxis(),
                              norm.getEpsilon().convertToDouble()));
      })
      .Case([&](DropoutOp dropout) {
        if (!dropout.getTraining())
          return one(in[0]);
        return one(k::dropout(in[0], in[1], dropout.getP().convertToDouble(),
                              dropout.getStream()));
      })
      .Case([&](RngAdvanceOp) { return one(k::rngAdvance(in[0])); })
      .Case([&](EmbeddingOp embedding) -> Result {
        std::string error;
        FailureOr<Tensor> out = k::embedding(in[0], in[1], error);
        if (failed(out))
          return embedding.emitOpError() << error;
        return one(*out);
      })
      .Case([&](CrossEntropyOp loss) -> Result {
        std::string error;
        FailureOr<Tensor> out = k::crossEntropy(
            in[0], in[1], loss.getReduction() == LossReduction::mean,
            loss.getIgnoreIndex(), resultKind(), error);
        if (failed(out))
          return loss.emitOpError() << error;
        return one(*out);
      })
      .Case([&](MseLossOp loss) {
        return one(k::mseLoss(in[0], in[1],
                              loss.getReduction() == LossReduction::mean,
                              resultKind()));
      })
      .Default([&](Operation *other) { return executeGradientOp(other, in); });
}

FailureOr<SmallVector<Tensor>> Frame::executeGradientOp(Operation *op,
                                                        ArrayRef<Tensor> in) {
  using Result = FailureOr<SmallVector<Tensor>>;
  auto one = [](Tensor t) -> Result { return SmallVector<Tensor>{t}; };
  auto resultKind = [&]() { return kindOf(op->getResult(0).getType()); };
  return TypeSwitch<Operation *, Result>(op)
      .Case([&](ReluGradOp) { return one(k::reluGrad(in[0], in[1])); })
      .Case([&](GeluGradOp gelu) {
        return one(k::geluGrad(
            in[0], in[1], gelu.getApproximate() == GeluApproximation::tanh));
      })
      .Case([&](SoftmaxGradOp grad) {
        return one(k::softmaxGrad(in[0], in[1], grad.getDim(), false));
      })
      .Case([&](LogSoftmaxGradOp grad) {
        return one(k::softmaxGrad(in[0], in[1], grad.getDim(), true));
      })
      .Case([&](LayerNormGradOp grad) {
        return one(k::layerNormGrad(in[0], in[1], grad.getNormalizedAxis(),
                                    grad.getEpsilon().convertToDouble()));
      })
      .Case([&](RmsNormGradOp grad) {
        return one(k::rmsNormGrad(in[0], in[1], grad.getNormalizedAxis(),
                                  grad.getEpsilon().convertToDouble()));
      })
      .Case([&](CrossEntropyGradOp grad) -> Result {
        std::string error;
        FailureOr<Tensor> out = k::crossEntropyGrad(
            in[0], in[1], in[2], grad.getReduction() == LossReduction::mean,
            grad.getIgnoreIndex(), error);
        if (failed(out))
          return grad.emitOpError() << error;
        return one(*out);
      })
      .Case([&](EmbeddingGradOp grad) -> Result {
        std::string error;
        FailureOr<Tensor> out = k::embeddingGrad(
            in[0], in[1], grad.getType().getDimSize(0), resultKind(), error);
        if (failed(out))
          return grad.emitOpError() << error;
        return one(*out);
      })
      .Default([&](Operation *other) { return executeStepOp(other, in); });
}

FailureOr<SmallVector<Tensor>> Frame::executeStepOp(Operation *op,
                                                    ArrayRef<Tensor> in) {
  using Result = FailureOr<SmallVector<Tensor>>;
  auto one = [](Tensor t) -> Result { return SmallVector<Tensor>{t}; };
  auto resultShape = [&]() { return shapeOf(op->getResult(0)); };
  // An op of a step compiled for several replicas: the interpreter is one.
  auto notOneReplica = [&](Operation *of, StringRef does,
                           int64_t replicas) -> Result {
    return of->emitOpError()
           << does << " " << replicas
           << " replicas; the interpreter is one replica (compile for "
              "replicas=1 to interpret the step)";
  };
  // Hyperparameters (operands from `first` on, named in operand order),
  // each in its range: they are set at run time, so the verifier may not
  // have seen them.
  auto readHypersFrom =
      [&](unsigned first,
          ArrayRef<StringRef> names) -> FailureOr<SmallVector<double>> {
    SmallVector<double> values;
    for (auto [k, name] : llvm::enumerate(names)) {
      double value = in[first + k][0];
      const amprt::HyperParameterRange *range =
          amprt::hyperParameterRange(name);
      if (!amprt::inRange(*range, value))
        return op->emitOpError()
               << name << " must lie in " << range->words << ", got " << value;
      values.push_back(value);
    }
    return values;
  };
  auto readHypers = [&](OptimizerUpdateOpInterface update,
                        ArrayRef<StringRef> names) {
    return readHypersFrom(
        update.getHyperParameterOperands().getBeginOperandIndex(), names);
  };

  return TypeSwitch<Operation *, Result>(op)
      .Case([&](SgdUpdateOp sgd) -> Result {
        FailureOr<SmallVector<double>> h =
            readHypers(sgd, {"lr", "weight_decay"});
        if (failed(h))
          return failure();
        return k::sgd(in[0], in[1], nullptr, 0,
                      {(*h)[0], 0, 0, (*h)[1], false});
      })
      .Case([&](SgdMomentumUpdateOp sgd) -> Result {
        FailureOr<SmallVector<double>> h =
            readHypers(sgd, {"lr", "momentum", "weight_decay"});
        if (failed(h))
          return failure();
        return k::sgd(in[0], in[1], &in[2], in[3][0],
                      {(*h)[0], (*h)[1], sgd.getDampening().convertToDouble(),
                       (*h)[2], sgd.getNesterov()});
      })
      .Case([&](AdamwUpdateOp adam) -> Result {
        FailureOr<SmallVector<double>> h =
            readHypers(adam, {"lr", "beta1", "beta2", "eps", "weight_decay"});
        if (failed(h))
          return failure();
        return k::adamw(in[0], in[1], in[2], in[3], in[4][0],
                        {(*h)[0], (*h)[1], (*h)[2], (*h)[3], (*h)[4],
                         adam.getCoupledDecay()});
      })
      .Case([&](LrScheduleOp schedule) -> Result {
        SmallVector<StringRef> names;
        for (StringRef name : LrScheduleOp::getParamNames(schedule.getKind()))
          names.push_back(name);
        // Operands: lr, the step count, then the parameters.
        FailureOr<SmallVector<double>> lr = readHypersFrom(0, {"lr"});
        FailureOr<SmallVector<double>> params = readHypersFrom(2, names);
        if (failed(lr) || failed(params))
          return failure();
        double rate = amprt::scheduledRate(
            static_cast<amprt::LrScheduleKind>(schedule.getKind()), (*lr)[0],
            in[1][0], params->data());
        return one(Tensor(ElementKind::F64, {}, {rate}));
      })
      .Case([&](SumSquaresOp) { return one(k::sumSquares(in)); })
      .Case([&](Fp8CastOp fp8Cast) -> Result {
        float scale = static_cast<float>(in[1][fp8Cast.getFp8ScaleIndex()]);
        amprt::Fp8Format format = fp8FormatOf(fp8Cast.getFormat());
        Tensor values = k::quantizeFp8(in[0], scale, format);
        Tensor data(kindOf(fp8Cast.getData().getType()), values.getShape(),
                    std::vector<double>(values.getData().begin(),
                                        values.getData().end()));
        int64_t rank = data.getShape().size();
        SmallVector<int64_t> permutation;
        for (int64_t d = 0; d < rank; ++d)
          permutation.push_back(d);
        std::swap(permutation[rank - 1], permutation[rank - 2]);
        Tensor transposed = k::transpose(data, permutation);
        return SmallVector<Tensor>{
            data, transposed,
            Tensor(ElementKind::F32, {}, {k::fp8Amax(in[0])})};
      })
      .Case([&](Fp8AmaxOp) {
        return one(Tensor(ElementKind::F32, {}, {k::fp8Amax(in[0])}));
      })
      .Case([&](Fp8ScalingUpdateOp update) -> Result {
        SmallVector<float> amax;
        for (const Tensor &value : in.drop_front(3))
          amax.push_back(static_cast<float>(value[0]));
        SmallVector<amprt::Fp8Format> formats;
        for (Attribute format : update.getFormats())
          formats.push_back(fp8FormatOf(cast<TypeAttr>(format).getValue()));
        return k::fp8ScalingUpdate(in[0], in[1], in[2], amax, formats,
                                   update.getMargin().convertToDouble(),
                                   update.getMostRecent());
      })
      // The interpreter is one process: a single replica, whose reduction
      // over the replicas is its own values.
      .Case([&](AllReduceOp reduce) -> Result {
        return SmallVector<Tensor>(in.begin(),
                                   in.begin() + reduce.getInputs().size());
      })
      .Case([&](ReplicaCountOp) {
        return one(Tensor(ElementKind::F32, {}, {1.0}));
      })
      // Parts over one replica are whole tensors, flattened and back.
      .Case([&](ReplicaShardOp shard) -> Result {
        if (shard.getReplicas() != 1)
          return notOneReplica(shard, "cuts a tensor into parts for",
                               shard.getReplicas());
        return one(k::reshape(in[0], resultShape()));
      })
      .Case([&](AllGatherOp gather) -> Result {
        if (gather.getReplicas() != 1)
          return notOneReplica(gather, "gathers the parts of",
                               gather.getReplicas());
        size_t count = gather.getInputs().size();
        if (gather.getWhen() && in.back()[0] == 0)
          return SmallVector<Tensor>(in.begin() + count,
                                     in.begin() + 2 * count);
        SmallVector<Tensor> wholes;
        for (auto [part, result] :
             llvm::zip(in.take_front(count), gather.getResults()))
          wholes.push_back(k::reshape(part, shapeOf(result)));
        return wholes;
      })
      .Case([&](UnscaleOp) -> Result {
        return k::unscale(in[0], in.drop_front());
      })
      .Case([&](ScalerUpdateOp update) -> Result {
        k::ScalerHyper hyper{update.getGrowthFactor().convertToDouble(),
                             update.getBackoffFactor().convertToDouble(),
                             static_cast<int64_t>(update.getGrowthInterval()),
                             static_cast<int64_t>(update.getHysteresis()),
                             std::nullopt,
                             std::nullopt};
        if (std::optional<APFloat> v = update.getMinScale())
          hyper.minScale = v->convertToDouble();
        if (std::optional<APFloat> v = update.getMaxScale())
          hyper.maxScale = v->convertToDouble();
        return k::scalerUpdate(in[0][0], in[1][0], in[2][0], in[3][0] != 0,
                               hyper);
      })
      .Case([&](func::CallOp callOp) -> Result {
        auto callee = module.lookupSymbol<func::FuncOp>(callOp.getCalleeAttr());
        if (!callee || callee.isExternal())
          return callOp.emitOpError() << "calls @" << callOp.getCallee()
                                      << ", which has no body to interpret";
        FailureOr<std::vector<Tensor>> results = call(callee, in, depth + 1);
        if (failed(results))
          return failure();
        return SmallVector<Tensor>(results->begin(), results->end());
      })
      .Default([&](Operation *other) -> Result {
        return other->emitOpError("is not supported by the interpreter");
      });
}

FailureOr<std::vector<Tensor>> Frame::run(Block &block, ArrayRef<Tensor> args,
                                          bool &stoppedAtNonFinite) {
  llvm::DenseMap<Value, Tensor> values;
  for (auto [arg, tensor] : llvm::zip(block.getArguments(), args))
    values[arg] = tensor;
  for (Operation &op : block) {
    SmallVector<Tensor> operands;
    for (Value operand : op.getOperands())
      operands.push_back(values.at(operand));
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      if (!isa<func::ReturnOp, amp::YieldOp>(op))
        return op.emitOpError("is not supported by the interpreter");
      return std::vector<Tensor>(operands.begin(), operands.end());
    }
    // A kernel of a fused step: its ops, one after the other.
    if (auto fusion = dyn_cast<amp::FusionOp>(op)) {
      FailureOr<std::vector<Tensor>> results =
          run(fusion.getBlock(), operands, stoppedAtNonFinite);
      if (failed(results))
        return failure();
      for (auto [result, tensor] : llvm::zip(op.getResults(), *results))
        values[result] = std::move(tensor);
      continue;
    }
    for (auto [i, type] : llvm::enumerate(op.getResultTypes())) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || !tensor.hasStaticShape() ||
          !getElementKind(tensor.getElementType()))
        return op.emitOpError()
               << "produces " << type << ", which the interpreter cannot hold";
      // A result that does not fit is a diagnostic at its op: the
      // allocation itself would end the process (LLVM's handler for a
      // failed new aborts). Sizes are below 2^32 elements (verifySizes).
      size_t bytes =
          static_cast<size_t>(tensor.getNumElements()) * sizeof(double);
      if (void *probe = std::malloc(bytes ? bytes : 1))
        std::free(probe);
      else
        return op.emitOpError()
               << "cannot allocate " << bytes << " bytes for result #" << i
               << " (" << type << ")";
    }
    FailureOr<SmallVector<Tensor>> results = execute(&op, operands);
    if (failed(results))
      return failure();
    if (checkFiniteValues && failed(checkFinite(&op, operands, *results))) {
      stoppedAtNonFinite = true;
      return failure();
    }
    for (auto [result, tensor] : llvm::zip(op.getResults(), *results))
      values[result] = std::move(tensor);
  }
  return block.getParentOp()->emitError("block has no terminator");
}

FailureOr<std::vector<Tensor>> Interpreter::run(func::FuncOp func,
                                                ArrayRef<Tensor> args) {
  nonFinite = false;
  if (func.isExternal())
    return func.emitError() << "@" << func.getSymName()
                            << " is a declaration; there is nothing to run";
  if (failed(verifyArguments(func, args)))
    return failure();
  if (options.checkFinite) {
    for (auto [i, arg] : llvm::enumerate(args)) {
      if (std::optional<int64_t> bad = arg.findNonFinite()) {
        nonFinite = true;
        return func.emitError()
               << "first non-finite value: argument #" << i << " holds "
               << arg.countNonFinite() << " non-finite values, the first at "
               << formatIndex(arg.getShape(), *bad);
      }
    }
  }
  return call(func, args, 0);
}

FailureOr<std::vector<Tensor>>
Interpreter::call(func::FuncOp func, ArrayRef<Tensor> args, int depth) {
  if (depth > kMaxCallDepth)
    return func.emitError()
           << "call depth exceeds " << kMaxCallDepth << " (recursion?)";
  if (failed(verifyArguments(func, args)))
    return failure();
  if (!llvm::hasSingleElement(func.getBody()))
    return func.emitError(
        "has more than one block, which the interpreter does not run");
  // Named: Frame keeps a function_ref, which must not outlive its callee.
  auto recurse = [this](func::FuncOp f, ArrayRef<Tensor> a, int d) {
    return call(f, a, d);
  };
  Frame frame(module, options.checkFinite, depth, recurse);
  return frame.run(func.getBody().front(), args, nonFinite);
}
