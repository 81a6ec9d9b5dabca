//===- batch_norm_bodies.h - batch norm a channel at a time -----*- C++ -*-===//
//
// batch_norm.h's normalisation and its gradient, written once, a channel
// at a time: the host backend runs the channels in a parallel loop, the
// CUDA backend a thread each (where cuDNN does not run them). Each value
// is what amp-decompose's steps give it: every operation rounded to f32,
// the channel's sums over (image, position) ascending in the order of
// reduction_order.h, a mean as the sum divided by the count, the
// constants (1 - momentum, the unbiasing factor, epsilon) rounded to f32
// once. So the host's results are the interpreter's bit for bit.
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
        unbias(static_cast<float>(
            static_cast<double>(norm.batch * norm.spatial) /
            static_cast<double>(norm.batch * norm.spatial - 1))),
        epsilon(static_cast<float>(norm.epsilon)), x(nullptr), dy(nullptr),
        scale(nullptr), bias(nullptr), runningMean(nullptr),
        runningVar(nullptr), out(nullptr), newMean(nullptr), newVar(nullptr),
        dscale(nullptr), dbias(nullptr) {}
};

/// Channel `c`'s values of x (or dy), element `r` of the channel at
/// (r / spatial, c, r % spatial).
struct ChannelIndex {
  int64_t channels, spatial, channel;
  AMP_HOST_DEVICE int64_t operator()(int64_t r) const {
    return (r / spatial * channels + channel) * spatial + r % spatial;
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

/// The batch statistics of channel `c`: mean and biased variance.
template <amp_dtype_t D>
AMP_HOST_DEVICE inline void batchStatistics(const BatchNormStage &s,
                                            const ChannelIndex &at, float &mean,
                                            float &var) {
  const int64_t count = s.norm.batch * s.norm.spatial;
  mean = channelMean(count, [&](int64_t r) { return load(D, s.x, at(r)); });
  const float m = mean;
  var = channelMean(count, [&](int64_t r) {
    const float centered = load(D, s.x, at(r)) - m;
    return centered * centered;
  });
}

/// Channel `c` of the stage, for activations of type D.
template <amp_dtype_t D>
AMP_HOST_DEVICE inline void runBatchNormChannel(const BatchNormStage &s,
                                                int64_t c) {
  const amp_batch_norm_t &n = s.norm;
  const ChannelIndex at{n.channels, n.spatial, c};
  const int64_t count = n.batch * n.spatial;
  float mean = s.runningMean[c], var = s.runningVar[c];
  if (n.training)
    batchStatistics<D>(s, at, mean, var);
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
    for (int64_t image = 0; image < n.batch; ++image)
      for (int64_t i = (image * n.channels + c) * n.spatial,
                   end = i + n.spatial;
           i < end; ++i) {
        float v = (load(D, s.x, i) - mean) / deviation;
        if (hasScale)
          v = v * scale;
        if (hasBias)
          v = v + bias;
        store(D, s.out, i, v);
      }
    return;
  }
  // The backward, as the VJP's steps: xhat recomputed, g = dy * scale.
  auto xhat = [&](int64_t i) { return (load(D, s.x, i) - mean) / deviation; };
  auto scaled = [&](int64_t i) {
    const float grad = load(D, s.dy, i);
    return hasScale ? grad * scale : grad;
  };
  float meanScaled = 0.0f, meanScaledXhat = 0.0f;
  if (n.training) {
    meanScaled = channelMean(count, [&](int64_t r) { return scaled(at(r)); });
    meanScaledXhat = channelMean(count, [&](int64_t r) {
      const int64_t i = at(r);
      return scaled(i) * xhat(i);
    });
  }
  auto add = [](float acc, float v) { return acc + v; };
  if (s.dscale)
    s.dscale[c] = foldReduction(
        count, 0.0f,
        [&](int64_t r) {
          const int64_t i = at(r);
          return load(D, s.dy, i) * xhat(i);
        },
        add);
  if (s.dbias)
    s.dbias[c] = foldReduction(
        count, 0.0f, [&](int64_t r) { return load(D, s.dy, at(r)); }, add);
  for (int64_t image = 0; image < n.batch; ++image)
    for (int64_t i = (image * n.channels + c) * n.spatial, end = i + n.spatial;
         i < end; ++i) {
      float dx = scaled(i);
      if (n.training) {
        const float centered = dx - meanScaled;
        const float along = xhat(i) * meanScaledXhat;
        dx = centered - along;
      }
      store(D, s.out, i, dx / deviation);
    }
}

/// Channel `c` of the stage.
AMP_HOST_DEVICE inline void runBatchNormStage(const BatchNormStage &s,
                                              int64_t c) {
  switch (s.norm.dtype) {
  case AMP_F16:
    return runBatchNormChannel<AMP_F16>(s, c);
  case AMP_BF16:
    return runBatchNormChannel<AMP_BF16>(s, c);
  default:
    return runBatchNormChannel<AMP_F32>(s, c);
  }
}

} // namespace amprt

#endif // AMP_RUNTIME_SRC_BATCH_NORM_BODIES_H
