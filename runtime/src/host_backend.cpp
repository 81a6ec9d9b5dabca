//===- host_backend.cpp - plain memory --------------------------------------===//

#include "backend.h"
#include "optimizer_bodies.h"
#include "status.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>

namespace {
constexpr size_t kAlignment = 256;

class HostBackend final : public amprt::Backend {
public:
  amp_device_kind_t kind() const override { return AMP_DEVICE_HOST; }

  amp_status_t allocate(size_t size, void **out) override {
    size_t rounded = (size + kAlignment - 1) / kAlignment * kAlignment;
    void *pointer = std::aligned_alloc(kAlignment, rounded ? rounded : kAlignment);
    if (!pointer)
      return AMP_STATUS(AMP_OUT_OF_MEMORY,
                        "cannot allocate %zu bytes of host memory", size);
    *out = pointer;
    return nullptr;
  }
  void free(void *pointer) override { std::free(pointer); }
  amp_status_t zero(void *pointer, size_t size) override {
    std::memset(pointer, 0, size);
    return nullptr;
  }
  // Host work runs when it is issued: a stream is only a token.
  amp_status_t createStream(void **out) override {
    *out = new (std::nothrow) char(0);
    if (!*out)
      return AMP_STATUS(AMP_OUT_OF_MEMORY, "cannot allocate a stream");
    return nullptr;
  }
  void destroyStream(void *stream) override { delete static_cast<char *>(stream); }
  amp_status_t synchronize(void *) override { return nullptr; }
  amp_status_t copy(void *destination, const void *source, size_t size,
                    amprt::CopyKind, void *) override {
    std::memmove(destination, source, size);
    return nullptr;
  }

  amp_status_t unscale(void *, amp_tensor_list_t grads, const float *invScale,
                       float *foundInf) override {
    float inv = *invScale;
    for (size_t t = 0; t < grads.count; ++t)
      for (size_t i = 0; i < grads.sizes[t]; ++i) {
        float value = grads.data[t][i];
        if (!std::isfinite(value))
          *foundInf = 1.0f;
        grads.data[t][i] = value * inv;
      }
    return nullptr;
  }

  amp_status_t scalerUpdate(void *, const amp_scaler_config_t &config,
                            float *scale, float *growth, float *hysteresis,
                            const float *foundInf) override {
    amprt::scalerUpdate(config, *scale, *growth, *hysteresis, *foundInf != 0);
    return nullptr;
  }

  amp_status_t sgd(void *, const amp_sgd_config_t &config,
                   amp_tensor_list_t params, amp_tensor_list_t grads,
                   amp_tensor_list_t buffers, float *step,
                   const float *foundInf, amp_copy_list_t copies) override {
    if (foundInf && *foundInf != 0)
      return nullptr;
    bool first = *step == 0;
    for (size_t t = 0; t < params.count; ++t)
      for (size_t i = 0; i < params.sizes[t]; ++i) {
        float &p = params.data[t][i];
        amprt::sgdElement(config, first, p, grads.data[t][i],
                          config.momentum != 0 ? &buffers.data[t][i] : nullptr);
        if (copies.data)
          amprt::storeCopy(copies.dtype, copies.data[t], i, p);
      }
    *step += 1;
    return nullptr;
  }

  amp_status_t adamw(void *, const amp_adamw_config_t &config,
                     amp_tensor_list_t params, amp_tensor_list_t grads,
                     amp_tensor_list_t expAvgs, amp_tensor_list_t expAvgSqs,
                     float *step, const float *foundInf,
                     amp_copy_list_t copies) override {
    if (foundInf && *foundInf != 0)
      return nullptr;
    amprt::AdamwScalars scalars = amprt::adamwScalars(config, *step);
    for (size_t t = 0; t < params.count; ++t)
      for (size_t i = 0; i < params.sizes[t]; ++i) {
        float &p = params.data[t][i];
        amprt::adamwElement(scalars, p, grads.data[t][i], expAvgs.data[t][i],
                            expAvgSqs.data[t][i]);
        if (copies.data)
          amprt::storeCopy(copies.dtype, copies.data[t], i, p);
      }
    *step += 1;
    return nullptr;
  }
};
} // namespace

amprt::Backend *amprt::createHostBackend() {
  return new (std::nothrow) HostBackend();
}
