//===- host_backend.cpp - plain memory --------------------------------------===//

#include "backend.h"
#include "status.h"

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
};
} // namespace

amprt::Backend *amprt::createHostBackend() {
  return new (std::nothrow) HostBackend();
}
