//===- ConvTest.cpp - convolutions and their gradients --------------------===//
//
// Each pass of conv.h against loops written here from the op's definition
// (amp.conv2d, amp.conv2d_grad_input, amp.conv2d_grad_weight in the
// dialect reference): the forward sums (channel, kh, kw) ascending in f32,
// each product rounded, the bias added in f32 and the sum rounded once;
// the input gradient sums each window column's share over the group's
// output channels, then the shares over kh and kw; the weight gradient
// sums over images, then positions. On the host the results are those
// bits; cuDNN on a GPU sums in its own order, so the CUDA runs are held to
// the f32 accumulation bound instead.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/conv.h"
#include "amp_runtime/float_formats.h"

#include "KernelTest.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace {

/// A tensor's values (already rounded to its type) and their storage.
struct Tensor {
  amp_dtype_t dtype;
  std::vector<float> values;

  std::vector<uint16_t> halves() const {
    std::vector<uint16_t> bits;
    for (float v : values)
      bits.push_back(dtype == AMP_F16 ? amprt::floatToHalfBits(v)
                                      : amprt::floatToBFloat16Bits(v));
    return bits;
  }
};

Tensor randomTensor(std::mt19937 &rng, amp_dtype_t dtype, int64_t count) {
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  Tensor t{dtype, {}};
  for (int64_t i = 0; i < count; ++i)
    t.values.push_back(roundTo(dtype, dist(rng)));
  return t;
}

/// The expected result: values rounded to the result's type, and per
/// element the sum of the magnitudes of what was added (for the bound).
struct Expected {
  std::vector<float> values;
  std::vector<double> magnitudes;
  int64_t terms = 0; // the most terms one element sums
};

int64_t outSize(const amp_conv2d_t &c, int dim) {
  int64_t size = dim == 0 ? c.height : c.width;
  return (size + c.padding[dim] + c.padding[dim + 2] -
          c.dilations[dim] * (c.kernel[dim] - 1) - 1) /
             c.strides[dim] +
         1;
}

/// x's value at image row `row`, column `col` (zero in the padding).
float imageAt(const amp_conv2d_t &c, const Tensor &x, int64_t n, int64_t ch,
              int64_t row, int64_t col) {
  if (row < 0 || row >= c.height || col < 0 || col >= c.width)
    return 0.0f;
  return x.values[((n * c.channels + ch) * c.height + row) * c.width + col];
}

Expected forward(const amp_conv2d_t &c, const Tensor &x, const Tensor &w,
                 const Tensor *bias) {
  const int64_t oh = outSize(c, 0), ow = outSize(c, 1);
  const int64_t cg = c.channels / c.groups, og = c.out_channels / c.groups;
  Expected e;
  e.terms = cg * c.kernel[0] * c.kernel[1];
  for (int64_t n = 0; n < c.batch; ++n)
    for (int64_t o = 0; o < c.out_channels; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xo = 0; xo < ow; ++xo) {
          float sum = 0.0f;
          double magnitude = 0;
          for (int64_t ch = 0; ch < cg; ++ch)
            for (int64_t kh = 0; kh < c.kernel[0]; ++kh)
              for (int64_t kw = 0; kw < c.kernel[1]; ++kw) {
                float product =
                    imageAt(c, x, n, o / og * cg + ch,
                            y * c.strides[0] - c.padding[0] +
                                kh * c.dilations[0],
                            xo * c.strides[1] - c.padding[1] +
                                kw * c.dilations[1]) *
                    w.values[((o * cg + ch) * c.kernel[0] + kh) * c.kernel[1] +
                             kw];
                sum = sum + product;
                magnitude += std::fabs(product);
              }
          if (bias) {
            sum = sum + bias->values[o];
            magnitude += std::fabs(bias->values[o]);
          }
          e.values.push_back(roundTo(c.y_dtype, sum));
          e.magnitudes.push_back(magnitude);
        }
  return e;
}

Expected backwardData(const amp_conv2d_t &c, const Tensor &dy,
                      const Tensor &w) {
  const int64_t oh = outSize(c, 0), ow = outSize(c, 1);
  const int64_t cg = c.channels / c.groups, og = c.out_channels / c.groups;
  Expected e;
  e.terms = og * c.kernel[0] * c.kernel[1];
  for (int64_t n = 0; n < c.batch; ++n)
    for (int64_t ch = 0; ch < c.channels; ++ch)
      for (int64_t row = 0; row < c.height; ++row)
        for (int64_t col = 0; col < c.width; ++col) {
          const int64_t g = ch / cg;
          float sum = 0.0f;
          double magnitude = 0;
          for (int64_t kh = 0; kh < c.kernel[0]; ++kh)
            for (int64_t kw = 0; kw < c.kernel[1]; ++kw) {
              // The output position whose window reads (row, col) at
              // offset (kh, kw), if any.
              int64_t sy = row + c.padding[0] - kh * c.dilations[0];
              int64_t sx = col + c.padding[1] - kw * c.dilations[1];
              if (sy < 0 || sx < 0 || sy % c.strides[0] || sx % c.strides[1])
                continue;
              int64_t y = sy / c.strides[0], xo = sx / c.strides[1];
              if (y >= oh || xo >= ow)
                continue;
              float share = 0.0f;
              for (int64_t o = g * og; o < (g + 1) * og; ++o) {
                float product =
                    w.values[((o * cg + ch % cg) * c.kernel[0] + kh) *
                                 c.kernel[1] +
                             kw] *
                    dy.values[((n * c.out_channels + o) * oh + y) * ow + xo];
                share = share + product;
                magnitude += std::fabs(product);
              }
              sum = sum + share;
            }
          e.values.push_back(roundTo(c.dtype, sum));
          e.magnitudes.push_back(magnitude);
        }
  return e;
}

Expected backwardFilter(const amp_conv2d_t &c, const Tensor &x,
                        const Tensor &dy) {
  const int64_t oh = outSize(c, 0), ow = outSize(c, 1);
  const int64_t cg = c.channels / c.groups, og = c.out_channels / c.groups;
  Expected e;
  e.terms = c.batch * oh * ow;
  for (int64_t o = 0; o < c.out_channels; ++o)
    for (int64_t ch = 0; ch < cg; ++ch)
      for (int64_t kh = 0; kh < c.kernel[0]; ++kh)
        for (int64_t kw = 0; kw < c.kernel[1]; ++kw) {
          float sum = 0.0f;
          double magnitude = 0;
          for (int64_t n = 0; n < c.batch; ++n)
            for (int64_t y = 0; y < oh; ++y)
              for (int64_t xo = 0; xo < ow; ++xo) {
                float product =
                    dy.values[((n * c.out_channels + o) * oh + y) * ow + xo] *
                    imageAt(
                        c, x, n, o / og * cg + ch,
                        y * c.strides[0] - c.padding[0] + kh * c.dilations[0],
                        xo * c.strides[1] - c.padding[1] + kw * c.dilations[1]);
                sum = sum + product;
                magnitude += std::fabs(product);
              }
          e.values.push_back(roundTo(c.dtype, sum));
          e.magnitudes.push_back(magnitude);
        }
  return e;
}

class ConvTest : public KernelTest {
protected:
  void *uploadTensor(const Tensor &t) {
    return t.dtype == AMP_F32 ? static_cast<void *>(upload(t.values))
                              : static_cast<void *>(upload(t.halves()));
  }
  std::vector<float> downloadTensor(amp_dtype_t dtype, void *data,
                                    size_t count) {
    if (dtype == AMP_F32)
      return download(static_cast<float *>(data), count);
    std::vector<float> values;
    for (uint16_t bits : download(static_cast<uint16_t *>(data), count))
      values.push_back(dtype == AMP_F16 ? amprt::halfBitsToFloat(bits)
                                        : amprt::bfloat16BitsToFloat(bits));
    return values;
  }
  void *workspace(const amp_conv2d_t &c, amp_conv2d_pass_t pass, bool bias) {
    size_t bytes = amp_conv2d_workspace(&c, pass, bias);
    return bytes ? upload(std::vector<char>(bytes)) : nullptr;
  }
  /// Bits on the host; within the f32 accumulation bound on a GPU.
  void expectResult(const Expected &e, amp_dtype_t dtype,
                    const std::vector<float> &got) {
    ASSERT_EQ(got.size(), e.values.size());
    bool exact = GetParam() == AMP_DEVICE_HOST;
    for (size_t i = 0; i < got.size(); ++i) {
      if (exact) {
        uint32_t want, have;
        std::memcpy(&want, &e.values[i], 4);
        std::memcpy(&have, &got[i], 4);
        ASSERT_EQ(have, want)
            << "element " << i << ": " << got[i] << " != " << e.values[i];
      } else {
        double bound = e.terms * 0x1p-24 * e.magnitudes[i] +
                       2 * unitRoundoff(dtype) * std::fabs(e.values[i]);
        ASSERT_LE(std::fabs(got[i] - e.values[i]), bound) << "element " << i;
      }
    }
  }

  /// All three passes of `c`, the forward with and without a bias.
  void checkPasses(const amp_conv2d_t &c, uint32_t seed) {
    std::mt19937 rng(seed);
    const int64_t oh = outSize(c, 0), ow = outSize(c, 1);
    Tensor x =
        randomTensor(rng, c.dtype, c.batch * c.channels * c.height * c.width);
    Tensor w = randomTensor(rng, c.dtype,
                            c.out_channels * c.channels / c.groups *
                                c.kernel[0] * c.kernel[1]);
    Tensor bias = randomTensor(rng, c.y_dtype, c.out_channels);
    Tensor dy = randomTensor(rng, c.dtype, c.batch * c.out_channels * oh * ow);
    void *xd = uploadTensor(x), *wd = uploadTensor(w), *bd = uploadTensor(bias),
         *dyd = uploadTensor(dy);
    const size_t yCount = dy.values.size();
    for (bool withBias : {false, true}) {
      SCOPED_TRACE(withBias ? "forward with a bias" : "forward");
      void *y = upload(std::vector<float>(yCount));
      ASSERT_EQ(amp_conv2d_forward(stream, &c, xd, wd, withBias ? bd : nullptr,
                                   y,
                                   workspace(c, AMP_CONV2D_FORWARD, withBias)),
                nullptr);
      expectResult(forward(c, x, w, withBias ? &bias : nullptr), c.y_dtype,
                   downloadTensor(c.y_dtype, y, yCount));
    }
    {
      SCOPED_TRACE("input gradient");
      void *dx = upload(std::vector<float>(x.values.size()));
      ASSERT_EQ(amp_conv2d_backward_data(
                    stream, &c, dyd, wd, dx,
                    workspace(c, AMP_CONV2D_BACKWARD_DATA, false)),
                nullptr);
      expectResult(backwardData(c, dy, w), c.dtype,
                   downloadTensor(c.dtype, dx, x.values.size()));
    }
    {
      SCOPED_TRACE("weight gradient");
      void *dw = upload(std::vector<float>(w.values.size()));
      ASSERT_EQ(amp_conv2d_backward_filter(
                    stream, &c, xd, dyd, dw,
                    workspace(c, AMP_CONV2D_BACKWARD_FILTER, false)),
                nullptr);
      expectResult(backwardFilter(c, x, dy), c.dtype,
                   downloadTensor(c.dtype, dw, w.values.size()));
    }
  }
};

/// 2 images of 4 channels, 7 x 9, into 6 channels: 3x3, padding 1.
amp_conv2d_t basic(amp_dtype_t dtype, amp_dtype_t yDtype) {
  return {dtype, yDtype, 2,      4,      7,      9,
          6,     1,      {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}};
}

TEST_P(ConvTest, PassesOfAPlainConvolution) {
  for (amp_dtype_t dtype : {AMP_F32, AMP_F16, AMP_BF16}) {
    SCOPED_TRACE("dtype " + std::to_string(dtype));
    checkPasses(basic(dtype, dtype), 1);
  }
}

TEST_P(ConvTest, LowPrecisionOperandsIntoAnF32Result) {
  checkPasses(basic(AMP_F16, AMP_F32), 2);
  checkPasses(basic(AMP_BF16, AMP_F32), 3);
}

TEST_P(ConvTest, StridedDilatedGroupedUnevenlyPadded) {
  // Groups of 2 channels, a 3x2 window dilated (2, 1), strides (2, 3),
  // padding top 2, left 0, bottom 1, right 2.
  amp_conv2d_t c{AMP_F16, AMP_F16, 3,      4,      11,     10,
                 6,       2,       {3, 2}, {2, 3}, {2, 1}, {2, 0, 1, 2}};
  checkPasses(c, 4);
  c.dtype = c.y_dtype = AMP_F32;
  checkPasses(c, 5);
}

TEST_P(ConvTest, Depthwise) {
  amp_conv2d_t c{AMP_BF16, AMP_BF16, 2,      5,      6,      6,
                 5,        5,        {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}};
  checkPasses(c, 6);
}

TEST_P(ConvTest, EdgeWindows) {
  // A ResNet shortcut: 1x1, stride 2, no padding.
  checkPasses({AMP_F16,
               AMP_F16,
               2,
               8,
               8,
               8,
               4,
               1,
               {1, 1},
               {2, 2},
               {1, 1},
               {0, 0, 0, 0}},
              7);
  // A window as large as the padded image: one output position.
  checkPasses({AMP_F32,
               AMP_F32,
               1,
               3,
               4,
               5,
               2,
               1,
               {6, 5},
               {1, 1},
               {1, 1},
               {1, 0, 1, 0}},
              8);
  // A window larger than the image, reaching into the padding on every
  // side.
  checkPasses({AMP_BF16,
               AMP_F32,
               2,
               2,
               3,
               3,
               3,
               1,
               {5, 5},
               {1, 1},
               {1, 1},
               {2, 2, 2, 2}},
              9);
  // Strides larger than the window: some windows lie wholly in the
  // padding, and some image elements in no window.
  checkPasses({AMP_F16,
               AMP_F16,
               2,
               2,
               3,
               3,
               2,
               1,
               {2, 2},
               {3, 3},
               {1, 1},
               {2, 2, 3, 2}},
              10);
}

TEST_P(ConvTest, RefusesBadConvolutions) {
  amp_conv2d_t c = basic(AMP_F16, AMP_F16);
  char scratch[16] = {};
  void *p = scratch;
  c.groups = 4;
  expectInvalidArgument(amp_conv2d_forward(stream, &c, p, p, nullptr, p, p),
                        "groups dividing both channel counts");
  c = basic(AMP_F16, AMP_BF16);
  expectInvalidArgument(amp_conv2d_forward(stream, &c, p, p, nullptr, p, p),
                        "the result takes the operands' type, or f32");
  c = basic(AMP_F32, AMP_F32);
  c.kernel[0] = 12; // taller than the padded image (9)
  expectInvalidArgument(amp_conv2d_backward_data(stream, &c, p, p, p, p),
                        "does not fit the padded 7 x 9 image");
  c = basic(AMP_F32, AMP_F32);
  c.strides[1] = 0;
  expectInvalidArgument(amp_conv2d_backward_filter(stream, &c, p, p, p, p),
                        "strides and dilations >= 1");
  c = basic(AMP_F32, AMP_F32);
  c.kernel[0] = 2;
  c.dilations[0] = INT64_MAX; // the span, dilation + 1, overflows
  expectInvalidArgument(amp_conv2d_forward(stream, &c, p, p, nullptr, p, p),
                        "convolution window overflows");
  c = basic(AMP_F32, AMP_F32);
  c.batch = INT64_MAX / 2;
  expectInvalidArgument(amp_conv2d_forward(stream, &c, p, p, nullptr, p, p),
                        "overflow");
  EXPECT_EQ(amp_conv2d_workspace(&c, AMP_CONV2D_FORWARD, 0), 0u);
  c = basic(AMP_F32, AMP_F32);
  expectInvalidArgument(
      amp_conv2d_forward(stream, &c, p, p, nullptr, p, nullptr),
      "needs its workspace");
  expectInvalidArgument(
      amp_conv2d_forward(stream, &c, nullptr, p, nullptr, p, p),
      "x, w or y is null");
  expectInvalidArgument(
      amp_conv2d_forward(stream, nullptr, p, p, nullptr, p, p),
      "convolution is null");
}

TEST(ConvWorkspace, SizesOfTheDecomposition) {
  // 2 x 4 x 7 x 9 f16 with 3x3 windows: 2 * 36 * 63 columns of 2 bytes
  // (9072 bytes, 9216 at 256), 2 * 6 * 63 outputs.
  amp_conv2d_t c = basic(AMP_F16, AMP_F16);
  EXPECT_EQ(amp_conv2d_workspace(&c, AMP_CONV2D_FORWARD, 0), 9216u);
  // With a bias, the f32 sums too: 3024 bytes, 3072 at 256.
  EXPECT_EQ(amp_conv2d_workspace(&c, AMP_CONV2D_FORWARD, 1), 9216u + 3072u);
  // Into f32 the sums are y itself.
  c.y_dtype = AMP_F32;
  EXPECT_EQ(amp_conv2d_workspace(&c, AMP_CONV2D_FORWARD, 1), 9216u);
  // The columns' f32 gradient: 18144 bytes, 18176 at 256.
  EXPECT_EQ(amp_conv2d_workspace(&c, AMP_CONV2D_BACKWARD_DATA, 0), 18176u);
  // The columns twice and dy with the groups leading (1512 bytes, 1536).
  EXPECT_EQ(amp_conv2d_workspace(&c, AMP_CONV2D_BACKWARD_FILTER, 0),
            2 * 9216u + 1536u);
  EXPECT_EQ(amp_conv2d_workspace(nullptr, AMP_CONV2D_FORWARD, 0), 0u);
  EXPECT_EQ(amp_conv2d_workspace(&c, static_cast<amp_conv2d_pass_t>(7), 0), 0u);
}

INSTANTIATE_TEST_SUITE_P(Devices, ConvTest,
                         ::testing::Values(AMP_DEVICE_HOST, AMP_DEVICE_CUDA),
                         deviceName);

} // namespace
