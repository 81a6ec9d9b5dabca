//===- scalar_math.h - the scalar math of each op, written once -*- C++ -*-===//
//
// The per-element formulas of the ops whose math is more than one operator:
// exp and tanh in f32, gelu and its derivative, the AdamW and SGD updates,
// and the finishing steps of a row's moments (row_math.h holds the row ops
// built on them).
// The interpreter, the host and CUDA backends of the runtime and the
// generated step code all call these functions, so the order of every
// floating-point operation is the same everywhere; the interpreter's
// results are the contract the others reproduce bit for bit on the host.
//
// Templates on the scalar type T: f32 for f32 and the 16-bit formats (which
// round once at the store, see float_formats.h), f64 for f64. Constants are
// written in f64 and converted to T, as the generated code's literals are.
// Functions are AMP_HOST_DEVICE so that CUDA kernels call them too. Callers
// compile without FMA contraction where bit-exactness matters.
//
// The tests' oracles stay outside this header: finite differences in f64
// and PyTorch's goldens.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_SCALAR_MATH_H
#define AMP_RUNTIME_SCALAR_MATH_H

#include "amp_runtime/float_formats.h" // AMP_HOST_DEVICE

#include <math.h>

namespace amprt {

namespace detail {
/// e^y = 2^n e^r for y in [-104, 89]: y = n ln 2 + r with |r| <= ln 2 / 2
/// (n rounded by the 1.5 * 2^23 shift, ln 2 in two parts so that n ln2Hi
/// is exact), e^r = 1 + r + r^2 q(r) (q fitted by least squares at
/// Chebyshev points of that interval). Returns e^r and n.
struct ExpParts {
  float mantissa; // e^r, in [0.70, 1.42]
  int32_t n;
};
AMP_HOST_DEVICE inline ExpParts expParts(float y) {
  const float shift = 12582912.0f; // 1.5 * 2^23: adding it rounds to int
  const float shifted = y * 1.44269504088896341f + shift;
  const float n = shifted - shift;
  float r = y - n * 0.693145751953125f;  // ln 2, high bits
  r = r - n * 1.428606765330187045e-06f; // ln 2, the rest
  float q = 1.9826502137678835e-04f;
  q = q * r + 1.3946024441959734e-03f;
  q = q * r + 8.3334299770694929e-03f;
  q = q * r + 4.1666270234420114e-02f;
  q = q * r + 1.6666666163830038e-01f;
  q = q * r + 5.0000000781452802e-01f;
  return {1.0f + (r + r * r * q),
          static_cast<int32_t>(floatToBits(shifted) - floatToBits(shift))};
}

/// 2^n as an f32, for n a normal exponent (-126 <= n <= 127).
AMP_HOST_DEVICE inline float powerOfTwo(int32_t n) {
  return bitsToFloat(static_cast<uint32_t>(n + 127) << 23);
}

/// e^y for y in [0, 20), where 2^n is a normal float. Additions and
/// multiplications only, in a fixed order: every target rounds it alike.
AMP_HOST_DEVICE inline float expOfSmallPositive(float y) {
  const ExpParts parts = expParts(y);
  return parts.mantissa * powerOfTwo(parts.n);
}
} // namespace detail

namespace math {
/// tanh in f32, written here rather than taken from the C library, whose
/// tanhf differs from CUDA's by an ulp here and there and does not
/// vectorize: within 1.05 ulp of the true value (ScalarMathTest checks a
/// fine sample of all floats), odd, NaN for NaN. Below 0.8 in magnitude an
/// odd polynomial |x| + |x|^3 s(x^2) (s fitted as above); beyond, 1 - 2 /
/// (e^{2|x|} + 1), |x| capped at 10 (where tanh rounds to 1); then the sign
/// of x (so tanh(-0) = -0). Branch-free, so that a loop over it vectorizes.
AMP_HOST_DEVICE inline float tanh(float x) {
  const float a = ::fabsf(x), z = x * x;
  float s = -0.0005717653329738804f;
  s = s * z + 0.002852661509383264f;
  s = s * z - 0.008509468368859067f;
  s = s * z + 0.021772684822401515f;
  s = s * z - 0.0539538318076853f;
  s = s * z + 0.13333230843984828f;
  s = s * z - 0.3333333088283923f;
  const float small = a + a * z * s;
  const float e = detail::expOfSmallPositive(2.0f * (a < 10.0f ? a : 10.0f));
  const float large = 1.0f - 2.0f / (e + 1.0f);
  return x != x ? x : ::copysignf(a < 0.8f ? small : large, x);
}

/// e^x in f32, written here for the reasons tanh is (CUDA's expf differs
/// from the C library's; a loop over the C library's does not vectorize):
/// within an ulp of the true value (ScalarMathTest checks a fine sample of
/// all floats, subnormal results included), inf above ln(FLT_MAX), 0 below
/// the smallest subnormal's log, NaN for NaN. x is clamped to [-104, 89]
/// (beyond which the result is 0 or inf alike), then e^r 2^n as
/// (e^r 2^(n/2)) 2^(n - n/2): the first product is exact, so a result
/// that is subnormal or overflows is rounded once. Branch-free.
AMP_HOST_DEVICE inline float exp(float x) {
  const float y = x < -104.0f ? -104.0f : (x > 89.0f ? 89.0f : x);
  const detail::ExpParts parts = detail::expParts(y);
  const int32_t half = parts.n / 2;
  const float value = parts.mantissa * detail::powerOfTwo(half) *
                      detail::powerOfTwo(parts.n - half);
  return x != x ? x : value;
}

// The C library's functions by scalar type (sqrtf for float, sqrt for
// double), which CUDA provides in device code under the same names and
// which the generated code called before this header existed.
AMP_HOST_DEVICE inline float sqrt(float x) { return ::sqrtf(x); }
AMP_HOST_DEVICE inline double sqrt(double x) { return ::sqrt(x); }
AMP_HOST_DEVICE inline double exp(double x) { return ::exp(x); }
AMP_HOST_DEVICE inline float log(float x) { return ::logf(x); }
AMP_HOST_DEVICE inline double log(double x) { return ::log(x); }
AMP_HOST_DEVICE inline double tanh(double x) { return ::tanh(x); }
AMP_HOST_DEVICE inline float erf(float x) { return ::erff(x); }
AMP_HOST_DEVICE inline double erf(double x) { return ::erf(x); }
AMP_HOST_DEVICE inline float log1p(float x) { return ::log1pf(x); }
AMP_HOST_DEVICE inline double log1p(double x) { return ::log1p(x); }
} // namespace math

//===----------------------------------------------------------------------===//
// GELU
//===----------------------------------------------------------------------===//

/// x * Phi(x) with the exact Gaussian CDF: 0.5 x (1 + erf(x / sqrt(2))).
template <typename T> AMP_HOST_DEVICE inline T geluErf(T x) {
  const T invSqrt2 = static_cast<T>(0.7071067811865476);
  return static_cast<T>(0.5) * x *
         (static_cast<T>(1) + math::erf(x * invSqrt2));
}

/// The tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
template <typename T> AMP_HOST_DEVICE inline T geluTanh(T x) {
  const T k = static_cast<T>(0.7978845608028654); // sqrt(2 / pi)
  const T c = static_cast<T>(0.044715);
  return static_cast<T>(0.5) * x *
         (static_cast<T>(1) + math::tanh(k * (x + c * x * x * x)));
}

/// d geluErf / dx = Phi(x) + x phi(x).
template <typename T> AMP_HOST_DEVICE inline T geluErfGrad(T x) {
  const T half = static_cast<T>(0.5), one = static_cast<T>(1);
  const T invSqrt2 = static_cast<T>(0.7071067811865476);
  const T invSqrt2Pi = static_cast<T>(0.3989422804014327);
  return half * (one + math::erf(x * invSqrt2)) +
         x * invSqrt2Pi * math::exp(-half * x * x);
}

/// d geluTanh / dx, with t = tanh(sqrt(2/pi) (x + 0.044715 x^3)):
/// 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2).
template <typename T> AMP_HOST_DEVICE inline T geluTanhGrad(T x) {
  const T half = static_cast<T>(0.5), one = static_cast<T>(1);
  const T k = static_cast<T>(0.7978845608028654); // sqrt(2 / pi)
  const T c = static_cast<T>(0.044715);
  T t = math::tanh(k * (x + c * x * x * x));
  return half * (one + t) +
         half * x * (one - t * t) * k * (one + static_cast<T>(3) * c * x * x);
}

//===----------------------------------------------------------------------===//
// Sigmoid, rsqrt and relu
//===----------------------------------------------------------------------===//

/// 1 / (1 + e^-x), with this header's exp.
template <typename T> AMP_HOST_DEVICE inline T sigmoid(T x) {
  return static_cast<T>(1) / (static_cast<T>(1) + math::exp(-x));
}

/// 1 / sqrt(x): the correctly rounded root, then a division (no
/// approximate reciprocal root, whose bits differ by machine).
template <typename T> AMP_HOST_DEVICE inline T rsqrt(T x) {
  return static_cast<T>(1) / math::sqrt(x);
}

/// max(x, 0), where a NaN stays NaN (as PyTorch's relu).
template <typename T> AMP_HOST_DEVICE inline T relu(T x) {
  return x < static_cast<T>(0) ? static_cast<T>(0) : x;
}

//===----------------------------------------------------------------------===//
// Softplus
//===----------------------------------------------------------------------===//

/// ln(1 + e^x), and x itself above 20 (PyTorch's default threshold).
template <typename T> AMP_HOST_DEVICE inline T softplus(T x) {
  return x > static_cast<T>(20) ? x : math::log1p(math::exp(x));
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//
//
// torch.optim's single-tensor arithmetic: the Python-side scalars (bias
// corrections, step size) in f64 once per step, converted to T; the tensor
// arithmetic per element in T.

/// The scalars of one AdamW step (or Adam's, whose weight decay is added to
/// the gradient as torch.optim.Adam adds it), shared by all its elements.
template <typename T> struct AdamwScalars {
  T decay;         ///< 1 - lr * weight_decay (1 for Adam)
  T weight;        ///< 1 - beta1, the lerp weight of the first moment
  T beta2;         ///< beta2
  T oneMinusBeta2; ///< 1 - beta2
  T sqrtC2;        ///< sqrt(1 - beta2^t), the second bias correction's root
  T eps;           ///< eps
  T negStep;       ///< -lr / (1 - beta1^t)
  T weightDecay;   ///< weight_decay, added to the gradient by Adam
  bool coupled;    ///< Adam: weight_decay != 0, added to the gradient
};

/// The AdamW scalars of the update that makes `step` completed steps
/// `step + 1` (t = step + 1 in the bias corrections); with `coupledDecay`,
/// Adam's, whose weight decay joins the gradient instead.
template <typename T>
AMP_HOST_DEVICE inline AdamwScalars<T>
adamwScalars(double lr, double beta1, double beta2, double eps,
             double weightDecay, double step, bool coupledDecay = false) {
  double t = step + 1;
  double c1 = 1 - ::pow(beta1, t), c2 = 1 - ::pow(beta2, t);
  return {static_cast<T>(coupledDecay ? 1.0 : 1 - lr * weightDecay),
          static_cast<T>(1 - beta1),
          static_cast<T>(beta2),
          static_cast<T>(1 - beta2),
          static_cast<T>(math::sqrt(c2)),
          static_cast<T>(eps),
          static_cast<T>(-(lr / c1)),
          static_cast<T>(weightDecay),
          coupledDecay && weightDecay != 0};
}

/// One element of AdamW: decoupled decay, the moments, the step; of Adam:
/// the decay added to the gradient (`g + weight_decay * p`), then the
/// same. `p`, `m` and `v` are updated in place; the caller rounds them to
/// their storage.
template <typename T>
AMP_HOST_DEVICE inline void adamwElement(const AdamwScalars<T> &s, T &p, T g,
                                         T &m, T &v) {
  if (s.coupled)
    g = g + s.weightDecay * p;
  p = p * s.decay;
  // lerp(m, g, w) as torch computes it: from m for w < 0.5, else from g.
  m = s.weight < static_cast<T>(0.5)
          ? m + s.weight * (g - m)
          : g - (g - m) * (static_cast<T>(1) - s.weight);
  v = v * s.beta2 + s.oneMinusBeta2 * (g * g);
  T denom = math::sqrt(v) / s.sqrtC2 + s.eps;
  p = p + s.negStep * (m / denom);
}

/// The scalars of SGD, with or without momentum.
template <typename T> struct SgdScalars {
  T lr;
  T momentum;
  T keep; ///< 1 - dampening
  T weightDecay;
  bool decays; ///< weight_decay != 0 (in f64, before the conversion)
  bool nesterov;
};

template <typename T>
AMP_HOST_DEVICE inline SgdScalars<T>
sgdScalars(double lr, double momentum, double dampening, double weightDecay,
           bool nesterov) {
  return {static_cast<T>(lr),
          static_cast<T>(momentum),
          static_cast<T>(1.0 - dampening),
          static_cast<T>(weightDecay),
          weightDecay != 0,
          nesterov};
}

/// One element of SGD: returns the new parameter. With a momentum
/// `buffer`, updates it in place (on the `first` step it starts as the
/// gradient); without one, plain SGD.
template <typename T>
AMP_HOST_DEVICE inline T sgdElement(const SgdScalars<T> &s, T p, T g, T *buffer,
                                    bool first) {
  T d = g;
  if (s.decays)
    d = d + s.weightDecay * p;
  if (buffer) {
    T buf = first ? d : *buffer * s.momentum + s.keep * d;
    *buffer = buf;
    d = s.nesterov ? d + s.momentum * buf : buf;
  }
  return p - s.lr * d;
}

//===----------------------------------------------------------------------===//
// Learning-rate schedules
//===----------------------------------------------------------------------===//
//
// The rate of the update that follows `t` earlier ones, from the base rate
// `lr`, in f64 as torch.optim.lr_scheduler computes it (its closed forms):
//   linear warmup  LinearLR(start_factor, 1, total_iters=warmup):
//                  lr * (start + (1 - start) * min(t, warmup) / warmup)
//   cosine         CosineAnnealingLR(T_max=decay, eta_min=min_lr):
//                  min_lr + (lr - min_lr) * (1 + cos(pi * t / decay)) / 2,
//                  held at min_lr from t = decay on (PyTorch's would rise
//                  again: its cosine is periodic)
//   step           StepLR(step_size, gamma): lr * gamma^floor(t / step_size)
//   warmup-cosine  SequentialLR of the two with the milestone at warmup:
//                  the warmup, then the cosine over t - warmup.

/// How amp.lr_schedule computes the rate; its operands after `lr` and the
/// step count are the parameters in the order each case lists.
enum class LrScheduleKind : int {
  LinearWarmup = 0, ///< warmup_steps, warmup_start_factor
  Cosine = 1,       ///< decay_steps, min_lr
  Step = 2,         ///< step_size, gamma
  WarmupCosine = 3, ///< warmup_steps, warmup_start_factor, decay_steps, min_lr
};

/// Each kind's parameters by the names of the step's hyperparameters, in
/// the order above (amp.lr_schedule's operands, LrScheduleOp's names,
/// which a unit test holds to these); unused names are null.
constexpr const char *kLrScheduleParams[4][4] = {
    {"warmup_steps", "warmup_start_factor", nullptr, nullptr},
    {"decay_steps", "min_lr", nullptr, nullptr},
    {"step_size", "gamma", nullptr, nullptr},
    {"warmup_steps", "warmup_start_factor", "decay_steps", "min_lr"},
};

AMP_HOST_DEVICE inline double warmupFactor(double t, double warmup,
                                           double start) {
  if (!(t < warmup))
    return 1.0;
  return start + (1.0 - start) * t / warmup;
}

AMP_HOST_DEVICE inline double cosineRate(double lr, double t, double decay,
                                         double floor) {
  if (!(t < decay))
    return floor;
  const double pi = 3.141592653589793;
  return floor + (lr - floor) * (1.0 + ::cos(pi * t / decay)) / 2.0;
}

/// The scheduled rate; `p` holds the kind's parameters.
AMP_HOST_DEVICE inline double scheduledRate(LrScheduleKind kind, double lr,
                                            double t, const double *p) {
  switch (kind) {
  case LrScheduleKind::LinearWarmup:
    return lr * warmupFactor(t, p[0], p[1]);
  case LrScheduleKind::Cosine:
    return cosineRate(lr, t, p[0], p[1]);
  case LrScheduleKind::Step:
    return lr * ::pow(p[1], ::floor(t / p[0]));
  case LrScheduleKind::WarmupCosine:
    if (t < p[0])
      return lr * warmupFactor(t, p[0], p[1]);
    return cosineRate(lr, t - p[0], p[2], p[3]);
  }
  return lr;
}

//===----------------------------------------------------------------------===//
// Row moments (layer and RMS norm)
//===----------------------------------------------------------------------===//
//
// How a row's sums are gathered (in order, or per warp lane) is the
// caller's; what follows them is here.

/// The mean of a row of `n` values that sum to `sum`.
template <typename T> AMP_HOST_DEVICE inline T rowMean(T sum, T n) {
  return sum / n;
}

/// sqrt(squares / n + eps): the normaliser of a row, from the sum of its
/// squared deviations from the mean (layer norm) or of its squares (RMS
/// norm). The interpreter and the generated kernels divide by it.
template <typename T>
AMP_HOST_DEVICE inline T rowDeviation(T squares, T n, T eps) {
  return math::sqrt(squares / n + eps);
}

} // namespace amprt

#endif // AMP_RUNTIME_SCALAR_MATH_H
