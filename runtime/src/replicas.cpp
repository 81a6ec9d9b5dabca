//===- replicas.cpp - amp.all_reduce and amp.replica_count ----------------===//
//
// What a generated data-parallel step calls: the number of replicas and the
// reduction over them, through the hooks the step's stream carries
// (replicas.h). The hooks do the collective; here the calls are checked and
// `when` is read.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/replicas.h"

#include "runtime_internal.h"
#include "status.h"

namespace {

/// Whether a collective with the flag `when` (one byte in device memory,
/// or null: always) runs. The flag is a value of the step; the step's
/// runtime counts the micro-batches too (stream->updates), so that a
/// transport on the device (NCCL) waits for nothing. On the host, where
/// reading it costs nothing, the two are compared. Without the count the
/// flag is read, a wait that a transport through host memory makes anyway.
amp_status_t readWhen(amp_stream_t *stream, const uint8_t *when, bool *runs) {
  *runs = true;
  if (!when)
    return nullptr;
  amprt::Backend *backend = amprt::backendOf(stream);
  const bool onHost = backend->kind() == AMP_DEVICE_HOST;
  uint8_t flag = 0;
  if (stream->updates < 0 || onHost) {
    void *handle = amprt::handleOf(stream);
    AMP_RETURN_IF_ERROR(backend->copy(&flag, when, sizeof flag,
                                      amprt::CopyKind::DeviceToHost, handle));
    AMP_RETURN_IF_ERROR(backend->synchronize(handle));
  }
  if (stream->updates >= 0) {
    if (onHost && flag != stream->updates)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "the step's update flag (%u) is not the one its "
                        "micro-batch count gives (%d): the counter's state "
                        "and the runtime's count disagree",
                        flag, stream->updates);
    flag = static_cast<uint8_t>(stream->updates);
  }
  *runs = flag != 0;
  return nullptr;
}

/// Checks amp.all_reduce's arguments and says whether it reduces: with
/// replicas, where `when` holds. `op` is read as its raw value (a caller may
/// pass any int; loading it as the enum would be undefined).
amp_status_t checkReduction(amp_stream_t *stream, amp_tensor_list_t tensors,
                            const amp_reduce_op_t &op, const uint8_t *when,
                            bool *runs) {
  *runs = false;
  if (!stream)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "stream is null");
  int rawOp = amprt::rawEnum(op);
  if (rawOp != AMP_REDUCE_SUM && rawOp != AMP_REDUCE_MAX)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "unknown reduction %d", rawOp);
  if (tensors.count && (!tensors.data || !tensors.sizes))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "the tensor list is null");
  if (!stream->replicas.all_reduce)
    return nullptr; // one replica: its values are the reduction
  bool reduces = true;
  AMP_RETURN_IF_ERROR(readWhen(stream, when, &reduces));
  *runs = reduces;
  return nullptr;
}

} // namespace

extern "C" {

int32_t amp_replica_count(amp_stream_t *stream) {
  return stream && stream->replicas.all_reduce ? stream->replicas.count : 1;
}

int32_t amp_replica_rank(amp_stream_t *stream) {
  return stream && stream->replicas.all_reduce ? stream->replicas.rank : 0;
}

amp_status_t amp_replica_all_gather(amp_stream_t *stream,
                                    amp_gather_list_t list, int64_t replicas,
                                    const uint8_t *when) {
  if (!stream)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "stream is null");
  if (list.count && (!list.parts || !list.wholes || !list.part_sizes ||
                     !list.sizes || !list.element_bytes))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "the gather list is null");
  for (size_t i = 0; i < list.count; ++i)
    if (replicas < 1 ||
        list.part_sizes[i] !=
            list.sizes[i] / static_cast<size_t>(replicas) +
                (list.sizes[i] % static_cast<size_t>(replicas) != 0))
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "tensor %zu of the bucket: a part of %zu elements "
                        "is not the part of %zu elements over %lld replicas",
                        i, list.part_sizes[i], list.sizes[i],
                        static_cast<long long>(replicas));
  const amp_replicas_t &joined = stream->replicas;
  int32_t count = amp_replica_count(stream);
  if (count != replicas)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the step shards its optimizer state over %lld "
                      "replicas (zero-stage=1 replicas=%lld) and runs on %d",
                      static_cast<long long>(replicas),
                      static_cast<long long>(replicas), count);
  bool runs = true;
  AMP_RETURN_IF_ERROR(readWhen(stream, when, &runs));
  if (!runs)
    return nullptr;
  if (joined.all_reduce) {
    if (!joined.all_gather)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "the step's replicas have no all-gather");
    return joined.all_gather(joined.context, stream, list);
  }
  // One replica: each part is its whole.
  amprt::Backend *backend = amprt::backendOf(stream);
  void *handle = amprt::handleOf(stream);
  for (size_t i = 0; i < list.count; ++i)
    if (list.wholes[i] != list.parts[i])
      AMP_RETURN_IF_ERROR(backend->copy(
          list.wholes[i], list.parts[i], list.sizes[i] * list.element_bytes[i],
          amprt::CopyKind::DeviceToDevice, handle));
  return nullptr;
}

amp_status_t amp_replica_all_reduce(amp_stream_t *stream,
                                    amp_tensor_list_t tensors,
                                    amp_reduce_op_t op, const uint8_t *when) {
  bool runs = false;
  AMP_RETURN_IF_ERROR(checkReduction(stream, tensors, op, when, &runs));
  if (!runs)
    return nullptr;
  const amp_replicas_t &replicas = stream->replicas;
  return replicas.all_reduce(replicas.context, stream, tensors, op);
}

amp_status_t amp_replica_all_reduce_start(amp_stream_t *stream,
                                          amp_tensor_list_t tensors,
                                          amp_reduce_op_t op,
                                          const uint8_t *when,
                                          int64_t *ticket) {
  if (!ticket)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "ticket is null");
  *ticket = 0;
  bool runs = false;
  AMP_RETURN_IF_ERROR(checkReduction(stream, tensors, op, when, &runs));
  if (!runs)
    return nullptr;
  const amp_replicas_t &replicas = stream->replicas;
  if (!replicas.all_reduce_start || !replicas.all_reduce_wait)
    return replicas.all_reduce(replicas.context, stream, tensors, op);
  AMP_RETURN_IF_ERROR(
      replicas.all_reduce_start(replicas.context, stream, tensors, op, ticket));
  if (*ticket <= 0)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the replicas' all_reduce_start gave ticket %lld; "
                      "tickets are positive",
                      static_cast<long long>(*ticket));
  return nullptr;
}

amp_status_t amp_replica_all_reduce_wait(amp_stream_t *stream, int64_t ticket) {
  if (!stream)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "stream is null");
  if (ticket <= 0)
    return nullptr;
  const amp_replicas_t &replicas = stream->replicas;
  if (!replicas.all_reduce_wait)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "ticket %lld, but the stream's replicas start no "
                      "all-reduce",
                      static_cast<long long>(ticket));
  return replicas.all_reduce_wait(replicas.context, stream, ticket);
}

} // extern "C"
