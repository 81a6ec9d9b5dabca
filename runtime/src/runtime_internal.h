//===- runtime_internal.h - the objects behind the C handles ----*- C++ -*-===//

#ifndef AMP_RUNTIME_SRC_RUNTIME_INTERNAL_H
#define AMP_RUNTIME_SRC_RUNTIME_INTERNAL_H

#include "backend.h"

#include "amp_runtime/replicas.h"
#include "amp_runtime/step.h"

#include <cstdio>
#include <string>
#include <vector>

struct amp_device_s {
  amprt::Backend *backend;
};

struct amp_stream_s {
  amp_device_t *device;
  void *handle;
  // The replicas of the data-parallel step that runs on the stream
  // (replicas.h); count 0 until amp_step_set_replicas: one process.
  amp_replicas_t replicas{};
  // Whether the run in progress is the update's micro-batch (1) or not
  // (0), as the step's runtime counts them, or -1: unknown, `when` is read
  // from the device.
  int updates = -1;
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

/// Bytes to write, in order.
struct Piece {
  const void *data;
  size_t size;
};

/// Writes `pieces` to `path` so that a reader sees the old file or the
/// whole new one: a temporary beside it, synced, renamed over it, and the
/// directory synced (state_file.cpp). Through a symbolic link it replaces
/// the file the link names; a path that is no regular file is refused.
/// Temporaries of killed saves of the same path are removed first.
amp_status_t writeAtomically(const std::string &path,
                             const std::vector<Piece> &pieces);

/// Opens `path` for reading if it is a regular file (a device or a pipe
/// would never end, or block): AMP_INVALID_ARGUMENT otherwise,
/// AMP_IO_ERROR where it cannot be opened.
amp_status_t openRegularFile(const char *path, FILE **out);

/// The replicas `step` runs as (count 0: one process; step.cpp).
const amp_replicas_t &replicasOf(const amp_step_t *step);

/// The bytes of a step tensor (step.cpp).
size_t stepTensorBytes(const amp_step_tensor_t &tensor);
} // namespace amprt

#endif // AMP_RUNTIME_SRC_RUNTIME_INTERNAL_H
