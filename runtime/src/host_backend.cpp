//===- host_backend.cpp - loops over plain memory -------------------------===//

#include "amp_runtime/row_math.h"
#include "amp_runtime/scalar_math.h"
#include "backend.h"
#include "batch_norm_bodies.h"
#include "conv_bodies.h"
#include "fp8_bodies.h"
#include "host_kernels.h"
#include "optimizer_bodies.h"
#include "row_bodies.h"
#include "status.h"
#include "thread_pool.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

namespace {
constexpr size_t kAlignment = 256;

/// Calls fn(t, i, n, whole) for each vector of the launch, a parallelFor
/// over its tiles, each tile's threads in order: the CUDA backend's blocks
/// and threads.
template <typename Fn>
amp_status_t forEachVector(const amprt::MultiTensorLaunch &launch, Fn fn) {
  // 16 tiles (64 KB of each f32 tensor) a range at the least.
  return amprt::parallelFor(
      launch.firstTile[launch.count], 16, [&](int64_t begin, int64_t end) {
        for (int64_t tile = begin; tile < end; ++tile) {
          const amprt::Tile span = amprt::multiTensorTile(launch, tile);
          for (int64_t thread = 0; thread < amprt::kBlockThreads; ++thread)
            amprt::forMultiTensorVector(launch, span, thread, fn);
        }
      });
}

/// Calls body(launch) for each multi-tensor launch over the lists, the
/// first error stopping the rest.
template <typename Body>
amp_status_t forEachLaunch(amp_tensor_list_t a, amp_tensor_list_t b,
                           amp_tensor_list_t c, amp_tensor_list_t d,
                           amp_copy_list_t copies, Body body) {
  amp_status_t status = nullptr;
  amprt::forMultiTensorLaunches(a, b, c, d, copies,
                                [&](const amprt::MultiTensorLaunch &launch) {
                                  if (!status)
                                    status = body(launch);
                                });
  return status;
}

/// A batch norm channel gathered into f32 arrays (batch_norm_bodies.h's
/// channel interface): out holds the results, to be narrowed and
/// scattered.
struct GatheredChannel {
  const float *xs, *dys;
  float *outs;
  float x(int64_t r) const { return xs[r]; }
  float dy(int64_t r) const { return dys[r]; }
  void out(int64_t r, float value) const { outs[r] = value; }
};

/// data[offset, offset + count) (of `dtype`) = from[0, count) rounded to
/// `dtype`, as amprt::store rounds.
void narrowFromFloat(amp_dtype_t dtype, const float *from, int64_t count,
                     void *data, int64_t offset) {
  if (dtype == AMP_F32) {
    std::memcpy(static_cast<float *>(data) + offset, from,
                count * sizeof(float));
    return;
  }
  uint16_t *to = static_cast<uint16_t *>(data) + offset;
  if (dtype == AMP_F16) {
    amprt::narrowFloatToHalf(from, count, to);
    return;
  }
  for (int64_t i = 0; i < count; ++i)
    to[i] = amprt::floatToBFloat16Bits(from[i]);
}

class HostBackend final : public amprt::Backend {
public:
  amp_device_kind_t kind() const override { return AMP_DEVICE_HOST; }

  amp_status_t allocate(size_t size, void **out) override {
    // No object is larger than PTRDIFF_MAX; and rounded up to whole
    // alignment units, a size within one unit of SIZE_MAX would wrap to 0
    // (and a short block be zeroed over).
    if (size > static_cast<size_t>(PTRDIFF_MAX) - (kAlignment - 1))
      return AMP_STATUS(AMP_OUT_OF_MEMORY,
                        "cannot allocate %zu bytes of host memory", size);
    size_t rounded = (size + kAlignment - 1) / kAlignment * kAlignment;
    void *pointer =
        std::aligned_alloc(kAlignment, rounded ? rounded : kAlignment);
    if (!pointer)
      return AMP_STATUS(AMP_OUT_OF_MEMORY,
                        "cannot allocate %zu bytes of host memory", size);
    *out = pointer;
    return nullptr;
  }
  void free(void *pointer) override { std::free(pointer); }
  // Staging is plain memory here: a batch goes through it as on CUDA, so
  // that CI runs that path (events are no-ops: copies are synchronous).
  amp_status_t allocateStaging(size_t size, void **out) override {
    return allocate(size, out);
  }
  void freeStaging(void *pointer) override { free(pointer); }
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
  void destroyStream(void *stream) override {
    delete static_cast<char *>(stream);
  }
  amp_status_t synchronize(void *) override { return nullptr; }
  amp_status_t copy(void *destination, const void *source, size_t size,
                    amprt::CopyKind, void *) override {
    std::memmove(destination, source, size);
    return nullptr;
  }

  amp_status_t beginCapture(void *) override {
    return AMP_STATUS(AMP_UNAVAILABLE,
                      "graph capture needs a CUDA stream: host streams run "
                      "their work at once");
  }
  amp_status_t endCapture(void *, void **) override {
    return AMP_STATUS(AMP_UNAVAILABLE, "no capture on a host stream");
  }
  amp_status_t launchGraph(void *, void *) override {
    return AMP_STATUS(AMP_UNAVAILABLE, "no graphs on the host");
  }
  void destroyGraph(void *) override {}

  amp_status_t unscale(void *, amp_tensor_list_t grads, const float *invScale,
                       float *foundInf) override {
    const float inv = *invScale;
    std::atomic<bool> found{false};
    AMP_RETURN_IF_ERROR(forEachLaunch(
        grads, grads, grads, grads, {AMP_F32, nullptr},
        [&](const amprt::MultiTensorLaunch &l) {
          return forEachVector(l, [&](int64_t t, int64_t i, int n, bool whole) {
            if (amprt::unscaleVector(l, inv, t, i, n, whole))
              found.store(true, std::memory_order_relaxed);
          });
        }));
    if (found.load())
      *foundInf = 1.0f;
    return nullptr;
  }

  amp_status_t sumSquares(void *, amp_typed_tensor_list_t tensors,
                          float *out) override {
    std::vector<float> partials;
    std::vector<int64_t> slices(tensors.count), firsts(tensors.count);
    const amprt::SumSquaresTensors recorded{slices.data(), firsts.data()};
    int64_t count = 0;
    // The CUDA backend's blocks one after the other, each block's threads
    // one after the other.
    amprt::forSumSquaresLaunches(
        tensors, count, [&](const amprt::SumSquaresLaunch &l) {
          float parts[amprt::kBlockThreads];
          for (int64_t t = 0; t < l.count; ++t)
            amprt::recordSumSquaresTensor(l, t, recorded);
          for (int64_t b = 0; b < l.firstBlock[l.count]; ++b) {
            const int64_t t = amprt::sumSquaresTensorOf(l, b);
            const int64_t slice = b - l.firstBlock[t];
            const int64_t n =
                amprt::partsOfSlice(l.split[t], slice, amprt::kBlockThreads);
            for (int64_t j = 0; j < n; ++j)
              parts[j] =
                  amprt::sumSquaresPart(l, t, slice * amprt::kBlockThreads + j);
            partials.push_back(amprt::sumSquaresSlice(n, parts));
          }
        });
    if (count < 0)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "the tensors' sizes add up past 64 bits");
    // The last launch: each tensor's slices, then the tensors in order.
    std::vector<float> results(tensors.count);
    for (size_t t = 0; t < tensors.count; ++t)
      results[t] = amprt::sumSquaresOfTensor(recorded, partials.data(),
                                             static_cast<int64_t>(t));
    *out = amprt::addTensorResults(static_cast<int64_t>(tensors.count),
                                   results.data());
    return nullptr;
  }

  amp_status_t scalerUpdate(void *, const amp_scaler_config_t &config,
                            float *scale, float *growth, float *hysteresis,
                            const float *foundInf) override {
    amprt::scalerUpdate(config, *scale, *growth, *hysteresis, *foundInf != 0);
    return nullptr;
  }

  amp_status_t sgd(void *, const amprt::SgdSource &source,
                   amp_tensor_list_t params, amp_tensor_list_t grads,
                   amp_tensor_list_t buffers, const float *step,
                   const float *foundInf, amp_copy_list_t copies) override {
    if (foundInf && *foundInf != 0)
      return nullptr;
    const bool first = step && *step == 0;
    const amprt::SgdScalars<float> scalars = amprt::sgdScalars(source);
    return forEachLaunch(
        params, grads, source.buffered ? buffers : params, params, copies,
        [&](const amprt::MultiTensorLaunch &l) {
          return forEachVector(l, [&](int64_t t, int64_t i, int n, bool whole) {
            amprt::sgdVector(l, scalars, source.buffered, first,
                             source.at.grad_scale, t, i, n, whole);
          });
        });
  }

  amp_status_t adamw(void *, const amprt::AdamwSource &source,
                     amp_tensor_list_t params, amp_tensor_list_t grads,
                     amp_tensor_list_t expAvgs, amp_tensor_list_t expAvgSqs,
                     const float *step, const float *foundInf,
                     amp_copy_list_t copies) override {
    if (foundInf && *foundInf != 0)
      return nullptr;
    const amprt::AdamwScalars<float> scalars =
        amprt::adamwScalars(source, *step);
    return forEachLaunch(
        params, grads, expAvgs, expAvgSqs, copies,
        [&](const amprt::MultiTensorLaunch &l) {
          return forEachVector(l, [&](int64_t t, int64_t i, int n, bool whole) {
            amprt::adamwVector(l, scalars, source.at.grad_scale, t, i, n,
                               whole);
          });
        });
  }

  // A counting sort: the ids counted by row, the counts summed into each
  // bucket's end, the positions placed in order (stable).
  amp_status_t idBuckets(void *, const void *ids, int idBytes, int64_t count,
                         int64_t rows, int64_t *end, int64_t *positions,
                         void *) override {
    auto idAt = [&](int64_t n) -> int64_t {
      return idBytes == 4 ? static_cast<const int32_t *>(ids)[n]
                          : static_cast<const int64_t *>(ids)[n];
    };
    std::fill(end, end + rows, int64_t(0));
    for (int64_t n = 0; n < count; ++n)
      if (int64_t id = idAt(n); id >= 0 && id < rows)
        ++end[id];
    int64_t total = 0;
    for (int64_t v = 0; v < rows; ++v) {
      const int64_t bucket = end[v];
      end[v] = total;
      total += bucket;
    }
    for (int64_t n = 0; n < count; ++n)
      if (int64_t id = idAt(n); id >= 0 && id < rows)
        positions[end[id]++] = n;
    return nullptr;
  }

  amp_status_t countStep(void *, float *step, const float *foundInf) override {
    if (!(foundInf && *foundInf != 0))
      *step += 1;
    return nullptr;
  }

  // The row kernels run each row's body (row_bodies.h) with the host's row
  // context, the order of the CUDA backend's warps: body(r) for each row.
  template <typename Body>
  static amp_status_t forEachRow(amp_rows_t shape, Body body) {
    for (int64_t r = 0; r < shape.rows; ++r)
      body(r);
    return nullptr;
  }

  amp_status_t softmaxForward(void *, amp_rows_t shape, const void *x, void *y,
                              bool log) override {
    return forEachRow(shape, [&](int64_t r) {
      amprt::softmaxForwardRow(amprt::HostRow(), shape, r, x, y, log);
    });
  }

  amp_status_t softmaxBackward(void *, amp_rows_t shape, const void *y,
                               const void *dy, void *dx, bool log) override {
    return forEachRow(shape, [&](int64_t r) {
      amprt::softmaxBackwardRow(amprt::HostRow(), shape, r, y, dy, dx, log);
    });
  }

  amp_status_t normForward(void *, amp_rows_t shape, const void *x,
                           const float *weight, const float *bias, float eps,
                           bool centered, void *y, float *mean,
                           float *rstd) override {
    return forEachRow(shape, [&](int64_t r) {
      amprt::normForwardRow(amprt::HostRow(), shape, r, x, weight, bias, eps,
                            centered, y, mean, rstd);
    });
  }

  amp_status_t normBackward(void *, amp_rows_t shape, const void *x,
                            const void *dy, const float *weight, float eps,
                            bool centered, void *dx, float *dweight,
                            float *dbias) override {
    return forEachRow(shape, [&](int64_t r) {
      amprt::normBackwardRow(amprt::HostRow(), shape, r, x, dy, weight, eps,
                             centered, dx, dweight, dbias);
    });
  }

  amp_status_t crossEntropy(void *, amp_rows_t shape, const void *logits,
                            const int64_t *labels, float *losses, void *dlogits,
                            const float *gradLoss, bool mean) override {
    float scale = amprt::crossEntropyGradScale(gradLoss ? *gradLoss : 1.0f,
                                               mean, shape.rows);
    for (int64_t r = 0; r < shape.rows; ++r) {
      int64_t label = labels[r];
      if (!amprt::isClass(label, shape.cols))
        return AMP_STATUS(
            AMP_INVALID_ARGUMENT, "label %lld of row %lld is outside [0, %lld)",
            static_cast<long long>(label), static_cast<long long>(r),
            static_cast<long long>(shape.cols));
      amprt::crossEntropyRow(amprt::HostRow(), shape, r, logits, labels, losses,
                             dlogits, scale);
    }
    return nullptr;
  }
  amp_status_t gemm(void *, const amp_gemm_t &g, const void *a, const void *b,
                    const void *bias, void *c) override {
    return amprt::hostGemm(g, a, b, bias, c);
  }
  amp_status_t fp8Cast(void *, const amp_fp8_cast_t &cast, const void *input,
                       uint8_t *data, uint8_t *transposed,
                       float *amax) override {
    uint32_t bits = 0;
    for (int64_t r = 0; r < cast.rows; ++r)
      for (int64_t c = 0; c < cast.cols; ++c)
        bits = std::max(bits, amprt::fp8CastElement(cast, *cast.scale, input,
                                                    data, transposed, r, c));
    if (amax)
      *amax = amprt::bitsToFloat(bits);
    return nullptr;
  }
  amp_status_t fp8Amax(void *, amp_dtype_t dtype, const void *data,
                       int64_t count, float *amax) override {
    uint32_t bits = 0;
    for (int64_t i = 0; i < count; ++i)
      bits = std::max(bits, amprt::magnitudeBits(amprt::load(dtype, data, i)));
    *amax = amprt::bitsToFloat(bits);
    return nullptr;
  }
  amp_status_t fp8ScalingUpdate(void *, const amp_fp8_scaling_t &update,
                                float *scale, float *history,
                                float *overflows) override {
    for (int64_t c = 0; c < update.columns; ++c) {
      float largest = 0.0f;
      for (int64_t row = 0; row < update.rows; ++row)
        largest = amprt::fp8LargerAmax(
            largest, amprt::fp8HistoryEntry(update, c, row, history));
      for (int64_t row = 0; row < update.rows; ++row)
        history[row * update.columns + c] =
            amprt::fp8RolledEntry(update, c, row, history);
      amprt::fp8ScaleUpdate(update, c, largest, scale, overflows);
    }
    return nullptr;
  }

  amp_status_t attentionForward(void *, const amp_attention_t &a, const void *q,
                                const void *k, const void *v, void *out,
                                float *lse) override {
    return amprt::hostAttentionForward(a, q, k, v, out, lse);
  }

  amp_status_t attentionBackward(void *, const amp_attention_t &a,
                                 const void *q, const void *k, const void *v,
                                 const void *out, const void *dout,
                                 const float *lse, void *dqOut, void *dkOut,
                                 void *dvOut, float *workspace) override {
    return amprt::hostAttentionBackward(a, q, k, v, out, dout, lse, dqOut,
                                        dkOut, dvOut, workspace);
  }

  amp_status_t convStage(void *, const amprt::ConvStage &stage) override {
    // 16 rows (of 16 to 1024 elements, usually) a range at the least.
    return amprt::parallelFor(stage.rows, 16, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        amprt::runConvStage(stage, i);
    });
  }

  amp_status_t batchNormStage(void *,
                              const amprt::BatchNormStage &stage) override {
    // Each channel gathered and widened to f32 (F16C where there is one)
    // and its results narrowed and scattered back: its values are strided
    // by the channels, and the body then reads them with neither a
    // division nor a conversion each time.
    const amp_batch_norm_t &n = stage.norm;
    const int64_t count = n.batch * n.spatial;
    return amprt::parallelFor(n.channels, 1, [&](int64_t begin, int64_t end) {
      std::vector<float> x(count), dy(stage.backward ? count : 0), out(count);
      GatheredChannel channel{x.data(), dy.data(), out.data()};
      for (int64_t c = begin; c < end; ++c) {
        for (int64_t image = 0; image < n.batch; ++image) {
          int64_t offset = (image * n.channels + c) * n.spatial;
          amprt::widenToFloat(n.dtype, stage.x, offset, n.spatial,
                              x.data() + image * n.spatial);
          if (stage.backward)
            amprt::widenToFloat(n.dtype, stage.dy, offset, n.spatial,
                                dy.data() + image * n.spatial);
        }
        amprt::runBatchNormChannel(stage, c, channel);
        for (int64_t image = 0; image < n.batch; ++image)
          narrowFromFloat(n.dtype, out.data() + image * n.spatial, n.spatial,
                          stage.out, (image * n.channels + c) * n.spatial);
      }
    });
  }
};
} // namespace

amprt::Backend *amprt::createHostBackend() {
  return new (std::nothrow) HostBackend();
}
