//===- runtime.cpp - devices, streams, buffers, arenas --------------------===//

#include "amp_runtime/runtime.h"

#include "backend.h"
#include "runtime_internal.h"
#include "status.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <new>

struct amp_buffer_s {
  amp_device_t *device;
  void *data;
  size_t size;
};

struct amp_arena_s {
  amp_buffer_t *buffer;
  size_t used;
};

namespace {
/// Checks that [offset, offset + size) lies in `capacity` bytes.
amp_status_t checkRange(size_t offset, size_t size, size_t capacity,
                        const char *what) {
  if (offset > capacity || size > capacity - offset)
    return AMP_STATUS(AMP_OUT_OF_RANGE,
                      "%s of %zu bytes at offset %zu exceeds the %zu bytes "
                      "available",
                      what, size, offset, capacity);
  return nullptr;
}

std::atomic<int64_t> libraryFallbacks{0};
} // namespace

void amprt::countLibraryFallback(std::once_flag &reported, const char *what,
                                 const std::string &why) {
  ++libraryFallbacks;
  std::call_once(reported, [&] {
    std::fprintf(stderr,
                 "amp runtime: a cuDNN %s ran on the runtime's kernels "
                 "instead (slower): %s\n",
                 what, why.c_str());
  });
}

extern "C" {

int amp_device_available(amp_device_kind_t kind) {
  int raw = amprt::rawEnum(kind);
  if (raw == AMP_DEVICE_HOST)
    return 1;
  return raw == AMP_DEVICE_CUDA && amprt::cudaAvailable();
}

amp_status_t amp_device_create(amp_device_kind_t kind, int ordinal,
                               amp_device_t **out_device) {
  if (!out_device)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "out_device is null");
  *out_device = nullptr;
  amprt::Backend *backend = nullptr;
  int raw = amprt::rawEnum(kind);
  switch (raw) {
  case AMP_DEVICE_HOST:
    if (ordinal != 0)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "the host device has ordinal 0, not %d", ordinal);
    backend = amprt::createHostBackend();
    if (!backend)
      return AMP_STATUS(AMP_OUT_OF_MEMORY, "cannot allocate the host backend");
    break;
  case AMP_DEVICE_CUDA:
    AMP_RETURN_IF_ERROR(amprt::createCudaBackend(ordinal, &backend));
    break;
  default:
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "unknown device kind %d", raw);
  }
  auto *device = new (std::nothrow) amp_device_s{backend};
  if (!device) {
    delete backend;
    return AMP_STATUS(AMP_OUT_OF_MEMORY, "cannot allocate a device");
  }
  *out_device = device;
  return nullptr;
}

void amp_device_destroy(amp_device_t *device) {
  if (!device)
    return;
  delete device->backend;
  delete device;
}

amp_device_kind_t amp_device_kind(const amp_device_t *device) {
  return device->backend->kind();
}

amp_status_t amp_stream_create(amp_device_t *device,
                               amp_stream_t **out_stream) {
  if (!device || !out_stream)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "device or out_stream is null");
  *out_stream = nullptr;
  void *handle = nullptr;
  AMP_RETURN_IF_ERROR(device->backend->createStream(&handle));
  auto *stream = new (std::nothrow) amp_stream_s{device, handle, {}};
  if (!stream) {
    device->backend->destroyStream(handle);
    return AMP_STATUS(AMP_OUT_OF_MEMORY, "cannot allocate a stream");
  }
  *out_stream = stream;
  return nullptr;
}

void amp_stream_destroy(amp_stream_t *stream) {
  if (!stream)
    return;
  stream->device->backend->destroyStream(stream->handle);
  delete stream;
}

amp_status_t amp_stream_synchronize(amp_stream_t *stream) {
  if (!stream)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "stream is null");
  return stream->device->backend->synchronize(stream->handle);
}

amp_device_kind_t amp_stream_device_kind(const amp_stream_t *stream) {
  return stream ? stream->device->backend->kind() : AMP_DEVICE_HOST;
}

void *amp_stream_native_handle(amp_stream_t *stream) {
  if (!stream || stream->device->backend->kind() != AMP_DEVICE_CUDA)
    return nullptr;
  return stream->handle;
}

int64_t amp_library_fallbacks(void) { return libraryFallbacks.load(); }

void *amp_stream_workspace(amp_stream_t *stream, size_t *out_bytes) {
  size_t bytes = 0;
  void *workspace =
      stream ? stream->device->backend->workspace(stream->handle, &bytes)
             : nullptr;
  if (out_bytes)
    *out_bytes = workspace ? bytes : 0;
  return workspace;
}

unsigned *amp_stream_counters(amp_stream_t *stream) {
  return stream ? stream->device->backend->counters(stream->handle) : nullptr;
}

amp_status_t amp_graph_capture_begin(amp_stream_t *stream) {
  if (!stream)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "stream is null");
  return stream->device->backend->beginCapture(stream->handle);
}

amp_status_t amp_graph_capture_end(amp_stream_t *stream,
                                   amp_graph_t **out_graph) {
  if (!stream || !out_graph)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "stream or out_graph is null");
  *out_graph = nullptr;
  void *handle = nullptr;
  AMP_RETURN_IF_ERROR(
      stream->device->backend->endCapture(stream->handle, &handle));
  auto *graph = new (std::nothrow) amp_graph_s{stream->device, handle};
  if (!graph) {
    stream->device->backend->destroyGraph(handle);
    return AMP_STATUS(AMP_OUT_OF_MEMORY, "cannot allocate a graph");
  }
  *out_graph = graph;
  return nullptr;
}

amp_status_t amp_graph_launch(amp_graph_t *graph, amp_stream_t *stream) {
  if (!graph || !stream)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "graph or stream is null");
  if (graph->device != stream->device)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the graph was captured on another device");
  return stream->device->backend->launchGraph(graph->handle, stream->handle);
}

void amp_graph_destroy(amp_graph_t *graph) {
  if (!graph)
    return;
  graph->device->backend->destroyGraph(graph->handle);
  delete graph;
}

amp_status_t amp_buffer_allocate(amp_device_t *device, size_t size,
                                 amp_buffer_t **out_buffer) {
  if (!device || !out_buffer)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "device or out_buffer is null");
  *out_buffer = nullptr;
  void *data = nullptr;
  AMP_RETURN_IF_ERROR(device->backend->allocate(size, &data));
  amp_status_t zeroed = device->backend->zero(data, size);
  if (zeroed) {
    device->backend->free(data);
    return zeroed;
  }
  auto *buffer = new (std::nothrow) amp_buffer_s{device, data, size};
  if (!buffer) {
    device->backend->free(data);
    return AMP_STATUS(AMP_OUT_OF_MEMORY, "cannot allocate a buffer");
  }
  *out_buffer = buffer;
  return nullptr;
}

void amp_buffer_release(amp_buffer_t *buffer) {
  if (!buffer)
    return;
  buffer->device->backend->free(buffer->data);
  delete buffer;
}

size_t amp_buffer_size(const amp_buffer_t *buffer) {
  return buffer ? buffer->size : 0;
}

void *amp_buffer_data(amp_buffer_t *buffer) {
  return buffer ? buffer->data : nullptr;
}

static amp_status_t checkTransfer(amp_buffer_t *buffer, const void *host,
                                  amp_stream_t *stream) {
  if (!buffer || !host || !stream)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "buffer, host pointer or stream is null");
  if (stream->device != buffer->device)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the stream belongs to another device than the buffer");
  return nullptr;
}

amp_status_t amp_buffer_write(amp_buffer_t *buffer, size_t offset,
                              const void *source, size_t size,
                              amp_stream_t *stream) {
  AMP_RETURN_IF_ERROR(checkTransfer(buffer, source, stream));
  AMP_RETURN_IF_ERROR(checkRange(offset, size, buffer->size, "a write"));
  return buffer->device->backend->copy(
      static_cast<char *>(buffer->data) + offset, source, size,
      amprt::CopyKind::HostToDevice, stream->handle);
}

amp_status_t amp_buffer_read(amp_buffer_t *buffer, size_t offset,
                             void *destination, size_t size,
                             amp_stream_t *stream) {
  AMP_RETURN_IF_ERROR(checkTransfer(buffer, destination, stream));
  AMP_RETURN_IF_ERROR(checkRange(offset, size, buffer->size, "a read"));
  return buffer->device->backend->copy(
      destination, static_cast<char *>(buffer->data) + offset, size,
      amprt::CopyKind::DeviceToHost, stream->handle);
}

amp_status_t amp_buffer_copy(amp_buffer_t *source, size_t source_offset,
                             amp_buffer_t *destination,
                             size_t destination_offset, size_t size,
                             amp_stream_t *stream) {
  if (!source || !destination || !stream)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "source, destination or stream is null");
  if (source->device != destination->device || stream->device != source->device)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "buffers and stream must belong to one device");
  AMP_RETURN_IF_ERROR(
      checkRange(source_offset, size, source->size, "a copy source"));
  AMP_RETURN_IF_ERROR(checkRange(destination_offset, size, destination->size,
                                 "a copy destination"));
  return source->device->backend->copy(
      static_cast<char *>(destination->data) + destination_offset,
      static_cast<char *>(source->data) + source_offset, size,
      amprt::CopyKind::DeviceToDevice, stream->handle);
}

amp_status_t amp_arena_create(amp_device_t *device, size_t capacity,
                              amp_arena_t **out_arena) {
  if (!out_arena)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "out_arena is null");
  *out_arena = nullptr;
  amp_buffer_t *buffer = nullptr;
  AMP_RETURN_IF_ERROR(amp_buffer_allocate(device, capacity, &buffer));
  auto *arena = new (std::nothrow) amp_arena_s{buffer, 0};
  if (!arena) {
    amp_buffer_release(buffer);
    return AMP_STATUS(AMP_OUT_OF_MEMORY, "cannot allocate an arena");
  }
  *out_arena = arena;
  return nullptr;
}

void amp_arena_destroy(amp_arena_t *arena) {
  if (!arena)
    return;
  amp_buffer_release(arena->buffer);
  delete arena;
}

amp_status_t amp_arena_allocate(amp_arena_t *arena, size_t size,
                                size_t alignment, void **out_pointer) {
  if (!arena || !out_pointer)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "arena or out_pointer is null");
  *out_pointer = nullptr;
  if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > 256)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "alignment %zu is not a power of two up to 256",
                      alignment);
  size_t start = (arena->used + alignment - 1) & ~(alignment - 1);
  AMP_RETURN_IF_ERROR(
      checkRange(start, size, arena->buffer->size, "an arena allocation"));
  arena->used = start + size;
  *out_pointer = static_cast<char *>(arena->buffer->data) + start;
  return nullptr;
}

void amp_arena_reset(amp_arena_t *arena) {
  if (arena)
    arena->used = 0;
}

size_t amp_arena_used(const amp_arena_t *arena) {
  return arena ? arena->used : 0;
}

size_t amp_arena_capacity(const amp_arena_t *arena) {
  return arena ? arena->buffer->size : 0;
}

amp_status_t amp_arena_at(amp_arena_t *arena, size_t offset, size_t size,
                          void **out_pointer) {
  if (!arena || !out_pointer)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "arena or out_pointer is null");
  *out_pointer = nullptr;
  AMP_RETURN_IF_ERROR(
      checkRange(offset, size, arena->buffer->size, "a planned placement"));
  *out_pointer = static_cast<char *>(arena->buffer->data) + offset;
  return nullptr;
}

} // extern "C"
