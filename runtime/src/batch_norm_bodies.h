//===- batch_norm_bodies.h - batch norm a channel at a time -----*- C++ -*-===//
//
// batch_norm.h's normalisation and its gradient, written once, a channel
// at a time: the host backend runs the channels in a parallel loop (each
// gathered and widened to f32 first), the CUDA backend a thread each
// (where cuDNN does not run them). Each value is what amp-decompose's
// steps give it: every operation rounded to f32, the channel's sums over
// (image, position) ascending in the order of reduction_order.h, a mean
// as the sum divided by the count, the constants (1 - momentum, the
// unbiasing factor, epsilon) rounded to f32 once. So the host's results
// are the interpreter's bit for bit.
//
// These bodies are a second writing of the decomposition, not generated
// from it: what holds them to it is the reference interpreter, the oracle
// both are tested against. test/Target/Cuda/differential.test trains
// Inputs/cnn_bn.mlir through batch_norm.h's calls and, with
// --decompose-batch-norms, through amp-decompose's steps as generated
// kernels, each bit for bit with the interpreter;
// runtime/tests/BatchNormTest.cpp holds both directions to loops written
// from the ops' definitions.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_SRC_BATCH_NORM_BODIES_H
#define AMP_RUNTIME_SRC_BATCH_NORM_BODIES_H

#include "amp_runtime/batch_norm.h"
#include "amp_runtime/reduction_order.h"
#include "row_bodies.h"

namespace amprt {

/// One call's operands; the backward reads x, dy, scale and the running
/// statistics, the forward x, scale, bias and the running statistics.
struct BatchNormStage {
  bool backward;
  amp_batch_norm_t norm;
  // f32 constants, as the decomposition rounds them.
  float keep, momentum, unbias, epsilon;
  const void *x, *dy;
  const float *scale, *bias, *runningMean, *runningVar;
  void *out;               // y or dx
  float *newMean, *newVar; // forward; either may be null
  float *dscale, *dbias;   // backward; either may be null

  BatchNormStage(bool backward, const amp_batch_norm_t &norm)
      : backward(backward), norm(norm),
        keep(static_cast<float>(1.0 - norm.momentum)),
        momentum(static_cast<float>(norm.momentum)),
        // n / (n - 1); evaluation, which may have n = 1, uses none.
        unbias(norm.batch * norm.spatial > 1
                   ? static_cast<float>(
                         static_cast<double>(norm.batch * norm.spatial) /
                         static_cast<double>(norm.batch * norm.spatial - 1))
                   : 1.0f),
        epsilon(static_cast<float>(norm.epsilon)), x(nullptr), dy(nullptr),
        scale(nullptr), bias(nullptr), runningMean(nullptr),
        runningVar(nullptr), out(nullptr), newMean(nullptr), newVar(nullptr),
        dscale(nullptr), dbias(nullptr) {}
};

/// Channel `c`'s values as the body reads and writes them, value `r` of
/// the channel being the one at (image r / spatial, c, position r %
/// spatial), in that order: x(r), dy(r) and out(r, value) (y or dx,
/// rounded to the activations' type as it is stored). The CUDA backend
/// reads and writes the activations in place (StridedChannel); the host
/// gathers the channel widened to f32 first and scatters what it computed
/// after, which gives the same bits (every f16 and bf16 is an f32, and the
/// store rounds once either way).
template <amp_dtype_t D> struct StridedChannel {
  const BatchNormStage &s;
  int64_t channel;
  AMP_HOST_DEVICE int64_t at(int64_t r) const {
    const int64_t spatial = s.norm.spatial;
    return (r / spatial * s.norm.channels + channel) * spatial + r % spatial;
  }
  AMP_HOST_DEVICE float x(int64_t r) const { return load(D, s.x, at(r)); }
  AMP_HOST_DEVICE float dy(int64_t r) const { return load(D, s.dy, at(r)); }
  AMP_HOST_DEVICE void out(int64_t r, float value) const {
    store(D, s.out, at(r), value);
  }
};

/// The mean of `value(r)` over the channel's `count` values, as amp.mean
/// computes it in f32.
template <typename Value>
AMP_HOST_DEVICE inline float channelMean(int64_t count, Value &&value) {
  float sum = foldReduction(count, 0.0f, value,
                            [](float acc, float v) { return acc + v; });
  return sum / static_cast<float>(count);
}

/// Channel `c` of the stage, through `ch` (StridedChannel's interface).
template <typename Channel>
AMP_HOST_DEVICE inline void runBatchNormChannel(const BatchNormStage &s,
                                                int64_t c, const Channel &ch) {
  const amp_batch_norm_t &n = s.norm;
  const int64_t count = n.batch * n.spatial;
  float mean = s.runningMean[c], var = s.runningVar[c];
  if (n.training) {
    // The batch's mean and biased variance.
    mean = channelMean(count, [&](int64_t r) { return ch.x(r); });
    const float m = mean;
    var = channelMean(count, [&](int64_t r) {
      const float centered = ch.x(r) - m;
      return centered * centered;
    });
  }
  const float deviation = sqrtf(var + s.epsilon);
  const bool hasScale = s.scale != nullptr;
  const float scale = hasScale ? s.scale[c] : 1.0f;
  if (!s.backward) {
    if (n.training) {
      // Read before written: new_mean may be running_mean.
      const float runningMean = s.runningMean[c], runningVar = s.runningVar[c];
      const float keptMean = runningMean * s.keep,
                  addedMean = mean * s.momentum;
      const float unbiased = var * s.unbias;
      const float keptVar = runningVar * s.keep,
                  addedVar = unbiased * s.momentum;
      if (s.newMean)
        s.newMean[c] = keptMean + addedMean;
      if (s.newVar)
        s.newVar[c] = keptVar + addedVar;
    } else {
      if (s.newMean)
        s.newMean[c] = mean;
      if (s.newVar)
        s.newVar[c] = var;
    }
    const bool hasBias = s.bias != nullptr;
    const float bias = hasBias ? s.bias[c] : 0.0f;
    for (int64_t r = 0; r < count; ++r) {
      float v = (ch.x(r) - mean) / deviation;
      if (hasScale)
        v = v * scale;
      if (hasBias)
        v = v + bias;
      ch.out(r, v);
    }
    return;
  }
  // The backward, as the VJP's steps: xhat recomputed, g = dy * scale.
  auto xhat = [&](int64_t r) { return (ch.x(r) - mean) / deviation; };
  auto scaled = [&](int64_t r) {
    const float grad = ch.dy(r);
    return hasScale ? grad * scale : grad;
  };
  float meanScaled = 0.0f, meanScaledXhat = 0.0f;
  if (n.training) {
    meanScaled = channelMean(count, scaled);
    meanScaledXhat =
        channelMean(count, [&](int64_t r) { return scaled(r) * xhat(r); });
  }
  auto add = [](float acc, float v) { return acc + v; };
  if (s.dscale)
    s.dscale[c] = foldReduction(
        count, 0.0f, [&](int64_t r) { return ch.dy(r) * xhat(r); }, add);
  if (s.dbias)
    s.dbias[c] =
        foldReduction(count, 0.0f, [&](int64_t r) { return ch.dy(r); }, add);
  for (int64_t r = 0; r < count; ++r) {
    float dx = scaled(r);
    if (n.training) {
      const float centered = dx - meanScaled;
      const float along = xhat(r) * meanScaledXhat;
      dx = centered - along;
    }
    ch.out(r, dx / deviation);
  }
}

/// Channel `c` of the stage, read and written in place.
AMP_HOST_DEVICE inline void runBatchNormStage(const BatchNormStage &s,
                                              int64_t c) {
  switch (s.norm.dtype) {
  case AMP_F16:
    return runBatchNormChannel(s, c, StridedChannel<AMP_F16>{s, c});
  case AMP_BF16:
    return runBatchNormChannel(s, c, StridedChannel<AMP_BF16>{s, c});
  default:
    return runBatchNormChannel(s, c, StridedChannel<AMP_F32>{s, c});
  }
}

} // namespace amprt

#endif // AMP_RUNTIME_SRC_BATCH_NORM_BODIES_H
