//===- id_buckets.cpp - positions bucketed by id --------------------------===//

#include "amp_runtime/id_buckets.h"

#include "amp_runtime/launch_grid.h"

#include "backend.h"
#include "runtime_internal.h"
#include "status.h"

extern "C" {

size_t amp_id_buckets_workspace(int64_t count) {
  int64_t bytes = amprt::idBucketsWorkspace(count);
  return bytes > 0 ? static_cast<size_t>(bytes) : 0;
}

amp_status_t amp_id_buckets(amp_stream_t *stream, const void *ids, int id_bytes,
                            int64_t count, int64_t rows, int64_t *end,
                            int64_t *positions, void *workspace) {
  if (!stream)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "stream is null");
  if (id_bytes != 4 && id_bytes != 8)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "ids are int32 or int64 (4 or 8 bytes), not %d bytes",
                      id_bytes);
  if (count < 0 || rows < 1 || rows > amprt::kMaxIdBucketRows)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "%lld ids of a table of %lld rows: want count >= 0 and "
                      "rows in [1, %lld]",
                      static_cast<long long>(count),
                      static_cast<long long>(rows),
                      static_cast<long long>(amprt::kMaxIdBucketRows));
  if (amprt::idBucketsWorkspace(count) < 0)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the workspace of %lld ids overflows",
                      static_cast<long long>(count));
  if (!end || (count > 0 && (!ids || !positions || !workspace)))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "ids, end, positions or the workspace is null");
  return amprt::backendOf(stream)->idBuckets(amprt::handleOf(stream), ids,
                                             id_bytes, count, rows, end,
                                             positions, workspace);
}

} // extern "C"
