/*===- comm.h - a communicator for data-parallel training --------*- C -*-===*
 *
 * The ranks of a data-parallel job and the collectives their training
 * steps need: all-reduce (sum, max) in place on device buffers. Made from
 * an MPI communicator; every backend's buffers are staged through host
 * memory (the host backend's are host memory). Optional at build time
 * like CUDA: a build without MPI refuses to make one (AMP_UNAVAILABLE).
 *
 * The sum is the same on every rank and the same every run: each rank's
 * values are gathered and added in rank order, in f32 (f16 and bf16
 * widened, the sum rounded once), so a job's ranks never drift apart by
 * the order of a reduction tree. A collective that a peer does not join
 * within the communicator's timeout fails with AMP_DEADLINE_EXCEEDED
 * instead of waiting forever.
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_COMM_H
#define AMP_RUNTIME_COMM_H

#include "amp_runtime/optimizer_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct amp_comm_s amp_comm_t;

typedef enum amp_reduce_op_e {
  AMP_REDUCE_SUM = 0,
  AMP_REDUCE_MAX = 1, /* a NaN on any rank gives NaN */
} amp_reduce_op_t;

/* Whether this build can make communicators (it has MPI). */
int amp_comm_available(void);

/* A communicator over the ranks of `*mpi_comm` (a pointer to an MPI_Comm,
 * which the communicator duplicates: its traffic never meets the
 * caller's), MPI already initialised. `timeout_seconds` > 0 bounds every
 * collective. Collective: every rank of the MPI communicator calls it. */
amp_status_t amp_comm_create_mpi(const void *mpi_comm, double timeout_seconds,
                                 amp_comm_t **out);
void amp_comm_destroy(amp_comm_t *comm);
int amp_comm_rank(const amp_comm_t *comm);
int amp_comm_size(const amp_comm_t *comm);

/* data[0, count) (dtype, on `stream`'s device) = the op over every rank's
 * data[0, count), in place, once the work queued on `stream` is done.
 * Every rank calls it with the same count, dtype and op. */
amp_status_t amp_comm_all_reduce(amp_comm_t *comm, amp_stream_t *stream,
                                 void *data, int64_t count, amp_dtype_t dtype,
                                 amp_reduce_op_t op);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AMP_RUNTIME_COMM_H */
