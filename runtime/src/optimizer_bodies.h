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
#include <cstring>

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
// + block]; block 0 records, for each tensor, its slice count and where its
// partials start (SumSquaresTensors). A last launch combines each tensor's
// slices (sumSquaresOfTensor, a thread per tensor) and adds the tensors'
// results in order (addTensorResults). Both backends run these bodies: the
// host loops over the blocks and threads the GPU runs in parallel.

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

/// What the last launch reads of each tensor: its slice count and the
/// index of its first partial.
struct SumSquaresTensors {
  int64_t *slices;
  int64_t *firstPartial;
};

/// Records tensor t of launch `l` in `tensors`.
AMP_HOST_DEVICE inline void recordSumSquaresTensor(const SumSquaresLaunch &l,
                                                   int64_t t,
                                                   SumSquaresTensors tensors) {
  tensors.slices[l.firstTensor + t] = l.split[t].slices;
  tensors.firstPartial[l.firstTensor + t] = l.firstPartial + l.firstBlock[t];
}

/// The tensor of the launch that block `block` (below firstBlock[count])
/// is a slice of.
AMP_HOST_DEVICE inline int64_t sumSquaresTensorOf(const SumSquaresLaunch &l,
                                                  int64_t block) {
  return lastStartAtOrBelow(l.firstBlock, l.count, block);
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

/// Tensor t's sum of squares: its slices' partials combined.
AMP_HOST_DEVICE inline float sumSquaresOfTensor(SumSquaresTensors tensors,
                                                const float *partials,
                                                int64_t t) {
  return sumSquaresSlice(tensors.slices[t], partials + tensors.firstPartial[t]);
}

/// The result: the `count` tensors' results added in order from 0.
AMP_HOST_DEVICE inline float addTensorResults(int64_t count,
                                              const float *results) {
  float total = 0.0f;
  for (int64_t t = 0; t < count; ++t)
    total += results[t];
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

//===----------------------------------------------------------------------===//
// Multi-tensor updates: unscale, SGD, AdamW
//===----------------------------------------------------------------------===//
//
// As Apex's multi_tensor_apply, the tensors' addresses travel in the
// launch's parameters, up to kMultiTensorChunk tensors a launch, so that
// nothing is read from the host and the launches can be graph-captured.
// Each tensor is cut into tiles of kMultiTensorTile elements, numbered
// across the launch's tensors (firstTile); a block takes a tile at a time
// (the grid striding over the rest) and its thread j the vector of
// kMultiTensorVector elements from j * kMultiTensorVector on. A vector of
// a tensor whose addresses are aligned (`whole`), and that lies wholly
// inside it, moves as one 16-byte access; any other element by element.
// Both backends run these bodies: the host walks the tiles, threads and
// vectors the GPU runs in parallel, and differs only in how a whole vector
// is loaded and stored (loadVector, storeVector, storeCopyVector).

/// One launch: tensor t is a[t], b[t], c[t], d[t] (the parameter, the
/// gradient, the state; unused ones repeat a[t]) and its low-precision copy
/// copy[t] (or null), of size[t] elements and tiles [firstTile[t],
/// firstTile[t + 1]) of the launch.
struct MultiTensorLaunch {
  float *a[kMultiTensorChunk];
  float *b[kMultiTensorChunk];
  float *c[kMultiTensorChunk];
  float *d[kMultiTensorChunk];
  void *copy[kMultiTensorChunk];
  int64_t size[kMultiTensorChunk];
  int64_t firstTile[kMultiTensorChunk + 1];
  bool whole[kMultiTensorChunk];
  amp_dtype_t copyType;
  int64_t count;
};

/// kMultiTensorVector f32 elements. The loops over one run over all of
/// them (those past a tensor's end are zeros, computed and not stored), so
/// that they unroll and the vector stays in registers.
struct Vector {
  float v[kMultiTensorVector];
};

/// The tensor whose tiles include `tile` (below firstTile[count]).
AMP_HOST_DEVICE inline int64_t multiTensorTensorOf(const MultiTensorLaunch &l,
                                                   int64_t tile) {
  return lastStartAtOrBelow(l.firstTile, l.count, tile);
}

/// A tile of a launch: its tensor and the tensor's element it starts at.
struct Tile {
  int64_t tensor;
  int64_t begin;
};

AMP_HOST_DEVICE inline Tile multiTensorTile(const MultiTensorLaunch &l,
                                            int64_t tile) {
  const int64_t t = multiTensorTensorOf(l, tile);
  return {t, (tile - l.firstTile[t]) * kMultiTensorTile};
}

/// Calls fn(t, i, n, whole) for the vector that thread `thread` of the
/// block working on `tile` moves: elements [i, i + n) of tensor t, n >= 1,
/// as one access where `whole`; nothing past the tensor's end.
template <typename Fn>
AMP_HOST_DEVICE inline void forMultiTensorVector(const MultiTensorLaunch &l,
                                                 Tile tile, int64_t thread,
                                                 Fn &&fn) {
  const int64_t t = tile.tensor;
  const int64_t i = tile.begin + thread * kMultiTensorVector;
  if (i >= l.size[t])
    return;
  const int64_t left = l.size[t] - i;
  // Two calls, so that the common one inlines with n and whole constant.
  if (l.whole[t] && left >= kMultiTensorVector)
    fn(t, i, static_cast<int>(kMultiTensorVector), true);
  else
    fn(t, i,
       left < kMultiTensorVector ? static_cast<int>(left)
                                 : static_cast<int>(kMultiTensorVector),
       false);
}

AMP_HOST_DEVICE inline Vector loadVector(const float *p, int64_t i, int n,
                                         bool whole) {
  Vector x{};
  if (whole) {
#ifdef __CUDA_ARCH__
    const float4 f = *reinterpret_cast<const float4 *>(p + i);
    x.v[0] = f.x, x.v[1] = f.y, x.v[2] = f.z, x.v[3] = f.w;
#else
    std::memcpy(x.v, p + i, sizeof x.v);
#endif
    return x;
  }
  for (int k = 0; k < kMultiTensorVector; ++k)
    if (k < n)
      x.v[k] = p[i + k];
  return x;
}

AMP_HOST_DEVICE inline void storeVector(float *p, int64_t i, int n, bool whole,
                                        const Vector &x) {
  if (whole) {
#ifdef __CUDA_ARCH__
    *reinterpret_cast<float4 *>(p + i) =
        make_float4(x.v[0], x.v[1], x.v[2], x.v[3]);
#else
    std::memcpy(p + i, x.v, sizeof x.v);
#endif
    return;
  }
  for (int k = 0; k < kMultiTensorVector; ++k)
    if (k < n)
      p[i + k] = x.v[k];
}

/// Stores the vector into a copy of type `dtype` (amprt::store's
/// rounding); f16 and bf16 whole vectors as one 8-byte access.
AMP_HOST_DEVICE inline void storeCopyVector(amp_dtype_t dtype, void *p,
                                            int64_t i, int n, bool whole,
                                            const Vector &x) {
  if (dtype == AMP_F32) {
    storeVector(static_cast<float *>(p), i, n, whole, x);
    return;
  }
  if (!whole || (dtype != AMP_F16 && dtype != AMP_BF16)) {
    for (int k = 0; k < kMultiTensorVector; ++k)
      if (k < n)
        store(dtype, p, i + k, x.v[k]);
    return;
  }
  uint16_t bits[kMultiTensorVector];
  for (int k = 0; k < kMultiTensorVector; ++k)
    bits[k] = dtype == AMP_F16 ? floatToHalfBits(x.v[k])
                               : floatToBFloat16Bits(x.v[k]);
  uint16_t *out = static_cast<uint16_t *>(p) + i;
#ifdef __CUDA_ARCH__
  *reinterpret_cast<uint2 *>(out) =
      make_uint2(bits[0] | static_cast<unsigned>(bits[1]) << 16,
                 bits[2] | static_cast<unsigned>(bits[3]) << 16);
#else
  std::memcpy(out, bits, sizeof bits);
#endif
}

/// Unscales a vector of gradients (a[t]) in place; whether any of them
/// was inf or NaN.
AMP_HOST_DEVICE inline bool unscaleVector(const MultiTensorLaunch &l, float inv,
                                          int64_t t, int64_t i, int n,
                                          bool whole) {
  Vector g = loadVector(l.a[t], i, n, whole);
  bool found = false;
  for (int k = 0; k < kMultiTensorVector; ++k) {
    found |= k < n && !std::isfinite(g.v[k]);
    g.v[k] *= inv;
  }
  storeVector(l.a[t], i, n, whole, g);
  return found;
}

/// The gradients an update reads: g times *gradScale, rounded to f32 as
/// amp.mul rounds, where the hyperparameters give a scale (grad_scale).
AMP_HOST_DEVICE inline Vector scaleGradients(Vector g, const float *gradScale) {
  if (gradScale) {
    const float scale = *gradScale;
    for (int k = 0; k < kMultiTensorVector; ++k)
      g.v[k] = g.v[k] * scale;
  }
  return g;
}

/// SGD over a vector: parameters a[t], gradients b[t] (times *gradScale
/// where not null), momentum buffers c[t] where `buffered`.
AMP_HOST_DEVICE inline void sgdVector(const MultiTensorLaunch &l,
                                      const SgdScalars<float> &scalars,
                                      bool buffered, bool first,
                                      const float *gradScale, int64_t t,
                                      int64_t i, int n, bool whole) {
  Vector p = loadVector(l.a[t], i, n, whole);
  const Vector g = scaleGradients(loadVector(l.b[t], i, n, whole), gradScale);
  Vector buffer = buffered ? loadVector(l.c[t], i, n, whole) : Vector{};
  for (int k = 0; k < kMultiTensorVector; ++k)
    p.v[k] = sgdElement(scalars, p.v[k], g.v[k],
                        buffered ? &buffer.v[k] : nullptr, first);
  storeVector(l.a[t], i, n, whole, p);
  if (buffered)
    storeVector(l.c[t], i, n, whole, buffer);
  if (l.copy[t])
    storeCopyVector(l.copyType, l.copy[t], i, n, whole, p);
}

/// AdamW over a vector: parameters a[t], gradients b[t] (times
/// *gradScale where not null), first and second moments c[t] and d[t].
AMP_HOST_DEVICE inline void adamwVector(const MultiTensorLaunch &l,
                                        const AdamwScalars<float> &scalars,
                                        const float *gradScale, int64_t t,
                                        int64_t i, int n, bool whole) {
  Vector p = loadVector(l.a[t], i, n, whole);
  const Vector g = scaleGradients(loadVector(l.b[t], i, n, whole), gradScale);
  Vector m = loadVector(l.c[t], i, n, whole);
  Vector v = loadVector(l.d[t], i, n, whole);
  for (int k = 0; k < kMultiTensorVector; ++k)
    adamwElement(scalars, p.v[k], g.v[k], m.v[k], v.v[k]);
  storeVector(l.a[t], i, n, whole, p);
  storeVector(l.c[t], i, n, whole, m);
  storeVector(l.d[t], i, n, whole, v);
  if (l.copy[t])
    storeCopyVector(l.copyType, l.copy[t], i, n, whole, p);
}

/// Whether `p` is aligned for a whole vector of `bytes`-byte elements.
inline bool alignedForVectors(const void *p, int64_t bytes) {
  return reinterpret_cast<uintptr_t>(p) % (bytes * kMultiTensorVector) == 0;
}

/// Calls `launch(const MultiTensorLaunch &)` for each launch over the
/// (checked) lists, in order; c and d may repeat a where an update has no
/// such state.
template <typename Launch>
inline void forMultiTensorLaunches(amp_tensor_list_t a, amp_tensor_list_t b,
                                   amp_tensor_list_t c, amp_tensor_list_t d,
                                   amp_copy_list_t copies, Launch &&launch) {
  const int64_t copyBytes =
      copies.dtype == AMP_F16 || copies.dtype == AMP_BF16 ? 2 : 4;
  for (size_t first = 0; first < a.count; first += kMultiTensorChunk) {
    MultiTensorLaunch l;
    l.count = static_cast<int64_t>(a.count - first) < kMultiTensorChunk
                  ? static_cast<int64_t>(a.count - first)
                  : kMultiTensorChunk;
    l.copyType = copies.dtype;
    l.firstTile[0] = 0;
    for (int64_t t = 0; t < l.count; ++t) {
      l.a[t] = a.data[first + t];
      l.b[t] = b.data[first + t];
      l.c[t] = c.data[first + t];
      l.d[t] = d.data[first + t];
      l.copy[t] = copies.data ? copies.data[first + t] : nullptr;
      l.size[t] = static_cast<int64_t>(a.sizes[first + t]);
      l.firstTile[t + 1] = l.firstTile[t] + multiTensorTiles(l.size[t]);
      l.whole[t] =
          alignedForVectors(l.a[t], 4) && alignedForVectors(l.b[t], 4) &&
          alignedForVectors(l.c[t], 4) && alignedForVectors(l.d[t], 4) &&
          (!l.copy[t] || alignedForVectors(l.copy[t], copyBytes));
    }
    launch(l);
  }
}

} // namespace amprt

#endif // AMP_RUNTIME_SRC_OPTIMIZER_BODIES_H
