/*===- comm.h - a communicator for data-parallel training --------*- C -*-===*
 *
 * The ranks of a data-parallel job and the collectives their training
 * steps need: all-reduce (sum, max) in place on device buffers. Made from
 * an MPI communicator; every backend's buffers are staged through host
 * memory (the host backend's are host memory). Optional at build time
 * like CUDA: a build without MPI refuses to make one (AMP_UNAVAILABLE).
 *
 * The sum is the same on every rank and the same every run: each
 * element's values are added in rank order, in f32 (f16 and bf16 widened,
 * the sum rounded once), by the rank that owns its slice, and the sums
 * gathered, so a job's ranks never drift apart by the order of a
 * reduction tree. A collective that a peer does not join
 * within the communicator's timeout fails with AMP_DEADLINE_EXCEEDED
 * instead of waiting forever.
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_COMM_H
#define AMP_RUNTIME_COMM_H

#include "amp_runtime/replicas.h"
#include "amp_runtime/step.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct amp_comm_s amp_comm_t;

/* Whether this build can make communicators (it has MPI). */
int amp_comm_available(void);

/* A communicator over the ranks of `*mpi_comm` (a pointer to an MPI_Comm,
 * which the communicator duplicates: its traffic never meets the
 * caller's), MPI already initialised. `timeout_seconds` > 0 bounds every
 * collective. Collective: every rank of the MPI communicator calls it. */
amp_status_t amp_comm_create_mpi(const void *mpi_comm, double timeout_seconds,
                                 amp_comm_t **out);
/* Whether this build can make NCCL communicators (CUDA, MPI and NCCL). */
int amp_comm_nccl_available(void);

/* A communicator like amp_comm_create_mpi's whose replicas' all-reduce
 * (replicas.h, the gradients of a data-parallel step) runs on the GPUs
 * through NCCL, queued on the step's CUDA stream with no host wait: NCCL's
 * sum is the same on every rank but in NCCL's order, not rank order. Each
 * rank uses the current CUDA device (device 0, as the step does: give
 * each rank of a node its GPU with CUDA_VISIBLE_DEVICES). Everything else
 * (amp_comm_all_reduce, the fingerprints, host steps) goes through MPI.
 * The initialisation is bounded by the timeout; a collective once queued
 * is NCCL's to finish. AMP_UNAVAILABLE in builds without NCCL, or where
 * NCCL finds no GPU. Collective. */
amp_status_t amp_comm_create_nccl(const void *mpi_comm, double timeout_seconds,
                                  amp_comm_t **out);

/* How a communicator reduces the replicas' gradients on a GPU. */
typedef enum amp_comm_transport_e {
  AMP_COMM_MPI = 0,  /* amp_comm_create_mpi's */
  AMP_COMM_NCCL = 1, /* amp_comm_create_nccl's */
} amp_comm_transport_t;

/* A communicator over every process of the job (MPI_COMM_WORLD), made as
 * amp_comm_create_mpi or amp_comm_create_nccl make one, which initialises
 * MPI first where nothing has (and then finalises it when destroyed). For
 * tools started by mpirun. */
amp_status_t amp_comm_create_world(amp_comm_transport_t transport,
                                   double timeout_seconds, amp_comm_t **out);
/* A communicator over the processes a launcher without MPI started, as
 * torchrun does: each is told its place by RANK and WORLD_SIZE, and where
 * NCCL's unique id comes from by AMP_NCCL_ID_FILE (a path every rank
 * sees: rank 0 writes the id there, the others wait for it, and rank 0
 * removes it once every rank has joined; a path that exists already is
 * refused), else NCCL_COMM_ID, else MASTER_ADDR and MASTER_PORT (host and
 * port where rank 0 listens for NCCL's bootstrap; under torchrun itself
 * that port is its agent's: give NCCL_COMM_ID another). With no MPI,
 * every collective goes through NCCL, the communicator's own (the
 * fingerprints, host buffers) through the current CUDA device, so every
 * rank needs a GPU; host steps reduce through it as well. The id's
 * exchange and the initialisation are bounded by the timeout.
 * AMP_INVALID_ARGUMENT for a missing or wrong variable, AMP_UNAVAILABLE in
 * builds without NCCL or on a rank without a GPU. Collective. */
amp_status_t amp_comm_create_env(double timeout_seconds, amp_comm_t **out);
void amp_comm_destroy(amp_comm_t *comm);
int amp_comm_rank(const amp_comm_t *comm);
int amp_comm_size(const amp_comm_t *comm);

/* data[0, count) (dtype, on `stream`'s device) = the op over every rank's
 * data[0, count), in place, once the work queued on `stream` is done.
 * Every rank calls it with the same count, dtype and op. */
amp_status_t amp_comm_all_reduce(amp_comm_t *comm, amp_stream_t *stream,
                                 void *data, int64_t count, amp_dtype_t dtype,
                                 amp_reduce_op_t op);

/* The communicator's collective as replicas' hooks (replicas.h). */
amp_status_t amp_comm_replicas(amp_comm_t *comm, amp_replicas_t *out);

/* Makes `step` (compiled with --data-parallel) one replica of the job of
 * `comm`'s ranks: first every rank compares the fingerprints of its
 * compiled step and of its state (amp_step_fingerprint), and each refuses
 * with AMP_INVALID_ARGUMENT, naming the ranks that differ, unless all
 * agree: initialise every rank from the same seed, or load the same state
 * file. Collective. `comm` must outlive the step's use of it. */
amp_status_t amp_step_set_comm(amp_step_t *step, amp_comm_t *comm);

/* Whether every rank's step holds the same state as rank 0's (the same
 * fingerprint); AMP_INVALID_ARGUMENT naming the first that differs if
 * not. Collective: a check at the end of a run. */
amp_status_t amp_comm_check_state(amp_comm_t *comm, amp_step_t *step);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AMP_RUNTIME_COMM_H */
