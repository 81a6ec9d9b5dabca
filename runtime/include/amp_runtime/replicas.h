/*===- replicas.h - the replicas of a data-parallel step ---------*- C -*-===*
 *
 * A step compiled with --data-parallel is one replica of a job: every
 * process runs the same step on its own part of the batch, and the step
 * reduces its gradients over the replicas (amp.all_reduce) before the
 * update, so that every replica applies the same one. The reductions go
 * through the replicas' hooks, which the step's stream carries:
 * amp_step_set_replicas (step.h) installs them, amp_step_set_comm
 * (comm.h) installs a communicator's. A stream without hooks is a single
 * replica, whose reductions return their inputs.
 *
 * A step compiled with amp-optimizer{zero-stage=1 replicas=N} shards its
 * optimizer state (ZeRO stage 1): each replica updates its part of every
 * parameter (amp.replica_shard: the part of amp_replica_rank) and the parts
 * are gathered (amp.all_gather) through the all_gather hook. It runs on
 * exactly N replicas.
 *
 * The runtime never loads a transport itself: MPI and NCCL stay in the
 * library that fills the hooks.
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_REPLICAS_H
#define AMP_RUNTIME_REPLICAS_H

#include "amp_runtime/optimizer_kernels.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum amp_reduce_op_e {
  AMP_REDUCE_SUM = 0, /* in rank order, in f32: the same bits everywhere */
  AMP_REDUCE_MAX = 1, /* a NaN on any replica gives NaN */
} amp_reduce_op_t;

/* A bucket of amp.all_gather: wholes[i][0, sizes[i]) = the parts[i] of
 * every replica, part_sizes[i] elements each, in rank order, cut at
 * sizes[i]; elements of element_bytes[i] bytes, on the stream's device. */
typedef struct amp_gather_list_s {
  size_t count;
  const void *const *parts;
  void *const *wholes;
  const size_t *part_sizes;
  const size_t *sizes;
  const size_t *element_bytes;
} amp_gather_list_t;

/* The replicas a step belongs to, as the transport that joins them gives
 * them: this process's rank among `count` of them, and one collective. */
typedef struct amp_replicas_s {
  void *context;
  int32_t rank;
  int32_t count; /* >= 1 */
  /* Every tensors.data[i][0, tensors.sizes[i]) (f32, on `stream`'s
   * device) = the op over every replica's, in place, as one collective
   * over all the tensors: every replica calls it with the same sizes and
   * op. It waits for the work queued on `stream` where it must. */
  amp_status_t (*all_reduce)(void *context, amp_stream_t *stream,
                             amp_tensor_list_t tensors, amp_reduce_op_t op);
  /* Every replica calls it with the same sizes: one collective over the
   * bucket (amp_gather_list_t). May be null for steps that shard nothing;
   * a sharded step refuses replicas without it. */
  amp_status_t (*all_gather)(void *context, amp_stream_t *stream,
                             amp_gather_list_t list);
  /* Optional, both or neither: all_reduce in two halves, so that the step
   * computes while the transport reduces. all_reduce_start starts the
   * reduction of work queued on `stream` so far and returns a ticket
   * (> 0); until all_reduce_wait has taken that ticket or a later one, the
   * tensors belong to the transport. all_reduce_wait finishes every
   * reduction started up to `ticket`, in the order they started (every
   * replica's), for the work queued on `stream` after it: on a CUDA
   * stream it may queue a wait there and return at once. Without them the
   * runtime reduces when a reduction starts. */
  amp_status_t (*all_reduce_start)(void *context, amp_stream_t *stream,
                                   amp_tensor_list_t tensors,
                                   amp_reduce_op_t op, int64_t *ticket);
  amp_status_t (*all_reduce_wait)(void *context, amp_stream_t *stream,
                                  int64_t ticket);
} amp_replicas_t;

/* For generated steps. The number of replicas of the step that runs on
 * `stream` (1 without hooks). */
int32_t amp_replica_count(amp_stream_t *stream);

/* For generated steps. This process's rank among the replicas of the step
 * that runs on `stream` (0 without hooks). */
int32_t amp_replica_rank(amp_stream_t *stream);

/* amp.all_gather over `replicas` replicas, the number the step was compiled
 * for: AMP_INVALID_ARGUMENT unless the step runs on that many. Where `when`
 * (as amp_replica_all_reduce's) is given and 0, does nothing: the wholes
 * keep their values. */
amp_status_t amp_replica_all_gather(amp_stream_t *stream,
                                    amp_gather_list_t list, int64_t replicas,
                                    const uint8_t *when);

/* amp.all_reduce: reduces `tensors` over the replicas of the step that
 * runs on `stream`, in place; where `when` (one byte, 0 or 1, in device
 * memory) is given and 0, does nothing. Without hooks: nothing. */
amp_status_t amp_replica_all_reduce(amp_stream_t *stream,
                                    amp_tensor_list_t tensors,
                                    amp_reduce_op_t op, const uint8_t *when);

/* For generated steps. amp_replica_all_reduce started, not waited for:
 * *ticket is what amp_replica_all_reduce_wait takes, 0 when nothing is
 * under way (one replica, `when` 0, or hooks without all_reduce_start,
 * which reduce before this returns). The step touches the tensors again
 * only after that wait. */
amp_status_t amp_replica_all_reduce_start(amp_stream_t *stream,
                                          amp_tensor_list_t tensors,
                                          amp_reduce_op_t op,
                                          const uint8_t *when, int64_t *ticket);

/* For generated steps. Finishes every reduction that
 * amp_replica_all_reduce_start started on `stream` up to `ticket` (0:
 * none), for the work queued on the stream after this call. */
amp_status_t amp_replica_all_reduce_wait(amp_stream_t *stream, int64_t ticket);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AMP_RUNTIME_REPLICAS_H */
