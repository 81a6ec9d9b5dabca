//===- comm_mpi.cpp - the communicator over MPI ---------------------------===//
//
// comm.h's collectives on a duplicate of the caller's MPI communicator,
// with MPI_ERRORS_RETURN so that an MPI error comes back as a status. An
// all-reduce first gathers every rank's (count, dtype, op), so that ranks
// that disagree get an error that says how; then each rank receives its
// slice of every rank's values, folds them in rank order, and the slices
// are gathered: the same bits everywhere, every element added in the same
// order whichever rank owns it. Each
// collective is started non-blocking and polled until the timeout; one
// that times out cannot be cancelled (MPI has no cancel for collectives),
// so the communicator is then broken: it refuses further work, and
// amp_comm_destroy frees it only if that collective completes within
// another timeout (its buffers and MPI communicator stay otherwise, as
// MPI may still write them).
//
// Where the build has NCCL (CUDA builds), amp_comm_create_nccl makes a
// communicator whose replicas' all-reduce runs on the GPUs instead, on the
// step's stream without a host wait: NCCL's unique id goes from rank 0 to
// the others over MPI, and the MPI communicator stays for everything else.
// amp_comm_create_env makes one without MPI, for processes a launcher such
// as torchrun started: the id comes through a file or NCCL's bootstrap
// address, and the communicator's own collectives (the sizes and
// fingerprints that ranks compare, host buffers) go through NCCL too, on a
// CUDA stream of the communicator's, polled until the timeout.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/comm.h"

#include "backend.h"
#include "comm_launch.h"
#include "row_bodies.h"
#include "runtime_internal.h"
#include "status.h"

#include <mpi.h>
#ifdef AMP_COMM_HAS_NCCL
#include <cuda_runtime.h>
#include <nccl.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace {
struct Reduction;
} // namespace

struct amp_comm_s {
  // MPI_COMM_NULL in a communicator without MPI (amp_comm_create_env).
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
  double timeout = 0;
  bool broken = false;
  bool ownsMpi = false; // made by amp_comm_create_world, which initialised MPI
  // The collective that timed out, if it has not completed since.
  MPI_Request pending = MPI_REQUEST_NULL;
  // Host memory a collective reads and writes; kept across calls, and for
  // good once a collective times out (MPI may still write it).
  std::vector<int64_t> descriptors;
  std::vector<char> staging, gathered;
  // The all-reduces started and not yet finished, oldest first, each with
  // a ticket one above the last's.
  std::deque<std::unique_ptr<Reduction>> inFlight;
  int64_t lastTicket = 0;
  // Host memory of finished reductions, for the next ones: a step's
  // buckets recur every step.
  std::vector<std::vector<char>> spare;
#ifdef AMP_COMM_HAS_NCCL
  ncclComm_t nccl = nullptr;
  // Device memory a bucket of several tensors is packed into, grown as
  // needed, of `stagingBackend`.
  amprt::Backend *stagingBackend = nullptr;
  void *deviceStaging = nullptr;
  size_t deviceStagingBytes = 0;
  // The stream the all-reduces started on the device run on.
  cudaStream_t side = nullptr;
  // Without MPI: the stream and device memory of the communicator's own
  // collectives.
  cudaStream_t control = nullptr;
  void *controlBuffer = nullptr;
  size_t controlBytes = 0;
  // Rank 0's id file, removed once every rank has joined.
  std::string idFile;
#endif
};

namespace {

std::string mpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<size_t>(length));
}

/// Breaks `c` for the MPI error `rc` of `what`: the ranks are no longer in
/// step.
amp_status_t mpiFailure(amp_comm_t *c, int rc, const char *what) {
  c->broken = true;
  return AMP_STATUS(AMP_UNAVAILABLE, "%s on rank %d of %d: %s", what, c->rank,
                    c->size, mpiError(rc).c_str());
}

/// Waits for `request`, `what` naming it in errors, until the
/// communicator's timeout.
amp_status_t wait(amp_comm_t *c, MPI_Request *request, const char *what) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(c->timeout);
  for (;;) {
    int done = 0;
    int rc = MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
      return mpiFailure(c, rc, what);
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

#ifdef AMP_COMM_HAS_NCCL
amp_status_t ncclGather(amp_comm_t *c, const void *send, void *receive,
                        int64_t bytes, const char *what);
#endif

/// Gathers `bytes` from `send` of every rank into `receive`, rank by rank.
amp_status_t allGather(amp_comm_t *c, const void *send, void *receive,
                       int64_t bytes, const char *what) {
#ifdef AMP_COMM_HAS_NCCL
  if (c->comm == MPI_COMM_NULL)
    return ncclGather(c, send, receive, bytes, what);
#endif
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

amp_status_t checkUsable(const amp_comm_t *comm) {
  if (comm->broken)
    return AMP_STATUS(AMP_UNAVAILABLE,
                      "the communicator is broken: an earlier collective "
                      "failed or timed out");
  return nullptr;
}

/// out[0, count) = the op over `ranks` blocks of `stride` values at
/// `blocks`, element by element: rank 0's value, then each next rank's,
/// in f32, rounded once.
void foldInRankOrder(amp_dtype_t dtype, int rawOp, const char *blocks,
                     int64_t stride, int ranks, int64_t count, void *out) {
  const size_t blockBytes =
      static_cast<size_t>(stride) * amprt::dtypeSize(dtype);
  for (int64_t i = 0; i < count; ++i) {
    float acc = amprt::load(dtype, blocks, i);
    for (int r = 1; r < ranks; ++r) {
      float value = amprt::load(dtype, blocks + r * blockBytes, i);
      acc = rawOp == AMP_REDUCE_SUM ? acc + value : amprt::nanMax(acc, value);
    }
    amprt::store(dtype, out, i, acc);
  }
}

/// One piece of device memory that a collective reads and writes.
struct Piece {
  void *data;
  size_t bytes;
};

/// A reduction started and not yet finished (amp_replica_all_reduce_start):
/// the tensors it reduces in place, and the host memory and MPI request of
/// the work under way. Owned by the communicator's `inFlight` until it
/// finishes; after a failure, for good (MPI may still write its memory).
struct Reduction {
  int64_t ticket = 0;
  amp_stream_t *stream = nullptr;
  std::vector<Piece> pieces; // on the stream's device
  int64_t count = 0;
  int rawDtype = AMP_F32, rawOp = AMP_REDUCE_SUM;
  // The values, in host memory: the one piece itself on the host backend,
  // else `packed`, which finish copies back into the pieces.
  char *values = nullptr;
  std::vector<char> packed;
  bool copiesBack = false;
  // Over MPI: rank q's values of this rank's slice at q * owned, and the
  // slices' counts and offsets.
  std::vector<char> gathered;
  std::vector<int> counts, begins;
  MPI_Request request = MPI_REQUEST_NULL;
  // With NCCL, on the device: recorded on the communicator's side stream
  // after the reduction; the step's stream waits for it.
  bool onDevice = false;
#ifdef AMP_COMM_HAS_NCCL
  cudaEvent_t done = nullptr;
#endif
};

/// The MPI type that moves values of `size` bytes unchanged.
MPI_Datatype bitsOf(size_t size) {
  return size == 2 ? MPI_UINT16_T : MPI_UINT32_T;
}

/// Host memory of at least `bytes`: the smallest spare buffer of the
/// communicator that holds them, else the largest grown, else a new one.
/// Grown buffers are cleared; reused ones are not.
std::vector<char> takeBuffer(amp_comm_t *comm, size_t bytes) {
  std::vector<std::vector<char>> &spare = comm->spare;
  // Whether `a` is a better choice than `b`.
  auto better = [bytes](const std::vector<char> &a,
                        const std::vector<char> &b) {
    bool aHolds = a.size() >= bytes, bHolds = b.size() >= bytes;
    if (aHolds != bHolds)
      return aHolds;
    return aHolds ? a.size() < b.size() : a.size() > b.size();
  };
  auto best = std::min_element(spare.begin(), spare.end(), better);
  std::vector<char> buffer;
  if (best != spare.end()) {
    buffer = std::move(*best);
    spare.erase(best);
  }
  if (buffer.size() < bytes)
    buffer.resize(bytes);
  return buffer;
}

/// Keeps a finished reduction's host memory for the next ones.
void recycle(amp_comm_t *comm, Reduction &r) {
  constexpr size_t kMostSpare = 16;
  for (std::vector<char> *buffer : {&r.packed, &r.gathered})
    if (!buffer->empty() && comm->spare.size() < kMostSpare)
      comm->spare.push_back(std::move(*buffer));
}

/// Starts the reduction of r.values[0, r.count) (host memory) over every
/// rank: first every rank's (count, dtype, op), so that ranks that
/// disagree say how; then, over MPI, each rank's slices sent to the rank
/// that owns them, left under way. Without MPI (through NCCL's gather) it
/// is done when this returns.
amp_status_t startOnHost(amp_comm_t *comm, Reduction &r) {
  const int64_t count = r.count;
  const int rawDtype = r.rawDtype, rawOp = r.rawOp;
  const int64_t mine[3] = {count, rawDtype, rawOp};
  comm->descriptors.assign(3 * static_cast<size_t>(comm->size), 0);
  AMP_RETURN_IF_ERROR(allGather(comm, mine, comm->descriptors.data(),
                                sizeof mine, "all-reduce (its sizes)"));
  for (int q = 0; q < comm->size; ++q) {
    const int64_t *theirs = comm->descriptors.data() + 3 * q;
    if (theirs[0] != count || theirs[1] != rawDtype || theirs[2] != rawOp)
      return AMP_STATUS(
          AMP_INVALID_ARGUMENT,
          "all-reduce: rank %d reduces %lld %s values by %s, rank %d %lld %s "
          "values by %s",
          comm->rank, static_cast<long long>(count), dtypeName(rawDtype),
          rawOp == AMP_REDUCE_SUM ? "sum" : "max", q,
          static_cast<long long>(theirs[0]),
          dtypeName(static_cast<int>(theirs[1])),
          theirs[2] == AMP_REDUCE_SUM ? "sum" : "max");
  }
  if (count == 0)
    return nullptr;
  auto dtype = static_cast<amp_dtype_t>(rawDtype);
  const size_t size = amprt::dtypeSize(dtype);
  const int ranks = comm->size;
  if (comm->comm == MPI_COMM_NULL) {
    // Without MPI (through NCCL's gather): every rank's values whole.
    const size_t bytes = static_cast<size_t>(count) * size;
    r.gathered = takeBuffer(comm, bytes * static_cast<size_t>(ranks));
    AMP_RETURN_IF_ERROR(allGather(comm, r.values, r.gathered.data(),
                                  static_cast<int64_t>(bytes), "all-reduce"));
    foldInRankOrder(dtype, rawOp, r.gathered.data(), count, ranks, count,
                    r.values);
    return nullptr;
  }
  // Over MPI, a reduce-scatter and an all-gather, each element folded by
  // the rank that owns its slice, in the same order as every rank would:
  // 2 (ranks - 1) / ranks of the values travel from each rank, not
  // ranks - 1 times them.
  const int64_t slice = (count + ranks - 1) / ranks;
  if (slice * ranks > INT32_MAX) // MPI counts and offsets are ints
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "all-reduce: %lld values; at most %d at once",
                      static_cast<long long>(count), INT32_MAX - ranks);
  r.counts.resize(ranks);
  r.begins.resize(ranks);
  for (int q = 0; q < ranks; ++q) {
    int64_t begin = std::min<int64_t>(count, q * slice);
    r.begins[q] = static_cast<int>(begin);
    r.counts[q] =
        static_cast<int>(std::min<int64_t>(count, begin + slice) - begin);
  }
  const int owned = r.counts[comm->rank];
  // MPI reads these when the call starts the exchange.
  std::vector<int> fromCounts(ranks, owned), fromBegins(ranks);
  for (int q = 0; q < ranks; ++q)
    fromBegins[q] = q * owned;
  r.gathered = takeBuffer(comm, static_cast<size_t>(owned) * ranks * size);
  // The values' bits, moved unchanged.
  MPI_Datatype bits = bitsOf(size);
  int rc = MPI_Ialltoallv(r.values, r.counts.data(), r.begins.data(), bits,
                          r.gathered.data(), fromCounts.data(),
                          fromBegins.data(), bits, comm->comm, &r.request);
  if (rc != MPI_SUCCESS)
    return mpiFailure(comm, rc, "all-reduce");
  return nullptr;
}

/// Finishes what startOnHost left under way: this rank's slice folded in
/// rank order, then every rank's slice gathered into r.values.
amp_status_t finishOnHost(amp_comm_t *comm, Reduction &r) {
  if (r.request == MPI_REQUEST_NULL)
    return nullptr;
  AMP_RETURN_IF_ERROR(wait(comm, &r.request, "all-reduce (its slices)"));
  auto dtype = static_cast<amp_dtype_t>(r.rawDtype);
  const size_t size = amprt::dtypeSize(dtype);
  const int ranks = comm->size;
  const int owned = r.counts[comm->rank];
  char *at = r.values + static_cast<size_t>(r.begins[comm->rank]) * size;
  foldInRankOrder(dtype, r.rawOp, r.gathered.data(), owned, ranks, owned, at);
  MPI_Datatype bits = bitsOf(size);
  int rc = MPI_Iallgatherv(MPI_IN_PLACE, 0, bits, r.values, r.counts.data(),
                           r.begins.data(), bits, comm->comm, &r.request);
  if (rc != MPI_SUCCESS)
    return mpiFailure(comm, rc, "all-reduce");
  return wait(comm, &r.request, "all-reduce");
}

#ifdef AMP_COMM_HAS_NCCL
amp_status_t startOnDevice(amp_comm_t *comm, Reduction &r);
amp_status_t finishOnDevice(amp_comm_t *comm, Reduction &r);
#endif

/// Starts the reduction of r.pieces (on r.stream's device) as one
/// collective: with NCCL on the device, queued after the stream's work;
/// otherwise in host memory, once the stream's work is done.
amp_status_t start(amp_comm_t *comm, Reduction &r) {
#ifdef AMP_COMM_HAS_NCCL
  if (r.onDevice)
    return startOnDevice(comm, r);
#endif
  amprt::Backend *backend = amprt::backendOf(r.stream);
  void *handle = amprt::handleOf(r.stream);
  AMP_RETURN_IF_ERROR(backend->synchronize(handle));
  const bool onHost = backend->kind() == AMP_DEVICE_HOST;
  if (onHost && r.pieces.size() == 1) {
    r.values = static_cast<char *>(r.pieces[0].data);
    return startOnHost(comm, r);
  }
  size_t total = 0;
  for (const Piece &piece : r.pieces)
    total += piece.bytes;
  r.packed = takeBuffer(comm, total);
  r.values = r.packed.data();
  r.copiesBack = true;
  auto kind =
      onHost ? amprt::CopyKind::DeviceToDevice : amprt::CopyKind::DeviceToHost;
  size_t at = 0;
  for (const Piece &piece : r.pieces) {
    AMP_RETURN_IF_ERROR(
        backend->copy(r.values + at, piece.data, piece.bytes, kind, handle));
    at += piece.bytes;
  }
  AMP_RETURN_IF_ERROR(backend->synchronize(handle));
  return startOnHost(comm, r);
}

/// Finishes `r`: its results are in its pieces, for the work queued on
/// its stream after this call (with NCCL, without a host wait).
amp_status_t finish(amp_comm_t *comm, Reduction &r) {
#ifdef AMP_COMM_HAS_NCCL
  if (r.onDevice)
    return finishOnDevice(comm, r);
#endif
  AMP_RETURN_IF_ERROR(finishOnHost(comm, r));
  if (!r.copiesBack)
    return nullptr;
  amprt::Backend *backend = amprt::backendOf(r.stream);
  void *handle = amprt::handleOf(r.stream);
  auto kind = backend->kind() == AMP_DEVICE_HOST
                  ? amprt::CopyKind::DeviceToDevice
                  : amprt::CopyKind::HostToDevice;
  size_t at = 0;
  for (const Piece &piece : r.pieces) {
    AMP_RETURN_IF_ERROR(
        backend->copy(piece.data, r.values + at, piece.bytes, kind, handle));
    at += piece.bytes;
  }
  // `packed` is reused once this returns.
  return backend->synchronize(handle);
}

/// Starts `r` and takes it into the communicator's reductions in flight,
/// returning its ticket.
amp_status_t startInFlight(amp_comm_t *comm, std::unique_ptr<Reduction> r,
                           int64_t *ticket) {
  r->ticket = ++comm->lastTicket;
  Reduction &started = *r;
  comm->inFlight.push_back(std::move(r));
  if (amp_status_t error = start(comm, started)) {
    // What MPI still holds stays in flight (the communicator is broken).
    if (started.request == MPI_REQUEST_NULL)
      comm->inFlight.pop_back();
    return error;
  }
  *ticket = started.ticket;
  return nullptr;
}

/// Finishes the reductions in flight up to `ticket`, in the order they
/// started (which is every rank's).
amp_status_t finishInFlight(amp_comm_t *comm, int64_t ticket) {
  while (!comm->inFlight.empty() && comm->inFlight.front()->ticket <= ticket) {
    AMP_RETURN_IF_ERROR(checkUsable(comm));
    amp_status_t error = finish(comm, *comm->inFlight.front());
    // What MPI still holds stays in flight (the communicator is broken).
    if (error && comm->inFlight.front()->request != MPI_REQUEST_NULL)
      return error;
    recycle(comm, *comm->inFlight.front());
    comm->inFlight.pop_front();
    if (error)
      return error;
  }
  return nullptr;
}

/// Reduces `pieces` (dtype, on `stream`'s device), `count` values in all,
/// as one collective, done when this returns.
amp_status_t reducePieces(amp_comm_t *comm, amp_stream_t *stream,
                          std::vector<Piece> pieces, int64_t count,
                          int rawDtype, int rawOp) {
  auto r = std::make_unique<Reduction>();
  r->stream = stream;
  r->pieces = std::move(pieces);
  r->count = count;
  r->rawDtype = rawDtype;
  r->rawOp = rawOp;
  int64_t ticket = 0;
  AMP_RETURN_IF_ERROR(startInFlight(comm, std::move(r), &ticket));
  return finishInFlight(comm, ticket);
}

#ifdef AMP_COMM_HAS_NCCL
amp_status_t ncclError(amp_comm_t *comm, ncclResult_t rc, const char *what) {
  comm->broken = true;
  const char *detail = comm->nccl ? ncclGetLastError(comm->nccl) : nullptr;
  return AMP_STATUS(AMP_UNAVAILABLE, "%s on rank %d of %d: %s%s%s", what,
                    comm->rank, comm->size, ncclGetErrorString(rc),
                    detail && *detail ? ": " : "", detail ? detail : "");
}

/// Aborts NCCL's communicator: a rank did not join `what` in time.
amp_status_t ncclTimedOut(amp_comm_t *comm, const char *what) {
  ncclCommAbort(comm->nccl);
  comm->nccl = nullptr;
  comm->broken = true;
  return AMP_STATUS(AMP_DEADLINE_EXCEEDED,
                    "%s on rank %d of %d: the other ranks did not join "
                    "within %g s; one of them has failed or stopped",
                    what, comm->rank, comm->size, comm->timeout);
}

/// Waits, until the communicator's timeout, for NCCL to finish what a
/// non-blocking call started (its initialisation, or enqueueing a
/// collective on a stream: not the collective itself, which runs there).
amp_status_t ncclSettle(amp_comm_t *comm, ncclResult_t rc, const char *what) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(comm->timeout);
  while (rc == ncclInProgress) {
    if (std::chrono::steady_clock::now() > deadline)
      return ncclTimedOut(comm, what);
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    ncclResult_t state = ncclSuccess;
    ncclResult_t query = ncclCommGetAsyncError(comm->nccl, &state);
    rc = query != ncclSuccess ? query : state;
  }
  return rc == ncclSuccess ? nullptr : ncclError(comm, rc, what);
}

/// Breaks `comm` for a CUDA error of `what`.
amp_status_t cudaFailure(amp_comm_t *comm, cudaError_t error,
                         const char *what) {
  comm->broken = true;
  return AMP_STATUS(AMP_UNAVAILABLE, "%s on rank %d of %d: %s", what,
                    comm->rank, comm->size, cudaGetErrorString(error));
}

/// Waits, until the communicator's timeout, for the work queued on its
/// control stream; a collective that a rank does not join is aborted.
amp_status_t waitControl(amp_comm_t *comm, const char *what) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(comm->timeout);
  for (;;) {
    cudaError_t query = cudaStreamQuery(comm->control);
    if (query == cudaSuccess)
      return nullptr;
    if (query != cudaErrorNotReady)
      return cudaFailure(comm, query, what);
    ncclResult_t state = ncclSuccess;
    ncclResult_t rc = ncclCommGetAsyncError(comm->nccl, &state);
    if (rc == ncclSuccess)
      rc = state;
    if (rc != ncclSuccess && rc != ncclInProgress)
      return ncclError(comm, rc, what);
    if (std::chrono::steady_clock::now() > deadline)
      return ncclTimedOut(comm, what);
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

/// allGather without MPI: through the communicator's device memory, by
/// NCCL on its control stream.
amp_status_t ncclGather(amp_comm_t *c, const void *send, void *receive,
                        int64_t bytes, const char *what) {
  const size_t each = static_cast<size_t>(bytes);
  const size_t need = each * (static_cast<size_t>(c->size) + 1);
  if (need > c->controlBytes) {
    if (c->controlBuffer)
      cudaFree(c->controlBuffer);
    c->controlBuffer = nullptr;
    c->controlBytes = 0;
    if (cudaError_t error = cudaMalloc(&c->controlBuffer, need))
      return cudaFailure(c, error, what);
    c->controlBytes = need;
  }
  char *mine = static_cast<char *>(c->controlBuffer);
  char *everyone = mine + each;
  if (cudaError_t error =
          cudaMemcpyAsync(mine, send, each, cudaMemcpyHostToDevice, c->control))
    return cudaFailure(c, error, what);
  ncclResult_t rc =
      ncclAllGather(mine, everyone, each, ncclUint8, c->nccl, c->control);
  AMP_RETURN_IF_ERROR(ncclSettle(c, rc, what));
  // Polled before the copy back, which would wait without a bound.
  AMP_RETURN_IF_ERROR(waitControl(c, what));
  if (cudaError_t error = cudaMemcpyAsync(receive, everyone, each * c->size,
                                          cudaMemcpyDeviceToHost, c->control))
    return cudaFailure(c, error, what);
  if (cudaError_t error = cudaStreamSynchronize(c->control))
    return cudaFailure(c, error, what);
  return nullptr;
}

/// The communicator's device memory, at least `bytes` of `backend`'s.
/// Grown rarely: the first step, or a larger bucket. Allocating waits for
/// the device, as cudaMalloc does.
amp_status_t growDeviceStaging(amp_comm_t *comm, amprt::Backend *backend,
                               size_t bytes) {
  if (comm->deviceStagingBytes >= bytes && comm->stagingBackend == backend)
    return nullptr;
  if (comm->deviceStaging)
    comm->stagingBackend->free(comm->deviceStaging);
  comm->deviceStaging = nullptr;
  comm->deviceStagingBytes = 0;
  AMP_RETURN_IF_ERROR(backend->allocate(bytes, &comm->deviceStaging));
  comm->stagingBackend = backend;
  comm->deviceStagingBytes = bytes;
  return nullptr;
}

/// Queues r.pieces' reduction (f32, on the stream's CUDA device) on the
/// communicator's side stream, after the work queued on the step's stream
/// so far: one NCCL group, each piece reduced in place, so that the step's
/// stream runs on while NCCL reduces. No host wait.
amp_status_t startOnDevice(amp_comm_t *comm, Reduction &r) {
  auto main = static_cast<cudaStream_t>(amprt::handleOf(r.stream));
  const char *what = "all-reduce (NCCL)";
  if (!comm->side) {
    if (cudaError_t error =
            cudaStreamCreateWithFlags(&comm->side, cudaStreamNonBlocking))
      return cudaFailure(comm, error, what);
  }
  cudaEvent_t ready = nullptr;
  if (cudaError_t error =
          cudaEventCreateWithFlags(&ready, cudaEventDisableTiming))
    return cudaFailure(comm, error, what);
  cudaError_t error = cudaEventRecord(ready, main);
  if (!error)
    error = cudaStreamWaitEvent(comm->side, ready, 0);
  // Released once the wait, already queued, has passed it.
  cudaEventDestroy(ready);
  if (error)
    return cudaFailure(comm, error, what);
  // NCCL sums in its own order (a ring or a tree), the same bits on every
  // rank but not the rank-order fold of the MPI path.
  ncclResult_t rc = ncclGroupStart();
  for (const Piece &piece : r.pieces)
    if (rc == ncclSuccess || rc == ncclInProgress)
      rc = ncclAllReduce(piece.data, piece.data, piece.bytes / sizeof(float),
                         ncclFloat32,
                         r.rawOp == AMP_REDUCE_SUM ? ncclSum : ncclMax,
                         comm->nccl, comm->side);
  ncclResult_t ended = ncclGroupEnd();
  if (rc == ncclSuccess || rc == ncclInProgress)
    rc = ended;
  AMP_RETURN_IF_ERROR(ncclSettle(comm, rc, what));
  if (cudaError_t error =
          cudaEventCreateWithFlags(&r.done, cudaEventDisableTiming))
    return cudaFailure(comm, error, what);
  if (cudaError_t error = cudaEventRecord(r.done, comm->side))
    return cudaFailure(comm, error, what);
  return nullptr;
}

/// Makes the step's stream wait, on the device, for r's reduction.
amp_status_t finishOnDevice(amp_comm_t *comm, Reduction &r) {
  auto main = static_cast<cudaStream_t>(amprt::handleOf(r.stream));
  cudaError_t error = cudaStreamWaitEvent(main, r.done, 0);
  cudaEventDestroy(r.done);
  r.done = nullptr;
  if (error)
    return cudaFailure(comm, error, "all-reduce (NCCL)");
  return nullptr;
}
#endif

/// The reduction of the replicas' hooks (replicas.h): f32 tensors as one
/// collective, with NCCL on a CUDA stream's device.
amp_status_t reductionOf(amp_comm_t *comm, amp_stream_t *stream,
                         amp_tensor_list_t tensors, amp_reduce_op_t op,
                         std::unique_ptr<Reduction> *out) {
  AMP_RETURN_IF_ERROR(checkUsable(comm));
  auto r = std::make_unique<Reduction>();
  r->stream = stream;
  r->rawOp = amprt::rawEnum(op);
  for (size_t t = 0; t < tensors.count; ++t) {
    if (tensors.sizes[t] == 0)
      continue;
    if (!tensors.data[t])
      return AMP_STATUS(AMP_INVALID_ARGUMENT, "tensor %zu is null", t);
    r->pieces.push_back({tensors.data[t], tensors.sizes[t] * sizeof(float)});
    r->count += static_cast<int64_t>(tensors.sizes[t]);
  }
  if (!amprt::bytesFit({r->count, comm->size}))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "%lld values do not fit in memory once per rank",
                      static_cast<long long>(r->count));
#ifdef AMP_COMM_HAS_NCCL
  r->onDevice = comm->nccl && !r->pieces.empty() &&
                amprt::backendOf(stream)->kind() == AMP_DEVICE_CUDA;
#endif
  *out = std::move(r);
  return nullptr;
}

/// The replicas' all-reduce hook: started and finished.
amp_status_t allReduceTensors(void *context, amp_stream_t *stream,
                              amp_tensor_list_t tensors, amp_reduce_op_t op) {
  auto *comm = static_cast<amp_comm_t *>(context);
  std::unique_ptr<Reduction> r;
  AMP_RETURN_IF_ERROR(reductionOf(comm, stream, tensors, op, &r));
  int64_t ticket = 0;
  AMP_RETURN_IF_ERROR(startInFlight(comm, std::move(r), &ticket));
  return finishInFlight(comm, ticket);
}

/// The replicas' hook that starts an all-reduce and returns.
amp_status_t allReduceStart(void *context, amp_stream_t *stream,
                            amp_tensor_list_t tensors, amp_reduce_op_t op,
                            int64_t *ticket) {
  auto *comm = static_cast<amp_comm_t *>(context);
  std::unique_ptr<Reduction> r;
  AMP_RETURN_IF_ERROR(reductionOf(comm, stream, tensors, op, &r));
  return startInFlight(comm, std::move(r), ticket);
}

/// The replicas' hook that finishes the all-reduces started up to `ticket`.
amp_status_t allReduceWait(void *context, amp_stream_t *stream,
                           int64_t ticket) {
  return finishInFlight(static_cast<amp_comm_t *>(context), ticket);
}

/// The replicas' all-gather hook (replicas.h): the bucket's parts packed
/// into one buffer, gathered as one collective, and unpacked into the
/// wholes rank by rank, each cut at its size. Over MPI through host
/// memory; with NCCL on a CUDA stream, on the device with no host wait.
amp_status_t allGatherTensors(void *context, amp_stream_t *stream,
                              amp_gather_list_t list) {
  auto *comm = static_cast<amp_comm_t *>(context);
  AMP_RETURN_IF_ERROR(checkUsable(comm));
  size_t total = 0;
  std::vector<size_t> partBytes(list.count);
  for (size_t i = 0; i < list.count; ++i) {
    if (!list.parts[i] || !list.wholes[i])
      return AMP_STATUS(AMP_INVALID_ARGUMENT, "tensor %zu is null", i);
    if (__builtin_mul_overflow(list.part_sizes[i], list.element_bytes[i],
                               &partBytes[i]) ||
        __builtin_add_overflow(total, partBytes[i], &total) ||
        total > static_cast<size_t>(INT64_MAX))
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "the bucket's parts do not fit in 64-bit byte counts");
  }
  if (!amprt::bytesFit({static_cast<int64_t>(total), comm->size + 1}))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "%zu bytes a rank do not fit in memory once per rank",
                      total);
  if (total == 0)
    return nullptr;
  amprt::Backend *backend = amprt::backendOf(stream);
  void *handle = amprt::handleOf(stream);
  const bool onHost = backend->kind() == AMP_DEVICE_HOST;
  // Rank q's part of tensor i, from `gathered` (q's packed parts at
  // q * total) into the whole, cut at its size.
  auto unpack = [&](const char *gathered, amprt::CopyKind kind) {
    for (int q = 0; q < comm->size; ++q) {
      size_t at = static_cast<size_t>(q) * total;
      for (size_t i = 0; i < list.count; ++i) {
        size_t begin = static_cast<size_t>(q) * list.part_sizes[i];
        if (begin < list.sizes[i]) {
          size_t count = std::min(list.part_sizes[i], list.sizes[i] - begin);
          AMP_RETURN_IF_ERROR(backend->copy(
              static_cast<char *>(list.wholes[i]) +
                  begin * list.element_bytes[i],
              gathered + at, count * list.element_bytes[i], kind, handle));
        }
        at += partBytes[i];
      }
    }
    return amp_status_t{};
  };
#ifdef AMP_COMM_HAS_NCCL
  if (comm->nccl && backend->kind() == AMP_DEVICE_CUDA) {
    // The packed parts, then every rank's, in the communicator's device
    // memory.
    AMP_RETURN_IF_ERROR(growDeviceStaging(
        comm, backend, total * (static_cast<size_t>(comm->size) + 1)));
    char *send = static_cast<char *>(comm->deviceStaging);
    char *receive = send + total;
    size_t at = 0;
    for (size_t i = 0; i < list.count; ++i) {
      AMP_RETURN_IF_ERROR(backend->copy(send + at, list.parts[i], partBytes[i],
                                        amprt::CopyKind::DeviceToDevice,
                                        handle));
      at += partBytes[i];
    }
    ncclResult_t rc = ncclAllGather(send, receive, total, ncclUint8, comm->nccl,
                                    static_cast<cudaStream_t>(handle));
    AMP_RETURN_IF_ERROR(ncclSettle(comm, rc, "all-gather (NCCL)"));
    return unpack(receive, amprt::CopyKind::DeviceToDevice);
  }
#endif
  AMP_RETURN_IF_ERROR(backend->synchronize(handle));
  comm->staging.resize(total);
  comm->gathered.resize(total * static_cast<size_t>(comm->size));
  auto toHost =
      onHost ? amprt::CopyKind::DeviceToDevice : amprt::CopyKind::DeviceToHost;
  size_t at = 0;
  for (size_t i = 0; i < list.count; ++i) {
    AMP_RETURN_IF_ERROR(backend->copy(comm->staging.data() + at, list.parts[i],
                                      partBytes[i], toHost, handle));
    at += partBytes[i];
  }
  AMP_RETURN_IF_ERROR(backend->synchronize(handle));
  // Every rank's size first, so that ranks that disagree say how.
  const int64_t mine = static_cast<int64_t>(total);
  comm->descriptors.resize(static_cast<size_t>(comm->size));
  AMP_RETURN_IF_ERROR(allGather(comm, &mine, comm->descriptors.data(),
                                sizeof mine, "all-gather"));
  for (int q = 0; q < comm->size; ++q)
    if (comm->descriptors[static_cast<size_t>(q)] != mine)
      return AMP_STATUS(
          AMP_INVALID_ARGUMENT,
          "all-gather on rank %d of %d: %lld bytes a rank "
          "here, %lld on rank %d",
          comm->rank, comm->size, static_cast<long long>(mine),
          static_cast<long long>(comm->descriptors[static_cast<size_t>(q)]), q);
  AMP_RETURN_IF_ERROR(allGather(comm, comm->staging.data(),
                                comm->gathered.data(), mine, "all-gather"));
  AMP_RETURN_IF_ERROR(
      unpack(comm->gathered.data(), onHost ? amprt::CopyKind::DeviceToDevice
                                           : amprt::CopyKind::HostToDevice));
  return backend->synchronize(handle);
}

/// Gathers two fingerprints from every rank; an error naming the first
/// rank whose `which` (0: program, 1: state) differs from rank 0's.
amp_status_t compareFingerprints(amp_comm_t *comm, amp_step_t *step,
                                 bool program) {
  uint64_t mine[2];
  AMP_RETURN_IF_ERROR(amp_step_fingerprint(step, &mine[0], &mine[1]));
  std::vector<uint64_t> all(2 * static_cast<size_t>(comm->size));
  AMP_RETURN_IF_ERROR(allGather(comm, mine, all.data(), sizeof mine,
                                "comparing the ranks' steps"));
  for (int r = 1; r < comm->size; ++r) {
    if (program && all[2 * r] != all[0])
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "rank %d runs another compiled step than rank 0 "
                        "(fingerprint %016llx, rank 0's %016llx): give "
                        "every rank the same library",
                        r, static_cast<unsigned long long>(all[2 * r]),
                        static_cast<unsigned long long>(all[0]));
    if (all[2 * r + 1] != all[1])
      return AMP_STATUS(
          AMP_INVALID_ARGUMENT,
          "rank %d holds another state than rank 0 (parameters, optimizer "
          "and scaler state, counters; fingerprint %016llx, rank 0's "
          "%016llx): start every rank from the same seed or state file",
          r, static_cast<unsigned long long>(all[2 * r + 1]),
          static_cast<unsigned long long>(all[1]));
  }
  return nullptr;
}

} // namespace

extern "C" {

int amp_comm_available(void) { return 1; }

int amp_comm_nccl_available(void) {
#ifdef AMP_COMM_HAS_NCCL
  return 1;
#else
  return 0;
#endif
}

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
  // The request `wait` kept, which a reduction below may also hold.
  const MPI_Request timedOut = comm->pending;
  if (comm->pending != MPI_REQUEST_NULL) {
    // The collective that timed out may still complete (a late rank);
    // until it has, MPI may write the buffers.
    amp_status_t late = wait(comm, &comm->pending, "the late collective");
    if (late) {
      amp_status_free(late);
      return; // left as it is until the process ends
    }
  }
  // Reductions a failed step left under way: MPI may still write their
  // memory until they complete.
  for (std::unique_ptr<Reduction> &r : comm->inFlight) {
    if (r->request == MPI_REQUEST_NULL || r->request == timedOut)
      continue;
    if (amp_status_t late =
            wait(comm, &r->request, "an unfinished all-reduce")) {
      amp_status_free(late);
      return;
    }
  }
#ifdef AMP_COMM_HAS_NCCL
  if (comm->nccl) {
    if (comm->broken)
      ncclCommAbort(comm->nccl);
    else
      ncclCommDestroy(comm->nccl);
  }
  if (comm->deviceStaging)
    comm->stagingBackend->free(comm->deviceStaging);
  // After a failure the device may still run what was queued; its memory
  // stays until the process ends.
  if (comm->controlBuffer && !comm->broken)
    cudaFree(comm->controlBuffer);
  if (comm->control)
    cudaStreamDestroy(comm->control);
  for (std::unique_ptr<Reduction> &r : comm->inFlight)
    if (r->done)
      cudaEventDestroy(r->done);
  if (comm->side)
    cudaStreamDestroy(comm->side);
  if (!comm->idFile.empty())
    ::unlink(comm->idFile.c_str());
#endif
  if (comm->comm != MPI_COMM_NULL)
    MPI_Comm_free(&comm->comm);
  bool finalize = comm->ownsMpi;
  delete comm;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalize && !finalized)
    MPI_Finalize();
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
  AMP_RETURN_IF_ERROR(checkUsable(comm));
  std::vector<Piece> pieces;
  if (count > 0)
    pieces.push_back(
        {data, static_cast<size_t>(count) *
                   amprt::dtypeSize(static_cast<amp_dtype_t>(rawDtype))});
  return reducePieces(comm, stream, pieces, count, rawDtype, rawOp);
}

amp_status_t amp_comm_create_nccl(const void *mpi_comm, double timeout_seconds,
                                  amp_comm_t **out) {
#ifndef AMP_COMM_HAS_NCCL
  (void)mpi_comm;
  (void)timeout_seconds;
  if (out)
    *out = nullptr;
  return AMP_STATUS(AMP_UNAVAILABLE,
                    "this build of the runtime has no NCCL (build it with "
                    "CUDA where the toolkit has NCCL)");
#else
  AMP_RETURN_IF_ERROR(amp_comm_create_mpi(mpi_comm, timeout_seconds, out));
  amp_comm_t *comm = *out;
  auto fail = [&](amp_status_t status) {
    amp_comm_destroy(comm);
    *out = nullptr;
    return status;
  };
  // Rank 0's unique id, to every rank over MPI, with whether it could make
  // one and whether each rank has a GPU: a rank that cannot go on fails
  // every rank, so that none waits for it.
  struct Offer {
    ncclUniqueId id;
    ncclResult_t made;
    int32_t hasGpu;
  } offer{};
  offer.hasGpu = amp_device_available(AMP_DEVICE_CUDA);
  if (comm->rank == 0 && offer.hasGpu)
    offer.made = ncclGetUniqueId(&offer.id);
  std::vector<Offer> offers(static_cast<size_t>(comm->size));
  if (amp_status_t status = allGather(comm, &offer, offers.data(), sizeof offer,
                                      "sending NCCL's unique id"))
    return fail(status);
  for (int r = 0; r < comm->size; ++r)
    if (!offers[r].hasGpu)
      return fail(AMP_STATUS(AMP_UNAVAILABLE,
                             "NCCL on rank %d of %d: rank %d has no CUDA "
                             "device; NCCL needs a GPU on every rank",
                             comm->rank, comm->size, r));
  if (offers[0].made != ncclSuccess)
    return fail(ncclError(comm, offers[0].made, "ncclGetUniqueId on rank 0"));
  // Non-blocking, so that a rank that never comes cannot hold the others
  // past the timeout.
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclResult_t rc = ncclCommInitRankConfig(&comm->nccl, comm->size,
                                           offers[0].id, comm->rank, &config);
  if (rc != ncclSuccess && rc != ncclInProgress)
    return fail(ncclError(comm, rc, "ncclCommInitRankConfig"));
  if (amp_status_t status = ncclSettle(comm, rc, "ncclCommInitRankConfig"))
    return fail(status);
  return nullptr;
#endif
}

amp_status_t amp_comm_create_env(double timeout_seconds, amp_comm_t **out) {
  if (!out)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "out is null");
  *out = nullptr;
  if (!(timeout_seconds > 0))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the timeout must be positive seconds, got %g",
                      timeout_seconds);
  amprt::Launch launch;
  AMP_RETURN_IF_ERROR(amprt::readLaunch(&launch));
#ifndef AMP_COMM_HAS_NCCL
  return AMP_STATUS(AMP_UNAVAILABLE,
                    "rank %d of %d: a launch without MPI reduces through "
                    "NCCL, and this build of the runtime has no NCCL (build "
                    "it with CUDA where the toolkit has NCCL); start host "
                    "steps with mpirun",
                    launch.rank, launch.size);
#else
  // Before the id, so that a rank without a GPU fails at once and rank 0
  // writes no file that nobody would remove.
  if (!amp_device_available(AMP_DEVICE_CUDA))
    return AMP_STATUS(AMP_UNAVAILABLE,
                      "NCCL on rank %d of %d: this rank has no CUDA device; a "
                      "launch without MPI reduces through NCCL, which needs a "
                      "GPU on every rank (start host steps with mpirun)",
                      launch.rank, launch.size);
  auto comm = std::make_unique<amp_comm_s>();
  comm->rank = launch.rank;
  comm->size = launch.size;
  comm->timeout = timeout_seconds;
  // NCCL's unique id: made by rank 0 and sent through the file, or made
  // by every rank from the bootstrap address, where rank 0 listens.
  ncclUniqueId id{};
  if (!launch.address.empty()) {
    if (setenv("NCCL_COMM_ID", launch.address.c_str(), /*overwrite=*/1) != 0)
      return AMP_STATUS(AMP_UNAVAILABLE, "cannot set NCCL_COMM_ID");
    if (ncclResult_t rc = ncclGetUniqueId(&id))
      return ncclError(comm.get(), rc, "ncclGetUniqueId");
  } else if (launch.rank == 0) {
    if (ncclResult_t rc = ncclGetUniqueId(&id))
      return ncclError(comm.get(), rc, "ncclGetUniqueId");
    AMP_RETURN_IF_ERROR(
        amprt::publishId(launch.idFile, &id, sizeof id, launch.size));
    // Removed by amp_comm_destroy, from here on on every way out.
    comm->idFile = launch.idFile;
  } else {
    AMP_RETURN_IF_ERROR(amprt::awaitId(launch.idFile, &id, sizeof id,
                                       launch.size, timeout_seconds));
  }
  auto fail = [&](amp_status_t status) {
    amp_comm_destroy(comm.release());
    return status;
  };
  if (cudaError_t error =
          cudaStreamCreateWithFlags(&comm->control, cudaStreamNonBlocking))
    return fail(cudaFailure(comm.get(), error, "creating a CUDA stream"));
  // Non-blocking, so that a rank that never comes cannot hold the others
  // past the timeout.
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclResult_t rc =
      ncclCommInitRankConfig(&comm->nccl, comm->size, id, comm->rank, &config);
  if (rc != ncclSuccess && rc != ncclInProgress)
    return fail(ncclError(comm.get(), rc, "ncclCommInitRankConfig"));
  if (amp_status_t status =
          ncclSettle(comm.get(), rc, "ncclCommInitRankConfig"))
    return fail(status);
  // Every rank has reached rank 0's bootstrap, so has read the file.
  if (!comm->idFile.empty()) {
    ::unlink(comm->idFile.c_str());
    comm->idFile.clear();
  }
  *out = comm.release();
  return nullptr;
#endif
}

amp_status_t amp_comm_create_world(amp_comm_transport_t transport,
                                   double timeout_seconds, amp_comm_t **out) {
  if (!out)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "out is null");
  *out = nullptr;
  int rawTransport = amprt::rawEnum(transport);
  if (rawTransport != AMP_COMM_MPI && rawTransport != AMP_COMM_NCCL)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "unknown transport %d",
                      rawTransport);
  int initialized = 0;
  MPI_Initialized(&initialized);
  bool initializing = !initialized;
  if (initializing) {
    int provided = 0;
    int rc =
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    if (rc != MPI_SUCCESS)
      return AMP_STATUS(AMP_UNAVAILABLE, "MPI_Init_thread: %s",
                        mpiError(rc).c_str());
  }
  MPI_Comm world = MPI_COMM_WORLD;
  amp_status_t status = rawTransport == AMP_COMM_NCCL
                            ? amp_comm_create_nccl(&world, timeout_seconds, out)
                            : amp_comm_create_mpi(&world, timeout_seconds, out);
  if (status) {
    if (initializing)
      MPI_Finalize();
    return status;
  }
  (*out)->ownsMpi = initializing;
  return nullptr;
}

amp_status_t amp_comm_replicas(amp_comm_t *comm, amp_replicas_t *out) {
  if (!comm || !out)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "the communicator or out is null");
  *out = amp_replicas_t{comm,
                        comm->rank,
                        comm->size,
                        allReduceTensors,
                        allGatherTensors,
                        allReduceStart,
                        allReduceWait};
  return nullptr;
}

amp_status_t amp_step_set_comm(amp_step_t *step, amp_comm_t *comm) {
  if (!step || !comm)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "the step or communicator is null");
  AMP_RETURN_IF_ERROR(checkUsable(comm));
  // Every rank reaches the comparison, so that none waits for a rank that
  // has refused on its own.
  AMP_RETURN_IF_ERROR(compareFingerprints(comm, step, /*program=*/true));
  amp_replicas_t replicas;
  AMP_RETURN_IF_ERROR(amp_comm_replicas(comm, &replicas));
  return amp_step_set_replicas(step, &replicas);
}

amp_status_t amp_comm_check_state(amp_comm_t *comm, amp_step_t *step) {
  if (!step || !comm)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "the step or communicator is null");
  AMP_RETURN_IF_ERROR(checkUsable(comm));
  return compareFingerprints(comm, step, /*program=*/false);
}

} // extern "C"
