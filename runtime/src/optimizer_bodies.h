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

#include "amp_runtime/optimizer_kernels.h"
#include "amp_runtime/scalar_math.h"
#include "row_bodies.h"

#include <cmath>

namespace amprt {

/// The scalars of an AdamW launch, computed once per launch (as Python
/// does); the per-element update is amprt::adamwElement.
AMP_HOST_DEVICE inline AdamwScalars<float>
adamwScalars(const amp_adamw_config_t &c, float step) {
  return adamwScalars<float>(c.lr, c.beta1, c.beta2, c.eps, c.weight_decay,
                             static_cast<double>(step));
}

/// The scalars of an SGD launch; the per-element update is
/// amprt::sgdElement.
AMP_HOST_DEVICE inline SgdScalars<float> sgdScalars(const amp_sgd_config_t &c) {
  return sgdScalars<float>(c.lr, c.momentum, c.dampening, c.weight_decay,
                           c.nesterov != 0);
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
