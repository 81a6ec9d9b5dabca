//===- Kernels.cpp - reference kernels of the interpreter -----------------===//
//
// Built with -ffp-contract=off: a * b + c is two roundings, never an FMA, so
// results do not depend on the compiler's mood.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "amp_runtime/random.h"
#include "amp_runtime/reduction_order.h"
#include "amp_runtime/row_math.h"
#include "amp_runtime/scalar_math.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::interp;
using namespace mlir::amp::interp::kernels;

namespace {

/// Calls `fn` with a value of the type ops of `kind` compute in: f64 for f64,
/// f32 for everything narrower.
template <typename Fn> void withComputeType(ElementKind kind, Fn &&fn) {
  if (kind == ElementKind::F64)
    fn(double());
  else
    fn(float());
}

/// Visits every element of `shape` in row-major order with, for each of
/// `operands`, the offset of the element broadcast to it (numpy rules).
class BroadcastWalker {
public:
  BroadcastWalker(ArrayRef<int64_t> shape, ArrayRef<ArrayRef<int64_t>> operands)
      : shape(shape) {
    for (ArrayRef<int64_t> operand : operands) {
      SmallVector<int64_t> own = mlir::computeStrides(operand);
      SmallVector<int64_t> strides(shape.size(), 0);
      size_t offset = shape.size() - operand.size();
      for (size_t i = 0; i < operand.size(); ++i)
        strides[offset + i] = operand[i] == 1 ? 0 : own[i];
      operandStrides.push_back(std::move(strides));
    }
  }

  template <typename Fn> void walk(Fn &&fn) const {
    int64_t count = 1;
    for (int64_t dim : shape)
      count *= dim;
    SmallVector<int64_t> index(shape.size(), 0);
    SmallVector<int64_t> offsets(operandStrides.size(), 0);
    for (int64_t linear = 0; linear < count; ++linear) {
      fn(linear, ArrayRef<int64_t>(offsets));
      // Odometer increment, updating the operand offsets incrementally.
      for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
        ++index[d];
        for (size_t o = 0; o < offsets.size(); ++o)
          offsets[o] += operandStrides[o][d];
        if (index[d] < shape[d])
          break;
        for (size_t o = 0; o < offsets.size(); ++o)
          offsets[o] -= operandStrides[o][d] * shape[d];
        index[d] = 0;
      }
    }
  }

private:
  SmallVector<int64_t> shape;
  SmallVector<SmallVector<int64_t>> operandStrides;
};

/// Fills `out` in row-major order with the elements of `x` at
/// `base + sum(index[d] * strides[d])`: a transposed or sliced view.
void gatherStrided(const Tensor &x, ArrayRef<int64_t> strides, int64_t base,
                   Tensor &out) {
  ArrayRef<int64_t> shape = out.getShape();
  MutableArrayRef<double> result = out.getMutableData();
  SmallVector<int64_t> index(shape.size(), 0);
  int64_t offset = base;
  for (int64_t i = 0, e = out.getNumElements(); i < e; ++i) {
    result[i] = x[offset];
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      ++index[d];
      offset += strides[d];
      if (index[d] < shape[d])
        break;
      offset -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
}

int64_t product(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

bool isNarrowAccumulator(ElementKind accKind) {
  return accKind == ElementKind::F16 || accKind == ElementKind::BF16;
}

/// Adds `value` to an accumulator of `accKind`, held in AccT (f32 or f64).
/// An accumulator narrower than f32 holds only values of its type: the
/// addend is rounded to it first, and the sum after every addition.
template <typename AccT>
AccT accumulate(AccT acc, AccT value, ElementKind accKind) {
  if (!isNarrowAccumulator(accKind))
    return acc + value;
  AccT addend = static_cast<AccT>(roundToKind(value, accKind));
  return static_cast<AccT>(roundToKind(acc + addend, accKind));
}

/// maximum/minimum propagate NaN, as torch.maximum does.
template <typename T> T nanMax(T a, T b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<T>::quiet_NaN();
  return a < b ? b : a;
}
template <typename T> T nanMin(T a, T b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<T>::quiet_NaN();
  return b < a ? b : a;
}

/// Whether `label` (row `row` of `labels`) names one of `classes` or is
/// `ignored`; words the error otherwise.
bool checkLabel(const Tensor &labels, int64_t row, int64_t classes,
                std::optional<int64_t> ignored, std::string &error) {
  double label = labels[row];
  if ((label >= 0 && label < static_cast<double>(classes)) ||
      (ignored && label == static_cast<double>(*ignored)))
    return true;
  llvm::raw_string_ostream(error)
      << "label " << static_cast<int64_t>(label) << " at "
      << formatIndex(labels.getShape(), row) << " is outside [0, " << classes
      << ")";
  return false;
}

} // namespace

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

Tensor kernels::unary(UnaryFn fn, const Tensor &x, double exponent) {
  Tensor out(x.getKind(), x.getShape());
  MutableArrayRef<double> result = out.getMutableData();
  withComputeType(x.getKind(), [&](auto tag) {
    using T = decltype(tag);
    auto apply = [&](T v) -> T {
      switch (fn) {
      case UnaryFn::Neg:
        return -v;
      case UnaryFn::Abs:
        return std::fabs(v);
      case UnaryFn::Exp:
        return amprt::math::exp(v);
      case UnaryFn::Log:
        return std::log(v);
      case UnaryFn::Sqrt:
        return std::sqrt(v);
      case UnaryFn::Rsqrt:
        return amprt::rsqrt(v);
      case UnaryFn::Tanh:
        return amprt::math::tanh(v);
      case UnaryFn::Sigmoid:
        return amprt::sigmoid(v);
      case UnaryFn::Softplus:
        return amprt::softplus(v);
      case UnaryFn::Relu:
        return amprt::relu(v);
      case UnaryFn::GeluErf:
        return amprt::geluErf(v);
      case UnaryFn::GeluTanh:
        return amprt::geluTanh(v);
      case UnaryFn::Pow:
        return std::pow(v, static_cast<T>(exponent));
      }
      llvm_unreachable("unknown unary function");
    };
    for (int64_t i = 0, e = x.getNumElements(); i < e; ++i)
      result[i] = roundToKind(apply(static_cast<T>(x[i])), x.getKind());
  });
  return out;
}

Tensor kernels::binary(BinaryFn fn, const Tensor &lhs, const Tensor &rhs,
                       ArrayRef<int64_t> shape) {
  Tensor out(lhs.getKind(), shape);
  MutableArrayRef<double> result = out.getMutableData();
  BroadcastWalker walker(shape, {lhs.getShape(), rhs.getShape()});
  withComputeType(lhs.getKind(), [&](auto tag) {
    using T = decltype(tag);
    walker.walk([&](int64_t i, ArrayRef<int64_t> at) {
      T a = static_cast<T>(lhs[at[0]]), b = static_cast<T>(rhs[at[1]]);
      T r = 0;
      switch (fn) {
      case BinaryFn::Add:
        r = a + b;
        break;
      case BinaryFn::Sub:
        r = a - b;
        break;
      case BinaryFn::Mul:
        r = a * b;
        break;
      case BinaryFn::Div:
        r = a / b;
        break;
      case BinaryFn::Maximum:
        r = nanMax(a, b);
        break;
      case BinaryFn::Minimum:
        r = nanMin(a, b);
        break;
      }
      result[i] = roundToKind(r, lhs.getKind());
    });
  });
  return out;
}

Tensor kernels::compare(CompareFn fn, const Tensor &lhs, const Tensor &rhs,
                        ArrayRef<int64_t> shape) {
  Tensor out(ElementKind::I1, shape);
  MutableArrayRef<double> result = out.getMutableData();
  // Stored values are exact, so comparing them as f64 is exact; NaN compares
  // false except under `ne`.
  BroadcastWalker(shape, {lhs.getShape(), rhs.getShape()})
      .walk([&](int64_t i, ArrayRef<int64_t> at) {
        double a = lhs[at[0]], b = rhs[at[1]];
        bool r = false;
        switch (fn) {
        case CompareFn::Eq:
          r = a == b;
          break;
        case CompareFn::Ne:
          r = a != b;
          break;
        case CompareFn::Lt:
          r = a < b;
          break;
        case CompareFn::Le:
          r = a <= b;
          break;
        case CompareFn::Gt:
          r = a > b;
          break;
        case CompareFn::Ge:
          r = a >= b;
          break;
        }
        result[i] = r;
      });
  return out;
}

Tensor kernels::select(const Tensor &condition, const Tensor &onTrue,
                       const Tensor &onFalse, ArrayRef<int64_t> shape) {
  Tensor out(onTrue.getKind(), shape);
  MutableArrayRef<double> result = out.getMutableData();
  BroadcastWalker(shape,
                  {condition.getShape(), onTrue.getShape(), onFalse.getShape()})
      .walk([&](int64_t i, ArrayRef<int64_t> at) {
        result[i] = condition[at[0]] != 0.0 ? onTrue[at[1]] : onFalse[at[2]];
      });
  return out;
}

//===----------------------------------------------------------------------===//
// Data and shape
//===----------------------------------------------------------------------===//

Tensor kernels::cast(const Tensor &x, ElementKind kind) {
  std::vector<double> data(x.getData().begin(), x.getData().end());
  // From the exact stored value: one rounding, whatever the source type.
  for (double &value : data)
    value = roundToKind(value, kind);
  return Tensor(kind, x.getShape(), std::move(data));
}

Tensor kernels::iota(ElementKind kind, ArrayRef<int64_t> shape, int64_t dim) {
  Tensor out(kind, shape);
  MutableArrayRef<double> result = out.getMutableData();
  SmallVector<int64_t> strides = mlir::computeStrides(shape);
  for (int64_t i = 0, e = out.getNumElements(); i < e; ++i)
    result[i] =
        roundToKind(static_cast<double>((i / strides[dim]) % shape[dim]), kind);
  return out;
}

Tensor kernels::reshape(const Tensor &x, ArrayRef<int64_t> shape) {
  return Tensor(x.getKind(), shape,
                std::vector<double>(x.getData().begin(), x.getData().end()));
}

Tensor kernels::transpose(const Tensor &x, ArrayRef<int64_t> permutation) {
  SmallVector<int64_t> shape, strides;
  SmallVector<int64_t> inStrides = x.getStrides();
  for (int64_t dim : permutation) {
    shape.push_back(x.getShape()[dim]);
    strides.push_back(inStrides[dim]);
  }
  Tensor out(x.getKind(), shape);
  gatherStrided(x, strides, /*base=*/0, out);
  return out;
}

Tensor kernels::broadcastTo(const Tensor &x, ArrayRef<int64_t> shape) {
  Tensor out(x.getKind(), shape);
  MutableArrayRef<double> result = out.getMutableData();
  BroadcastWalker(shape, {x.getShape()})
      .walk([&](int64_t i, ArrayRef<int64_t> at) { result[i] = x[at[0]]; });
  return out;
}

Tensor kernels::slice(const Tensor &x, ArrayRef<int64_t> start,
                      ArrayRef<int64_t> limit) {
  SmallVector<int64_t> shape;
  for (auto [lo, hi] : llvm::zip(start, limit))
    shape.push_back(hi - lo);
  SmallVector<int64_t> inStrides = x.getStrides();
  int64_t base = 0;
  for (size_t d = 0; d < start.size(); ++d)
    base += start[d] * inStrides[d];
  Tensor out(x.getKind(), shape);
  gatherStrided(x, inStrides, base, out);
  return out;
}

Tensor kernels::concat(ArrayRef<const Tensor *> inputs, int64_t dim) {
  SmallVector<int64_t> shape(inputs.front()->getShape());
  shape[dim] = 0;
  for (const Tensor *input : inputs)
    shape[dim] += input->getShape()[dim];
  int64_t outer = product(ArrayRef<int64_t>(shape).take_front(dim));
  int64_t inner = product(ArrayRef<int64_t>(shape).drop_front(dim + 1));
  std::vector<double> data;
  data.reserve(product(shape));
  for (int64_t o = 0; o < outer; ++o)
    for (const Tensor *input : inputs) {
      int64_t block = input->getShape()[dim] * inner;
      ArrayRef<double> source = input->getData().slice(o * block, block);
      data.insert(data.end(), source.begin(), source.end());
    }
  return Tensor(inputs.front()->getKind(), shape, std::move(data));
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

Tensor kernels::matmul(const Tensor &lhs, const Tensor &rhs, const Tensor *bias,
                       bool transposeLhs, bool transposeRhs,
                       ElementKind accKind, ElementKind outKind,
                       ArrayRef<int64_t> outShape, float alpha) {
  ArrayRef<int64_t> l = lhs.getShape(), r = rhs.getShape();
  int64_t m = outShape[outShape.size() - 2], n = outShape.back();
  int64_t k = transposeLhs ? l[l.size() - 2] : l.back();
  ArrayRef<int64_t> batchShape = outShape.drop_back(2);
  int64_t lhsMatrix = m * k, rhsMatrix = k * n;

  // Offsets of each batch's matrices, with numpy broadcasting.
  SmallVector<int64_t> lhsBatch, rhsBatch;
  SmallVector<int64_t> lhsBatchShape(l.drop_back(2)),
      rhsBatchShape(r.drop_back(2));
  BroadcastWalker(batchShape, {lhsBatchShape, rhsBatchShape})
      .walk([&](int64_t, ArrayRef<int64_t> at) {
        lhsBatch.push_back(at[0] * lhsMatrix);
        rhsBatch.push_back(at[1] * rhsMatrix);
      });

  Tensor out(outKind, outShape);
  MutableArrayRef<double> result = out.getMutableData();
  withComputeType(accKind, [&](auto tag) {
    using AccT = decltype(tag);
    // Packed [M, K] and [K, N] copies in the accumulator type (exact: the
    // verifier guarantees it holds the operand values).
    std::vector<AccT> a(m * k), b(k * n), acc(n);
    for (size_t batch = 0; batch < lhsBatch.size(); ++batch) {
      for (int64_t i = 0; i < m; ++i)
        for (int64_t p = 0; p < k; ++p)
          a[i * k + p] = static_cast<AccT>(
              lhs[lhsBatch[batch] + (transposeLhs ? p * m + i : i * k + p)]);
      for (int64_t p = 0; p < k; ++p)
        for (int64_t j = 0; j < n; ++j)
          b[p * n + j] = static_cast<AccT>(
              rhs[rhsBatch[batch] + (transposeRhs ? j * k + p : p * n + j)]);
      for (int64_t i = 0; i < m; ++i) {
        std::fill(acc.begin(), acc.end(), AccT(0));
        // Every output sums its products in ascending k.
        for (int64_t p = 0; p < k; ++p) {
          AccT scalar = a[i * k + p];
          const AccT *row = b.data() + p * n;
          if (isNarrowAccumulator(accKind)) {
            for (int64_t j = 0; j < n; ++j)
              acc[j] = accumulate(acc[j], scalar * row[j], accKind);
          } else {
            for (int64_t j = 0; j < n; ++j)
              acc[j] += scalar * row[j];
          }
        }
        if (alpha != 1.0f) {
          assert(accKind == ElementKind::F32 && "scaled sums are f32");
          for (int64_t j = 0; j < n; ++j)
            acc[j] = static_cast<AccT>(alpha * static_cast<float>(acc[j]));
        }
        if (bias)
          for (int64_t j = 0; j < n; ++j)
            acc[j] = accumulate(acc[j], static_cast<AccT>((*bias)[j]), accKind);
        double *dst = result.data() + (batch * m + i) * n;
        for (int64_t j = 0; j < n; ++j)
          dst[j] = roundToKind(acc[j], outKind);
      }
    }
  });
  return out;
}

float kernels::fp8Amax(const Tensor &x) {
  // The tensor holds f32 values or narrower: exact as floats.
  float amax = 0.0f;
  for (double value : x.getData()) {
    float magnitude = std::fabs(static_cast<float>(value));
    if (std::isnan(magnitude) || std::isnan(amax))
      amax = NAN;
    else
      amax = std::max(amax, magnitude);
  }
  return amax;
}

Tensor kernels::quantizeFp8(const Tensor &x, float scale,
                            amprt::Fp8Format format) {
  Tensor out(ElementKind::F32, x.getShape());
  MutableArrayRef<double> data = out.getMutableData();
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = amprt::fp8BitsToFloat(
        amprt::quantizeFp8(static_cast<float>(x.getData()[i]), scale, format),
        format);
  return out;
}

Tensor kernels::quantizeFp8Tensorwise(const Tensor &x, amprt::Fp8Format format,
                                      float &inverseScale) {
  float scale = amprt::fp8ScaleFromAmax(fp8Amax(x), format);
  inverseScale = 1.0f / scale;
  return quantizeFp8(x, scale, format);
}

SmallVector<Tensor>
kernels::fp8ScalingUpdate(const Tensor &scale, const Tensor &history,
                          const Tensor &overflows, ArrayRef<float> amax,
                          ArrayRef<amprt::Fp8Format> formats, double margin,
                          bool mostRecent) {
  const int64_t rows = history.getShape()[0];
  const int64_t columns = history.getShape()[1];
  Tensor newScale = scale, newHistory = history, newOverflows = overflows;
  MutableArrayRef<double> s = newScale.getMutableData(),
                          h = newHistory.getMutableData(),
                          o = newOverflows.getMutableData();
  for (int64_t c = 0; c < columns; ++c) {
    const float max = static_cast<float>(amprt::fp8Max(formats[c]));
    const float current = static_cast<float>(s[c]);
    // An overflow: a value past the format's range at this step's scale.
    if (!(amax[c] * current <= max))
      o[c] = static_cast<float>(o[c]) + 1.0f;
    // The history with this step's amax in row 0, its largest entry (NaN
    // entries skipped), then rolled up by one row, row 0 emptied.
    std::vector<float> column(rows);
    for (int64_t r = 0; r < rows; ++r)
      column[r] = static_cast<float>(h[r * columns + c]);
    column[0] = amax[c];
    float largest = 0.0f;
    for (float value : column)
      largest = std::fmax(largest, value);
    const float used = mostRecent ? amax[c] : largest;
    for (int64_t r = 0; r < rows; ++r)
      h[r * columns + c] = r == 0 ? 0.0f : column[(r + 1) % rows];
    if (std::isfinite(used) && used > 0.0f)
      s[c] = amprt::fp8ScaledMax(formats[c], margin) / used;
  }
  return {newScale, newHistory, newOverflows};
}

Tensor kernels::conv2d(const Tensor &input, const Tensor &weight,
                       const Tensor *bias, const amprt::Conv2dWindow &window,
                       int64_t groups, ElementKind accKind, ElementKind outKind,
                       ArrayRef<int64_t> outShape) {
  ArrayRef<int64_t> in = input.getShape(), w = weight.getShape();
  const int64_t channels = in[1], height = in[2], width = in[3];
  const int64_t groupChannels = w[1], kh = w[2], kw = w[3];
  const int64_t groupOutputs = outShape[1] / groups;
  Tensor out(outKind, outShape);
  MutableArrayRef<double> result = out.getMutableData();
  withComputeType(accKind, [&](auto tag) {
    using AccT = decltype(tag);
    int64_t at = 0;
    for (int64_t n = 0; n < outShape[0]; ++n)
      for (int64_t o = 0; o < outShape[1]; ++o)
        for (int64_t y = 0; y < outShape[2]; ++y)
          for (int64_t x = 0; x < outShape[3]; ++x) {
            const int64_t first = o / groupOutputs * groupChannels;
            AccT acc = 0;
            for (int64_t c = 0; c < groupChannels; ++c)
              for (int64_t i = 0; i < kh; ++i)
                for (int64_t j = 0; j < kw; ++j) {
                  int64_t iy = window.inputPosition(y, i, 0),
                          ix = window.inputPosition(x, j, 1);
                  AccT value = 0;
                  if (iy >= 0 && iy < height && ix >= 0 && ix < width)
                    value = static_cast<AccT>(
                        input[((n * channels + first + c) * height + iy) *
                                  width +
                              ix]);
                  AccT product =
                      value *
                      static_cast<AccT>(
                          weight[((o * groupChannels + c) * kh + i) * kw + j]);
                  acc = accumulate(acc, product, accKind);
                }
            if (bias)
              acc = accumulate(acc, static_cast<AccT>((*bias)[o]), accKind);
            result[at++] = roundToKind(acc, outKind);
          }
  });
  return out;
}

/// Calls fn(plane, y, x, row, col) for every column element of a window
/// over `image` ([N, C, H, W]), in the columns' order (image plane n * C +
/// c, kernel offset (i, j), output position (y, x)): the input row and
/// column it reads, outside the image in the padding.
template <typename Fn>
static void forEachColumnElement(ArrayRef<int64_t> image,
                                 const amprt::Conv2dWindow &window, Fn fn) {
  int64_t outH = window.outputSize(image[2], 0),
          outW = window.outputSize(image[3], 1);
  for (int64_t plane = 0; plane < image[0] * image[1]; ++plane)
    for (int64_t i = 0; i < window.kernel[0]; ++i)
      for (int64_t j = 0; j < window.kernel[1]; ++j)
        for (int64_t y = 0; y < outH; ++y)
          for (int64_t x = 0; x < outW; ++x)
            fn(plane, y, x, window.inputPosition(y, i, 0),
               window.inputPosition(x, j, 1));
}

Tensor kernels::im2col(const Tensor &input, const amprt::Conv2dWindow &window,
                       ArrayRef<int64_t> outShape) {
  ArrayRef<int64_t> image = input.getShape();
  Tensor out(input.getKind(), outShape);
  MutableArrayRef<double> result = out.getMutableData();
  int64_t at = 0;
  forEachColumnElement(
      image, window,
      [&](int64_t plane, int64_t, int64_t, int64_t row, int64_t col) {
        bool inside = row >= 0 && row < image[2] && col >= 0 && col < image[3];
        result[at++] =
            inside ? input[(plane * image[2] + row) * image[3] + col] : 0.0;
      });
  return out;
}

Tensor kernels::col2im(const Tensor &columns, const amprt::Conv2dWindow &window,
                       ElementKind outKind, ArrayRef<int64_t> outShape) {
  // The column elements in their order visit each image position with
  // kernel offsets (i, j) ascending, so adding them in that order sums
  // each position over kh, then kw.
  Tensor out(outKind, outShape);
  MutableArrayRef<double> result = out.getMutableData();
  withComputeType(columns.getKind(), [&](auto tag) {
    using AccT = decltype(tag);
    std::vector<AccT> acc(result.size(), AccT(0));
    int64_t at = 0;
    forEachColumnElement(
        outShape, window,
        [&](int64_t plane, int64_t, int64_t, int64_t row, int64_t col) {
          AccT value = static_cast<AccT>(columns[at++]);
          if (row >= 0 && row < outShape[2] && col >= 0 && col < outShape[3]) {
            AccT &sum = acc[(plane * outShape[2] + row) * outShape[3] + col];
            sum = sum + value;
          }
        });
    for (size_t i = 0; i < acc.size(); ++i)
      result[i] = roundToKind(acc[i], outKind);
  });
  return out;
}

Tensor kernels::avgPool2d(const Tensor &input,
                          const amprt::Conv2dWindow &window,
                          ArrayRef<int64_t> outShape) {
  // Its definition, step by step: the windows as columns, their mean.
  ArrayRef<int64_t> in = input.getShape();
  int64_t values = window.kernel[0] * window.kernel[1],
          positions = outShape[2] * outShape[3];
  Tensor columns = im2col(input, window, {in[0], in[1] * values, positions});
  ElementKind acc =
      input.getKind() == ElementKind::F64 ? ElementKind::F64 : ElementKind::F32;
  Tensor mean = reduce(ReduceFn::Mean,
                       reshape(columns, {in[0], in[1], values, positions}), {2},
                       acc, input.getKind(), {in[0], in[1], positions});
  return reshape(mean, outShape);
}

Tensor kernels::conv2dGradInput(const Tensor &grad, const Tensor &weight,
                                const amprt::Conv2dWindow &window,
                                int64_t groups, ElementKind accKind,
                                ElementKind outKind,
                                ArrayRef<int64_t> outShape) {
  // Its definition, step by step, as amp-decompose writes it.
  ArrayRef<int64_t> w = weight.getShape(), y = grad.getShape();
  int64_t groupOutputs = w[0] / groups, columns = w[1] * w[2] * w[3],
          positions = y[2] * y[3];
  Tensor dColumns =
      matmul(reshape(weight, {groups, groupOutputs, columns}),
             reshape(grad, {y[0], groups, groupOutputs, positions}), nullptr,
             /*transposeLhs=*/true, /*transposeRhs=*/false, accKind, accKind,
             {y[0], groups, columns, positions});
  return col2im(reshape(dColumns, {y[0], groups * columns, positions}), window,
                outKind, outShape);
}

Tensor kernels::conv2dGradWeight(const Tensor &input, const Tensor &grad,
                                 const amprt::Conv2dWindow &window,
                                 int64_t groups, ElementKind accKind,
                                 ElementKind outKind,
                                 ArrayRef<int64_t> outShape) {
  // Its definition, step by step, as amp-decompose writes it.
  ArrayRef<int64_t> in = input.getShape(), w = outShape, y = grad.getShape();
  int64_t groupOutputs = w[0] / groups, columns = w[1] * w[2] * w[3],
          positions = y[2] * y[3];
  Tensor cols = im2col(input, window, {in[0], in[1] * w[2] * w[3], positions});
  auto leadGroups = [&](const Tensor &value, int64_t rows) {
    return reshape(transpose(reshape(value, {y[0], groups, rows, positions}),
                             {1, 2, 0, 3}),
                   {groups, rows, y[0] * positions});
  };
  Tensor dWeight =
      matmul(leadGroups(grad, groupOutputs), leadGroups(cols, columns), nullptr,
             /*transposeLhs=*/false, /*transposeRhs=*/true, accKind, outKind,
             {groups, groupOutputs, columns});
  return reshape(dWeight, outShape);
}

Tensor kernels::adaptiveAvgPool2d(const Tensor &input,
                                  ArrayRef<std::pair<int64_t, int64_t>> rows,
                                  ArrayRef<std::pair<int64_t, int64_t>> columns,
                                  ArrayRef<int64_t> outShape) {
  // Its definition, step by step, as amp-decompose writes it.
  ElementKind acc =
      input.getKind() == ElementKind::F64 ? ElementKind::F64 : ElementKind::F32;
  Tensor x = input.getKind() == acc ? input : cast(input, acc);
  auto sumWindows = [&](const Tensor &value, int64_t dim,
                        ArrayRef<std::pair<int64_t, int64_t>> windows) {
    ArrayRef<int64_t> shape = value.getShape();
    std::vector<Tensor> sums;
    for (auto [begin, end] : windows) {
      SmallVector<int64_t> start(4, 0), limit(shape), summed(shape);
      start[dim] = begin;
      limit[dim] = end;
      summed[dim] = 1;
      sums.push_back(reduce(ReduceFn::Sum, slice(value, start, limit), {dim},
                            acc, acc, summed));
    }
    SmallVector<const Tensor *> pieces;
    for (const Tensor &sum : sums)
      pieces.push_back(&sum);
    return concat(pieces, dim);
  };
  Tensor sums = sumWindows(sumWindows(x, 2, rows), 3, columns);
  Tensor sizes(acc, {outShape[2], outShape[3]});
  MutableArrayRef<double> size = sizes.getMutableData();
  for (auto [i, row] : llvm::enumerate(rows))
    for (auto [j, column] : llvm::enumerate(columns))
      size[i * columns.size() + j] =
          roundToKind(static_cast<double>((row.second - row.first) *
                                          (column.second - column.first)),
                      acc);
  Tensor mean = binary(BinaryFn::Div, sums, sizes, sums.getShape());
  return input.getKind() == acc ? mean : cast(mean, input.getKind());
}

Tensor kernels::maxPool2d(const Tensor &input,
                          const amprt::Conv2dWindow &window,
                          ArrayRef<int64_t> outShape) {
  ArrayRef<int64_t> image = input.getShape();
  const int64_t plane = image[2] * image[3];
  Tensor out(input.getKind(), outShape);
  MutableArrayRef<double> result = out.getMutableData();
  int64_t at = 0;
  for (int64_t nc = 0; nc < outShape[0] * outShape[1]; ++nc)
    for (int64_t y = 0; y < outShape[2]; ++y)
      for (int64_t x = 0; x < outShape[3]; ++x) {
        auto load = [&](int64_t p) { return input[nc * plane + p]; };
        result[at++] =
            load(amprt::windowArgmax(window, image[2], image[3], y, x, load));
      }
  return out;
}

Tensor kernels::maxPool2dGrad(const Tensor &input, const Tensor &grad,
                              const amprt::Conv2dWindow &window) {
  ArrayRef<int64_t> image = input.getShape(), pooled = grad.getShape();
  const int64_t planeSize = image[2] * image[3],
                outPlane = pooled[2] * pooled[3];
  Tensor out(input.getKind(), image);
  MutableArrayRef<double> result = out.getMutableData();
  withComputeType(input.getKind(), [&](auto tag) {
    using AccT = decltype(tag);
    std::vector<AccT> acc(result.size(), AccT(0));
    // The windows that read each position, in (kh, kw) order: the column
    // elements that read it, in amp.im2col's order.
    forEachColumnElement(
        image, window,
        [&](int64_t plane, int64_t y, int64_t x, int64_t row, int64_t col) {
          if (row < 0 || row >= image[2] || col < 0 || col >= image[3])
            return;
          auto load = [&](int64_t p) { return input[plane * planeSize + p]; };
          int64_t p = row * image[3] + col;
          if (amprt::windowArgmax(window, image[2], image[3], y, x, load) == p)
            acc[plane * planeSize + p] =
                acc[plane * planeSize + p] +
                static_cast<AccT>(grad[plane * outPlane + y * pooled[3] + x]);
        });
    for (size_t i = 0; i < acc.size(); ++i)
      result[i] = roundToKind(acc[i], input.getKind());
  });
  return out;
}

namespace {
/// The steps batch norm and its gradient are made of, on `input`'s
/// channels, each rounded to the statistics' kind A as amp-decompose's ops
/// round.
struct ChannelSteps {
  ElementKind acc;
  SmallVector<int64_t> kept, reduced, stats;

  ChannelSteps(const Tensor &input, ElementKind acc) : acc(acc) {
    ArrayRef<int64_t> shape = input.getShape();
    kept.assign(shape.size(), 1);
    kept[1] = shape[1]; // a channel's values broadcast over the rest
    reduced = {0};
    if (shape.size() == 4)
      reduced.append({2, 3});
    stats = {shape[1]};
  }
  /// The values each channel's statistics reduce.
  int64_t valuesPerChannel(const Tensor &input) const {
    int64_t n = 1;
    for (int64_t d : reduced)
      n *= input.getShape()[d];
    return n;
  }
  Tensor constant(double value) const {
    return Tensor(acc, {}, {roundToKind(value, acc)});
  }
  static Tensor op(BinaryFn fn, const Tensor &a, const Tensor &b) {
    ArrayRef<int64_t> sa = a.getShape(), sb = b.getShape();
    return binary(fn, a, b, sa.size() >= sb.size() ? sa : sb);
  }
  Tensor perChannel(const Tensor &value) const { return reshape(value, kept); }
  Tensor channelMean(const Tensor &value) const {
    return reduce(ReduceFn::Mean, value, reduced, acc, acc, stats);
  }
  Tensor channelSum(const Tensor &value, ElementKind kind) const {
    return reduce(ReduceFn::Sum, value, reduced, acc, kind, stats);
  }
  Tensor wide(const Tensor &value) const {
    return value.getKind() == acc ? value : cast(value, acc);
  }
};
} // namespace

SmallVector<Tensor> kernels::batchNorm(const Tensor &input,
                                       const Tensor &runningMean,
                                       const Tensor &runningVar,
                                       const Tensor *weight, const Tensor *bias,
                                       double epsilon, double momentum,
                                       bool training) {
  // The steps amp-decompose builds, each rounded to the statistics' type A.
  ElementKind acc = runningMean.getKind();
  ChannelSteps steps(input, acc);
  auto constant = [&](double value) { return steps.constant(value); };
  auto op = &ChannelSteps::op;
  auto perChannel = [&](const Tensor &value) {
    return steps.perChannel(value);
  };
  auto channelMean = [&](const Tensor &value) {
    return steps.channelMean(value);
  };
  int64_t n = steps.valuesPerChannel(input);
  Tensor x = steps.wide(input);
  Tensor var = runningVar, centered;
  Tensor newMean = runningMean, newVar = runningVar;
  if (training) {
    Tensor batchMean = channelMean(x);
    centered = op(BinaryFn::Sub, x, perChannel(batchMean));
    Tensor batchVar = channelMean(op(BinaryFn::Mul, centered, centered));
    auto update = [&](const Tensor &running, const Tensor &batch) {
      return op(BinaryFn::Add,
                op(BinaryFn::Mul, running, constant(1.0 - momentum)),
                op(BinaryFn::Mul, batch, constant(momentum)));
    };
    double count = static_cast<double>(n);
    newMean = update(runningMean, batchMean);
    newVar = update(runningVar,
                    op(BinaryFn::Mul, batchVar, constant(count / (count - 1))));
    var = std::move(batchVar);
  } else {
    centered = op(BinaryFn::Sub, x, perChannel(runningMean));
  }
  Tensor deviation =
      unary(UnaryFn::Sqrt, op(BinaryFn::Add, var, constant(epsilon)));
  Tensor y = op(BinaryFn::Div, centered, perChannel(deviation));
  auto wide = [&](const Tensor &value) {
    return perChannel(steps.wide(value));
  };
  if (weight)
    y = op(BinaryFn::Mul, y, wide(*weight));
  if (bias)
    y = op(BinaryFn::Add, y, wide(*bias));
  if (input.getKind() != acc)
    y = cast(y, input.getKind());
  return {std::move(y), std::move(newMean), std::move(newVar)};
}

SmallVector<Tensor>
kernels::batchNormGrad(const Tensor &input, const Tensor &grad,
                       const Tensor &runningMean, const Tensor &runningVar,
                       const Tensor *weight, double epsilon, bool training,
                       ElementKind scaleKind, ElementKind biasKind) {
  // The steps amp-decompose builds, each rounded to the statistics' type A.
  ChannelSteps steps(input, runningMean.getKind());
  auto op = &ChannelSteps::op;
  auto perChannel = [&](const Tensor &value) {
    return steps.perChannel(value);
  };
  auto channelMean = [&](const Tensor &value) {
    return steps.channelMean(value);
  };
  Tensor x = steps.wide(input);
  Tensor mean = runningMean, var = runningVar;
  if (training) {
    mean = channelMean(x);
    Tensor centered = op(BinaryFn::Sub, x, perChannel(mean));
    var = channelMean(op(BinaryFn::Mul, centered, centered));
  }
  Tensor deviation = perChannel(
      unary(UnaryFn::Sqrt, op(BinaryFn::Add, var, steps.constant(epsilon))));
  Tensor xhat =
      op(BinaryFn::Div, op(BinaryFn::Sub, x, perChannel(mean)), deviation);
  Tensor g = steps.wide(grad);
  Tensor scaled =
      weight ? op(BinaryFn::Mul, g, perChannel(steps.wide(*weight))) : g;
  Tensor dx = scaled;
  if (training)
    dx = op(BinaryFn::Sub,
            op(BinaryFn::Sub, scaled, perChannel(channelMean(scaled))),
            op(BinaryFn::Mul, xhat,
               perChannel(channelMean(op(BinaryFn::Mul, scaled, xhat)))));
  dx = op(BinaryFn::Div, dx, deviation);
  if (input.getKind() != steps.acc)
    dx = cast(dx, input.getKind());
  SmallVector<Tensor> results;
  results.push_back(std::move(dx));
  results.push_back(steps.channelSum(op(BinaryFn::Mul, g, xhat), scaleKind));
  results.push_back(steps.channelSum(g, biasKind));
  return results;
}

/// The kind attention accumulates in: f64 for f64, else f32.
static ElementKind accumulatorKind(ElementKind kind) {
  return kind == ElementKind::F64 ? ElementKind::F64 : ElementKind::F32;
}

std::pair<Tensor, Tensor> kernels::attention(const Tensor &query,
                                             const Tensor &key,
                                             const Tensor &value, bool causal,
                                             double scale) {
  ArrayRef<int64_t> q = query.getShape();
  int64_t batchHeads = q[0] * q[1], t = q[2], d = q[3];
  int64_t s = key.getShape()[2], dv = value.getShape()[3];
  Tensor out(query.getKind(), {q[0], q[1], t, dv});
  Tensor lse(accumulatorKind(query.getKind()), {q[0], q[1], t});
  MutableArrayRef<double> result = out.getMutableData();
  withComputeType(query.getKind(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> scores(s), acc(dv);
    const T scaleT = static_cast<T>(scale);
    for (int64_t bh = 0; bh < batchHeads; ++bh) {
      for (int64_t i = 0; i < t; ++i) {
        const double *qi = query.getData().data() + (bh * t + i) * d;
        // Causal (top-left aligned): query i sees keys j <= i.
        int64_t visible = causal ? std::min(i + 1, s) : s;
        T maxScore = -std::numeric_limits<T>::infinity();
        for (int64_t j = 0; j < visible; ++j) {
          const double *kj = key.getData().data() + (bh * s + j) * d;
          T dot = 0;
          for (int64_t c = 0; c < d; ++c)
            dot += static_cast<T>(qi[c]) * static_cast<T>(kj[c]);
          scores[j] = dot * scaleT;
          maxScore = nanMax(maxScore, scores[j]);
        }
        T sum = 0;
        std::fill(acc.begin(), acc.end(), T(0));
        for (int64_t j = 0; j < visible; ++j) {
          T weight = amprt::math::exp(scores[j] - maxScore);
          sum += weight;
          const double *vj = value.getData().data() + (bh * s + j) * dv;
          for (int64_t c = 0; c < dv; ++c)
            acc[c] += weight * static_cast<T>(vj[c]);
        }
        double *dst = result.data() + (bh * t + i) * dv;
        for (int64_t c = 0; c < dv; ++c)
          dst[c] = roundToKind(acc[c] / sum, query.getKind());
        lse.getMutableData()[bh * t + i] = maxScore + std::log(sum);
      }
    }
  });
  return {std::move(out), std::move(lse)};
}

SmallVector<Tensor>
kernels::attentionGrad(const Tensor &query, const Tensor &key,
                       const Tensor &value, const Tensor &output,
                       const Tensor &lse, const Tensor &grad, bool causal,
                       double scale) {
  ArrayRef<int64_t> q = query.getShape();
  int64_t batchHeads = q[0] * q[1], t = q[2], d = q[3];
  int64_t s = key.getShape()[2], dv = value.getShape()[3];
  ElementKind kind = query.getKind();
  Tensor dQuery(kind, query.getShape()), dKey(kind, key.getShape()),
      dValue(kind, value.getShape());
  withComputeType(query.getKind(), [&](auto tag) {
    using T = decltype(tag);
    // Sums in T, each rounded once to the operands' kind at the end.
    std::vector<T> dq(dQuery.getNumElements()), dk(dKey.getNumElements()),
        dvSum(dValue.getNumElements());
    const T scaleT = static_cast<T>(scale);
    auto at = [](const Tensor &x, int64_t index) {
      return static_cast<T>(x.getData()[index]);
    };
    for (int64_t bh = 0; bh < batchHeads; ++bh)
      for (int64_t i = 0; i < t; ++i) {
        int64_t qRow = (bh * t + i) * d, oRow = (bh * t + i) * dv;
        // sum(grad * output) over the query's output row.
        T rowDot = 0;
        for (int64_t c = 0; c < dv; ++c)
          rowDot += at(grad, oRow + c) * at(output, oRow + c);
        T rowLse = at(lse, bh * t + i);
        int64_t visible = causal ? std::min(i + 1, s) : s;
        for (int64_t j = 0; j < visible; ++j) {
          int64_t kRow = (bh * s + j) * d, vRow = (bh * s + j) * dv;
          T score = 0, dp = 0;
          for (int64_t c = 0; c < d; ++c)
            score += at(query, qRow + c) * at(key, kRow + c);
          for (int64_t c = 0; c < dv; ++c)
            dp += at(grad, oRow + c) * at(value, vRow + c);
          T p = amprt::math::exp(scaleT * score - rowLse);
          T ds = p * (dp - rowDot) * scaleT;
          for (int64_t c = 0; c < dv; ++c)
            dvSum[vRow + c] += p * at(grad, oRow + c);
          for (int64_t c = 0; c < d; ++c) {
            dq[qRow + c] += ds * at(key, kRow + c);
            dk[kRow + c] += ds * at(query, qRow + c);
          }
        }
      }
    auto round = [&](ArrayRef<T> sums, Tensor &out) {
      for (auto [sum, element] : llvm::zip(sums, out.getMutableData()))
        element = roundToKind(sum, kind);
    };
    round(dq, dQuery);
    round(dk, dKey);
    round(dvSum, dValue);
  });
  SmallVector<Tensor> grads;
  grads.push_back(std::move(dQuery));
  grads.push_back(std::move(dKey));
  grads.push_back(std::move(dValue));
  return grads;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

Tensor kernels::reduce(ReduceFn fn, const Tensor &x, ArrayRef<int64_t> dims,
                       ElementKind accKind, ElementKind outKind,
                       ArrayRef<int64_t> outShape) {
  // The input strides of the kept and of the reduced dimensions: output o
  // folds the elements at base(o) + offset(r), r ascending, which is their
  // order in the input.
  SmallVector<bool> reduced(x.getRank(), false);
  for (int64_t dim : dims)
    reduced[dim] = true;
  SmallVector<int64_t> inputStrides = mlir::computeStrides(x.getShape());
  SmallVector<int64_t> keptShape, keptStrides, reducedShape, reducedStrides;
  for (int64_t d = 0; d < x.getRank(); ++d) {
    (reduced[d] ? reducedShape : keptShape).push_back(x.getShape()[d]);
    (reduced[d] ? reducedStrides : keptStrides).push_back(inputStrides[d]);
  }
  auto offsetOf = [](int64_t flat, ArrayRef<int64_t> shape,
                     ArrayRef<int64_t> strides) {
    int64_t offset = 0;
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      offset += (flat % shape[d]) * strides[d];
      flat /= shape[d];
    }
    return offset;
  };
  int64_t count = product(reducedShape);

  Tensor out(outKind, outShape);
  MutableArrayRef<double> result = out.getMutableData();
  withComputeType(fn == ReduceFn::Max ? x.getKind() : accKind, [&](auto tag) {
    using AccT = decltype(tag);
    AccT identity =
        fn == ReduceFn::Max ? -std::numeric_limits<AccT>::infinity() : AccT(0);
    for (int64_t o = 0, e = out.getNumElements(); o < e; ++o) {
      int64_t base = offsetOf(o, keptShape, keptStrides);
      AccT v = amprt::foldReduction(
          count, identity,
          [&](int64_t r) {
            return static_cast<AccT>(
                x[base + offsetOf(r, reducedShape, reducedStrides)]);
          },
          [&](AccT acc, AccT value) {
            return fn == ReduceFn::Max ? nanMax(acc, value)
                                       : accumulate(acc, value, accKind);
          });
      if (fn == ReduceFn::Mean)
        v = v / static_cast<AccT>(count);
      result[o] = roundToKind(v, outKind);
    }
  });
  return out;
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

/// Calls `fn(n, at)` for every line of `shape` along `dim`: `n` elements,
/// the j-th at linear index `at(j)`.
template <typename Fn>
static void forEachLine(ArrayRef<int64_t> shape, int64_t dim, Fn fn) {
  int64_t outer = product(shape.take_front(dim)), n = shape[dim],
          inner = product(shape.drop_front(dim + 1));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in)
      fn(n, [=](int64_t j) { return (o * n + j) * inner + in; });
}

/// A tensor like `x`, its lines along `dim` computed in `x`'s compute type
/// T: fn(tag, n, at, store) for each line, where `at(j)` is the linear index
/// of the line's j-th element and `store(j, T value)` rounds the value to
/// `x`'s type into the result there.
template <typename Fn>
static Tensor mapLines(const Tensor &x, int64_t dim, Fn fn) {
  Tensor out(x.getKind(), x.getShape());
  MutableArrayRef<double> result = out.getMutableData();
  withComputeType(x.getKind(), [&](auto tag) {
    using T = decltype(tag);
    forEachLine(x.getShape(), dim, [&](int64_t n, auto at) {
      fn(tag, n, at, [&](int64_t j, T value) {
        result[at(j)] = roundToKind(value, x.getKind());
      });
    });
  });
  return out;
}

Tensor kernels::softmax(const Tensor &x, int64_t dim, bool log) {
  return mapLines(x, dim, [&](auto tag, int64_t n, auto at, auto store) {
    using T = decltype(tag);
    amprt::softmaxRow<T>(
        amprt::HostRow(), n,
        [&](int64_t j) { return static_cast<T>(x[at(j)]); }, store, log);
  });
}

/// f64 when the input or a parameter is f64, else f32.
static ElementKind normComputeKind(const Tensor &x, const Tensor *weight,
                                   const Tensor *bias) {
  for (const Tensor *t : {&x, weight, bias})
    if (t && t->getKind() == ElementKind::F64)
      return ElementKind::F64;
  return ElementKind::F32;
}

/// Layer norm (`centered`) or RMS norm of `x` over the dimensions from
/// `axis` on, with an optional weight and (layer norm only) bias.
static Tensor norm(const Tensor &x, const Tensor *weight, const Tensor *bias,
                   int64_t axis, double epsilon, bool centered) {
  int64_t n = product(x.getShape().drop_front(axis));
  int64_t rows = n ? x.getNumElements() / n : 0;
  Tensor out(x.getKind(), x.getShape());
  MutableArrayRef<double> result = out.getMutableData();
  withComputeType(normComputeKind(x, weight, bias), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t row = 0; row < rows; ++row) {
      const double *src = &x.getData()[row * n];
      amprt::normRow<T>(
          amprt::HostRow(), n,
          [&](int64_t j) { return static_cast<T>(src[j]); }, weight != nullptr,
          [&](int64_t j) { return static_cast<T>((*weight)[j]); },
          bias != nullptr,
          [&](int64_t j) { return static_cast<T>((*bias)[j]); },
          static_cast<T>(epsilon), centered,
          [&](int64_t j, T y) {
            result[row * n + j] = roundToKind(y, x.getKind());
          });
    }
  });
  return out;
}

Tensor kernels::layerNorm(const Tensor &x, const Tensor *weight,
                          const Tensor *bias, int64_t axis, double epsilon) {
  return norm(x, weight, bias, axis, epsilon, /*centered=*/true);
}

Tensor kernels::rmsNorm(const Tensor &x, const Tensor *weight, int64_t axis,
                        double epsilon) {
  return norm(x, weight, /*bias=*/nullptr, axis, epsilon, /*centered=*/false);
}

std::pair<Tensor, Tensor> kernels::normStats(const Tensor &x, int64_t axis,
                                             double epsilon, bool centered) {
  int64_t n = product(x.getShape().drop_front(axis));
  int64_t rows = n ? x.getNumElements() / n : 0;
  SmallVector<int64_t> shape(x.getShape());
  for (size_t d = axis; d < shape.size(); ++d)
    shape[d] = 1;
  Tensor mean(x.getKind(), shape), deviation(x.getKind(), shape);
  withComputeType(normComputeKind(x, nullptr, nullptr), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t row = 0; row < rows; ++row) {
      const double *src = &x.getData()[row * n];
      const amprt::NormStats<T> stats = amprt::normStats<T>(
          amprt::HostRow(), n,
          [&](int64_t j) { return static_cast<T>(src[j]); },
          static_cast<T>(epsilon), centered);
      mean.getMutableData()[row] = roundToKind(stats.mean, x.getKind());
      deviation.getMutableData()[row] =
          roundToKind(stats.deviation, x.getKind());
    }
  });
  return {std::move(mean), std::move(deviation)};
}

//===----------------------------------------------------------------------===//
// Embedding and losses
//===----------------------------------------------------------------------===//

/// Id `i` of `indices` as a row of a table of `rows` rows, or nothing with
/// the error in `error`.
static std::optional<int64_t> tableRow(const Tensor &indices, int64_t i,
                                       int64_t rows, std::string &error) {
  double id = indices[i];
  if (id < 0 || id >= static_cast<double>(rows)) {
    llvm::raw_string_ostream(error)
        << "index " << static_cast<int64_t>(id) << " at "
        << formatIndex(indices.getShape(), i) << " is outside the table's "
        << rows << " rows";
    return std::nullopt;
  }
  return static_cast<int64_t>(id);
}

Tensor kernels::dropout(const Tensor &x, const Tensor &rng, double p,
                        int64_t stream) {
  Tensor out(x.getKind(), x.getShape());
  MutableArrayRef<double> result = out.getMutableData();
  auto seed = static_cast<int64_t>(rng[0]);
  auto pass = static_cast<int64_t>(rng[1]);
  uint32_t threshold = amprt::dropoutThreshold(p);
  withComputeType(x.getKind(), [&](auto tag) {
    using T = decltype(tag);
    auto scale = static_cast<T>(1.0 / (1.0 - p));
    for (int64_t i = 0, e = x.getNumElements(); i < e; ++i)
      result[i] = roundToKind(amprt::dropout(static_cast<T>(x[i]), seed, pass,
                                             stream, i, threshold, scale),
                              x.getKind());
  });
  return out;
}

Tensor kernels::rngAdvance(const Tensor &rng) {
  Tensor out = rng;
  out.getMutableData()[1] += 1;
  return out;
}

FailureOr<Tensor> kernels::embedding(const Tensor &table, const Tensor &indices,
                                     std::string &error) {
  int64_t rows = table.getShape()[0], width = table.getShape()[1];
  SmallVector<int64_t> shape(indices.getShape());
  shape.push_back(width);
  std::vector<double> data;
  data.reserve(indices.getNumElements() * width);
  for (int64_t i = 0, e = indices.getNumElements(); i < e; ++i) {
    std::optional<int64_t> id = tableRow(indices, i, rows, error);
    if (!id)
      return failure();
    ArrayRef<double> row = table.getData().slice(*id * width, width);
    data.insert(data.end(), row.begin(), row.end());
  }
  return Tensor(table.getKind(), shape, std::move(data));
}

/// The number of `labels` that are not `ignored`.
int64_t countCounted(const Tensor &labels, std::optional<int64_t> ignored) {
  int64_t rows = labels.getNumElements();
  if (!ignored)
    return rows;
  int64_t counted = 0;
  for (int64_t row = 0; row < rows; ++row)
    counted += labels[row] != static_cast<double>(*ignored);
  return counted;
}

FailureOr<Tensor> kernels::crossEntropy(const Tensor &logits,
                                        const Tensor &labels, bool mean,
                                        std::optional<int64_t> ignored,
                                        ElementKind outKind,
                                        std::string &error) {
  int64_t classes = logits.getShape().back();
  int64_t rows = labels.getNumElements();
  int64_t counted = countCounted(labels, ignored);
  double total = 0;
  bool failed = false;
  withComputeType(logits.getKind(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> rowLosses(rows, T(0));
    for (int64_t row = 0; row < rows; ++row) {
      if (!checkLabel(labels, row, classes, ignored, error)) {
        failed = true;
        return;
      }
      const double *x = logits.getData().data() + row * classes;
      rowLosses[row] = amprt::crossEntropyRowLoss<T>(
          amprt::HostRow(), classes,
          [&](int64_t c) { return static_cast<T>(x[c]); },
          static_cast<int64_t>(labels[row]), ignored.has_value(),
          ignored.value_or(0));
    }
    T sum = amprt::foldReduction(
        rows, T(0), [&](int64_t row) { return rowLosses[row]; },
        [](T acc, T value) { return acc + value; });
    total = mean ? sum / static_cast<T>(std::max<int64_t>(counted, 1)) : sum;
  });
  if (failed)
    return failure();
  return Tensor(outKind, {}, {roundToKind(total, outKind)});
}

Tensor kernels::mseLoss(const Tensor &input, const Tensor &target, bool mean,
                        ElementKind outKind) {
  double total = 0;
  withComputeType(input.getKind(), [&](auto tag) {
    using T = decltype(tag);
    T sum = amprt::foldReduction(
        input.getNumElements(), T(0),
        [&](int64_t i) {
          T diff = static_cast<T>(input[i]) - static_cast<T>(target[i]);
          return diff * diff;
        },
        [](T acc, T value) { return acc + value; });
    total = mean ? sum / static_cast<T>(input.getNumElements()) : sum;
  });
  return Tensor(outKind, {}, {roundToKind(total, outKind)});
}

//===----------------------------------------------------------------------===//
// Gradients
//===----------------------------------------------------------------------===//

Tensor kernels::reluGrad(const Tensor &x, const Tensor &grad) {
  Tensor out(x.getKind(), x.getShape());
  MutableArrayRef<double> result = out.getMutableData();
  for (int64_t i = 0, e = x.getNumElements(); i < e; ++i)
    result[i] = x[i] > 0 ? grad[i] : 0.0;
  return out;
}

Tensor kernels::geluGrad(const Tensor &x, const Tensor &grad, bool tanhForm) {
  Tensor out(x.getKind(), x.getShape());
  MutableArrayRef<double> result = out.getMutableData();
  withComputeType(x.getKind(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0, e = x.getNumElements(); i < e; ++i) {
      T v = static_cast<T>(x[i]);
      T derivative = tanhForm ? amprt::geluTanhGrad(v) : amprt::geluErfGrad(v);
      result[i] =
          roundToKind(static_cast<T>(grad[i]) * derivative, x.getKind());
    }
  });
  return out;
}

Tensor kernels::softmaxGrad(const Tensor &y, const Tensor &grad, int64_t dim,
                            bool log) {
  return mapLines(y, dim, [&](auto tag, int64_t n, auto at, auto store) {
    using T = decltype(tag);
    amprt::softmaxGradRow<T>(
        amprt::HostRow(), n,
        [&](int64_t j) { return static_cast<T>(y[at(j)]); },
        [&](int64_t j) { return static_cast<T>(grad[at(j)]); }, store, log);
  });
}

/// Shared by the two norm gradients, whose rows differ in `centered`.
static Tensor normGrad(const Tensor &x, const Tensor &grad, int64_t axis,
                       double epsilon, bool centered) {
  int64_t n = product(x.getShape().drop_front(axis));
  int64_t rows = n ? x.getNumElements() / n : 0;
  Tensor out(x.getKind(), x.getShape());
  MutableArrayRef<double> result = out.getMutableData();
  withComputeType(x.getKind(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t row = 0; row < rows; ++row) {
      const double *src = &x.getData()[row * n];
      const double *g = &grad.getData()[row * n];
      amprt::normGradRow<T>(
          amprt::HostRow(), n,
          [&](int64_t j) { return static_cast<T>(src[j]); },
          [&](int64_t j) { return static_cast<T>(g[j]); },
          static_cast<T>(epsilon), centered,
          [&](int64_t j, T dx) {
            result[row * n + j] = roundToKind(dx, x.getKind());
          });
    }
  });
  return out;
}

Tensor kernels::layerNormGrad(const Tensor &x, const Tensor &grad, int64_t axis,
                              double epsilon) {
  return normGrad(x, grad, axis, epsilon, /*centered=*/true);
}

Tensor kernels::rmsNormGrad(const Tensor &x, const Tensor &grad, int64_t axis,
                            double epsilon) {
  return normGrad(x, grad, axis, epsilon, /*centered=*/false);
}

FailureOr<Tensor> kernels::crossEntropyGrad(const Tensor &logits,
                                            const Tensor &labels,
                                            const Tensor &lossGrad, bool mean,
                                            std::optional<int64_t> ignored,
                                            std::string &error) {
  int64_t classes = logits.getShape().back();
  int64_t rows = labels.getNumElements();
  Tensor out(logits.getKind(), logits.getShape());
  MutableArrayRef<double> result = out.getMutableData();
  bool failed = false;
  withComputeType(logits.getKind(), [&](auto tag) {
    using T = decltype(tag);
    T scale = amprt::crossEntropyGradScale(
        static_cast<T>(lossGrad[0]), mean,
        std::max<int64_t>(countCounted(labels, ignored), 1));
    for (int64_t row = 0; row < rows; ++row) {
      if (!checkLabel(labels, row, classes, ignored, error)) {
        failed = true;
        return;
      }
      const double *x = logits.getData().data() + row * classes;
      amprt::crossEntropyGradRow<T>(
          amprt::HostRow(), classes,
          [&](int64_t c) { return static_cast<T>(x[c]); },
          static_cast<int64_t>(labels[row]), ignored.has_value(),
          ignored.value_or(0), scale,
          [&](int64_t c, T dx) {
            result[row * classes + c] = roundToKind(dx, logits.getKind());
          });
    }
  });
  if (failed)
    return failure();
  return out;
}

FailureOr<Tensor> kernels::embeddingGrad(const Tensor &indices,
                                         const Tensor &grad, int64_t rows,
                                         ElementKind kind, std::string &error) {
  int64_t width = grad.getShape().back();
  Tensor out(kind, {rows, width});
  MutableArrayRef<double> result = out.getMutableData();
  bool failed = false;
  withComputeType(kind, [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> acc(rows * width, T(0));
    for (int64_t i = 0, e = indices.getNumElements(); i < e; ++i) {
      std::optional<int64_t> id = tableRow(indices, i, rows, error);
      if (!id) {
        failed = true;
        return;
      }
      T *row = &acc[*id * width];
      for (int64_t c = 0; c < width; ++c)
        row[c] += static_cast<T>(grad[i * width + c]);
    }
    for (size_t j = 0; j < acc.size(); ++j)
      result[j] = roundToKind(acc[j], kind);
  });
  if (failed)
    return failure();
  return out;
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//
//
// The arithmetic of torch.optim's single-tensor CPU paths: Python-side
// scalars (bias corrections, step sizes) in f64, tensor arithmetic in the
// parameter's compute type with the scalars converted to it.

SmallVector<Tensor> kernels::sgd(const Tensor &param, const Tensor &grad,
                                 const Tensor *buffer, double step,
                                 const SgdHyper &hyper) {
  Tensor newParam(param.getKind(), param.getShape());
  Tensor newBuffer(param.getKind(), param.getShape());
  withComputeType(param.getKind(), [&](auto tag) {
    using T = decltype(tag);
    const amprt::SgdScalars<T> scalars =
        amprt::sgdScalars<T>(hyper.lr, hyper.momentum, hyper.dampening,
                             hyper.weightDecay, hyper.nesterov);
    for (int64_t i = 0, e = param.getNumElements(); i < e; ++i) {
      T buf = buffer ? static_cast<T>((*buffer)[i]) : T(0);
      T p = amprt::sgdElement(scalars, static_cast<T>(param[i]),
                              static_cast<T>(grad[i]), buffer ? &buf : nullptr,
                              step == 0);
      if (buffer)
        newBuffer.getMutableData()[i] = roundToKind(buf, param.getKind());
      newParam.getMutableData()[i] = roundToKind(p, param.getKind());
    }
  });
  if (!buffer)
    return {newParam};
  return {newParam, newBuffer};
}

SmallVector<Tensor> kernels::adamw(const Tensor &param, const Tensor &grad,
                                   const Tensor &expAvg, const Tensor &expAvgSq,
                                   double step, const AdamwHyper &hyper) {
  ElementKind kind = param.getKind();
  Tensor newParam(kind, param.getShape()), newM(kind, param.getShape()),
      newV(kind, param.getShape());
  withComputeType(kind, [&](auto tag) {
    using T = decltype(tag);
    const amprt::AdamwScalars<T> scalars =
        amprt::adamwScalars<T>(hyper.lr, hyper.beta1, hyper.beta2, hyper.eps,
                               hyper.weightDecay, step, hyper.coupledDecay);
    for (int64_t i = 0, e = param.getNumElements(); i < e; ++i) {
      T p = static_cast<T>(param[i]);
      T m = static_cast<T>(expAvg[i]);
      T v = static_cast<T>(expAvgSq[i]);
      amprt::adamwElement(scalars, p, static_cast<T>(grad[i]), m, v);
      newParam.getMutableData()[i] = roundToKind(p, kind);
      newM.getMutableData()[i] = roundToKind(m, kind);
      newV.getMutableData()[i] = roundToKind(v, kind);
    }
  });
  return {newParam, newM, newV};
}

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

SmallVector<Tensor> kernels::unscale(const Tensor &invScale,
                                     ArrayRef<Tensor> grads) {
  SmallVector<Tensor> out;
  bool found = false;
  const float inv = static_cast<float>(invScale[0]);
  for (const Tensor &grad : grads) {
    Tensor result(grad.getKind(), grad.getShape());
    MutableArrayRef<double> data = result.getMutableData();
    for (int64_t i = 0, e = grad.getNumElements(); i < e; ++i) {
      float value = static_cast<float>(grad[i]);
      found |= !std::isfinite(value);
      data[i] = static_cast<double>(value * inv);
    }
    out.push_back(std::move(result));
  }
  out.push_back(Tensor(ElementKind::F32, {}, {found ? 1.0 : 0.0}));
  return out;
}

Tensor kernels::sumSquares(ArrayRef<Tensor> inputs) {
  float total = 0.0f;
  for (const Tensor &input : inputs)
    total += amprt::sumOfSquares(input.getNumElements(), [&](int64_t i) {
      return static_cast<float>(input[i]);
    });
  return Tensor(ElementKind::F32, {}, {static_cast<double>(total)});
}

SmallVector<Tensor> kernels::scalerUpdate(double scale, double growthTracker,
                                          double hysteresisTracker,
                                          bool foundInf,
                                          const ScalerHyper &hyper) {
  // As AmpKernels' _amp_update_scale_: float state, products with the
  // double factors rounded back to float.
  float s = static_cast<float>(scale);
  float growth = static_cast<float>(growthTracker);
  float hysteresis = static_cast<float>(hysteresisTracker);
  if (foundInf) {
    growth = 0;
    hysteresis -= 1;
    if (hysteresis <= 0)
      s = static_cast<float>(s * hyper.backoffFactor);
  } else {
    float successful = growth + 1;
    if (successful == static_cast<float>(hyper.growthInterval)) {
      float grown = static_cast<float>(s * hyper.growthFactor);
      if (std::isfinite(grown))
        s = grown;
      growth = 0;
      hysteresis = static_cast<float>(hyper.hysteresis);
    } else {
      growth = successful;
    }
  }
  if (hyper.minScale)
    s = std::max(s, static_cast<float>(*hyper.minScale));
  if (hyper.maxScale)
    s = std::min(s, static_cast<float>(*hyper.maxScale));
  auto scalar = [](float v) { return Tensor(ElementKind::F32, {}, {v}); };
  return {scalar(s), scalar(growth), scalar(hysteresis)};
}
