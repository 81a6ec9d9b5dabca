/*===- id_buckets.h - positions bucketed by id, stable -------------*- C -*-===*
 *
 * An embedding's gradient sums, for each row of its table, the gradients of
 * the positions whose id is that row, in position order (as the
 * interpreter sums them). amp_id_buckets buckets the positions: end[v] is
 * where row v's bucket ends in `positions` (it begins where row v - 1's
 * ends, row 0's at 0), and `positions` lists, bucket after bucket, the
 * positions of the ids, ascending within each bucket. Ids outside [0, rows)
 * fall in no bucket (a step's index checks refuse them before it runs).
 *
 * The buckets of a stable sort are unique, so the backends may sort as
 * suits them: the host counts (a counting sort, in O(ids + rows)); CUDA
 * sorts the ids' keys with CUB's radix sort, which is stable, in the
 * caller's workspace of amp_id_buckets_workspace() bytes and the stream's
 * (amp_stream_workspace) for CUB's own.
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_ID_BUCKETS_H
#define AMP_RUNTIME_ID_BUCKETS_H

#include "amp_runtime/runtime.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of workspace amp_id_buckets needs for `count` ids (the keys and
 * their positions it sorts); 0 where they would overflow. */
size_t amp_id_buckets_workspace(int64_t count);

/* Buckets `count` ids (int32 where `id_bytes` is 4, int64 where 8) of a
 * table of `rows` rows (at most 2^31 - 2 of them): end is int64[rows],
 * positions int64[count]. */
amp_status_t amp_id_buckets(amp_stream_t *stream, const void *ids, int id_bytes,
                            int64_t count, int64_t rows, int64_t *end,
                            int64_t *positions, void *workspace);

#ifdef __cplusplus
} // extern "C"
#endif

#endif /* AMP_RUNTIME_ID_BUCKETS_H */
