//===- KernelTest.h - a fixture running kernels on each device -*- C++ -*-===//
//
// Parameterized over the host and CUDA devices; the CUDA runs skip, with a
// message, where no GPU (or no CUDA build) is present. Buffers made by
// upload() are released at the end of each test.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_TESTS_KERNELTEST_H
#define AMP_RUNTIME_TESTS_KERNELTEST_H

#include "amp_runtime/float_formats.h"
#include "amp_runtime/optimizer_kernels.h"
#include "amp_runtime/runtime.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

class KernelTest : public ::testing::TestWithParam<amp_device_kind_t> {
protected:
  void SetUp() override {
    if (!amp_device_available(GetParam()))
      GTEST_SKIP() << "no CUDA device on this machine (or a build without "
                      "CUDA): the CUDA runs are skipped";
    ASSERT_EQ(amp_device_create(GetParam(), 0, &device), nullptr);
    ASSERT_EQ(amp_stream_create(device, &stream), nullptr);
  }
  void TearDown() override {
    for (amp_buffer_t *buffer : buffers)
      amp_buffer_release(buffer);
    amp_stream_destroy(stream);
    amp_device_destroy(device);
  }

  /// A device copy of `values`.
  template <typename T> T *upload(const std::vector<T> &values) {
    amp_buffer_t *buffer = nullptr;
    EXPECT_EQ(
        amp_buffer_allocate(device, values.size() * sizeof(T) + 4, &buffer),
        nullptr);
    buffers.push_back(buffer);
    if (!values.empty()) {
      EXPECT_EQ(amp_buffer_write(buffer, 0, values.data(),
                                 values.size() * sizeof(T), stream),
                nullptr);
    }
    return static_cast<T *>(amp_buffer_data(buffer));
  }
  /// Writes `values` over the elements from device address `data` (in a
  /// buffer upload() made), in stream order.
  template <typename T> void overwrite(T *data, const std::vector<T> &values) {
    size_t offset = 0;
    amp_buffer_t *buffer = bufferOf(data, &offset);
    if (!buffer || values.empty())
      return;
    EXPECT_EQ(amp_buffer_write(buffer, offset, values.data(),
                               values.size() * sizeof(T), stream),
              nullptr);
    EXPECT_EQ(amp_stream_synchronize(stream), nullptr);
  }
  /// The host copy of `count` elements from device address `data` (in a
  /// buffer upload() made).
  template <typename T> std::vector<T> download(T *data, size_t count) {
    size_t offset = 0;
    amp_buffer_t *buffer = bufferOf(data, &offset);
    std::vector<T> values(count);
    if (!buffer || !count)
      return values;
    EXPECT_EQ(amp_buffer_read(buffer, offset, values.data(), count * sizeof(T),
                              stream),
              nullptr);
    EXPECT_EQ(amp_stream_synchronize(stream), nullptr);
    return values;
  }
  /// The buffer of this test that holds device address `data`, and the
  /// address's offset in it.
  amp_buffer_t *bufferOf(const void *data, size_t *offset) {
    for (amp_buffer_t *buffer : buffers) {
      auto *base = static_cast<const char *>(amp_buffer_data(buffer));
      auto *at = static_cast<const char *>(data);
      if (at >= base && at < base + amp_buffer_size(buffer)) {
        *offset = static_cast<size_t>(at - base);
        return buffer;
      }
    }
    ADD_FAILURE() << "not a buffer of this test";
    return nullptr;
  }

  amp_device_t *device = nullptr;
  amp_stream_t *stream = nullptr;
  std::vector<amp_buffer_t *> buffers;
};

/// Expects `status` to be AMP_INVALID_ARGUMENT with a message that holds
/// `fragment`, and frees it.
inline void expectInvalidArgument(amp_status_t status, const char *fragment) {
  EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT) << fragment;
  if (status) {
    EXPECT_NE(std::string(amp_status_message(status)).find(fragment),
              std::string::npos)
        << amp_status_message(status);
  }
  amp_status_free(status);
}

/// `value` rounded to f32, then to `dtype` (nearest even, as the runtime
/// stores).
inline double roundTo(amp_dtype_t dtype, double value) {
  float f = static_cast<float>(value);
  if (dtype == AMP_F16)
    return amprt::halfBitsToFloat(amprt::floatToHalfBits(f));
  if (dtype == AMP_BF16)
    return amprt::bfloat16BitsToFloat(amprt::floatToBFloat16Bits(f));
  return f;
}

/// The unit roundoff of `dtype`: half its epsilon.
inline double unitRoundoff(amp_dtype_t dtype) {
  return dtype == AMP_F16 ? 0x1p-11 : dtype == AMP_BF16 ? 0x1p-8 : 0x1p-24;
}

inline std::string
deviceName(const ::testing::TestParamInfo<amp_device_kind_t> &info) {
  return info.param == AMP_DEVICE_HOST ? "Host" : "Cuda";
}

#endif // AMP_RUNTIME_TESTS_KERNELTEST_H
