//===- RuntimeTest.cpp - the runtime's C API on every available device ----===//
//
// Each test runs on the host device and, when this machine has a GPU and the
// runtime was built with CUDA, on the CUDA device; otherwise the CUDA run
// is skipped with a message saying why.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/runtime.h"

#include "KernelTest.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace {

/// Owns a status and describes it for assertion messages.
struct Status {
  amp_status_t status;
  explicit Status(amp_status_t s) : status(s) {}
  ~Status() { amp_status_free(status); }
  amp_status_code_t code() const { return amp_status_code(status); }
  std::string message() const { return amp_status_message(status); }
};

#define EXPECT_AMP_OK(expr)                                                    \
  do {                                                                         \
    Status s_(expr);                                                           \
    EXPECT_EQ(s_.code(), AMP_OK) << s_.message();                              \
  } while (0)

class DeviceTest : public ::testing::TestWithParam<amp_device_kind_t> {
protected:
  void SetUp() override {
    if (!amp_device_available(GetParam()))
      GTEST_SKIP() << "no CUDA device on this machine (or a build without "
                      "CUDA): the CUDA runs are skipped";
    Status created(amp_device_create(GetParam(), 0, &device));
    ASSERT_EQ(created.code(), AMP_OK) << created.message();
    Status stream_created(amp_stream_create(device, &stream));
    ASSERT_EQ(stream_created.code(), AMP_OK) << stream_created.message();
  }
  void TearDown() override {
    amp_stream_destroy(stream);
    amp_device_destroy(device);
  }

  amp_device_t *device = nullptr;
  amp_stream_t *stream = nullptr;
};

TEST_P(DeviceTest, BuffersStartZeroedAndRoundTrip) {
  amp_buffer_t *buffer = nullptr;
  EXPECT_AMP_OK(amp_buffer_allocate(device, 1000, &buffer));
  ASSERT_NE(buffer, nullptr);
  EXPECT_EQ(amp_buffer_size(buffer), 1000u);
  std::vector<unsigned char> bytes(1000, 0xff);
  EXPECT_AMP_OK(amp_buffer_read(buffer, 0, bytes.data(), 1000, stream));
  EXPECT_AMP_OK(amp_stream_synchronize(stream));
  EXPECT_EQ(std::count(bytes.begin(), bytes.end(), 0), 1000);

  std::vector<float> values(100);
  std::iota(values.begin(), values.end(), 1.0f);
  EXPECT_AMP_OK(amp_buffer_write(buffer, 200, values.data(), 400, stream));
  std::vector<float> back(100, 0.0f);
  EXPECT_AMP_OK(amp_buffer_read(buffer, 200, back.data(), 400, stream));
  EXPECT_AMP_OK(amp_stream_synchronize(stream));
  EXPECT_EQ(back, values);
  amp_buffer_release(buffer);
}

TEST_P(DeviceTest, AStreamOwnsAWorkspaceAndCountersOnlyOnTheGpu) {
  size_t bytes = 1;
  void *workspace = amp_stream_workspace(stream, &bytes);
  if (GetParam() == AMP_DEVICE_HOST) {
    EXPECT_EQ(workspace, nullptr);
    EXPECT_EQ(bytes, 0u);
  } else {
    // cuBLASLt's 32 MiB, which a long reduction's partials share.
    EXPECT_NE(workspace, nullptr);
    EXPECT_EQ(bytes, size_t(32) << 20);
  }
  bytes = 1;
  EXPECT_EQ(amp_stream_workspace(nullptr, &bytes), nullptr);
  EXPECT_EQ(bytes, 0u);
  // The reductions' counters: a GPU stream's own, none on the host. Their
  // being zero between kernels is what the step's reductions that finish
  // in one launch check on a GPU (differential.test through the GPU kit).
  if (GetParam() == AMP_DEVICE_HOST)
    EXPECT_EQ(amp_stream_counters(stream), nullptr);
  else
    EXPECT_NE(amp_stream_counters(stream), nullptr);
  EXPECT_EQ(amp_stream_counters(nullptr), nullptr);
}

TEST_P(DeviceTest, CopiesBetweenBuffers) {
  amp_buffer_t *a = nullptr, *b = nullptr;
  EXPECT_AMP_OK(amp_buffer_allocate(device, 64, &a));
  EXPECT_AMP_OK(amp_buffer_allocate(device, 64, &b));
  const char text[] = "mixed precision";
  EXPECT_AMP_OK(amp_buffer_write(a, 8, text, sizeof(text), stream));
  EXPECT_AMP_OK(amp_buffer_copy(a, 8, b, 40, sizeof(text), stream));
  char back[sizeof(text)] = {};
  EXPECT_AMP_OK(amp_buffer_read(b, 40, back, sizeof(text), stream));
  EXPECT_AMP_OK(amp_stream_synchronize(stream));
  EXPECT_STREQ(back, text);
  amp_buffer_release(a);
  amp_buffer_release(b);
}

TEST_P(DeviceTest, OutOfRangeTransfersFail) {
  amp_buffer_t *buffer = nullptr;
  EXPECT_AMP_OK(amp_buffer_allocate(device, 16, &buffer));
  char data[32] = {};
  Status tooLong(amp_buffer_write(buffer, 0, data, 17, stream));
  EXPECT_EQ(tooLong.code(), AMP_OUT_OF_RANGE);
  EXPECT_NE(tooLong.message().find("a write of 17 bytes at offset 0 exceeds "
                                   "the 16 bytes available"),
            std::string::npos)
      << tooLong.message();
  Status pastEnd(amp_buffer_read(buffer, 17, data, 0, stream));
  EXPECT_EQ(pastEnd.code(), AMP_OUT_OF_RANGE);
  // An offset near SIZE_MAX must not wrap around the check.
  Status wrap(amp_buffer_read(buffer, SIZE_MAX - 2, data, 4, stream));
  EXPECT_EQ(wrap.code(), AMP_OUT_OF_RANGE);
  amp_buffer_release(buffer);
}

TEST_P(DeviceTest, SizesThatCannotBeAllocatedAreRefused) {
  // Within one alignment unit of SIZE_MAX the host's rounding wrapped to 0:
  // a short block was then zeroed over `size` bytes. Beyond PTRDIFF_MAX no
  // object fits (and the sanitizers' allocator aborts rather than fail).
  for (size_t size : {SIZE_MAX, SIZE_MAX - 100, SIZE_MAX - 255,
                      static_cast<size_t>(PTRDIFF_MAX)}) {
    amp_buffer_t *buffer = reinterpret_cast<amp_buffer_t *>(1);
    Status status(amp_buffer_allocate(device, size, &buffer));
    EXPECT_NE(status.code(), AMP_OK) << size;
    if (GetParam() == AMP_DEVICE_HOST) {
      EXPECT_EQ(status.code(), AMP_OUT_OF_MEMORY) << status.message();
    }
    EXPECT_EQ(buffer, nullptr) << size;
  }
}

TEST_P(DeviceTest, NullArgumentsFail) {
  amp_buffer_t *buffer = nullptr;
  EXPECT_EQ(Status(amp_buffer_allocate(nullptr, 4, &buffer)).code(),
            AMP_INVALID_ARGUMENT);
  EXPECT_EQ(Status(amp_buffer_allocate(device, 4, nullptr)).code(),
            AMP_INVALID_ARGUMENT);
  EXPECT_AMP_OK(amp_buffer_allocate(device, 4, &buffer));
  EXPECT_EQ(Status(amp_buffer_write(buffer, 0, nullptr, 4, stream)).code(),
            AMP_INVALID_ARGUMENT);
  EXPECT_EQ(Status(amp_stream_synchronize(nullptr)).code(),
            AMP_INVALID_ARGUMENT);
  EXPECT_EQ(Status(amp_graph_capture_begin(nullptr)).code(),
            AMP_INVALID_ARGUMENT);
  EXPECT_EQ(Status(amp_graph_capture_end(stream, nullptr)).code(),
            AMP_INVALID_ARGUMENT);
  EXPECT_EQ(Status(amp_graph_launch(nullptr, stream)).code(),
            AMP_INVALID_ARGUMENT);
  amp_buffer_release(buffer);
  // Destroying null objects is allowed, as free(NULL) is.
  amp_buffer_release(nullptr);
  amp_stream_destroy(nullptr);
  amp_graph_destroy(nullptr);
}

TEST_P(DeviceTest, ArenaAlignsResetsAndStopsAtCapacity) {
  amp_arena_t *arena = nullptr;
  EXPECT_AMP_OK(amp_arena_create(device, 1024, &arena));
  EXPECT_EQ(amp_arena_capacity(arena), 1024u);
  void *a = nullptr, *b = nullptr, *c = nullptr;
  EXPECT_AMP_OK(amp_arena_allocate(arena, 10, 16, &a));
  EXPECT_AMP_OK(amp_arena_allocate(arena, 100, 64, &b));
  // 10 bytes, then 100 at the next multiple of 64.
  EXPECT_EQ(static_cast<char *>(b) - static_cast<char *>(a), 64);
  EXPECT_EQ(amp_arena_used(arena), 164u);
  Status full(amp_arena_allocate(arena, 900, 16, &c));
  EXPECT_EQ(full.code(), AMP_OUT_OF_RANGE) << full.message();
  EXPECT_EQ(c, nullptr);
  Status badAlignment(amp_arena_allocate(arena, 8, 24, &c));
  EXPECT_EQ(badAlignment.code(), AMP_INVALID_ARGUMENT);
  amp_arena_reset(arena);
  EXPECT_EQ(amp_arena_used(arena), 0u);
  EXPECT_AMP_OK(amp_arena_allocate(arena, 900, 16, &c));
  EXPECT_EQ(c, a); // reused from the start
  void *planned = nullptr;
  EXPECT_AMP_OK(amp_arena_at(arena, 512, 512, &planned));
  EXPECT_EQ(static_cast<char *>(planned) - static_cast<char *>(a), 512);
  EXPECT_EQ(Status(amp_arena_at(arena, 513, 512, &planned)).code(),
            AMP_OUT_OF_RANGE);
  amp_arena_destroy(arena);
}

INSTANTIATE_TEST_SUITE_P(Devices, DeviceTest,
                         ::testing::Values(AMP_DEVICE_HOST, AMP_DEVICE_CUDA),
                         deviceName);

TEST(StatusTest, CarriesCodeMessageAndPlace) {
  EXPECT_EQ(amp_status_code(nullptr), AMP_OK);
  EXPECT_STREQ(amp_status_message(nullptr), "ok");
  amp_device_t *device = nullptr;
  Status bad(amp_device_create(AMP_DEVICE_HOST, 3, &device));
  EXPECT_EQ(bad.code(), AMP_INVALID_ARGUMENT);
  EXPECT_EQ(bad.message(), "the host device has ordinal 0, not 3");
  EXPECT_NE(std::string(amp_status_file(bad.status)).find("runtime.cpp"),
            std::string::npos);
  EXPECT_GT(amp_status_line(bad.status), 0);
  EXPECT_EQ(device, nullptr);
  EXPECT_STREQ(amp_status_code_name(AMP_DATA_LOSS), "AMP_DATA_LOSS");
  EXPECT_STREQ(amp_status_code_name(AMP_DEADLINE_EXCEEDED),
               "AMP_DEADLINE_EXCEEDED");
  Status unknown(
      amp_device_create(static_cast<amp_device_kind_t>(7), 0, &device));
  EXPECT_EQ(unknown.code(), AMP_INVALID_ARGUMENT);
}

TEST(StatusTest, CudaWithoutGpuIsUnavailable) {
  if (amp_device_available(AMP_DEVICE_CUDA))
    GTEST_SKIP() << "this machine has a GPU";
  amp_device_t *device = nullptr;
  Status status(amp_device_create(AMP_DEVICE_CUDA, 0, &device));
  EXPECT_EQ(status.code(), AMP_UNAVAILABLE);
  EXPECT_FALSE(status.message().empty());
  EXPECT_EQ(device, nullptr);
}

} // namespace
