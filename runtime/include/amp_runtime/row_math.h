//===- row_math.h - the math of each row op, written once -------*- C++ -*-===//
//
// The formulas of the ops that work on a row at a time: softmax and
// log_softmax and their gradients, layer and RMS norm and their input
// gradients, cross-entropy's loss of a row and its gradient. The
// interpreter, the runtime's backends and the generated step code call
// these functions, on the host and on a GPU, so every floating-point
// operation happens in the same order everywhere: sums and maxima over the
// row run in a warp's order through the row context (row_context.h: a
// warp's lane on a GPU, HostRow on the host), a norm divides by
// sqrt(squares / n + eps), and so on. The interpreter's results are the
// contract that the generated code reproduces bit for bit.
//
// A row is read through a Load, `T load(int64_t j)`, which returns its j-th
// element already converted to T, and written through a Store,
// `void store(int64_t j, T value)`, which rounds and stores. A row is read
// more than once (its statistics first, then each element again); each of
// its elements is stored exactly once, so a compiled step's store may also
// compute the elementwise ops that read it (--amp-fuse's row epilogue). An
// optional operand (a norm's weight or bias, cross-entropy's ignore_index)
// is a flag and its load or value: a load is called only when its flag is
// set, so an absent one can be NoOperand(). Every function takes the row
// context first; the loads and stores it calls for element j happen in the
// lane that handles j, the per-element pieces are there for callers with
// more to do per element (the runtime's cross-entropy).
//
// Templates on the scalar type T, as scalar_math.h: f32 for f32 and the
// 16-bit formats, f64 for f64. AMP_HOST_DEVICE, free of the C++ library's
// functions that device code lacks. Callers compile without FMA
// contraction where bit-exactness matters.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_ROW_MATH_H
#define AMP_RUNTIME_ROW_MATH_H

#include "amp_runtime/row_context.h"
#include "amp_runtime/scalar_math.h"

#include <math.h>
#include <stdint.h>

namespace amprt {

/// The load of an absent optional operand: never called.
struct NoOperand {
  AMP_HOST_DEVICE int operator()(int64_t) const { return 0; }
};

//===----------------------------------------------------------------------===//
// Softmax and log_softmax
//===----------------------------------------------------------------------===//

/// What softmax and cross-entropy know of a row after reading it twice.
template <typename T> struct SoftmaxStats {
  T max;    ///< the row's maximum, NaN when an element is NaN
  T expSum; ///< the sum of exp(x - max), in the row context's order
};

template <typename T, typename Row, typename Load>
AMP_HOST_DEVICE inline SoftmaxStats<T> softmaxStats(const Row &row, int64_t n,
                                                    Load &&x) {
  const T max = row.max(n, [&](int64_t j) { return static_cast<T>(x(j)); });
  const T expSum = row.sum(
      n, [&](int64_t j) { return math::exp(static_cast<T>(x(j)) - max); });
  return {max, expSum};
}

/// One element of softmax, exp(x - max) / expSum, or when `log` of
/// log_softmax, x - max - logSum with logSum = log(expSum).
template <typename T>
AMP_HOST_DEVICE inline T softmaxOutput(T x, const SoftmaxStats<T> &stats,
                                       T logSum, bool log) {
  const T shifted = x - stats.max;
  return log ? shifted - logSum : math::exp(shifted) / stats.expSum;
}

/// y = softmax(x), or log_softmax(x) when `log`, over a row of `n`.
template <typename T, typename Row, typename Load, typename Store>
AMP_HOST_DEVICE inline void softmaxRow(const Row &row, int64_t n, Load &&x,
                                       Store &&y, bool log) {
  const SoftmaxStats<T> stats = softmaxStats<T>(row, n, x);
  const T logSum = log ? math::log(stats.expSum) : static_cast<T>(0);
  row.forEach(n, [&](int64_t j) {
    y(j, softmaxOutput(static_cast<T>(x(j)), stats, logSum, log));
  });
}

/// dx of one element from the row's sum of g y (of g for log_softmax):
/// y (g - sum), or for log_softmax, whose y is log(p), g - exp(y) sum.
template <typename T>
AMP_HOST_DEVICE inline T softmaxGradOutput(T y, T g, T sum, bool log) {
  return log ? g - math::exp(y) * sum : y * (g - sum);
}

/// dx of softmax (or log_softmax when `log`) over a row of `n`, from the
/// forward's output `y` and the output gradient `g`.
template <typename T, typename Row, typename LoadY, typename LoadG,
          typename Store>
AMP_HOST_DEVICE inline void softmaxGradRow(const Row &row, int64_t n, LoadY &&y,
                                           LoadG &&g, Store &&dx, bool log) {
  const T sum = row.sum(n, [&](int64_t j) {
    const T gj = static_cast<T>(g(j));
    return log ? gj : gj * static_cast<T>(y(j));
  });
  row.forEach(n, [&](int64_t j) {
    dx(j,
       softmaxGradOutput(static_cast<T>(y(j)), static_cast<T>(g(j)), sum, log));
  });
}

//===----------------------------------------------------------------------===//
// Layer norm and RMS norm
//===----------------------------------------------------------------------===//

/// What a norm knows of a row after reading it (twice when centred).
template <typename T> struct NormStats {
  T mean;      ///< the row's mean; 0 for RMS norm, which centres nothing
  T deviation; ///< sqrt(squares / n + eps), which the row is divided by
};

/// The mean and deviation of a row of `n`: layer norm's (`centered`), or
/// RMS norm's from the squares of the elements themselves (the same bits
/// as squares of x - 0: subtracting +0 changes no value).
template <typename T, typename Row, typename Load>
AMP_HOST_DEVICE inline NormStats<T> normStats(const Row &row, int64_t n,
                                              Load &&x, T eps, bool centered) {
  T mean = static_cast<T>(0);
  if (centered)
    mean = rowMean(row.sum(n, [&](int64_t j) { return static_cast<T>(x(j)); }),
                   static_cast<T>(n));
  const T squares = row.sum(n, [&](int64_t j) {
    const T d = centered ? static_cast<T>(x(j)) - mean : static_cast<T>(x(j));
    return d * d;
  });
  return {mean, rowDeviation(squares, static_cast<T>(n), eps)};
}

/// y = (x - mean) / deviation [* weight] [+ bias] over a row of `n`, or for
/// RMS norm (not `centered`) x / deviation [* weight]. The weight and bias
/// are read at the same j as x. `keep(stats)` sees the row's statistics
/// first, in every lane (amp.norm_stats fused into the norm's kernel
/// stores them).
template <typename T, typename Row, typename LoadX, typename LoadW,
          typename LoadB, typename Store, typename Keep>
AMP_HOST_DEVICE inline void normRow(const Row &row, int64_t n, LoadX &&x,
                                    bool hasWeight, LoadW &&weight,
                                    bool hasBias, LoadB &&bias, T eps,
                                    bool centered, Store &&y, Keep &&keep) {
  const NormStats<T> stats = normStats<T>(row, n, x, eps, centered);
  keep(stats);
  row.forEach(n, [&](int64_t j) {
    const T xj = static_cast<T>(x(j));
    T v = (centered ? xj - stats.mean : xj) / stats.deviation;
    if (hasWeight)
      v = v * static_cast<T>(weight(j));
    if (hasBias)
      v = v + static_cast<T>(bias(j));
    y(j, v);
  });
}

template <typename T, typename Row, typename LoadX, typename LoadW,
          typename LoadB, typename Store>
AMP_HOST_DEVICE inline void
normRow(const Row &row, int64_t n, LoadX &&x, bool hasWeight, LoadW &&weight,
        bool hasBias, LoadB &&bias, T eps, bool centered, Store &&y) {
  normRow<T>(row, n, x, hasWeight, weight, hasBias, bias, eps, centered, y,
             [](const NormStats<T> &) {});
}

/// Layer norm of a row of `n`, with an optional weight and bias.
template <typename T, typename Row, typename LoadX, typename LoadW,
          typename LoadB, typename Store>
AMP_HOST_DEVICE inline void
layerNormRow(const Row &row, int64_t n, LoadX &&x, bool hasWeight,
             LoadW &&weight, bool hasBias, LoadB &&bias, T eps, Store &&y) {
  normRow<T>(row, n, x, hasWeight, weight, hasBias, bias, eps,
             /*centered=*/true, y);
}

/// RMS norm of a row of `n`, with an optional weight.
template <typename T, typename Row, typename LoadX, typename LoadW,
          typename Store>
AMP_HOST_DEVICE inline void rmsNormRow(const Row &row, int64_t n, LoadX &&x,
                                       bool hasWeight, LoadW &&weight, T eps,
                                       Store &&y) {
  normRow<T>(row, n, x, hasWeight, weight, /*hasBias=*/false, NoOperand(), eps,
             /*centered=*/false, y);
}

/// dx of a norm (without its weight and bias, which the gradient of the
/// output has taken in already) over a row of `n`: with h = (x - mean) /
/// deviation, dx = (g - h mean(g h) [- mean(g)]) / deviation, the mean of g
/// subtracted when `centered`.
template <typename T, typename Row, typename LoadX, typename LoadG,
          typename Store>
AMP_HOST_DEVICE inline void normGradRow(const Row &row, int64_t n, LoadX &&x,
                                        LoadG &&g, T eps, bool centered,
                                        Store &&dx) {
  const NormStats<T> stats = normStats<T>(row, n, x, eps, centered);
  const auto h = [&](int64_t j) {
    return (static_cast<T>(x(j)) - stats.mean) / stats.deviation;
  };
  const T gMean = row.sum(n, [&](int64_t j) { return static_cast<T>(g(j)); }) /
                  static_cast<T>(n);
  const T ghMean = row.sum(n, [&](int64_t j) {
    return static_cast<T>(g(j)) * h(j);
  }) / static_cast<T>(n);
  row.forEach(n, [&](int64_t j) {
    T d = static_cast<T>(g(j)) - h(j) * ghMean;
    if (centered)
      d = d - gMean;
    dx(j, d / stats.deviation);
  });
}

template <typename T, typename Row, typename LoadX, typename LoadG,
          typename Store>
AMP_HOST_DEVICE inline void layerNormGradRow(const Row &row, int64_t n,
                                             LoadX &&x, LoadG &&g, T eps,
                                             Store &&dx) {
  normGradRow<T>(row, n, x, g, eps, /*centered=*/true, dx);
}

template <typename T, typename Row, typename LoadX, typename LoadG,
          typename Store>
AMP_HOST_DEVICE inline void rmsNormGradRow(const Row &row, int64_t n, LoadX &&x,
                                           LoadG &&g, T eps, Store &&dx) {
  normGradRow<T>(row, n, x, g, eps, /*centered=*/false, dx);
}

//===----------------------------------------------------------------------===//
// Cross-entropy
//===----------------------------------------------------------------------===//

/// Whether a row's `label` is one of its `n` classes.
AMP_HOST_DEVICE inline bool isClass(int64_t label, int64_t n) {
  return label >= 0 && label < n;
}

/// The loss of a row from its statistics and its logit at the label:
/// logsumexp(x) - x[label].
template <typename T>
AMP_HOST_DEVICE inline T crossEntropyLoss(const SoftmaxStats<T> &stats,
                                          T labelLogit) {
  return (stats.max + math::log(stats.expSum)) - labelLogit;
}

/// The loss of a row of `n` logits against `label`: 0 when the label is the
/// ignored one (`hasIgnoreIndex`), NaN when it is no class (which the
/// inf/NaN check of a step then sees).
template <typename T, typename Row, typename Load>
AMP_HOST_DEVICE inline T
crossEntropyRowLoss(const Row &row, int64_t n, Load &&x, int64_t label,
                    bool hasIgnoreIndex, int64_t ignoreIndex) {
  if (hasIgnoreIndex && label == ignoreIndex)
    return static_cast<T>(0);
  if (!isClass(label, n))
    return static_cast<T>(NAN);
  return crossEntropyLoss(softmaxStats<T>(row, n, x), static_cast<T>(x(label)));
}

/// The factor of every element of a cross-entropy gradient: the loss's
/// gradient, divided for a `mean` by the `counted` rows (the rows not
/// ignored).
template <typename T>
AMP_HOST_DEVICE inline T crossEntropyGradScale(T lossGrad, bool mean,
                                               int64_t counted) {
  return mean ? lossGrad / static_cast<T>(counted) : lossGrad;
}

/// The softmax probability of logit `x`: exp(x - max) / expSum.
template <typename T>
AMP_HOST_DEVICE inline T softmaxProbability(T x, const SoftmaxStats<T> &stats) {
  return math::exp(x - stats.max) / stats.expSum;
}

/// One element of a cross-entropy gradient, (p - [is the label]) * scale.
template <typename T>
AMP_HOST_DEVICE inline T crossEntropyGradOutput(T probability, bool isLabel,
                                                T scale) {
  if (isLabel)
    probability = probability - static_cast<T>(1);
  return probability * scale;
}

/// The loss of a row of `n` logits against `label`, as crossEntropyRowLoss
/// gives it, and its gradient times `scale` (crossEntropyGradScale), from
/// one computation of the row's statistics: zeros and a zero loss for the
/// ignored label, NaNs for a label that is no class.
template <typename T, typename Row, typename Load, typename Store>
AMP_HOST_DEVICE inline T
crossEntropyRowLossAndGrad(const Row &row, int64_t n, Load &&x, int64_t label,
                           bool hasIgnoreIndex, int64_t ignoreIndex, T scale,
                           Store &&dx) {
  if (hasIgnoreIndex && label == ignoreIndex) {
    row.forEach(n, [&](int64_t j) { dx(j, static_cast<T>(0)); });
    return static_cast<T>(0);
  }
  if (!isClass(label, n)) {
    row.forEach(n, [&](int64_t j) { dx(j, static_cast<T>(NAN)); });
    return static_cast<T>(NAN);
  }
  const SoftmaxStats<T> stats = softmaxStats<T>(row, n, x);
  row.forEach(n, [&](int64_t j) {
    const T p = softmaxProbability(static_cast<T>(x(j)), stats);
    dx(j, crossEntropyGradOutput(p, j == label, scale));
  });
  return crossEntropyLoss(stats, static_cast<T>(x(label)));
}

/// The gradient of a row of `n` logits against `label`, times `scale`
/// (crossEntropyGradScale): crossEntropyRowLossAndGrad without its loss.
template <typename T, typename Row, typename Load, typename Store>
AMP_HOST_DEVICE inline void
crossEntropyGradRow(const Row &row, int64_t n, Load &&x, int64_t label,
                    bool hasIgnoreIndex, int64_t ignoreIndex, T scale,
                    Store &&dx) {
  (void)crossEntropyRowLossAndGrad<T>(row, n, x, label, hasIgnoreIndex,
                                      ignoreIndex, scale, dx);
}

} // namespace amprt

#endif // AMP_RUNTIME_ROW_MATH_H
