//===- comm_mpi.cpp - the communicator over MPI ---------------------------===//
//
// comm.h's collectives on a duplicate of the caller's MPI communicator,
// with MPI_ERRORS_RETURN so that an MPI error comes back as a status. An
// all-reduce first gathers every rank's (count, dtype, op), so that ranks
// that disagree get an error that says how, then gathers the values and
// folds them in rank order on each rank: the same bits everywhere. Each
// collective is started non-blocking and polled until the timeout; one
// that times out cannot be cancelled (MPI has no cancel for collectives),
// so the communicator is then broken: it refuses further work, and
// amp_comm_destroy frees it only if that collective completes within
// another timeout (its buffers and MPI communicator stay otherwise, as
// MPI may still write them).
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/comm.h"

#include "backend.h"
#include "row_bodies.h"
#include "runtime_internal.h"
#include "status.h"

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

struct amp_comm_s {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
  double timeout = 0;
  bool broken = false;
  // The collective that timed out, if it has not completed since.
  MPI_Request pending = MPI_REQUEST_NULL;
  // Host memory a collective reads and writes; kept across calls, and for
  // good once a collective times out (MPI may still write it).
  std::vector<int64_t> descriptors;
  std::vector<char> staging, gathered;
};

namespace {

std::string mpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<size_t>(length));
}

/// Waits for `request`, `what` naming it in errors, until the
/// communicator's timeout.
amp_status_t wait(amp_comm_t *c, MPI_Request *request, const char *what) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(c->timeout);
  for (;;) {
    int done = 0;
    int rc = MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
      c->broken = true;
      return AMP_STATUS(AMP_UNAVAILABLE, "%s on rank %d of %d: %s", what,
                        c->rank, c->size, mpiError(rc).c_str());
    }
    if (done)
      return nullptr;
    if (std::chrono::steady_clock::now() > deadline) {
      c->broken = true;
      c->pending = *request;
      return AMP_STATUS(AMP_DEADLINE_EXCEEDED,
                        "%s on rank %d of %d: the other ranks did not join "
                        "within %g s; one of them has failed or stopped",
                        what, c->rank, c->size, c->timeout);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

/// Gathers `bytes` from `send` of every rank into `receive`, rank by rank.
amp_status_t allGather(amp_comm_t *c, const void *send, void *receive,
                       int64_t bytes, const char *what) {
  if (bytes > INT32_MAX)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "%s: %lld bytes a rank; at most %d at once", what,
                      static_cast<long long>(bytes), INT32_MAX);
  MPI_Request request;
  int rc = MPI_Iallgather(send, static_cast<int>(bytes), MPI_BYTE, receive,
                          static_cast<int>(bytes), MPI_BYTE, c->comm, &request);
  if (rc != MPI_SUCCESS)
    return AMP_STATUS(AMP_UNAVAILABLE, "%s on rank %d of %d: %s", what, c->rank,
                      c->size, mpiError(rc).c_str());
  return wait(c, &request, what);
}

const char *dtypeName(int dtype) {
  return dtype == AMP_F16 ? "f16" : dtype == AMP_BF16 ? "bf16" : "f32";
}

} // namespace

extern "C" {

int amp_comm_available(void) { return 1; }

amp_status_t amp_comm_create_mpi(const void *mpi_comm, double timeout_seconds,
                                 amp_comm_t **out) {
  if (!mpi_comm || !out)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "the MPI communicator or out is "
                                            "null");
  *out = nullptr;
  if (!(timeout_seconds > 0))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the timeout must be positive seconds, got %g",
                      timeout_seconds);
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    return AMP_STATUS(AMP_UNAVAILABLE, "MPI is not initialised (MPI_Init)");
  auto comm = std::make_unique<amp_comm_s>();
  comm->timeout = timeout_seconds;
  int rc = MPI_Comm_dup(*static_cast<const MPI_Comm *>(mpi_comm), &comm->comm);
  if (rc != MPI_SUCCESS)
    return AMP_STATUS(AMP_UNAVAILABLE, "MPI_Comm_dup: %s",
                      mpiError(rc).c_str());
  MPI_Comm_set_errhandler(comm->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm->comm, &comm->rank);
  MPI_Comm_size(comm->comm, &comm->size);
  *out = comm.release();
  return nullptr;
}

void amp_comm_destroy(amp_comm_t *comm) {
  if (!comm)
    return;
  if (comm->pending != MPI_REQUEST_NULL) {
    // The collective that timed out may still complete (a late rank);
    // until it has, MPI may write the buffers.
    amp_status_t late = wait(comm, &comm->pending, "the late collective");
    if (late) {
      amp_status_free(late);
      return; // left as it is until the process ends
    }
  }
  if (comm->comm != MPI_COMM_NULL)
    MPI_Comm_free(&comm->comm);
  delete comm;
}

int amp_comm_rank(const amp_comm_t *comm) { return comm ? comm->rank : 0; }
int amp_comm_size(const amp_comm_t *comm) { return comm ? comm->size : 1; }

amp_status_t amp_comm_all_reduce(amp_comm_t *comm, amp_stream_t *stream,
                                 void *data, int64_t count, amp_dtype_t dtype,
                                 amp_reduce_op_t op) {
  if (!comm || !stream)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "the communicator or stream is "
                                            "null");
  int rawDtype = amprt::rawEnum(dtype), rawOp = amprt::rawEnum(op);
  if (!amprt::isStorageDtype(rawDtype))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "unknown dtype %d", rawDtype);
  if (rawOp != AMP_REDUCE_SUM && rawOp != AMP_REDUCE_MAX)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "unknown reduction %d", rawOp);
  if (count < 0 || !amprt::bytesFit({count, comm->size}))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "count %lld: need 0 or more values that fit in memory "
                      "once per rank",
                      static_cast<long long>(count));
  if (count > 0 && !data)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "data is null");
  if (comm->broken)
    return AMP_STATUS(AMP_UNAVAILABLE,
                      "the communicator is broken: an earlier collective "
                      "failed or timed out");

  // Every rank must reduce alike.
  const int64_t mine[3] = {count, rawDtype, rawOp};
  comm->descriptors.assign(3 * static_cast<size_t>(comm->size), 0);
  AMP_RETURN_IF_ERROR(allGather(comm, mine, comm->descriptors.data(),
                                sizeof mine, "all-reduce (its sizes)"));
  for (int r = 0; r < comm->size; ++r) {
    const int64_t *theirs = comm->descriptors.data() + 3 * r;
    if (theirs[0] != count || theirs[1] != rawDtype || theirs[2] != rawOp)
      return AMP_STATUS(
          AMP_INVALID_ARGUMENT,
          "all-reduce: rank %d reduces %lld %s values by %s, rank %d %lld %s "
          "values by %s",
          comm->rank, static_cast<long long>(count), dtypeName(rawDtype),
          rawOp == AMP_REDUCE_SUM ? "sum" : "max", r,
          static_cast<long long>(theirs[0]),
          dtypeName(static_cast<int>(theirs[1])),
          theirs[2] == AMP_REDUCE_SUM ? "sum" : "max");
  }
  if (count == 0)
    return nullptr;

  // The values through host memory: every backend's, once the stream's
  // work is done.
  amprt::Backend *backend = amprt::backendOf(stream);
  void *handle = amprt::handleOf(stream);
  const size_t bytes = static_cast<size_t>(count) * amprt::dtypeSize(dtype);
  AMP_RETURN_IF_ERROR(backend->synchronize(handle));
  const bool onHost = backend->kind() == AMP_DEVICE_HOST;
  void *values = data;
  if (!onHost) {
    comm->staging.resize(bytes);
    values = comm->staging.data();
    AMP_RETURN_IF_ERROR(backend->copy(values, data, bytes,
                                      amprt::CopyKind::DeviceToHost, handle));
    AMP_RETURN_IF_ERROR(backend->synchronize(handle));
  }
  comm->gathered.resize(bytes * static_cast<size_t>(comm->size));
  AMP_RETURN_IF_ERROR(allGather(comm, values, comm->gathered.data(),
                                static_cast<int64_t>(bytes), "all-reduce"));
  // Rank 0's value, then each next rank's, in f32; rounded once.
  const char *gathered = comm->gathered.data();
  for (int64_t i = 0; i < count; ++i) {
    float acc = amprt::load(dtype, gathered, i);
    for (int r = 1; r < comm->size; ++r) {
      float value = amprt::load(dtype, gathered + r * bytes, i);
      acc = rawOp == AMP_REDUCE_SUM ? acc + value : amprt::nanMax(acc, value);
    }
    amprt::store(dtype, values, i, acc);
  }
  if (!onHost) {
    AMP_RETURN_IF_ERROR(backend->copy(data, values, bytes,
                                      amprt::CopyKind::HostToDevice, handle));
    AMP_RETURN_IF_ERROR(backend->synchronize(handle));
  }
  return nullptr;
}

} // extern "C"
