//===- cuda_backend.cu - device memory and streams ------------------------===//

#include "amp_runtime/launch_grid.h"
#include "amp_runtime/row_math.h"
#include "amp_runtime/scalar_math.h"
#include "backend.h"
#include "batch_norm_bodies.h"
#include "conv_bodies.h"
#include "fp8_bodies.h"
#ifdef AMP_RUNTIME_HAS_CUDNN
#include "cudnn_attention.h"
#include "cudnn_batch_norm.h"
#include "cudnn_context.h"
#include "cudnn_conv.h"
#endif
#include "optimizer_bodies.h"
#include "row_bodies.h"
#include "status.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cublasLt.h>
#include <cuda/functional>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <tuple>
#include <unordered_map>

namespace {

//===----------------------------------------------------------------------===//
// Multi-tensor kernels
//===----------------------------------------------------------------------===//
//
// Their bodies and launches are optimizer_bodies.h's, which the host backend
// runs too; the grids are launch_grid.h's, which the compiler's cost report
// reads.

constexpr int kThreads = amprt::kBlockThreads;

/// Calls fn(t, i, n, whole) for each vector of the launch this thread
/// moves: a tile a block, the grid striding over the tiles.
template <typename Fn>
__device__ void forEachVector(const amprt::MultiTensorLaunch &launch, Fn fn) {
  for (int64_t tile = blockIdx.x; tile < launch.firstTile[launch.count];
       tile += gridDim.x)
    amprt::forMultiTensorVector(launch, amprt::multiTensorTile(launch, tile),
                                threadIdx.x, fn);
}

__global__ void
unscaleKernel(const __grid_constant__ amprt::MultiTensorLaunch launch,
              const float *invScale, float *foundInf) {
  const float inv = *invScale;
  bool found = false;
  forEachVector(launch, [&](int64_t t, int64_t i, int n, bool whole) {
    found |= amprt::unscaleVector(launch, inv, t, i, n, whole);
  });
  if (found)
    *foundInf = 1.0f; // racing writers all write 1
}

/// amp_sum_squares's slices (optimizer_bodies.h): a block each, the
/// grid's blocks looping over the rest.
__global__ void
sumSquaresKernel(const __grid_constant__ amprt::SumSquaresLaunch launch,
                 float *partials, amprt::SumSquaresTensors tensors) {
  __shared__ float parts[kThreads];
  if (blockIdx.x == 0)
    for (int64_t t = threadIdx.x; t < launch.count; t += blockDim.x)
      amprt::recordSumSquaresTensor(launch, t, tensors);
  for (int64_t b = blockIdx.x; b < launch.firstBlock[launch.count];
       b += gridDim.x) {
    const int64_t t = amprt::sumSquaresTensorOf(launch, b);
    const int64_t slice = b - launch.firstBlock[t];
    const int64_t n = amprt::partsOfSlice(launch.split[t], slice, kThreads);
    if (threadIdx.x < n)
      parts[threadIdx.x] =
          amprt::sumSquaresPart(launch, t, slice * kThreads + threadIdx.x);
    __syncthreads();
    if (threadIdx.x == 0)
      partials[launch.firstPartial + b] = amprt::sumSquaresSlice(n, parts);
    __syncthreads(); // `parts` is reused for the next slice
  }
}

/// One block: a thread per tensor combines its slices into `results`,
/// then thread 0 adds the tensors' results in order.
__global__ void sumSquaresFinishKernel(int64_t count, const float *partials,
                                       amprt::SumSquaresTensors tensors,
                                       float *results, float *out) {
  for (int64_t t = threadIdx.x; t < count; t += blockDim.x)
    results[t] = amprt::sumSquaresOfTensor(tensors, partials, t);
  __syncthreads(); // the block's global writes are seen by thread 0
  if (threadIdx.x == 0)
    *out = amprt::addTensorResults(count, results);
}

__global__ void scalerUpdateKernel(amp_scaler_config_t config, float *scale,
                                   float *growth, float *hysteresis,
                                   const float *foundInf) {
  amprt::scalerUpdate(config, *scale, *growth, *hysteresis, *foundInf != 0);
}

__global__ void
sgdKernel(const __grid_constant__ amprt::MultiTensorLaunch launch,
          amprt::SgdSource source, const float *step, const float *foundInf) {
  if (foundInf && *foundInf != 0)
    return;
  const bool first = step && *step == 0;
  const amprt::SgdScalars<float> scalars = amprt::sgdScalars(source);
  forEachVector(launch, [&](int64_t t, int64_t i, int n, bool whole) {
    amprt::sgdVector(launch, scalars, source.buffered, first,
                     source.at.grad_scale, t, i, n, whole);
  });
}

__global__ void
adamwKernel(const __grid_constant__ amprt::MultiTensorLaunch launch,
            amprt::AdamwSource source, const float *step,
            const float *foundInf) {
  if (foundInf && *foundInf != 0)
    return;
  const amprt::AdamwScalars<float> scalars = amprt::adamwScalars(source, *step);
  forEachVector(launch, [&](int64_t t, int64_t i, int n, bool whole) {
    amprt::adamwVector(launch, scalars, source.at.grad_scale, t, i, n, whole);
  });
}

/// Counts an applied update, after every chunk of it ran.
__global__ void stepKernel(float *step, const float *foundInf) {
  if (!(foundInf && *foundInf != 0))
    *step += 1;
}

//===----------------------------------------------------------------------===//
// FP8 GEMMs' operands (fp8_bodies.h, which the host backend runs too)
//===----------------------------------------------------------------------===//

/// Each operand's amax, as the bits of a magnitude, into bits[0] (A) and
/// bits[1] (B), zeroed before: grid-stride, a warp's maximum, one atomic
/// maximum a warp (the bits order as the magnitudes do, NaN above all).
__global__ void fp8AmaxKernel(const amp_gemm_t g, const void *a, const void *b,
                              uint32_t *bits) {
  const int64_t aCount = g.batch * g.m * g.k, bCount = g.batch * g.n * g.k;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  const int64_t first = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  uint32_t aMax = 0, bMax = 0;
  for (int64_t i = first; i < aCount; i += stride)
    aMax = max(aMax, amprt::magnitudeBits(amprt::load(g.ab_dtype, a, i)));
  for (int64_t i = first; i < bCount; i += stride)
    bMax = max(bMax, amprt::magnitudeBits(amprt::load(g.ab_dtype, b, i)));
  aMax = __reduce_max_sync(0xffffffffu, aMax);
  bMax = __reduce_max_sync(0xffffffffu, bMax);
  if ((threadIdx.x & 31u) == 0) {
    atomicMax(&bits[0], aMax);
    atomicMax(&bits[1], bMax);
  }
}

/// The scales from the amax bits, at the scratch's head.
__global__ void fp8ScalesKernel(const amp_gemm_t g) {
  amp_fp8_scales_t *scales = amprt::fp8ScratchOf(g).scales;
  const uint32_t *bits = reinterpret_cast<const uint32_t *>(scales);
  const uint32_t aBits = bits[0], bBits = bits[1];
  amprt::fp8Scales(g, aBits, bBits, scales);
}

/// Delayed scaling: the scales given, at the scratch's head.
__global__ void fp8GivenScalesKernel(const amp_gemm_t g) {
  amprt::fp8GivenScales(g, amprt::fp8ScratchOf(g).scales);
}

/// amp_fp8_amax: the magnitudes' bits into *bits, zeroed before, as
/// fp8AmaxKernel.
__global__ void fp8TensorAmaxKernel(amp_dtype_t dtype, const void *data,
                                    int64_t count, uint32_t *bits) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  uint32_t most = 0;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += stride)
    most = max(most, amprt::magnitudeBits(amprt::load(dtype, data, i)));
  most = __reduce_max_sync(0xffffffffu, most);
  if ((threadIdx.x & 31u) == 0)
    atomicMax(bits, most);
}

/// amp_fp8_cast: a block a kFp8Tile x kFp8Tile tile, its threads walking
/// the tile along the columns (coalesced reads and data writes); the
/// transposed bytes pass through shared memory so that their writes are
/// coalesced too. The amax as fp8AmaxKernel's (zeroed before).
__global__ void fp8CastBothKernel(const amp_fp8_cast_t cast, const void *input,
                                  uint8_t *data, uint8_t *transposed,
                                  uint32_t *amaxBits) {
  constexpr int kTile = static_cast<int>(amprt::kFp8Tile);
  __shared__ uint8_t tile[kTile][kTile + 1];
  const float scale = *cast.scale;
  const int64_t rowBase = int64_t(blockIdx.y) * kTile,
                colBase = int64_t(blockIdx.x) * kTile;
  uint32_t most = 0;
  for (int i = threadIdx.y; i < kTile; i += blockDim.y) {
    const int64_t r = rowBase + i, c = colBase + threadIdx.x;
    if (r < cast.rows && c < cast.cols) {
      most = max(
          most, amprt::fp8CastElement(cast, scale, input, data, nullptr, r, c));
      if (transposed)
        tile[threadIdx.x][i] = amprt::quantizeFp8(
            amprt::load(cast.dtype, input, r * cast.cols + c), scale,
            amprt::fp8FormatOf(cast.format));
    }
  }
  if (transposed) {
    __syncthreads();
    for (int i = threadIdx.y; i < kTile; i += blockDim.y) {
      const int64_t c = colBase + i, r = rowBase + threadIdx.x;
      if (r < cast.rows && c < cast.cols)
        transposed[c * cast.rows + r] = tile[i][threadIdx.x];
    }
  }
  if (amaxBits) {
    most = __reduce_max_sync(0xffffffffu, most);
    if ((threadIdx.x & 31u) == 0)
      atomicMax(amaxBits, most);
  }
}

/// amp_fp8_scaling_update (fp8_bodies.h's steps): a block a column, a
/// thread a row of each stride of kThreads rows.
__global__ void __launch_bounds__(kThreads)
    fp8ScalingUpdateKernel(const __grid_constant__ amp_fp8_scaling_t update,
                           float *scale, float *history, float *overflows) {
  const int64_t c = blockIdx.x;
  float largest = 0.0f;
  for (int64_t row = threadIdx.x; row < update.rows; row += blockDim.x)
    largest = amprt::fp8LargerAmax(
        largest, amprt::fp8HistoryEntry(update, c, row, history));
  __shared__ float partial[kThreads];
  partial[threadIdx.x] = largest;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      partial[threadIdx.x] = amprt::fp8LargerAmax(partial[threadIdx.x],
                                                  partial[threadIdx.x + half]);
    __syncthreads();
  }
  // The roll, a stride of rows at a time: every row of the stride (and the
  // first of the next, which the last thread reads) read before any row of
  // it is written.
  for (int64_t first = 0; first < update.rows; first += blockDim.x) {
    const int64_t row = first + threadIdx.x;
    const float next = row < update.rows
                           ? amprt::fp8RolledEntry(update, c, row, history)
                           : 0.0f;
    __syncthreads();
    if (row < update.rows)
      history[row * update.columns + c] = next;
    __syncthreads();
  }
  if (threadIdx.x == 0)
    amprt::fp8ScaleUpdate(update, c, partial[0], scale, overflows);
}

/// An operand's K-major FP8 copy where it is stored K-major too: a thread
/// an element, grid-stride, both reads and writes coalesced.
__global__ void fp8CastKernel(const amprt::Fp8Operand operand,
                              const float *scale) {
  const float s = *scale;
  const int64_t count = operand.batch * operand.rows * operand.k;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x)
    amprt::fp8Cast(operand, s, i / (operand.rows * operand.k),
                   i / operand.k % operand.rows, i % operand.k);
}

/// An operand's K-major FP8 copy where it is stored rows-major: a block a
/// tile of kFp8Tile x kFp8Tile, its threads walking the tile along the
/// rows (the source's contiguous dimension) and then along k (the copy's),
/// the FP8 bytes passing through shared memory. Each byte is fp8Cast's, as
/// on the host.
__global__ void fp8CastTransposedKernel(const amprt::Fp8Operand operand,
                                        const float *scale) {
  constexpr int kTile = static_cast<int>(amprt::kFp8Tile);
  __shared__ uint8_t tile[kTile][kTile + 4];
  const float s = *scale;
  const int64_t r0 = blockIdx.x * int64_t(kTile),
                p0 = blockIdx.y * int64_t(kTile);
  const amprt::Fp8Format format = amprt::fp8FormatOf(operand.format);
  for (int64_t batch = blockIdx.z; batch < operand.batch; batch += gridDim.z) {
    const int64_t matrix = batch * operand.rows * operand.k;
    // Read along the rows: the source is [k][rows].
    for (int y = threadIdx.y; y < kTile; y += blockDim.y) {
      const int64_t r = r0 + threadIdx.x, p = p0 + y;
      if (r < operand.rows && p < operand.k)
        tile[y][threadIdx.x] =
            amprt::quantizeFp8(amprt::load(operand.dtype, operand.from,
                                           matrix + p * operand.rows + r),
                               s, format);
    }
    __syncthreads();
    // Write along k: the copy is [rows][k].
    for (int y = threadIdx.y; y < kTile; y += blockDim.y) {
      const int64_t r = r0 + y, p = p0 + threadIdx.x;
      if (r < operand.rows && p < operand.k)
        operand.to[matrix + r * operand.k + p] = tile[threadIdx.x][y];
    }
    __syncthreads();
  }
}

/// An f32 output's f32 bias and activation after an FP8 GEMM (cuBLASLt's
/// FP8 kernels add only a bf16 bias to an f32 output): the epilogue's
/// arithmetic, in f32 as the epilogue's, so the same values.
__global__ void fp8BiasKernel(const amp_gemm_t g, const float *bias, float *c) {
  const int64_t count = g.batch * g.m * g.n;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    float value = c[i] + bias[i % g.n];
    if (g.epilogue == AMP_EPILOGUE_BIAS_RELU)
      value = value > 0 ? value : (value != value ? value : 0.0f);
    else if (g.epilogue == AMP_EPILOGUE_BIAS_GELU)
      value = amprt::geluTanh(value);
    c[i] = value;
  }
}

/// Blocks of kThreads for a grid-stride loop over `count` elements:
/// launch_grid.h's elementGrid, which the cost report reads.
unsigned gridStrideBlocks(int64_t count) {
  return static_cast<unsigned>(
      std::max<int64_t>(1, amprt::elementGrid(count).blocks));
}

//===----------------------------------------------------------------------===//
// Ids bucketed by row (id_buckets.h)
//===----------------------------------------------------------------------===//

/// Each id's sort key (the id, or `rows` for one out of range, which sorts
/// after every bucket) and its position, grid-stride.
__global__ void idKeysKernel(const void *ids, int idBytes, int64_t count,
                             int64_t rows, uint32_t *keys, int64_t *order) {
  for (int64_t n = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; n < count;
       n += int64_t(gridDim.x) * blockDim.x) {
    const int64_t id = idBytes == 4 ? static_cast<const int32_t *>(ids)[n]
                                    : static_cast<const int64_t *>(ids)[n];
    keys[n] = static_cast<uint32_t>(id >= 0 && id < rows ? id : rows);
    order[n] = n;
  }
}

/// end[v] = one past the last position of bucket v, for each bucket that
/// has positions (the others stay 0 for the scan to fill).
__global__ void bucketEndsKernel(const uint32_t *sorted, int64_t count,
                                 int64_t rows, int64_t *end) {
  for (int64_t n = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; n < count;
       n += int64_t(gridDim.x) * blockDim.x) {
    const uint32_t key = sorted[n];
    if (key < rows && (n + 1 == count || sorted[n + 1] != key))
      end[key] = n + 1;
  }
}

amp_status_t check(cudaError_t error, const char *what, const char *file,
                   int line) {
  if (error == cudaSuccess)
    return nullptr;
  return amprt::makeStatus(
      error == cudaErrorMemoryAllocation ? AMP_OUT_OF_MEMORY : AMP_DEVICE_ERROR,
      file, line, "%s failed: %s (%s)", what, cudaGetErrorString(error),
      cudaGetErrorName(error));
}
#define AMP_CUDA(call) check((call), #call, __FILE__, __LINE__)

amp_status_t checkLt(cublasStatus_t status, const char *what, const char *file,
                     int line) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return nullptr;
  return amprt::makeStatus(status == CUBLAS_STATUS_ALLOC_FAILED
                               ? AMP_OUT_OF_MEMORY
                               : AMP_DEVICE_ERROR,
                           file, line, "%s failed: cuBLAS status %d", what,
                           static_cast<int>(status));
}
#define AMP_LT(call) checkLt((call), #call, __FILE__, __LINE__)

cudaDataType_t cudaTypeOf(amp_dtype_t dtype) {
  switch (dtype) {
  case AMP_F16:
    return CUDA_R_16F;
  case AMP_BF16:
    return CUDA_R_16BF;
  default:
    return CUDA_R_32F;
  }
}

cudaDataType_t cudaTypeOf(amp_fp8_t format) {
  return format == AMP_FP8_E5M2 ? CUDA_R_8F_E5M2 : CUDA_R_8F_E4M3;
}

/// The cuBLASLt descriptors of one call, destroyed with it.
struct LtCall {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t layouts[3] = {};
  cublasLtMatmulPreference_t preference = nullptr;
  ~LtCall() {
    if (preference)
      cublasLtMatmulPreferenceDestroy(preference);
    for (cublasLtMatrixLayout_t layout : layouts)
      if (layout)
        cublasLtMatrixLayoutDestroy(layout);
    if (desc)
      cublasLtMatmulDescDestroy(desc);
  }
};

/// What a GEMM's descriptors and algorithm depend on (CudaBackend::gemm).
using GemmKey =
    std::tuple<amp_dtype_t, amp_dtype_t, int, int, int64_t, int64_t, int64_t,
               int64_t, amp_epilogue_t, const void *, uint32_t, uint32_t,
               uint32_t, bool, amp_fp8_t, amp_fp8_t, const void *>;

/// A GEMM's descriptors and the algorithm the heuristic chose for them.
struct GemmPlan {
  LtCall call;
  cublasLtMatmulAlgo_t algo{};
};

/// The largest power of two (up to 256) dividing an address: the heuristic
/// may otherwise pick kernels that assume 256-byte alignment.
uint32_t alignmentOf(const void *pointer) {
  uint32_t alignment = 256;
  while (alignment > 1 && reinterpret_cast<uintptr_t>(pointer) % alignment)
    alignment /= 2;
  return alignment;
}

/// A column-major [rows, cols] layout, packed, repeated `batch` times.
amp_status_t makeLayout(cublasLtMatrixLayout_t *layout, cudaDataType_t type,
                        int64_t rows, int64_t cols, int64_t batch) {
  AMP_RETURN_IF_ERROR(AMP_LT(
      cublasLtMatrixLayoutCreate(layout, type, static_cast<uint64_t>(rows),
                                 static_cast<uint64_t>(cols), rows)));
  int32_t count = static_cast<int32_t>(batch);
  int64_t stride = rows * cols;
  AMP_RETURN_IF_ERROR(AMP_LT(cublasLtMatrixLayoutSetAttribute(
      *layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count))));
  return AMP_LT(cublasLtMatrixLayoutSetAttribute(
      *layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
      sizeof(stride)));
}

//===----------------------------------------------------------------------===//
// Row kernels
//===----------------------------------------------------------------------===//
//
// One warp per row: each lane strides over the columns and the warp reduces
// with butterfly shuffles, so every lane ends with the row's total.

constexpr int kWarp = amprt::kRowLanes;
constexpr int kRowsPerBlock = amprt::kRowsPerBlock;

/// Attention's sum across a warp (the row kernels sum through WarpRow).
__device__ float warpSum(float value) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2)
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

/// The row of this warp, or -1 past the end (the whole warp leaves together,
/// so the shuffles see all 32 lanes).
__device__ int64_t warpRow(int64_t rows) {
  int64_t row =
      static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kWarp;
  return row < rows ? row : -1;
}

/// This thread as a lane of its warp's row (row_context.h): the row
/// kernels run the bodies of row_bodies.h, which the host backend runs with
/// HostRow, so both sum in the same order.
__device__ amprt::WarpRow laneOfRow() {
  return amprt::WarpRow{threadIdx.x % kWarp};
}

__global__ void softmaxForwardKernel(amp_rows_t shape, const void *x, void *y,
                                     bool log) {
  int64_t row = warpRow(shape.rows);
  if (row >= 0)
    amprt::softmaxForwardRow(laneOfRow(), shape, row, x, y, log);
}

__global__ void softmaxBackwardKernel(amp_rows_t shape, const void *y,
                                      const void *dy, void *dx, bool log) {
  int64_t row = warpRow(shape.rows);
  if (row >= 0)
    amprt::softmaxBackwardRow(laneOfRow(), shape, row, y, dy, dx, log);
}

__global__ void normForwardKernel(amp_rows_t shape, const void *x,
                                  const float *weight, const float *bias,
                                  float eps, bool centered, void *y,
                                  float *mean, float *rstd) {
  int64_t row = warpRow(shape.rows);
  if (row >= 0)
    amprt::normForwardRow(laneOfRow(), shape, row, x, weight, bias, eps,
                          centered, y, mean, rstd);
}

// dweight and dbias gather over the rows with atomics: their order, and so
// their last bits, vary from run to run.
__global__ void normBackwardKernel(amp_rows_t shape, const void *x,
                                   const void *dy, const float *weight,
                                   float eps, bool centered, void *dx,
                                   float *dweight, float *dbias) {
  int64_t row = warpRow(shape.rows);
  if (row >= 0)
    amprt::normBackwardRow(laneOfRow(), shape, row, x, dy, weight, eps,
                           centered, dx, dweight, dbias);
}

__global__ void crossEntropyKernel(amp_rows_t shape, const void *logits,
                                   const int64_t *labels, float *losses,
                                   void *dlogits, const float *gradLoss,
                                   bool mean) {
  int64_t row = warpRow(shape.rows);
  if (row < 0)
    return;
  float scale = amprt::crossEntropyGradScale(gradLoss ? *gradLoss : 1.0f, mean,
                                             shape.rows);
  amprt::crossEntropyRow(laneOfRow(), shape, row, logits, labels, losses,
                         dlogits, scale);
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//
//
// One warp per query row; lane l holds components l, l + 32, ... of the
// row. Keys are visited in order with an online softmax in f32 (the running
// maximum rescales the running sum and output), so no score matrix exists.
// The backward pass recomputes each probability from the saved lse and
// gathers dK and dV over the query rows with atomics. Rows are found
// through each tensor's layout (attentionOffset).

constexpr int kPerLane = AMP_ATTENTION_MAX_HEAD_DIM / kWarp;

__global__ void attentionForwardKernel(amp_attention_t a, const void *q,
                                       const void *k, const void *v, void *out,
                                       float *lse) {
  int64_t row = warpRow(a.batch * a.seq_q);
  if (row < 0)
    return;
  int64_t b = row / a.seq_q, i = row % a.seq_q, d = a.head_dim;
  int lane = threadIdx.x % kWarp;
  int64_t qRow = amprt::attentionOffset(a.q, a.heads, a.seq_q, d, b, i);
  amprt::AttentionRows kRows =
      amprt::attentionRows(a.k, a.heads, a.seq_k, d, b);
  amprt::AttentionRows vRows =
      amprt::attentionRows(a.v, a.heads, a.seq_k, d, b);
  float qv[kPerLane], acc[kPerLane];
#pragma unroll
  for (int t = 0; t < kPerLane; ++t) {
    int64_t c = lane + t * kWarp;
    qv[t] = c < d ? amprt::load(a.dtype, q, qRow + c) : 0.0f;
    acc[t] = 0;
  }
  float runningMax = -INFINITY, runningSum = 0;
  int64_t keys = a.causal ? i + 1 : a.seq_k;
  for (int64_t j = 0; j < keys; ++j) {
    int64_t kRow = kRows.at(j), vRow = vRows.at(j);
    float partial = 0;
#pragma unroll
    for (int t = 0; t < kPerLane; ++t) {
      int64_t c = lane + t * kWarp;
      if (c < d)
        partial += qv[t] * amprt::load(a.dtype, k, kRow + c);
    }
    float score = a.scale * warpSum(partial);
    float newMax = amprt::nanMax(runningMax, score);
    float correction =
        runningMax == newMax ? 1.0f : amprt::math::exp(runningMax - newMax);
    float p = amprt::math::exp(score - newMax);
    runningSum = runningSum * correction + p;
#pragma unroll
    for (int t = 0; t < kPerLane; ++t) {
      int64_t c = lane + t * kWarp;
      if (c < d)
        acc[t] = acc[t] * correction + p * amprt::load(a.dtype, v, vRow + c);
    }
    runningMax = newMax;
  }
  int64_t outRow = amprt::attentionOffset(a.out, a.heads, a.seq_q, d, b, i);
#pragma unroll
  for (int t = 0; t < kPerLane; ++t) {
    int64_t c = lane + t * kWarp;
    if (c < d)
      amprt::store(a.dtype, out, outRow + c, acc[t] / runningSum);
  }
  if (lse && lane == 0)
    lse[row] = runningMax + logf(runningSum);
}

/// dk and dv are the f32 sums, in the layouts `dkSums` and `dvSums` (dk's
/// and dv's own for f32, dense in the workspace otherwise).
__global__ void attentionBackwardKernel(
    amp_attention_t a, const void *q, const void *k, const void *v,
    const void *out, const void *dout, const float *lse, void *dq, float *dk,
    float *dv, amp_attention_layout_t dkSums, amp_attention_layout_t dvSums) {
  int64_t row = warpRow(a.batch * a.seq_q);
  if (row < 0)
    return;
  int64_t b = row / a.seq_q, i = row % a.seq_q, d = a.head_dim;
  int lane = threadIdx.x % kWarp;
  int64_t qRow = amprt::attentionOffset(a.q, a.heads, a.seq_q, d, b, i);
  int64_t doRow = amprt::attentionOffset(a.dout, a.heads, a.seq_q, d, b, i);
  int64_t outRow = amprt::attentionOffset(a.out, a.heads, a.seq_q, d, b, i);
  int64_t dqRow = amprt::attentionOffset(a.dq, a.heads, a.seq_q, d, b, i);
  amprt::AttentionRows kRows =
      amprt::attentionRows(a.k, a.heads, a.seq_k, d, b);
  amprt::AttentionRows vRows =
      amprt::attentionRows(a.v, a.heads, a.seq_k, d, b);
  amprt::AttentionRows dkRows =
      amprt::attentionRows(dkSums, a.heads, a.seq_k, d, b);
  amprt::AttentionRows dvRows =
      amprt::attentionRows(dvSums, a.heads, a.seq_k, d, b);
  float qv[kPerLane], dov[kPerLane], dqAcc[kPerLane];
  float rowDot = 0;
#pragma unroll
  for (int t = 0; t < kPerLane; ++t) {
    int64_t c = lane + t * kWarp;
    qv[t] = c < d ? amprt::load(a.dtype, q, qRow + c) : 0.0f;
    dov[t] = c < d ? amprt::load(a.dtype, dout, doRow + c) : 0.0f;
    if (c < d)
      rowDot += dov[t] * amprt::load(a.dtype, out, outRow + c);
    dqAcc[t] = 0;
  }
  rowDot = warpSum(rowDot);
  float rowLse = lse[row];
  int64_t keys = a.causal ? i + 1 : a.seq_k;
  for (int64_t j = 0; j < keys; ++j) {
    int64_t kRow = kRows.at(j), vRow = vRows.at(j);
    float score = 0, dp = 0;
#pragma unroll
    for (int t = 0; t < kPerLane; ++t) {
      int64_t c = lane + t * kWarp;
      if (c < d) {
        score += qv[t] * amprt::load(a.dtype, k, kRow + c);
        dp += dov[t] * amprt::load(a.dtype, v, vRow + c);
      }
    }
    float p = amprt::math::exp(a.scale * warpSum(score) - rowLse);
    float ds = p * (warpSum(dp) - rowDot) * a.scale;
    int64_t dkRow = dkRows.at(j), dvRow = dvRows.at(j);
#pragma unroll
    for (int t = 0; t < kPerLane; ++t) {
      int64_t c = lane + t * kWarp;
      if (c < d) {
        dqAcc[t] += ds * amprt::load(a.dtype, k, kRow + c);
        atomicAdd(&dk[dkRow + c], ds * qv[t]);
        atomicAdd(&dv[dvRow + c], p * dov[t]);
      }
    }
  }
#pragma unroll
  for (int t = 0; t < kPerLane; ++t) {
    int64_t c = lane + t * kWarp;
    if (c < d)
      amprt::store(a.dtype, dq, dqRow + c, dqAcc[t]);
  }
}

/// Stores the dense f32 sums of dK and dV (zeros where they are null)
/// through dk's and dv's layouts, rounded to the attention's dtype.
__global__ void attentionStoreKernel(amp_attention_t a, const float *dk,
                                     const float *dv, void *dkOut,
                                     void *dvOut) {
  const int64_t d = a.head_dim, count = a.batch * a.seq_k * d;
  for (int64_t index = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
       index < count; index += int64_t(gridDim.x) * blockDim.x) {
    int64_t row = index / d, c = index % d;
    int64_t b = row / a.seq_k, j = row % a.seq_k;
    amprt::store(a.dtype, dkOut,
                 amprt::attentionOffset(a.dk, a.heads, a.seq_k, d, b, j) + c,
                 dk ? dk[index] : 0.0f);
    amprt::store(a.dtype, dvOut,
                 amprt::attentionOffset(a.dv, a.heads, a.seq_k, d, b, j) + c,
                 dv ? dv[index] : 0.0f);
  }
}

/// A stage of conv.h's decomposition (conv_bodies.h), a thread per row
/// of its output, the grid striding over the rest: only where cuDNN has
/// no plan for the convolution.
__global__ void convStageKernel(const amprt::ConvStage stage) {
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
       r < stage.rows; r += int64_t(gridDim.x) * blockDim.x)
    amprt::runConvStage(stage, r);
}

/// batch_norm_bodies.h's stage, a thread per channel: only where cuDNN
/// does not run the batch norm (evaluation mode, no plan).
__global__ void batchNormStageKernel(const amprt::BatchNormStage stage) {
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
       c < stage.norm.channels; c += int64_t(gridDim.x) * blockDim.x)
    amprt::runBatchNormStage(stage, c);
}

#ifdef AMP_RUNTIME_HAS_CUDNN
/// out[i] = value for i < count: the ones and zeros cuDNN's batch norm
/// takes for a missing scale and bias.
__global__ void fillKernel(float *out, int64_t count, float value) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x)
    out[i] = value;
}
#endif

class CudaBackend final : public amprt::Backend {
public:
  explicit CudaBackend(int ordinal) : ordinal(ordinal) {
    // Read once: FP8 GEMMs need 8.9 or later (0.0 if the query fails,
    // which refuses them).
    cudaDeviceGetAttribute(&computeMajor, cudaDevAttrComputeCapabilityMajor,
                           ordinal);
    cudaDeviceGetAttribute(&computeMinor, cudaDevAttrComputeCapabilityMinor,
                           ordinal);
  }
  ~CudaBackend() override {
    cudaSetDevice(ordinal);
    gemmPlans.clear();
    for (auto &entry : workspaces)
      cudaFree(entry.second);
    if (lt)
      cublasLtDestroy(lt);
  }
  amp_device_kind_t kind() const override { return AMP_DEVICE_CUDA; }

  amp_status_t allocate(size_t size, void **out) override {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    return AMP_CUDA(cudaMalloc(out, size ? size : 1));
  }
  void free(void *pointer) override { cudaFree(pointer); }
  // cudaMemset runs on the legacy default stream, which the non-blocking
  // streams of this backend do not wait for: finish it here.
  amp_status_t zero(void *pointer, size_t size) override {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaMemset(pointer, 0, size)));
    return AMP_CUDA(cudaDeviceSynchronize());
  }
  amp_status_t createStream(void **out) override {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    cudaStream_t stream;
    AMP_RETURN_IF_ERROR(
        AMP_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)));
    // Each stream owns its workspace, so that GEMMs on different streams
    // never share one; a long reduction's partials use it between GEMMs
    // (amp_stream_workspace).
    // The reductions' counters (amp_stream_counters) follow it, zeroed
    // once: each kernel that counts on one returns it to zero.
    void *workspace = nullptr;
    if (cudaError_t error =
            cudaMalloc(&workspace, kWorkspaceSize + kCountersBytes)) {
      cudaStreamDestroy(stream);
      return AMP_CUDA(error);
    }
    if (cudaError_t error =
            cudaMemsetAsync(static_cast<char *>(workspace) + kWorkspaceSize, 0,
                            kCountersBytes, stream);
        error || (error = cudaStreamSynchronize(stream))) {
      cudaFree(workspace);
      cudaStreamDestroy(stream);
      return AMP_CUDA(error);
    }
    std::lock_guard<std::mutex> lock(mutex);
    // The cuBLASLt handle is made here, outside any graph capture.
    if (!lt) {
      if (amp_status_t status = AMP_LT(cublasLtCreate(&lt))) {
        cudaFree(workspace);
        cudaStreamDestroy(stream);
        return status;
      }
    }
#ifdef AMP_RUNTIME_HAS_CUDNN
    // cuDNN's handle too, one for its three kinds of calls; where it
    // cannot be made, they run on this backend's own kernels.
    if (!cudnnTried) {
      cudnnTried = true;
      std::shared_ptr<amprt::CudnnContext> context;
      if (amp_status_t status = amprt::CudnnContext::create(context)) {
        amp_status_free(status);
      } else {
        cudnn = std::make_unique<amprt::CudnnAttention>(context);
        cudnnConv = std::make_unique<amprt::CudnnConv>(context);
        cudnnBatchNorm = std::make_unique<amprt::CudnnBatchNorm>(context);
      }
    }
#endif
    workspaces[stream] = workspace;
    *out = stream;
    return nullptr;
  }
  void destroyStream(void *stream) override {
    cudaStreamDestroy(static_cast<cudaStream_t>(stream));
    std::lock_guard<std::mutex> lock(mutex);
    auto found = workspaces.find(stream);
    if (found != workspaces.end()) {
      cudaFree(found->second);
      workspaces.erase(found);
    }
  }
  void *workspace(void *stream, size_t *bytes) override {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = workspaces.find(stream);
    *bytes = found != workspaces.end() ? kWorkspaceSize : 0;
    return found != workspaces.end() ? found->second : nullptr;
  }
  unsigned *counters(void *stream) override {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = workspaces.find(stream);
    return found != workspaces.end()
               ? reinterpret_cast<unsigned *>(
                     static_cast<char *>(found->second) + kWorkspaceSize)
               : nullptr;
  }
  amp_status_t synchronize(void *stream) override {
    return AMP_CUDA(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
  }
  amp_status_t copy(void *destination, const void *source, size_t size,
                    amprt::CopyKind kind, void *stream) override {
    cudaMemcpyKind direction =
        kind == amprt::CopyKind::HostToDevice   ? cudaMemcpyHostToDevice
        : kind == amprt::CopyKind::DeviceToHost ? cudaMemcpyDeviceToHost
                                                : cudaMemcpyDeviceToDevice;
    return AMP_CUDA(cudaMemcpyAsync(destination, source, size, direction,
                                    static_cast<cudaStream_t>(stream)));
  }

  amp_status_t allocateStaging(size_t size, void **out) override {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    return AMP_CUDA(cudaHostAlloc(out, size ? size : 1, cudaHostAllocDefault));
  }
  void freeStaging(void *pointer) override { cudaFreeHost(pointer); }
  amp_status_t createEvent(void **out) override {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    cudaEvent_t event = nullptr;
    AMP_RETURN_IF_ERROR(
        AMP_CUDA(cudaEventCreateWithFlags(&event, cudaEventDisableTiming)));
    *out = event;
    return nullptr;
  }
  void destroyEvent(void *event) override {
    cudaEventDestroy(static_cast<cudaEvent_t>(event));
  }
  amp_status_t recordEvent(void *event, void *stream) override {
    return AMP_CUDA(
        cudaEventRecord(static_cast<cudaEvent_t>(event), cast(stream)));
  }
  amp_status_t waitEvent(void *event) override {
    return AMP_CUDA(cudaEventSynchronize(static_cast<cudaEvent_t>(event)));
  }

  amp_status_t beginCapture(void *stream) override {
    return AMP_CUDA(
        cudaStreamBeginCapture(cast(stream), cudaStreamCaptureModeThreadLocal));
  }
  amp_status_t endCapture(void *stream, void **outGraph) override {
    cudaGraph_t graph = nullptr;
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaStreamEndCapture(cast(stream), &graph)));
    cudaGraphExec_t exec = nullptr;
    cudaError_t error = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    AMP_RETURN_IF_ERROR(AMP_CUDA(error));
    *outGraph = exec;
    return nullptr;
  }
  amp_status_t launchGraph(void *graph, void *stream) override {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    return AMP_CUDA(
        cudaGraphLaunch(static_cast<cudaGraphExec_t>(graph), cast(stream)));
  }
  void destroyGraph(void *graph) override {
    cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(graph));
  }

  amp_status_t unscale(void *stream, amp_tensor_list_t grads,
                       const float *invScale, float *foundInf) override {
    return forLaunches(
        grads, grads, grads, grads, {AMP_F32, nullptr},
        [&](const amprt::MultiTensorLaunch &launch, unsigned blocks) {
          unscaleKernel<<<blocks, kThreads, 0, cast(stream)>>>(launch, invScale,
                                                               foundInf);
        });
  }

  amp_status_t sumSquares(void *stream, amp_typed_tensor_list_t tensors,
                          float *out) override {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    // For each tensor its slice count, its first partial and its result,
    // then at most kSumSquaresBlocks + count partials (sumSquaresSplit), in
    // the stream's workspace.
    size_t bytes = 0;
    void *workspace = this->workspace(stream, &bytes);
    const size_t count = tensors.count;
    if (!workspace || count * (2 * sizeof(int64_t) + 2 * sizeof(float)) +
                              amprt::kSumSquaresBlocks * sizeof(float) >
                          bytes)
      return AMP_STATUS(AMP_OUT_OF_MEMORY,
                        "amp_sum_squares over %zu tensors needs more than "
                        "the stream's workspace of %zu bytes",
                        count, bytes);
    auto *slices = static_cast<int64_t *>(workspace);
    const amprt::SumSquaresTensors recorded{slices, slices + count};
    auto *results = reinterpret_cast<float *>(slices + 2 * count);
    float *partials = results + count;
    int64_t launched = 0;
    amp_status_t status = nullptr;
    amprt::forSumSquaresLaunches(
        tensors, launched, [&](const amprt::SumSquaresLaunch &l) {
          const int64_t blocks = std::max<int64_t>(
              std::min<int64_t>(l.firstBlock[l.count], amprt::kMaxGridBlocks),
              1);
          if (!status) {
            sumSquaresKernel<<<static_cast<unsigned>(blocks), kThreads, 0,
                               cast(stream)>>>(l, partials, recorded);
            status = AMP_CUDA(cudaGetLastError());
          }
        });
    AMP_RETURN_IF_ERROR(status);
    if (launched < 0)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "the tensors' sizes add up past 64 bits");
    sumSquaresFinishKernel<<<1, kThreads, 0, cast(stream)>>>(
        static_cast<int64_t>(count), partials, recorded, results, out);
    return AMP_CUDA(cudaGetLastError());
  }

  amp_status_t fp8Cast(void *stream, const amp_fp8_cast_t &spec,
                       const void *input, uint8_t *data, uint8_t *transposed,
                       float *amax) override {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    if (amax)
      AMP_RETURN_IF_ERROR(
          AMP_CUDA(cudaMemsetAsync(amax, 0, sizeof(float), cast(stream))));
    if (spec.rows == 0 || spec.cols == 0)
      return nullptr;
    amprt::Grid3 grid = amprt::fp8TransposedGrid(spec.cols, spec.rows, 1);
    fp8CastBothKernel<<<dim3(grid.x, grid.y, grid.z),
                        dim3(amprt::kFp8Tile, kThreads / amprt::kFp8Tile), 0,
                        cast(stream)>>>(spec, input, data, transposed,
                                        reinterpret_cast<uint32_t *>(amax));
    return AMP_CUDA(cudaGetLastError());
  }

  amp_status_t fp8Amax(void *stream, amp_dtype_t dtype, const void *data,
                       int64_t count, float *amax) override {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    AMP_RETURN_IF_ERROR(
        AMP_CUDA(cudaMemsetAsync(amax, 0, sizeof(float), cast(stream))));
    if (count > 0)
      fp8TensorAmaxKernel<<<gridStrideBlocks(count), kThreads, 0,
                            cast(stream)>>>(dtype, data, count,
                                            reinterpret_cast<uint32_t *>(amax));
    return AMP_CUDA(cudaGetLastError());
  }

  amp_status_t fp8ScalingUpdate(void *stream, const amp_fp8_scaling_t &update,
                                float *scale, float *history,
                                float *overflows) override {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    fp8ScalingUpdateKernel<<<static_cast<unsigned>(update.columns), kThreads, 0,
                             cast(stream)>>>(update, scale, history, overflows);
    return AMP_CUDA(cudaGetLastError());
  }

  amp_status_t scalerUpdate(void *stream, const amp_scaler_config_t &config,
                            float *scale, float *growth, float *hysteresis,
                            const float *foundInf) override {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    scalerUpdateKernel<<<1, 1, 0, cast(stream)>>>(config, scale, growth,
                                                  hysteresis, foundInf);
    return AMP_CUDA(cudaGetLastError());
  }

  amp_status_t sgd(void *stream, const amprt::SgdSource &source,
                   amp_tensor_list_t params, amp_tensor_list_t grads,
                   amp_tensor_list_t buffers, const float *step,
                   const float *foundInf, amp_copy_list_t copies) override {
    return forLaunches(
        params, grads, source.buffered ? buffers : params, params, copies,
        [&](const amprt::MultiTensorLaunch &launch, unsigned blocks) {
          sgdKernel<<<blocks, kThreads, 0, cast(stream)>>>(launch, source, step,
                                                           foundInf);
        });
  }

  amp_status_t adamw(void *stream, const amprt::AdamwSource &source,
                     amp_tensor_list_t params, amp_tensor_list_t grads,
                     amp_tensor_list_t expAvgs, amp_tensor_list_t expAvgSqs,
                     const float *step, const float *foundInf,
                     amp_copy_list_t copies) override {
    return forLaunches(
        params, grads, expAvgs, expAvgSqs, copies,
        [&](const amprt::MultiTensorLaunch &launch, unsigned blocks) {
          adamwKernel<<<blocks, kThreads, 0, cast(stream)>>>(launch, source,
                                                             step, foundInf);
        });
  }

  // CUB's radix sort of the ids' keys with their positions (stable, so the
  // host's counting sort's buckets), then each bucket's end from the sorted
  // keys and a running maximum over the rows for the empty ones.
  amp_status_t idBuckets(void *stream, const void *ids, int idBytes,
                         int64_t count, int64_t rows, int64_t *end,
                         int64_t *positions, void *workspace) override {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    cudaStream_t s = cast(stream);
    AMP_RETURN_IF_ERROR(
        AMP_CUDA(cudaMemsetAsync(end, 0, sizeof(int64_t) * rows, s)));
    if (count == 0)
      return nullptr;
    if (count > INT_MAX || rows > INT_MAX)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "CUB sorts at most %d ids, not %lld", INT_MAX,
                        static_cast<long long>(count));
    uint32_t *keys = static_cast<uint32_t *>(workspace);
    uint32_t *sorted = keys + count;
    int64_t *order = reinterpret_cast<int64_t *>(sorted + count);
    const unsigned blocks =
        static_cast<unsigned>(amprt::elementGrid(count).blocks);
    idKeysKernel<<<blocks, kThreads, 0, s>>>(ids, idBytes, count, rows, keys,
                                             order);
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaGetLastError()));
    // The keys span 0..rows: no more bits than those.
    int bits = 1;
    while (bits < 32 && (uint64_t(1) << bits) <= uint64_t(rows))
      ++bits;
    const int n = static_cast<int>(count);
    size_t sortBytes = 0, scanBytes = 0, available = 0;
    void *temporary = this->workspace(stream, &available);
    AMP_RETURN_IF_ERROR(AMP_CUDA(cub::DeviceRadixSort::SortPairs(
        nullptr, sortBytes, keys, sorted, order, positions, n, 0, bits, s)));
    AMP_RETURN_IF_ERROR(AMP_CUDA(cub::DeviceScan::InclusiveScan(
        nullptr, scanBytes, end, end, cuda::maximum<int64_t>{},
        static_cast<int>(rows), s)));
    if (std::max(sortBytes, scanBytes) > available)
      return AMP_STATUS(AMP_OUT_OF_MEMORY,
                        "bucketing %lld ids needs %zu bytes of the stream's "
                        "workspace for CUB, which has %zu",
                        static_cast<long long>(count),
                        std::max(sortBytes, scanBytes), available);
    AMP_RETURN_IF_ERROR(AMP_CUDA(cub::DeviceRadixSort::SortPairs(
        temporary, sortBytes, keys, sorted, order, positions, n, 0, bits, s)));
    bucketEndsKernel<<<blocks, kThreads, 0, s>>>(sorted, count, rows, end);
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaGetLastError()));
    return AMP_CUDA(cub::DeviceScan::InclusiveScan(
        temporary, scanBytes, end, end, cuda::maximum<int64_t>{},
        static_cast<int>(rows), s));
  }

  amp_status_t countStep(void *stream, float *step,
                         const float *foundInf) override {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    stepKernel<<<1, 1, 0, cast(stream)>>>(step, foundInf);
    return AMP_CUDA(cudaGetLastError());
  }

  /// Launches the row kernel `kernel` (a warp per row) over `shape`'s rows
  /// on `stream`, with `args` after the shape.
  template <typename... Params, typename... Args>
  amp_status_t launchRows(void *stream, amp_rows_t shape,
                          void (*kernel)(amp_rows_t, Params...), Args... args) {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    AMP_RETURN_IF_ERROR(checkGrid(shape.rows));
    kernel<<<rowBlocks(shape), kThreads, 0, cast(stream)>>>(shape, args...);
    return AMP_CUDA(cudaGetLastError());
  }

  amp_status_t softmaxForward(void *stream, amp_rows_t shape, const void *x,
                              void *y, bool log) override {
    return launchRows(stream, shape, softmaxForwardKernel, x, y, log);
  }

  amp_status_t softmaxBackward(void *stream, amp_rows_t shape, const void *y,
                               const void *dy, void *dx, bool log) override {
    return launchRows(stream, shape, softmaxBackwardKernel, y, dy, dx, log);
  }

  amp_status_t normForward(void *stream, amp_rows_t shape, const void *x,
                           const float *weight, const float *bias, float eps,
                           bool centered, void *y, float *mean,
                           float *rstd) override {
    return launchRows(stream, shape, normForwardKernel, x, weight, bias, eps,
                      centered, y, mean, rstd);
  }

  amp_status_t normBackward(void *stream, amp_rows_t shape, const void *x,
                            const void *dy, const float *weight, float eps,
                            bool centered, void *dx, float *dweight,
                            float *dbias) override {
    return launchRows(stream, shape, normBackwardKernel, x, dy, weight, eps,
                      centered, dx, dweight, dbias);
  }

  amp_status_t crossEntropy(void *stream, amp_rows_t shape, const void *logits,
                            const int64_t *labels, float *losses, void *dlogits,
                            const float *gradLoss, bool mean) override {
    return launchRows(stream, shape, crossEntropyKernel, logits, labels, losses,
                      dlogits, gradLoss, mean);
  }

  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T, so
  // cuBLASLt's first operand is our B and its second our A; each row-major
  // matrix read column-major is its own transpose.
  amp_status_t gemm(void *stream, const amp_gemm_t &g, const void *a,
                    const void *b, const void *bias, void *c) override {
    if (g.batch > INT_MAX)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "batch %lld exceeds cuBLASLt's limit",
                        static_cast<long long>(g.batch));
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    void *workspace = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex);
      workspace = workspaces[stream];
    }
    // An FP8 GEMM: the operands' amax, scales and K-major FP8 copies
    // first (fp8_bodies.h); cuBLASLt multiplies the copies.
    const bool fp8 = g.a_fp8 != AMP_FP8_NONE;
    const amprt::Fp8Scratch scratch =
        fp8 ? amprt::fp8ScratchOf(g) : amprt::Fp8Scratch{};
    if (fp8) {
      if (computeMajor * 10 + computeMinor < 89)
        return AMP_STATUS(AMP_UNAVAILABLE,
                          "FP8 GEMMs need a GPU of compute capability 8.9 "
                          "or later (Ada, Hopper); this one is %d.%d",
                          computeMajor, computeMinor);
      if (g.a_scale) {
        fp8GivenScalesKernel<<<1, 1, 0, cast(stream)>>>(g);
      } else {
        const int64_t count = g.batch * g.k * std::max(g.m, g.n);
        AMP_RETURN_IF_ERROR(AMP_CUDA(cudaMemsetAsync(
            scratch.scales, 0, 2 * sizeof(uint32_t), cast(stream))));
        fp8AmaxKernel<<<gridStrideBlocks(count), kThreads, 0, cast(stream)>>>(
            g, a, b, reinterpret_cast<uint32_t *>(scratch.scales));
        fp8ScalesKernel<<<1, 1, 0, cast(stream)>>>(g);
      }
      for (auto [operand, scale] :
           {std::pair(amprt::fp8OperandA(g, a, scratch.a),
                      &scratch.scales->a_scale),
            std::pair(amprt::fp8OperandB(g, b, scratch.b),
                      &scratch.scales->b_scale)}) {
        if (g.fp8_operands) // the K-major copies already
          break;
        if (operand.transposed) {
          amprt::Grid3 grid =
              amprt::fp8TransposedGrid(operand.rows, operand.k, operand.batch);
          fp8CastTransposedKernel<<<dim3(grid.x, grid.y, grid.z),
                                    dim3(amprt::kFp8Tile,
                                         kThreads / amprt::kFp8Tile),
                                    0, cast(stream)>>>(operand, scale);
        } else {
          fp8CastKernel<<<gridStrideBlocks(operand.batch * operand.rows *
                                           operand.k),
                          kThreads, 0, cast(stream)>>>(operand, scale);
        }
      }
      AMP_RETURN_IF_ERROR(AMP_CUDA(cudaGetLastError()));
      if (!g.fp8_operands) {
        a = scratch.a;
        b = scratch.b;
      }
    }
    // cuBLASLt's FP8 kernels add a bias of the output's type, but to an
    // f32 output only a bf16 one: an f32 bias is added after.
    const void *fusedBias = fp8 && g.c_dtype == AMP_F32 ? nullptr : bias;
    // The descriptors and the heuristic's algorithm depend on the shape,
    // the bias and the pointers' alignments: made once per such GEMM (a
    // training step repeats the same ones), then only cublasLtMatmul.
    GemmKey key{g.ab_dtype,
                g.c_dtype,
                g.trans_a,
                g.trans_b,
                g.m,
                g.n,
                g.k,
                g.batch,
                g.epilogue,
                bias,
                alignmentOf(a),
                alignmentOf(b),
                alignmentOf(c),
                workspace != nullptr,
                g.a_fp8,
                g.b_fp8,
                g.fp8_scratch};
    // Shared, so that a plan another thread drops from the cache lives on
    // until this call has used it.
    std::shared_ptr<const GemmPlan> plan;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto found = gemmPlans.find(key);
      if (found != gemmPlans.end())
        plan = found->second;
    }
    if (!plan) {
      auto made = std::make_shared<GemmPlan>();
      AMP_RETURN_IF_ERROR(
          planGemm(g, fusedBias, a, b, c, workspace, scratch, *made));
      std::lock_guard<std::mutex> lock(mutex);
      if (gemmPlans.size() >= kMaxGemmPlans)
        gemmPlans.clear(); // pointers changed too often to be worth keeping
      plan = gemmPlans.emplace(key, std::move(made)).first->second;
    }
    uint64_t workspaceBytes = workspace ? kWorkspaceSize : 0;
    const LtCall &call = plan->call;
    AMP_RETURN_IF_ERROR(AMP_LT(cublasLtMatmul(
        lt, call.desc, &g.alpha, b, call.layouts[0], a, call.layouts[1],
        &g.beta, c, call.layouts[2], c, call.layouts[2], &plan->algo, workspace,
        workspaceBytes, cast(stream))));
    if (bias && !fusedBias) {
      fp8BiasKernel<<<gridStrideBlocks(g.batch * g.m * g.n), kThreads, 0,
                      cast(stream)>>>(g, static_cast<const float *>(bias),
                                      static_cast<float *>(c));
      return AMP_CUDA(cudaGetLastError());
    }
    return nullptr;
  }

  /// Makes the descriptors of a GEMM and asks the heuristic for its
  /// algorithm (gemm() keeps them per shape).
  /// An FP8 GEMM (`scratch` set) multiplies the K-major copies `a` and `b`
  /// ([m][k] and [n][k]: cuBLASLt's "TN" layout, the only one its FP8
  /// kernels take) with the inverse scales as their scale factors, and
  /// adds `bias` (null for an f32 output's, added after) as the output's
  /// type.
  amp_status_t planGemm(const amp_gemm_t &g, const void *bias, const void *a,
                        const void *b, const void *c, void *workspace,
                        const amprt::Fp8Scratch &scratch, GemmPlan &plan) {
    LtCall &call = plan.call;
    const bool fp8 = g.a_fp8 != AMP_FP8_NONE;
    AMP_RETURN_IF_ERROR(AMP_LT(
        cublasLtMatmulDescCreate(&call.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F)));
    cublasOperation_t first = fp8 || g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t second = !fp8 && g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    if (fp8) {
      // cuBLASLt's A is our B: its scale is B's inverse, and A's ours.
      const float *firstScale = &scratch.scales->b_inverse;
      const float *secondScale = &scratch.scales->a_inverse;
      AMP_RETURN_IF_ERROR(AMP_LT(cublasLtMatmulDescSetAttribute(
          call.desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &firstScale,
          sizeof(firstScale))));
      AMP_RETURN_IF_ERROR(AMP_LT(cublasLtMatmulDescSetAttribute(
          call.desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &secondScale,
          sizeof(secondScale))));
    }
    AMP_RETURN_IF_ERROR(AMP_LT(cublasLtMatmulDescSetAttribute(
        call.desc, CUBLASLT_MATMUL_DESC_TRANSA, &first, sizeof(first))));
    AMP_RETURN_IF_ERROR(AMP_LT(cublasLtMatmulDescSetAttribute(
        call.desc, CUBLASLT_MATMUL_DESC_TRANSB, &second, sizeof(second))));
    if (g.epilogue != AMP_EPILOGUE_NONE && bias) {
      cublasLtEpilogue_t epilogue =
          g.epilogue == AMP_EPILOGUE_BIAS        ? CUBLASLT_EPILOGUE_BIAS
          : g.epilogue == AMP_EPILOGUE_BIAS_RELU ? CUBLASLT_EPILOGUE_RELU_BIAS
                                                 : CUBLASLT_EPILOGUE_GELU_BIAS;
      AMP_RETURN_IF_ERROR(AMP_LT(cublasLtMatmulDescSetAttribute(
          call.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
          sizeof(epilogue))));
      AMP_RETURN_IF_ERROR(AMP_LT(cublasLtMatmulDescSetAttribute(
          call.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias))));
      if (fp8) {
        int32_t biasType = cudaTypeOf(g.c_dtype);
        AMP_RETURN_IF_ERROR(AMP_LT(cublasLtMatmulDescSetAttribute(
            call.desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &biasType,
            sizeof(biasType))));
      }
    }
    if (fp8) {
      AMP_RETURN_IF_ERROR(
          makeLayout(&call.layouts[0], cudaTypeOf(g.b_fp8), g.k, g.n, g.batch));
      AMP_RETURN_IF_ERROR(
          makeLayout(&call.layouts[1], cudaTypeOf(g.a_fp8), g.k, g.m, g.batch));
    } else {
      AMP_RETURN_IF_ERROR(makeLayout(&call.layouts[0], cudaTypeOf(g.ab_dtype),
                                     g.trans_b ? g.k : g.n,
                                     g.trans_b ? g.n : g.k, g.batch));
      AMP_RETURN_IF_ERROR(makeLayout(&call.layouts[1], cudaTypeOf(g.ab_dtype),
                                     g.trans_a ? g.m : g.k,
                                     g.trans_a ? g.k : g.m, g.batch));
    }
    AMP_RETURN_IF_ERROR(
        makeLayout(&call.layouts[2], cudaTypeOf(g.c_dtype), g.n, g.m, g.batch));

    // Ask for an algorithm that fits the workspace and these pointers.
    AMP_RETURN_IF_ERROR(
        AMP_LT(cublasLtMatmulPreferenceCreate(&call.preference)));
    uint64_t workspaceBytes = workspace ? kWorkspaceSize : 0;
    AMP_RETURN_IF_ERROR(AMP_LT(cublasLtMatmulPreferenceSetAttribute(
        call.preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
        &workspaceBytes, sizeof(workspaceBytes))));
    const struct {
      cublasLtMatmulPreferenceAttributes_t attribute;
      const void *pointer;
    } alignments[] = {{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, b},
                      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, a},
                      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, c},
                      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, c}};
    for (const auto &entry : alignments) {
      uint32_t alignment = alignmentOf(entry.pointer);
      AMP_RETURN_IF_ERROR(AMP_LT(cublasLtMatmulPreferenceSetAttribute(
          call.preference, entry.attribute, &alignment, sizeof(alignment))));
    }
    cublasLtMatmulHeuristicResult_t heuristic{};
    int found = 0;
    AMP_RETURN_IF_ERROR(AMP_LT(cublasLtMatmulAlgoGetHeuristic(
        lt, call.desc, call.layouts[0], call.layouts[1], call.layouts[2],
        call.layouts[2], call.preference, 1, &heuristic, &found)));
    if (found == 0)
      return AMP_STATUS(
          AMP_UNAVAILABLE,
          "cuBLASLt has no algorithm for this GEMM (m %lld, n "
          "%lld, k %lld, dtypes %d/%d, epilogue %d)",
          static_cast<long long>(g.m), static_cast<long long>(g.n),
          static_cast<long long>(g.k), static_cast<int>(g.ab_dtype),
          static_cast<int>(g.c_dtype), static_cast<int>(g.epilogue));
    plan.algo = heuristic.algo;
    return nullptr;
  }

  amp_status_t attentionForward(void *stream, const amp_attention_t &a,
                                const void *q, const void *k, const void *v,
                                void *out, float *lse) override {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
#ifdef AMP_RUNTIME_HAS_CUDNN
    if (cudnn) {
      size_t bytes = 0;
      void *scratch = workspace(stream, &bytes);
      bool ran = false;
      AMP_RETURN_IF_ERROR(
          cudnn->forward(stream, a, q, k, v, out, lse, scratch, bytes, &ran));
      if (ran)
        return nullptr;
    }
#endif
    AMP_RETURN_IF_ERROR(checkGrid(a.batch * a.seq_q));
    attentionForwardKernel<<<blocksFor(a.batch * a.seq_q), kThreads, 0,
                             cast(stream)>>>(a, q, k, v, out, lse);
    return AMP_CUDA(cudaGetLastError());
  }

  amp_status_t attentionBackward(void *stream, const amp_attention_t &a,
                                 const void *q, const void *k, const void *v,
                                 const void *out, const void *dout,
                                 const float *lse, void *dq, void *dkOut,
                                 void *dvOut, float *workspace) override {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
#ifdef AMP_RUNTIME_HAS_CUDNN
    // cuDNN's backward takes the larger of the step's f32 workspace for
    // this attention and the stream's.
    if (cudnn) {
      size_t bytes = amp_attention_backward_workspace(&a);
      void *scratch = workspace;
      size_t streamBytes = 0;
      void *streamScratch = this->workspace(stream, &streamBytes);
      if (!scratch || streamBytes > bytes) {
        scratch = streamScratch;
        bytes = streamBytes;
      }
      bool ran = false;
      AMP_RETURN_IF_ERROR(cudnn->backward(stream, a, q, k, v, out, dout, lse,
                                          dq, dkOut, dvOut, scratch, bytes,
                                          &ran));
      if (ran)
        return nullptr;
    }
#endif
    AMP_RETURN_IF_ERROR(checkGrid(a.batch * a.seq_q));
    // dK and dV gather over the queries with atomics, in f32: in place for
    // f32 (through their layouts), else densely in the workspace and then
    // rounded. Strided f32 sums are zeroed through their layouts, as a
    // memset would clear what lies between their rows.
    int64_t keyCount = a.batch * a.seq_k * a.head_dim;
    bool wide = a.dtype == AMP_F32;
    float *dk = wide ? static_cast<float *>(dkOut) : workspace;
    float *dv = wide ? static_cast<float *>(dvOut) : workspace + keyCount;
    amp_attention_layout_t dense{};
    amp_attention_layout_t dkSums = wide ? a.dk : dense;
    amp_attention_layout_t dvSums = wide ? a.dv : dense;
    unsigned keyBlocks =
        static_cast<unsigned>(amprt::elementGrid(keyCount).blocks);
    if (amprt::isDenseLayout(dkSums) && amprt::isDenseLayout(dvSums)) {
      size_t keyBytes = sizeof(float) * keyCount;
      AMP_RETURN_IF_ERROR(
          AMP_CUDA(cudaMemsetAsync(dk, 0, keyBytes, cast(stream))));
      AMP_RETURN_IF_ERROR(
          AMP_CUDA(cudaMemsetAsync(dv, 0, keyBytes, cast(stream))));
    } else {
      attentionStoreKernel<<<keyBlocks, kThreads, 0, cast(stream)>>>(
          a, nullptr, nullptr, dkOut, dvOut);
      AMP_RETURN_IF_ERROR(AMP_CUDA(cudaGetLastError()));
    }
    if (a.seq_q > 0) {
      attentionBackwardKernel<<<blocksFor(a.batch * a.seq_q), kThreads, 0,
                                cast(stream)>>>(a, q, k, v, out, dout, lse, dq,
                                                dk, dv, dkSums, dvSums);
      AMP_RETURN_IF_ERROR(AMP_CUDA(cudaGetLastError()));
    }
    if (wide)
      return nullptr;
    attentionStoreKernel<<<keyBlocks, kThreads, 0, cast(stream)>>>(
        a, dk, dv, dkOut, dvOut);
    return AMP_CUDA(cudaGetLastError());
  }

  amp_status_t convStage(void *stream, const amprt::ConvStage &stage) override {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    if (stage.rows == 0)
      return nullptr;
    convStageKernel<<<static_cast<unsigned>(
                          amprt::elementGrid(stage.rows).blocks),
                      kThreads, 0, cast(stream)>>>(stage);
    return AMP_CUDA(cudaGetLastError());
  }

  amp_status_t convLibrary(void *stream, amp_conv2d_pass_t pass,
                           const amp_conv2d_t &conv, const void *a,
                           const void *b, const void *bias, void *out,
                           void *workspace, size_t workspaceBytes,
                           bool *ran) override {
    *ran = false;
#ifdef AMP_RUNTIME_HAS_CUDNN
    // cuDNN takes the larger of the decomposition's workspace and the
    // stream's.
    if (cudnnConv) {
      AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
      size_t streamBytes = 0;
      void *streamScratch = this->workspace(stream, &streamBytes);
      if (!workspace || streamBytes > workspaceBytes) {
        workspace = streamScratch;
        workspaceBytes = streamBytes;
      }
      return cudnnConv->run(stream, pass, conv, a, b, bias, out, workspace,
                            workspaceBytes, ran);
    }
#endif
    return nullptr;
  }

  amp_status_t batchNormStage(void *stream,
                              const amprt::BatchNormStage &stage) override {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    batchNormStageKernel<<<static_cast<unsigned>(
                               amprt::elementGrid(stage.norm.channels).blocks),
                           kThreads, 0, cast(stream)>>>(stage);
    return AMP_CUDA(cudaGetLastError());
  }

  amp_status_t batchNormLibrary(void *stream,
                                const amprt::BatchNormStage &stage,
                                void *workspace, bool *ran) override {
    *ran = false;
#ifdef AMP_RUNTIME_HAS_CUDNN
    // cuDNN wants a scale and a bias: ones and zeros in the workspace
    // where the op has none. Its own scratch is the stream's workspace.
    if (cudnnBatchNorm && stage.norm.training) {
      AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
      amprt::BatchNormWorkspace layout = amprt::batchNormWorkspace(stage.norm);
      char *base = static_cast<char *>(workspace);
      const int64_t channels = stage.norm.channels;
      const unsigned blocks =
          static_cast<unsigned>(amprt::elementGrid(channels).blocks);
      fillKernel<<<blocks, kThreads, 0, cast(stream)>>>(
          reinterpret_cast<float *>(base + layout.ones), channels, 1.0f);
      fillKernel<<<blocks, kThreads, 0, cast(stream)>>>(
          reinterpret_cast<float *>(base + layout.zeros), channels, 0.0f);
      AMP_RETURN_IF_ERROR(AMP_CUDA(cudaGetLastError()));
      size_t scratchBytes = 0;
      void *scratch = this->workspace(stream, &scratchBytes);
      return cudnnBatchNorm->run(stream, stage, workspace, scratch,
                                 scratchBytes, ran);
    }
#endif
    return nullptr;
  }

private:
  /// Rows beyond what one grid of kRowsPerBlock-row blocks can cover.
  static amp_status_t checkGrid(int64_t rows) {
    if (rows > static_cast<int64_t>(INT_MAX) * kRowsPerBlock)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "%lld rows exceed one launch's grid",
                        static_cast<long long>(rows));
    return nullptr;
  }
  static unsigned blocksFor(int64_t rows) {
    return static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock);
  }
  static unsigned rowBlocks(amp_rows_t shape) { return blocksFor(shape.rows); }

  static cudaStream_t cast(void *stream) {
    return static_cast<cudaStream_t>(stream);
  }

  /// Calls launch(l, blocks) for each multi-tensor launch over the lists
  /// (amprt::forMultiTensorLaunches), with its grid's blocks.
  template <typename Launch>
  amp_status_t forLaunches(amp_tensor_list_t a, amp_tensor_list_t b,
                           amp_tensor_list_t c, amp_tensor_list_t d,
                           amp_copy_list_t copies, Launch launch) {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    amp_status_t status = nullptr;
    amprt::forMultiTensorLaunches(
        a, b, c, d, copies, [&](const amprt::MultiTensorLaunch &l) {
          if (status)
            return;
          const amprt::Grid grid = amprt::multiTensorGrid(l.firstTile[l.count]);
          launch(l, static_cast<unsigned>(grid.blocks));
          status = AMP_CUDA(cudaGetLastError());
        });
    return status;
  }

  static constexpr size_t kWorkspaceSize = 32u << 20;
  static constexpr size_t kCountersBytes =
      amprt::kReduceCounters * sizeof(unsigned);

  int ordinal;
  int computeMajor = 0, computeMinor = 0;
  std::mutex mutex;
  cublasLtHandle_t lt = nullptr;
  std::unordered_map<void *, void *> workspaces;
#ifdef AMP_RUNTIME_HAS_CUDNN
  /// cuDNN's attention and convolutions, made with the first stream;
  /// null without cuDNN.
  std::unique_ptr<amprt::CudnnAttention> cudnn;
  std::unique_ptr<amprt::CudnnConv> cudnnConv;
  std::unique_ptr<amprt::CudnnBatchNorm> cudnnBatchNorm;
  bool cudnnTried = false;
#endif
  /// The GEMMs planned so far; a step's are the same every run.
  std::map<GemmKey, std::shared_ptr<const GemmPlan>> gemmPlans;
  static constexpr size_t kMaxGemmPlans = 4096;
};

} // namespace

bool amprt::cudaAvailable() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

amp_status_t amprt::createCudaBackend(int ordinal, Backend **out) {
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess || count == 0)
    return AMP_STATUS(AMP_UNAVAILABLE, "no CUDA device: %s",
                      error != cudaSuccess ? cudaGetErrorString(error)
                                           : "no GPU found");
  if (ordinal < 0 || ordinal >= count)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "CUDA device %d requested, %d present", ordinal, count);
  *out = new (std::nothrow) CudaBackend(ordinal);
  if (!*out)
    return AMP_STATUS(AMP_OUT_OF_MEMORY, "cannot allocate the CUDA backend");
  return nullptr;
}
