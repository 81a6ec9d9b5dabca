//===- optimizer_bodies.h - per-element optimizer arithmetic ----*- C++ -*-===//
//
// The arithmetic of the optimizer and scaler kernels, __host__ __device__:
// the host backend loops over it and the CUDA kernels run it per thread, so
// both compute the same thing. The optimizers' per-element math is
// amp_runtime/scalar_math.h's, which the interpreter runs too; this file
// only reads a launch's configuration into it (f32 tensors, f64
// Python-side scalars).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_SRC_OPTIMIZER_BODIES_H
#define AMP_RUNTIME_SRC_OPTIMIZER_BODIES_H

#include "amp_runtime/launch_grid.h"
#include "amp_runtime/optimizer_kernels.h"
#include "amp_runtime/reduction_order.h"
#include "amp_runtime/scalar_math.h"
#include "row_bodies.h"

#include <cmath>
#include <cstdint>

namespace amprt {

/// The hyperparameters of an SGD launch: those of `values`, or, where
/// `at` gives an address, the value there when the launch runs.
struct SgdSource {
  amp_sgd_config_t values;
  amp_sgd_hparams_t at;
  bool buffered; ///< the momentum buffers are read and written
};

struct AdamwSource {
  amp_adamw_config_t values;
  amp_adamw_hparams_t at;
};

inline SgdSource sgdSource(const amp_sgd_config_t &config) {
  return {config, {}, config.momentum != 0};
}
inline SgdSource sgdSource(const amp_sgd_hparams_t &hparams) {
  amp_sgd_config_t values{0, 0, hparams.dampening, 0, hparams.nesterov};
  return {values, hparams, hparams.momentum != nullptr};
}
inline AdamwSource adamwSource(const amp_adamw_config_t &config) {
  return {config, {}};
}
inline AdamwSource adamwSource(const amp_adamw_hparams_t &hparams) {
  amp_adamw_config_t values{};
  values.coupled_decay = hparams.coupled_decay;
  return {values, hparams};
}

AMP_HOST_DEVICE inline double valueAt(const double *at, double otherwise) {
  return at ? *at : otherwise;
}

/// The scalars of an AdamW launch, computed once per launch (as Python
/// does); the per-element update is amprt::adamwElement.
AMP_HOST_DEVICE inline AdamwScalars<float> adamwScalars(const AdamwSource &s,
                                                        float step) {
  const amp_adamw_config_t &c = s.values;
  return adamwScalars<float>(
      valueAt(s.at.lr, c.lr), valueAt(s.at.beta1, c.beta1),
      valueAt(s.at.beta2, c.beta2), valueAt(s.at.eps, c.eps),
      valueAt(s.at.weight_decay, c.weight_decay), static_cast<double>(step),
      c.coupled_decay != 0);
}

/// The scalars of an SGD launch; the per-element update is
/// amprt::sgdElement.
AMP_HOST_DEVICE inline SgdScalars<float> sgdScalars(const SgdSource &s) {
  const amp_sgd_config_t &c = s.values;
  return sgdScalars<float>(
      valueAt(s.at.lr, c.lr), valueAt(s.at.momentum, c.momentum), c.dampening,
      valueAt(s.at.weight_decay, c.weight_decay), c.nesterov != 0);
}

AMP_HOST_DEVICE inline void scalerUpdate(const amp_scaler_config_t &c,
                                         float &scale, float &growth,
                                         float &hysteresis, bool foundInf) {
  if (foundInf) {
    growth = 0;
    hysteresis -= 1;
    if (hysteresis <= 0)
      scale = static_cast<float>(scale * c.backoff_factor);
  } else {
    float successful = growth + 1;
    if (successful == static_cast<float>(c.growth_interval)) {
      float grown = static_cast<float>(scale * c.growth_factor);
      if (std::isfinite(grown))
        scale = grown;
      growth = 0;
      hysteresis = static_cast<float>(c.hysteresis);
    } else {
      growth = successful;
    }
  }
  if (c.min_scale > 0 && scale < static_cast<float>(c.min_scale))
    scale = static_cast<float>(c.min_scale);
  if (c.max_scale > 0 && scale > static_cast<float>(c.max_scale))
    scale = static_cast<float>(c.max_scale);
}

//===----------------------------------------------------------------------===//
// amp_sum_squares
//===----------------------------------------------------------------------===//
//
// A launch takes up to kSumSquaresChunk tensors. Tensor t's slices are the
// launch's blocks [firstBlock[t], firstBlock[t + 1]); in a slice, thread j
// folds part slice * kBlockThreads + j of the tensor's split and thread 0
// combines the slice's parts, leaving the result in partials[firstPartial
// + block] and the tensor's slice count in slices[firstTensor + t]. A last
// launch (finishSumSquares) combines each tensor's slices and adds the
// tensors' results in order. Both backends run these bodies: the host
// loops over the blocks and threads the GPU runs in parallel.

struct SumSquaresLaunch {
  const void *data[kSumSquaresChunk];
  amp_dtype_t dtype[kSumSquaresChunk];
  int64_t size[kSumSquaresChunk];
  ReductionSplit split[kSumSquaresChunk];
  int64_t firstBlock[kSumSquaresChunk + 1];
  int64_t count;
  int64_t firstTensor;
  int64_t firstPartial;
};

/// The tensor of the launch that block `block` (below firstBlock[count])
/// is a slice of.
AMP_HOST_DEVICE inline int64_t sumSquaresTensorOf(const SumSquaresLaunch &l,
                                                  int64_t block) {
  int64_t t = 0;
  while (block >= l.firstBlock[t + 1])
    ++t;
  return t;
}

/// The sum of squares of part `part` of tensor t of the launch.
AMP_HOST_DEVICE inline float sumSquaresPart(const SumSquaresLaunch &l,
                                            int64_t t, int64_t part) {
  const PartRange range = partOf(l.split[t], l.size[t], part);
  return sumOfSquares(range.size, [&](int64_t r) {
    return load(l.dtype[t], l.data[t], range.start + r);
  });
}

/// Combines the `parts` results of a slice (parts[k], k ascending).
AMP_HOST_DEVICE inline float sumSquaresSlice(int64_t parts,
                                             const float *partResults) {
  return combinePairwise(
      parts, 0.0f, [&](int64_t k) { return partResults[k]; },
      [](float a, float b) { return a + b; });
}

/// The result: each of the `count` tensors' slices[t] partials combined,
/// and the tensors' results added in order from 0.
AMP_HOST_DEVICE inline float
finishSumSquares(int64_t count, const float *partials, const int64_t *slices) {
  float total = 0.0f;
  for (int64_t t = 0, first = 0; t < count; first += slices[t++])
    total += sumSquaresSlice(slices[t], partials + first);
  return total;
}

/// Calls `launch(const SumSquaresLaunch &)` for each launch of
/// amp_sum_squares over `tensors` (checked), in order, and sets `partials`
/// to the number of partial sums they leave; to -1, launching nothing,
/// when the tensors' sizes do not add up in 64 bits.
template <typename Launch>
inline void forSumSquaresLaunches(amp_typed_tensor_list_t tensors,
                                  int64_t &partials, Launch &&launch) {
  int64_t total = 0;
  for (size_t t = 0; t < tensors.count; ++t) {
    const int64_t size = static_cast<int64_t>(tensors.sizes[t]);
    if (total > INT64_MAX - size) {
      partials = -1;
      return;
    }
    total += size;
  }
  partials = 0;
  for (size_t first = 0; first < tensors.count; first += kSumSquaresChunk) {
    SumSquaresLaunch l{};
    l.count = static_cast<int64_t>(tensors.count - first) < kSumSquaresChunk
                  ? static_cast<int64_t>(tensors.count - first)
                  : kSumSquaresChunk;
    l.firstTensor = static_cast<int64_t>(first);
    l.firstPartial = partials;
    for (int64_t t = 0; t < l.count; ++t) {
      l.data[t] = tensors.data[first + t];
      l.dtype[t] = tensors.dtypes[first + t];
      l.size[t] = static_cast<int64_t>(tensors.sizes[first + t]);
      l.split[t] = sumSquaresSplit(l.size[t], total);
      l.firstBlock[t + 1] = l.firstBlock[t] + l.split[t].slices;
    }
    partials += l.firstBlock[l.count];
    launch(l);
  }
}

} // namespace amprt

#endif // AMP_RUNTIME_SRC_OPTIMIZER_BODIES_H
