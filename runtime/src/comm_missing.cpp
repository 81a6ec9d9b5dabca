//===- comm_missing.cpp - comm.h in a build without MPI -------------------===//

#include "amp_runtime/comm.h"

#include "status.h"

extern "C" {

int amp_comm_available(void) { return 0; }

amp_status_t amp_comm_create_mpi(const void *, double, amp_comm_t **out) {
  if (out)
    *out = nullptr;
  return AMP_STATUS(AMP_UNAVAILABLE,
                    "this build of the runtime has no MPI (install Open MPI "
                    "and build again)");
}

amp_status_t amp_comm_create_world(amp_comm_transport_t, double,
                                   amp_comm_t **out) {
  return amp_comm_create_mpi(nullptr, 0, out);
}

amp_status_t amp_comm_create_env(double, amp_comm_t **out) {
  return amp_comm_create_mpi(nullptr, 0, out);
}

int amp_comm_nccl_available(void) { return 0; }

amp_status_t amp_comm_create_nccl(const void *, double, amp_comm_t **out) {
  return amp_comm_create_mpi(nullptr, 0, out);
}

void amp_comm_destroy(amp_comm_t *) {}
int amp_comm_rank(const amp_comm_t *) { return 0; }
int amp_comm_size(const amp_comm_t *) { return 1; }

amp_status_t amp_comm_all_reduce(amp_comm_t *, amp_stream_t *, void *, int64_t,
                                 amp_dtype_t, amp_reduce_op_t) {
  return AMP_STATUS(AMP_UNAVAILABLE, "this build of the runtime has no MPI");
}

amp_status_t amp_comm_replicas(amp_comm_t *, amp_replicas_t *) {
  return AMP_STATUS(AMP_UNAVAILABLE, "this build of the runtime has no MPI");
}

amp_status_t amp_step_set_comm(amp_step_t *, amp_comm_t *) {
  return AMP_STATUS(AMP_UNAVAILABLE, "this build of the runtime has no MPI");
}

amp_status_t amp_comm_check_state(amp_comm_t *, amp_step_t *) {
  return AMP_STATUS(AMP_UNAVAILABLE, "this build of the runtime has no MPI");
}

} // extern "C"
