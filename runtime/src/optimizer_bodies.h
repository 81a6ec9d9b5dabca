//===- optimizer_bodies.h - per-element optimizer arithmetic ----*- C++ -*-===//
//
// The arithmetic of the optimizer and scaler kernels, __host__ __device__:
// the host backend loops over it and the CUDA kernels run it per thread, so
// both compute the same thing. It follows torch.optim's single-tensor paths
// and the interpreter's kernels (f32 tensors, f64 Python-side scalars).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_SRC_OPTIMIZER_BODIES_H
#define AMP_RUNTIME_SRC_OPTIMIZER_BODIES_H

#include "amp_runtime/optimizer_kernels.h"
#include "row_bodies.h"

#include <cmath>

namespace amprt {

/// Scalars of an AdamW step, computed once per launch (as Python does).
struct AdamwScalars {
  float decay, weight, beta2, oneMinusBeta2, sqrtC2, eps, negStep;
};

AMP_HOST_DEVICE inline AdamwScalars adamwScalars(const amp_adamw_config_t &c,
                                                 float step) {
  double t = static_cast<double>(step) + 1;
  double c1 = 1 - std::pow(c.beta1, t), c2 = 1 - std::pow(c.beta2, t);
  return {static_cast<float>(1 - c.lr * c.weight_decay),
          static_cast<float>(1 - c.beta1),
          static_cast<float>(c.beta2),
          static_cast<float>(1 - c.beta2),
          static_cast<float>(std::sqrt(c2)),
          static_cast<float>(c.eps),
          static_cast<float>(-(c.lr / c1))};
}

AMP_HOST_DEVICE inline void adamwElement(const AdamwScalars &s, float &p,
                                         float g, float &m, float &v) {
  p = p * s.decay;
  // lerp(m, g, w) as torch computes it for w < 0.5.
  m = s.weight < 0.5f ? m + s.weight * (g - m) : g - (g - m) * (1 - s.weight);
  v = v * s.beta2 + s.oneMinusBeta2 * (g * g);
  float denom = std::sqrt(v) / s.sqrtC2 + s.eps;
  p = p + s.negStep * (m / denom);
}

AMP_HOST_DEVICE inline void sgdElement(const amp_sgd_config_t &c, bool first,
                                       float &p, float g, float *buffer) {
  float d = g;
  if (c.weight_decay != 0)
    d = d + static_cast<float>(c.weight_decay) * p;
  if (buffer) {
    float momentum = static_cast<float>(c.momentum);
    float buf =
        first ? d
              : *buffer * momentum + static_cast<float>(1.0 - c.dampening) * d;
    *buffer = buf;
    d = c.nesterov ? d + momentum * buf : buf;
  }
  p = p - static_cast<float>(c.lr) * d;
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

} // namespace amprt

#endif // AMP_RUNTIME_SRC_OPTIMIZER_BODIES_H
