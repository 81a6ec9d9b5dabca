//===- runtime_internal.h - the objects behind the C handles ----*- C++ -*-===//

#ifndef AMP_RUNTIME_SRC_RUNTIME_INTERNAL_H
#define AMP_RUNTIME_SRC_RUNTIME_INTERNAL_H

#include "backend.h"

struct amp_device_s {
  amprt::Backend *backend;
};

struct amp_stream_s {
  amp_device_t *device;
  void *handle;
};

struct amp_graph_s {
  amp_device_t *device;
  void *handle;
};

namespace amprt {
inline Backend *backendOf(amp_stream_t *stream) {
  return stream->device->backend;
}
inline void *handleOf(amp_stream_t *stream) { return stream->handle; }
} // namespace amprt

#endif // AMP_RUNTIME_SRC_RUNTIME_INTERNAL_H
