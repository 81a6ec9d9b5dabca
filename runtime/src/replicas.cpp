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

extern "C" {

int32_t amp_replica_count(amp_stream_t *stream) {
  return stream && stream->replicas.all_reduce ? stream->replicas.count : 1;
}

amp_status_t amp_replica_all_reduce(amp_stream_t *stream,
                                    amp_tensor_list_t tensors,
                                    amp_reduce_op_t op, const uint8_t *when) {
  if (!stream)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "stream is null");
  int rawOp = amprt::rawEnum(op);
  if (rawOp != AMP_REDUCE_SUM && rawOp != AMP_REDUCE_MAX)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "unknown reduction %d", rawOp);
  if (tensors.count && (!tensors.data || !tensors.sizes))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "the tensor list is null");
  const amp_replicas_t &replicas = stream->replicas;
  if (!replicas.all_reduce)
    return nullptr; // one replica: its values are the reduction
  if (when) {
    // The flag is a value of the step, in device memory; the collective
    // waits for the stream anyway (a transport through host memory), so
    // reading it adds no wait that the reduction does not make.
    uint8_t flag = 0;
    amprt::Backend *backend = amprt::backendOf(stream);
    void *handle = amprt::handleOf(stream);
    AMP_RETURN_IF_ERROR(backend->copy(&flag, when, sizeof flag,
                                      amprt::CopyKind::DeviceToHost, handle));
    AMP_RETURN_IF_ERROR(backend->synchronize(handle));
    if (!flag)
      return nullptr;
  }
  return replicas.all_reduce(replicas.context, stream, tensors, op);
}

} // extern "C"
