//===- Kernels.h - reference kernels of the interpreter ---------*- C++ -*-===//
//
// Plain loops over Tensors, one per op family. They take the attributes an
// op carries as arguments and know nothing of MLIR ops, so the numerics live
// in one place; Interpreter.cpp maps ops onto them.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_INTERPRETER_KERNELS_H
#define AMP_LIB_INTERPRETER_KERNELS_H

#include "amp/Interpreter/Tensor.h"
#include "amp_runtime/conv_window.h"
#include "amp_runtime/float_formats.h"

#include <functional>
#include <optional>
#include <string>

namespace mlir::amp::interp::kernels {

enum class UnaryFn {
  Neg,
  Abs,
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Tanh,
  Sigmoid,
  Softplus,
  Relu,
  GeluErf,
  GeluTanh,
  Pow
};
enum class BinaryFn { Add, Sub, Mul, Div, Maximum, Minimum };
enum class CompareFn { Eq, Ne, Lt, Le, Gt, Ge };
enum class ReduceFn { Sum, Mean, Max };

/// `exponent` is used by Pow only.
Tensor unary(UnaryFn fn, const Tensor &x, double exponent = 0.0);
/// numpy broadcasting to `shape`; both operands share the element kind.
Tensor binary(BinaryFn fn, const Tensor &lhs, const Tensor &rhs,
              ArrayRef<int64_t> shape);
Tensor compare(CompareFn fn, const Tensor &lhs, const Tensor &rhs,
               ArrayRef<int64_t> shape);
Tensor select(const Tensor &condition, const Tensor &onTrue,
              const Tensor &onFalse, ArrayRef<int64_t> shape);

Tensor cast(const Tensor &x, ElementKind kind);
Tensor iota(ElementKind kind, ArrayRef<int64_t> shape, int64_t dim);
Tensor reshape(const Tensor &x, ArrayRef<int64_t> shape);
Tensor transpose(const Tensor &x, ArrayRef<int64_t> permutation);
Tensor broadcastTo(const Tensor &x, ArrayRef<int64_t> shape);
Tensor slice(const Tensor &x, ArrayRef<int64_t> start, ArrayRef<int64_t> limit);
Tensor concat(ArrayRef<const Tensor *> inputs, int64_t dim);

/// `outShape`/`outKind` are the op's result; `accKind` its accumulator.
/// A `bias` (one value per column) is added in the accumulator before the
/// one rounding to `outKind`.
/// `alpha` multiplies each sum (in the accumulator type) before the bias:
/// an FP8 GEMM's inverse scales.
Tensor matmul(const Tensor &lhs, const Tensor &rhs, const Tensor *bias,
              bool transposeLhs, bool transposeRhs, ElementKind accKind,
              ElementKind outKind, ArrayRef<int64_t> outShape,
              float alpha = 1.0f);
/// The largest magnitude of `x`'s values, NaN if any is NaN (amp.fp8_amax).
float fp8Amax(const Tensor &x);
/// `x` times `scale` in f32, saturated and rounded to `format`
/// (amprt::quantizeFp8), as the exact values in f32.
Tensor quantizeFp8(const Tensor &x, float scale, amprt::Fp8Format format);
/// amp.fp8_scaling_update: the new scale, amax history and overflow count.
SmallVector<Tensor> fp8ScalingUpdate(const Tensor &scale, const Tensor &history,
                                     const Tensor &overflows,
                                     ArrayRef<float> amax,
                                     ArrayRef<amprt::Fp8Format> formats,
                                     double margin, bool mostRecent);
/// `x` scaled by current (tensorwise) scaling and rounded to `format`
/// (amprt::quantizeFp8), as the exact values in f32; `inverseScale` is
/// f32(1 / s).
Tensor quantizeFp8Tensorwise(const Tensor &x, amprt::Fp8Format format,
                             float &inverseScale);
/// amp.conv2d of NCHW `input` and OIHW `weight`: each output sums its
/// products in `accKind` over (channel, kh, kw) ascending, positions in
/// the padding as zero products; a `bias` (one value per output channel)
/// is added in the accumulator before the one rounding to `outKind`.
Tensor conv2d(const Tensor &input, const Tensor &weight, const Tensor *bias,
              const amprt::Conv2dWindow &window, int64_t groups,
              ElementKind accKind, ElementKind outKind,
              ArrayRef<int64_t> outShape);
/// amp.conv2d_grad_input as amp-decompose writes it: per group, weight^T
/// grad in `accKind`, summed into the image by col2im and rounded once to
/// `outKind`.
Tensor conv2dGradInput(const Tensor &grad, const Tensor &weight,
                       const amprt::Conv2dWindow &window, int64_t groups,
                       ElementKind accKind, ElementKind outKind,
                       ArrayRef<int64_t> outShape);
/// amp.conv2d_grad_weight as amp-decompose writes it: per group, grad times
/// the input's columns transposed, summed in `accKind` and rounded once to
/// `outKind`.
Tensor conv2dGradWeight(const Tensor &input, const Tensor &grad,
                        const amprt::Conv2dWindow &window, int64_t groups,
                        ElementKind accKind, ElementKind outKind,
                        ArrayRef<int64_t> outShape);
/// amp.im2col: each window's values (zero in the padding) as a column.
Tensor im2col(const Tensor &input, const amprt::Conv2dWindow &window,
              ArrayRef<int64_t> outShape);
/// amp.col2im: each image position the sum, in f32 (f64 for f64 columns)
/// over kh, then kw, ascending, of the column values im2col reads from it,
/// rounded once to `outKind`.
Tensor col2im(const Tensor &columns, const amprt::Conv2dWindow &window,
              ElementKind outKind, ArrayRef<int64_t> outShape);
/// amp.avg_pool2d: the mean of each window's values (the padding's zeros
/// included), as amp.mean computes it over amp.im2col's columns.
Tensor avgPool2d(const Tensor &input, const amprt::Conv2dWindow &window,
                 ArrayRef<int64_t> outShape);
/// amp.adaptive_avg_pool2d where its windows do not tile the image (the
/// others are avgPool2d's): each window's rows summed in f32 (f64 for
/// f64), then its columns, as amp.sum over slices computes them, divided
/// by its size and rounded once. `rows` and `columns` are the windows'
/// [begin, end) bounds.
Tensor adaptiveAvgPool2d(const Tensor &input,
                         ArrayRef<std::pair<int64_t, int64_t>> rows,
                         ArrayRef<std::pair<int64_t, int64_t>> columns,
                         ArrayRef<int64_t> outShape);
/// amp.max_pool2d: each window's value at amprt::windowArgmax.
Tensor maxPool2d(const Tensor &input, const amprt::Conv2dWindow &window,
                 ArrayRef<int64_t> outShape);
/// amp.max_pool2d_grad: each input position the sum, in f32 (f64 for f64)
/// over its windows in (kh, kw) order, of the gradients of the windows
/// whose maximum it is, rounded once.
Tensor maxPool2dGrad(const Tensor &input, const Tensor &grad,
                     const amprt::Conv2dWindow &window);
/// amp.batch_norm's result and new running mean and variance, by its
/// definition's steps, each rounded to the statistics' type.
SmallVector<Tensor> batchNorm(const Tensor &input, const Tensor &runningMean,
                              const Tensor &runningVar, const Tensor *weight,
                              const Tensor *bias, double epsilon,
                              double momentum, bool training);
/// amp.batch_norm_grad's input, scale and bias gradients, the last two of
/// the kinds `scaleKind` and `biasKind`.
SmallVector<Tensor> batchNormGrad(const Tensor &input, const Tensor &grad,
                                  const Tensor &runningMean,
                                  const Tensor &runningVar,
                                  const Tensor *weight, double epsilon,
                                  bool training, ElementKind scaleKind,
                                  ElementKind biasKind);
/// amp.attention's output and each query's log-sum-exp of its scores (in
/// f32, f64 for f64).
std::pair<Tensor, Tensor> attention(const Tensor &query, const Tensor &key,
                                    const Tensor &value, bool causal,
                                    double scale);
/// amp.attention_grad: the gradients of query, key and value, summed in
/// f32 (f64 for f64) in the order the op's description gives and rounded
/// once to the operands' kind.
SmallVector<Tensor> attentionGrad(const Tensor &query, const Tensor &key,
                                  const Tensor &value, const Tensor &output,
                                  const Tensor &lse, const Tensor &grad,
                                  bool causal, double scale);
Tensor reduce(ReduceFn fn, const Tensor &x, ArrayRef<int64_t> dims,
              ElementKind accKind, ElementKind outKind,
              ArrayRef<int64_t> outShape);

Tensor softmax(const Tensor &x, int64_t dim, bool log);
/// `weight` and `bias` may be null.
Tensor layerNorm(const Tensor &x, const Tensor *weight, const Tensor *bias,
                 int64_t axis, double epsilon);
Tensor rmsNorm(const Tensor &x, const Tensor *weight, int64_t axis,
               double epsilon);
/// amp.norm_stats: each row's mean (0 unless `centered`) and deviation, as
/// the norm computes them, in x's kind, of x's shape with the dimensions
/// from `axis` on of size 1.
std::pair<Tensor, Tensor> normStats(const Tensor &x, int64_t axis,
                                    double epsilon, bool centered);

/// amp.dropout in training mode: element i of `x` times 1 / (1 - p) or 0,
/// by amprt::dropoutKeeps(rng[0], rng[1], stream, i) (amp_runtime/random.h),
/// computed as the op's register type and rounded to x's kind.
Tensor dropout(const Tensor &x, const Tensor &rng, double p, int64_t stream);
/// amp.rng_advance: [seed, pass + 1].
Tensor rngAdvance(const Tensor &rng);
/// Fails with a message in `error` on an index outside the table.
FailureOr<Tensor> embedding(const Tensor &table, const Tensor &indices,
                            std::string &error);
/// Rows whose label is `ignored` count for nothing: the mean is over the
/// others (0 when there are none).
FailureOr<Tensor> crossEntropy(const Tensor &logits, const Tensor &labels,
                               bool mean, std::optional<int64_t> ignored,
                               ElementKind outKind, std::string &error);
Tensor mseLoss(const Tensor &input, const Tensor &target, bool mean,
               ElementKind outKind);

//===- Gradients ---------------------------------------------------------===//

Tensor reluGrad(const Tensor &x, const Tensor &grad);
Tensor geluGrad(const Tensor &x, const Tensor &grad, bool tanhForm);
/// `y` is the forward output; `log` selects log_softmax.
Tensor softmaxGrad(const Tensor &y, const Tensor &grad, int64_t dim, bool log);
/// The input gradient of the normalisation without affine parameters.
Tensor layerNormGrad(const Tensor &x, const Tensor &grad, int64_t axis,
                     double epsilon);
Tensor rmsNormGrad(const Tensor &x, const Tensor &grad, int64_t axis,
                   double epsilon);
FailureOr<Tensor> crossEntropyGrad(const Tensor &logits, const Tensor &labels,
                                   const Tensor &lossGrad, bool mean,
                                   std::optional<int64_t> ignored,
                                   std::string &error);
FailureOr<Tensor> embeddingGrad(const Tensor &indices, const Tensor &grad,
                                int64_t rows, ElementKind kind,
                                std::string &error);

//===- Optimizers --------------------------------------------------------===//

struct SgdHyper {
  double lr, momentum, dampening, weightDecay;
  bool nesterov;
};
/// Returns the new parameter (and the new momentum buffer when `buffer` is
/// given); `step` is the number of earlier updates.
SmallVector<Tensor> sgd(const Tensor &param, const Tensor &grad,
                        const Tensor *buffer, double step,
                        const SgdHyper &hyper);

struct AdamwHyper {
  double lr, beta1, beta2, eps, weightDecay;
  bool coupledDecay; ///< Adam: the decay added to the gradient
};
/// Returns the new parameter, first and second moments.
SmallVector<Tensor> adamw(const Tensor &param, const Tensor &grad,
                          const Tensor &expAvg, const Tensor &expAvgSq,
                          double step, const AdamwHyper &hyper);

//===- Loss scaling ------------------------------------------------------===//

/// The gradients times `invScale`, then found_inf (1 or 0) over the inputs.
SmallVector<Tensor> unscale(const Tensor &invScale, ArrayRef<Tensor> grads);
/// amp.sum_squares: a 0-d f32 tensor.
Tensor sumSquares(ArrayRef<Tensor> inputs);

struct ScalerHyper {
  double growthFactor, backoffFactor;
  int64_t growthInterval, hysteresis;
  std::optional<double> minScale, maxScale;
};
/// The new scale, growth tracker and hysteresis tracker.
SmallVector<Tensor> scalerUpdate(double scale, double growthTracker,
                                 double hysteresisTracker, bool foundInf,
                                 const ScalerHyper &hyper);

} // namespace mlir::amp::interp::kernels

#endif // AMP_LIB_INTERPRETER_KERNELS_H
