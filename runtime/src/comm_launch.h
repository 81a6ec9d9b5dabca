//===- comm_launch.h - ranks started without MPI ----------------*- C++ -*-===//
//
// What a launcher without MPI (torchrun, or a scheduler's script) tells
// each process through the environment, and the file through which rank 0
// hands NCCL's unique id to the others: the parts of
// amp_comm_create_env (comm.h) that need neither MPI nor a GPU, so that
// they are tested everywhere.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_SRC_COMM_LAUNCH_H
#define AMP_RUNTIME_SRC_COMM_LAUNCH_H

#include "amp_runtime/runtime.h"

#include <cstddef>
#include <string>

namespace amprt {

/// A process's place in a job started without MPI.
struct Launch {
  int rank = 0, size = 1;
  // Where NCCL's unique id comes from: a file every rank sees
  // (AMP_NCCL_ID_FILE), else NCCL's own bootstrap address, host:port
  // (NCCL_COMM_ID, else MASTER_ADDR:MASTER_PORT).
  std::string idFile, address;
};

/// The launch the environment describes; AMP_INVALID_ARGUMENT naming the
/// variable that is missing or wrong.
amp_status_t readLaunch(Launch *out);

/// Rank 0's half of the id file: `bytes` of `id` for a job of `size` ranks
/// written to `path` atomically. Refuses a path that exists already (an
/// earlier job's id would send the others to a rank 0 that is gone).
amp_status_t publishId(const std::string &path, const void *id, size_t bytes,
                       int size);

/// The other ranks' half: waits up to `timeout` seconds for `path` and
/// reads the id from it; AMP_DEADLINE_EXCEEDED if rank 0 has not written
/// it by then, AMP_INVALID_ARGUMENT if it is not an id file for `bytes`
/// and `size` ranks.
amp_status_t awaitId(const std::string &path, void *id, size_t bytes, int size,
                     double timeout);

} // namespace amprt

#endif // AMP_RUNTIME_SRC_COMM_LAUNCH_H
