//===- step.cpp - running an ahead-of-time compiled training step ---------===//

#include "amp_runtime/step.h"

#include "amp_runtime/edit_distance.h"
#include "amp_runtime/float_formats.h"
#include "amp_runtime/hyperparameters.h"
#include "amp_runtime/random.h"
#include "amp_runtime/state_file.h"
#include "runtime_internal.h"
#include "status.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <sys/stat.h>

namespace {

// The element type fields of descriptions and batches come from C, where
// they may hold any int; loading such a value as the enum is undefined in
// C++. These read the field's bytes (by reference) instead.
size_t elementSize(const amp_element_type_t &type) {
  switch (amprt::rawEnum(type)) {
  case AMP_ELEMENT_F32:
  case AMP_ELEMENT_I32:
    return 4;
  case AMP_ELEMENT_F16:
  case AMP_ELEMENT_BF16:
    return 2;
  case AMP_ELEMENT_F64:
  case AMP_ELEMENT_I64:
    return 8;
  case AMP_ELEMENT_I1:
    return 1;
  }
  return 0;
}

const char *elementName(const amp_element_type_t &type) {
  static const char *const names[] = {"f32", "f16", "bf16", "f64",
                                      "i32", "i64", "i1"};
  int raw = amprt::rawEnum(type);
  return raw >= 0 && raw < 7 ? names[raw] : "?";
}

/// Frees a buffer when it goes out of scope.
struct BufferDeleter {
  void operator()(amp_buffer_t *buffer) const { amp_buffer_release(buffer); }
};
using BufferPtr = std::unique_ptr<amp_buffer_t, BufferDeleter>;

/// The small values every step writes besides its tensors.
struct Results {
  float loss;
  float foundInf;
  double counters[2]; // steps, skipped steps
};

int64_t elementCount(const amp_step_tensor_t &tensor) {
  int64_t count = 1;
  for (int32_t d = 0; d < tensor.rank; ++d)
    count *= tensor.shape[d];
  return count;
}

size_t byteSize(const amp_step_tensor_t &tensor) {
  return static_cast<size_t>(elementCount(tensor)) *
         amp_element_size(tensor.type);
}

/// Whether the element count and the byte size of `tensor` (a valid rank,
/// non-negative dimensions) fit in int64: amp_step_create refuses any
/// other, so elementCount and byteSize never wrap around.
bool sizeFits(const amp_step_tensor_t &tensor) {
  int64_t count = 1;
  for (int32_t d = 0; d < tensor.rank; ++d)
    if (__builtin_mul_overflow(count, tensor.shape[d], &count))
      return false;
  int64_t bytes = 0;
  return !__builtin_mul_overflow(
      count, static_cast<int64_t>(amp_element_size(tensor.type)), &bytes);
}

std::string shapeString(int32_t rank, const int64_t *shape) {
  std::string text = "[";
  for (int32_t d = 0; d < rank; ++d) {
    if (d)
      text += ", ";
    text += std::to_string(shape[d]);
  }
  return text + "]";
}

/// The position of element `flat` of a tensor of shape `shape`: "[2, 5]".
std::string positionString(int32_t rank, const int64_t *shape, int64_t flat) {
  std::vector<int64_t> position(static_cast<size_t>(rank));
  for (int32_t d = rank - 1; d >= 0; --d) {
    position[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  return shapeString(rank, position.data());
}

/// Element `i` of `data`, integers of `type` (i32 or i64).
int64_t loadInteger(amp_element_type_t type, const void *data, int64_t i) {
  return type == AMP_ELEMENT_I64 ? static_cast<const int64_t *>(data)[i]
                                 : static_cast<const int32_t *>(data)[i];
}

/// The first of the `count` integers of `data` (of `type`) outside the
/// range of `check`, or -1.
int64_t firstOutOfRange(amp_element_type_t type,
                        const amp_step_index_check_t &check, const void *data,
                        int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    int64_t value = loadInteger(type, data, i);
    if ((value < 0 || value >= check.bound) &&
        !(check.has_ignored && value == check.ignored))
      return i;
  }
  return -1;
}

/// Checks that every element of `data`, the batch input `t`, lies in the
/// range of `check`; names the first that does not.
amp_status_t checkIndices(const amp_step_tensor_t &t,
                          const amp_step_index_check_t &check, const void *data,
                          const char *what) {
  int64_t i = firstOutOfRange(t.type, check, data, elementCount(t));
  if (i < 0)
    return nullptr;
  return AMP_STATUS(AMP_INVALID_ARGUMENT,
                    "input '%s' holds %lld at %s, outside [0, %lld): %s; "
                    "the %s did not run",
                    t.name,
                    static_cast<long long>(loadInteger(t.type, data, i)),
                    positionString(t.rank, t.shape, i).c_str(),
                    static_cast<long long>(check.bound),
                    check.reader ? check.reader : "an index", what);
}

/// Checks `inputs` against the batch inputs (AMP_STEP_INPUT) among
/// `tensors` and their index checks, those of the `what` ("step",
/// "evaluation") of step `name`: the count, each type and shape, then
/// every index.
amp_status_t checkBatch(const char *name, const char *what, size_t tensorCount,
                        const amp_step_tensor_t *tensors, size_t checkCount,
                        const amp_step_index_check_t *checks,
                        size_t input_count, const amp_step_input_t *inputs) {
  size_t expected = 0;
  for (size_t i = 0; i < tensorCount; ++i)
    expected += tensors[i].kind == AMP_STEP_INPUT;
  if (input_count != expected)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the %s of '%s' takes %zu batch inputs, not %zu", what,
                      name, expected, input_count);
  if (expected && !inputs)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "inputs is null");
  // Check every input before copying any.
  for (size_t i = 0, n = 0; i < tensorCount; ++i) {
    const amp_step_tensor_t &t = tensors[i];
    if (t.kind != AMP_STEP_INPUT)
      continue;
    const amp_step_input_t &in = inputs[n++];
    bool sameShape = in.rank == t.rank && (t.rank == 0 || in.shape);
    for (int32_t k = 0; sameShape && k < t.rank; ++k)
      sameShape = in.shape[k] == t.shape[k];
    if (amprt::rawEnum(in.type) != amprt::rawEnum(t.type) || !sameShape)
      return AMP_STATUS(
          AMP_INVALID_ARGUMENT, "input %zu ('%s') must be %s x %s; got %s x %s",
          n - 1, t.name, shapeString(t.rank, t.shape).c_str(),
          amp_element_type_name(t.type),
          in.rank >= 0 && in.rank <= AMP_STEP_MAX_RANK && (in.shape || !in.rank)
              ? shapeString(in.rank, in.shape).c_str()
              : "a bad shape",
          elementName(in.type));
    if (!in.data && byteSize(t))
      return AMP_STATUS(AMP_INVALID_ARGUMENT, "input %zu ('%s') has no data",
                        n - 1, t.name);
  }
  // Ids and labels on the host, where the batch is: a bad one stops the
  // step before any of it is copied, and no device work waits for it.
  for (size_t c = 0; c < checkCount; ++c) {
    const amp_step_index_check_t &check = checks[c];
    size_t n = 0;
    for (size_t i = 0; i < check.tensor; ++i)
      n += tensors[i].kind == AMP_STEP_INPUT;
    AMP_RETURN_IF_ERROR(
        checkIndices(tensors[check.tensor], check, inputs[n].data, what));
  }
  return nullptr;
}

/// Stores `value` as element `i` of `data` of a floating-point `type`.
void storeFloat(amp_element_type_t type, void *data, int64_t i, double value) {
  switch (type) {
  case AMP_ELEMENT_F32:
    static_cast<float *>(data)[i] = static_cast<float>(value);
    return;
  case AMP_ELEMENT_F64:
    static_cast<double *>(data)[i] = value;
    return;
  case AMP_ELEMENT_F16:
    static_cast<uint16_t *>(data)[i] = amprt::doubleToHalfBits(value);
    return;
  case AMP_ELEMENT_BF16:
    static_cast<uint16_t *>(data)[i] = amprt::doubleToBFloat16Bits(value);
    return;
  case AMP_ELEMENT_I32:
    static_cast<int32_t *>(data)[i] = static_cast<int32_t>(value);
    return;
  case AMP_ELEMENT_I64:
    static_cast<int64_t *>(data)[i] = static_cast<int64_t>(value);
    return;
  case AMP_ELEMENT_I1:
    static_cast<uint8_t *>(data)[i] = value != 0;
    return;
  }
}

/// Whether `type` is a floating-point element type.
bool isFloat(amp_element_type_t type) {
  return type == AMP_ELEMENT_F32 || type == AMP_ELEMENT_F64 ||
         type == AMP_ELEMENT_F16 || type == AMP_ELEMENT_BF16;
}

/// Element `i` of `data` of a floating-point `type`, widened to a double.
double loadFloat(amp_element_type_t type, const void *data, int64_t i) {
  switch (type) {
  case AMP_ELEMENT_F32:
    return static_cast<const float *>(data)[i];
  case AMP_ELEMENT_F64:
    return static_cast<const double *>(data)[i];
  case AMP_ELEMENT_F16:
    return amprt::halfBitsToDouble(static_cast<const uint16_t *>(data)[i]);
  case AMP_ELEMENT_BF16:
    return amprt::bfloat16BitsToDouble(static_cast<const uint16_t *>(data)[i]);
  default:
    return 0;
  }
}

/// The first of the `count` elements of `data` (of a floating-point
/// `type`) that is not finite, or -1.
int64_t firstNonFinite(amp_element_type_t type, const void *data,
                       int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    if (!std::isfinite(loadFloat(type, data, i)))
      return i;
  return -1;
}

/// The .npy descr of `type`; bf16 travels as raw 16-bit words.
const char *npyDescr(amp_element_type_t type) {
  switch (type) {
  case AMP_ELEMENT_F32:
    return "<f4";
  case AMP_ELEMENT_F16:
    return "<f2";
  case AMP_ELEMENT_BF16:
    return "<u2";
  case AMP_ELEMENT_F64:
    return "<f8";
  case AMP_ELEMENT_I32:
    return "<i4";
  case AMP_ELEMENT_I64:
    return "<i8";
  case AMP_ELEMENT_I1:
    return "|b1";
  }
  return "?";
}

/// The .npy shape of `t`: "(3,)" for rank 1, "(2, 3)" otherwise.
std::string npyShape(const amp_step_tensor_t &t) {
  std::string shape = "(";
  for (int32_t d = 0; d < t.rank; ++d)
    shape += std::to_string(t.shape[d]) + (t.rank == 1      ? ","
                                           : d + 1 < t.rank ? ", "
                                                            : "");
  return shape + ")";
}

/// The value of `key` in a .npy header dictionary, up to the next comma at
/// depth 0 (or the closing brace).
std::string headerValue(const std::string &header, const char *key) {
  std::string quoted = std::string("'") + key + "'";
  size_t at = header.find(quoted);
  // A key given twice is malformed (numpy would take the last, a reader
  // that stops at the first another value).
  if (at == std::string::npos ||
      header.find(quoted, at + quoted.size()) != std::string::npos)
    return "";
  at = header.find(':', at + quoted.size());
  if (at == std::string::npos)
    return "";
  size_t end = at + 1;
  int depth = 0;
  for (; end < header.size(); ++end) {
    char c = header[end];
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if ((c == ',' && depth == 0) || c == '}')
      break;
  }
  std::string value = header.substr(at + 1, end - at - 1);
  size_t first = value.find_first_not_of(" ");
  size_t last = value.find_last_not_of(" ");
  return first == std::string::npos ? ""
                                    : value.substr(first, last - first + 1);
}

} // namespace

namespace {
/// The memory of a step's evaluation (amp_eval_description_t): its batch
/// and outputs, and its arena; it reads the step's parameters.
struct Evaluation {
  const amp_eval_description_t *description = nullptr;
  std::vector<BufferPtr> buffers; // the batch inputs, then the outputs
  std::vector<void *> pointers;   // one per tensor of its table
  std::vector<void *> outputs;    // one per output
  std::vector<amp_buffer_t *> outputBuffers;
  BufferPtr arena;
  bool ran = false; // the outputs hold an evaluation's
};
} // namespace

struct amp_step_s {
  const amp_step_description_t *description = nullptr;
  amp_device_t *device = nullptr;
  amp_stream_t *stream = nullptr;
  std::vector<BufferPtr> tensors;
  std::vector<void *> pointers; // device pointers of `tensors`
  BufferPtr arena;
  BufferPtr results;            // a Results
  amp_graph_t *graph = nullptr; // amp_step_capture's, replayed by run
  // Where the backend has staging memory (CUDA: page-locked), each run
  // copies its batch there and from there to the device, so that the
  // copies do not hold the host; `staged` marks when they are done.
  void *staging = nullptr;
  void *staged = nullptr;
  // With description->eval, then one per description->other_evals.
  std::vector<std::unique_ptr<Evaluation>> evaluations;
  Evaluation *lastEvaluation = nullptr; // the one evaluated last, if any
  // A step with sharded optimizer state: the rank whose parts it holds
  // (amp_step_init or amp_step_load set them), or -1: none yet.
  int32_t partsRank = -1;
  // With gradient accumulation, the micro-batch counter's value as the
  // runtime counts it (description->micro_batch_tensor), or -1: to be read
  // from the device (after anything that may change it).
  int64_t microBatch = -1;
  ~amp_step_s() {
    if (stream) {
      amprt::Backend *backend = amprt::backendOf(stream);
      backend->freeStaging(staging);
      backend->destroyEvent(staged);
    }
    amp_graph_destroy(graph);
    evaluations.clear();
    tensors.clear();
    arena.reset();
    results.reset();
    amp_stream_destroy(stream);
    amp_device_destroy(device);
  }
};

const amp_replicas_t &amprt::replicasOf(const amp_step_t *step) {
  return step->stream->replicas;
}

size_t amprt::stepTensorBytes(const amp_step_tensor_t &tensor) {
  return byteSize(tensor);
}

namespace {

Results *resultsOf(amp_step_t *step) {
  return static_cast<Results *>(amp_buffer_data(step->results.get()));
}

/// Queues the step's launches on its stream (its batch already copied).
/// A run that stops early (an error) may leave reductions it started
/// under way: they are finished before the arena is touched again, and
/// the run's error is the one returned.
amp_status_t runOnce(amp_step_t *step) {
  Results *results = resultsOf(step);
  amp_status_t status = step->description->run(
      step->stream, step->pointers.data(), amp_buffer_data(step->arena.get()),
      &results->loss, &results->foundInf, results->counters);
  const amp_replicas_t &replicas = step->stream->replicas;
  if (!replicas.all_reduce_wait)
    return status;
  amp_status_t drained =
      replicas.all_reduce_wait(replicas.context, step->stream, INT64_MAX);
  if (!status)
    return drained;
  amp_status_free(drained);
  return status;
}

/// A sharded step's state changes as a whole: a low-precision weight is
/// gathered from its f32 master's parts (written alone, the next update
/// would undo it), and over several replicas each holds its own parts,
/// which only its state file has.
amp_status_t checkShardWrite(amp_step_t *step, size_t index) {
  const amp_step_description_t &d = *step->description;
  const amp_step_tensor_t &t = d.tensors[index];
  if (t.shard && d.zero_replicas > 1)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "tensor '%s' of step '%s' is one replica's part of the "
                      "optimizer state; load the state file each rank saved "
                      "(amp_step_load) instead",
                      t.name, d.name);
  for (size_t i = 0; i < d.tensor_count; ++i)
    if (d.tensors[i].shard == 2 && d.tensors[i].shard_of == index)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "parameter '%s' of step '%s' is gathered from its "
                        "f32 master '%s' after each update: written alone it "
                        "would be undone; load a state file instead",
                        t.name, d.name, d.tensors[i].name);
  return nullptr;
}

/// A step with sharded optimizer state runs on the replicas it was
/// compiled for, as the rank whose parts it holds: checked before any of
/// its kernels changes a part.
amp_status_t checkShardedRun(amp_step_t *step) {
  const amp_step_description_t &d = *step->description;
  if (!d.zero_replicas)
    return nullptr;
  int32_t count = amp_replica_count(step->stream);
  int32_t rank = amp_replica_rank(step->stream);
  if (count != d.zero_replicas)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "step '%s' shards its optimizer state over %d "
                      "replicas (zero-stage=1 replicas=%d) and runs on %d: "
                      "join them first (amp_step_set_comm)",
                      d.name, d.zero_replicas, d.zero_replicas, count);
  if (step->partsRank != rank)
    return AMP_STATUS(
        AMP_INVALID_ARGUMENT,
        "step '%s' holds %s; it runs as rank %d: initialise "
        "or load it after joining the replicas",
        d.name,
        step->partsRank < 0
            ? "no parts of the optimizer state yet"
            : ("the parts of rank " + std::to_string(step->partsRank)).c_str(),
        rank);
  return nullptr;
}

/// One run; a step joined to replicas with gradient accumulation first
/// tells the replicas' reductions whether the run updates
/// (amp_stream_s::updates), from the runtime's count of the micro-batches,
/// so that they need not read the step's flag from the device.
amp_status_t runCounted(amp_step_t *step) {
  const amp_step_description_t &d = *step->description;
  AMP_RETURN_IF_ERROR(checkShardedRun(step));
  if (d.accumulate < 2 || !step->stream->replicas.all_reduce)
    return runOnce(step);
  if (step->microBatch < 0) {
    float count = 0;
    AMP_RETURN_IF_ERROR(
        amp_buffer_read(step->tensors[d.micro_batch_tensor].get(), 0, &count,
                        sizeof count, step->stream));
    AMP_RETURN_IF_ERROR(amp_stream_synchronize(step->stream));
    step->microBatch = static_cast<int64_t>(count);
  }
  bool updates = step->microBatch + 1 >= d.accumulate;
  step->stream->updates = updates ? 1 : 0;
  amp_status_t status = runOnce(step);
  step->stream->updates = -1;
  step->microBatch = status ? -1 : updates ? 0 : step->microBatch + 1;
  return status;
}

amp_status_t checkIndex(const amp_step_t *step, size_t index) {
  if (!step)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "step is null");
  if (index >= step->description->tensor_count)
    return AMP_STATUS(AMP_OUT_OF_RANGE, "tensor %zu of a step with %zu", index,
                      step->description->tensor_count);
  return nullptr;
}

/// Checks that `size` bytes are all of tensor `t`.
amp_status_t checkByteSize(const amp_step_tensor_t &t, size_t size) {
  if (size == byteSize(t))
    return nullptr;
  return AMP_STATUS(AMP_INVALID_ARGUMENT,
                    "tensor '%s' (%s x %s) holds %zu bytes, not %zu", t.name,
                    shapeString(t.rank, t.shape).c_str(),
                    amp_element_type_name(t.type), byteSize(t), size);
}

/// Checks a copy of `size` bytes at `data` to or from all of tensor `index`.
amp_status_t checkTransfer(const amp_step_t *step, size_t index,
                           const void *data, size_t size) {
  AMP_RETURN_IF_ERROR(checkIndex(step, index));
  const amp_step_tensor_t &t = step->description->tensors[index];
  if (!data)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "data is null");
  return checkByteSize(t, size);
}

/// Checks the value a hyperparameter would take from `data` (host bytes of
/// tensor `t`, an f64) against its range; anything else passes.
amp_status_t checkHyperParameter(const amp_step_tensor_t &t, const void *data) {
  if (t.kind != AMP_STEP_HPARAM)
    return nullptr;
  double value;
  std::memcpy(&value, data, sizeof value);
  const amprt::HyperParameterRange *range = amprt::hyperParameterRange(t.name);
  if (range ? amprt::inRange(*range, value) : std::isfinite(value))
    return nullptr;
  return AMP_STATUS(AMP_INVALID_ARGUMENT,
                    "hyperparameter '%s' must lie in %s, not %.17g", t.name,
                    range ? range->words : "(-inf, inf)", value);
}

/// Checks the values tensor `index` of `step` would take from `data`
/// (host bytes of all of it), where no step could produce them: a
/// hyperparameter outside its range, a loss scale that is not finite and
/// positive, a counter of the optimizer or the scaler (torch.optim's and
/// GradScaler's names) that is no count, a negative second moment.
amp_status_t checkStateValues(const amp_step_t *step, size_t index,
                              const void *data) {
  const amp_step_tensor_t &t = step->description->tensors[index];
  AMP_RETURN_IF_ERROR(checkHyperParameter(t, data));
  if (t.kind != AMP_STEP_STATE || !isFloat(t.type))
    return nullptr;
  std::string name = t.name ? t.name : "";
  int64_t count = elementCount(t);
  if (static_cast<int64_t>(index) == step->description->loss_scale_tensor) {
    float scale;
    std::memcpy(&scale, data, sizeof scale);
    if (std::isfinite(scale) && scale > 0)
      return nullptr;
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the loss scale '%s' must be finite and positive, not "
                      "%g",
                      t.name, static_cast<double>(scale));
  }
  // The hysteresis tracker counts down, below 0 over a run of overflows;
  // the others count up from 0.
  bool countsDown = name == "hysteresis_tracker";
  bool counter = countsDown || name == "step" || name == "growth_tracker" ||
                 name == "micro_batch" || name == "micro_batch_found_inf";
  double least = countsDown ? -0x1p24 : 0;
  bool secondMoment = name.size() > 11 &&
                      name.compare(name.size() - 11, 11, ".exp_avg_sq") == 0;
  for (int64_t i = 0; (counter || secondMoment) && i < count; ++i) {
    double value = loadFloat(t.type, data, i);
    // f32 counts exactly up to 2^24.
    if (counter &&
        !(value >= least && value <= 0x1p24 && value == std::floor(value)))
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "the counter '%s' must be a whole number in [%s, "
                        "2^24], not %g",
                        t.name, countsDown ? "-2^24" : "0", value);
    if (secondMoment && value < 0)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "the second moment '%s' must not be negative: it "
                        "holds %g at %s",
                        t.name, value,
                        positionString(t.rank, t.shape, i).c_str());
  }
  return nullptr;
}

/// Checks the counters of a state file (steps, skipped steps): whole
/// numbers, 0 <= skipped <= steps <= 2^53.
amp_status_t checkCounters(const double *counters) {
  double steps = counters[0], skipped = counters[1];
  bool whole = std::isfinite(steps) && std::isfinite(skipped) &&
               steps == std::floor(steps) && skipped == std::floor(skipped);
  if (whole && skipped >= 0 && skipped <= steps && steps <= 0x1p53)
    return nullptr;
  return AMP_STATUS(AMP_INVALID_ARGUMENT,
                    "its counters (%g steps, %g skipped) are no counts of "
                    "steps: whole numbers with 0 <= skipped <= steps <= 2^53",
                    steps, skipped);
}

/// Whether `a` and `b` name the same setting: equal, a dash and an
/// underscore taken as one (weight-decay is weight_decay, as
/// --train-options takes either).
bool sameSettingName(const char *a, const char *b) {
  for (; *a && *b; ++a, ++b) {
    const bool joins = (*a == '-' || *a == '_') && (*b == '-' || *b == '_');
    if (*a != *b && !joins)
      return false;
  }
  return *a == *b;
}

/// The index of hyperparameter `name` of the step: its own spelling, or
/// one with dashes for underscores. An unknown name is refused with the
/// step's names and the closest of them within a third of its length.
amp_status_t findHyperParameter(const amp_step_t *step, const char *name,
                                size_t *out) {
  if (!step || !name)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "step or name is null");
  const amp_step_description_t &d = *step->description;
  auto find = [&](auto &&matches) {
    for (size_t i = 0; i < d.tensor_count; ++i)
      if (d.tensors[i].kind == AMP_STEP_HPARAM && matches(d.tensors[i].name)) {
        *out = i;
        return true;
      }
    return false;
  };
  if (find([&](const char *own) { return std::strcmp(own, name) == 0; }) ||
      find([&](const char *own) { return sameSettingName(own, name); }))
    return nullptr;
  std::string known;
  std::vector<std::string> names;
  for (size_t i = 0; i < d.tensor_count; ++i) {
    if (d.tensors[i].kind != AMP_STEP_HPARAM)
      continue;
    known += (known.empty() ? "" : ", ") + std::string(d.tensors[i].name);
    names.push_back(d.tensors[i].name);
  }
  size_t closest = amprt::closestName(name, names);
  std::string suggestion =
      closest == names.size() ? "" : "; did you mean '" + names[closest] + "'?";
  return AMP_STATUS(AMP_INVALID_ARGUMENT,
                    "step '%s' has no hyperparameter '%s' (it has: %s)%s",
                    d.name, name, known.empty() ? "none" : known.c_str(),
                    suggestion.c_str());
}

/// Whether `t` is a valid tensor: a name, a known kind, rank and type, and
/// no negative dimension.
bool validTensor(const amp_step_tensor_t &t) {
  int kind = amprt::rawEnum(t.kind);
  bool valid = t.name && t.rank >= 0 && t.rank <= AMP_STEP_MAX_RANK &&
               elementSize(t.type) != 0 && kind >= AMP_STEP_PARAM &&
               kind <= AMP_STEP_RNG;
  for (int32_t d = 0; valid && d < t.rank; ++d)
    valid = t.shape[d] >= 0;
  return valid;
}

bool sameTensorType(const amp_step_tensor_t &a, const amp_step_tensor_t &b) {
  if (amprt::rawEnum(a.type) != amprt::rawEnum(b.type) || a.rank != b.rank)
    return false;
  for (int32_t d = 0; d < a.rank; ++d)
    if (a.shape[d] != b.shape[d])
      return false;
  return true;
}

/// Checks an evaluation table of the step and allocates its memory: each
/// parameter must be one of the step's, of the same type and shape.
amp_status_t createEvaluation(amp_step_t *step,
                              const amp_eval_description_t *table) {
  const amp_step_description_t &d = *step->description;
  if (!table)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the evaluation of step '%s' is malformed: an "
                      "evaluation at another batch size is null",
                      d.name);
  const amp_eval_description_t &e = *table;
  auto bad = [&](const std::string &what) {
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the evaluation of step '%s' is malformed: %s", d.name,
                      what.c_str());
  };
  if (!e.run || (e.tensor_count && !e.tensors) || !e.output_count ||
      !e.outputs || (e.index_check_count && !e.index_checks))
    return bad("it lacks its code, tensors, outputs or index checks");
  const amp_step_tensor_t &loss = e.outputs[0];
  if (!validTensor(loss) || loss.rank != 0 ||
      amprt::rawEnum(loss.type) != AMP_ELEMENT_F32)
    return bad("its first output is not the loss, an f32 scalar");
  auto evaluation = std::make_unique<Evaluation>();
  evaluation->description = &e;
  auto allocate = [&](const amp_step_tensor_t &t) -> amp_status_t {
    amp_buffer_t *buffer = nullptr;
    AMP_RETURN_IF_ERROR(amp_buffer_allocate(
        step->device, std::max<size_t>(byteSize(t), 1), &buffer));
    evaluation->buffers.emplace_back(buffer);
    return nullptr;
  };
  for (size_t i = 0; i < e.tensor_count; ++i) {
    const amp_step_tensor_t &t = e.tensors[i];
    if (!validTensor(t) || !sizeFits(t))
      return bad("tensor " + std::to_string(i) +
                 " has no name or a bad kind, rank, shape or type");
    if (t.kind == AMP_STEP_INPUT) {
      AMP_RETURN_IF_ERROR(allocate(t));
      evaluation->pointers.push_back(
          amp_buffer_data(evaluation->buffers.back().get()));
      continue;
    }
    size_t match = d.tensor_count;
    for (size_t k = 0; k < d.tensor_count && match == d.tensor_count; ++k)
      if (d.tensors[k].kind == t.kind &&
          std::strcmp(d.tensors[k].name, t.name) == 0)
        match = k;
    if ((t.kind != AMP_STEP_PARAM && t.kind != AMP_STEP_BUFFER) ||
        match == d.tensor_count || !sameTensorType(t, d.tensors[match]))
      return bad("tensor '" + std::string(t.name) +
                 "' is neither a batch input nor a parameter or buffer of "
                 "the step of that type and shape");
    evaluation->pointers.push_back(step->pointers[match]);
  }
  for (size_t c = 0; c < e.index_check_count; ++c) {
    const amp_step_index_check_t &check = e.index_checks[c];
    int type = check.tensor < e.tensor_count
                   ? amprt::rawEnum(e.tensors[check.tensor].type)
                   : -1;
    if (check.tensor >= e.tensor_count ||
        e.tensors[check.tensor].kind != AMP_STEP_INPUT ||
        (type != AMP_ELEMENT_I32 && type != AMP_ELEMENT_I64))
      return bad("index check " + std::to_string(c) +
                 " is not on an integer batch input");
  }
  for (size_t o = 0; o < e.output_count; ++o) {
    if (!validTensor(e.outputs[o]) || !sizeFits(e.outputs[o]))
      return bad("output " + std::to_string(o) +
                 " has no name or a bad rank, shape or type");
    AMP_RETURN_IF_ERROR(allocate(e.outputs[o]));
    evaluation->outputBuffers.push_back(evaluation->buffers.back().get());
    evaluation->outputs.push_back(
        amp_buffer_data(evaluation->buffers.back().get()));
  }
  amp_buffer_t *arena = nullptr;
  AMP_RETURN_IF_ERROR(amp_buffer_allocate(
      step->device, std::max<size_t>(e.arena_size, 1), &arena));
  evaluation->arena.reset(arena);
  step->evaluations.push_back(std::move(evaluation));
  return nullptr;
}

/// The first dimension of an evaluation's first batch input: its batch.
int64_t evaluationBatch(const amp_eval_description_t &e) {
  for (size_t i = 0; i < e.tensor_count; ++i)
    if (e.tensors[i].kind == AMP_STEP_INPUT)
      return e.tensors[i].rank ? e.tensors[i].shape[0] : 0;
  return 0;
}

/// The evaluation of step `step` that takes batches of `batch` examples
/// (amp_step_find_evaluation, which says how it is chosen).
amp_status_t evaluationFor(amp_step_t *step, int64_t batch, Evaluation **out) {
  const amp_step_description_t &d = *step->description;
  if (step->evaluations.empty())
    return AMP_STATUS(AMP_UNAVAILABLE,
                      "step '%s' was compiled without an evaluation "
                      "(amp-compile --eval=false, or a step given as IR)",
                      d.name);
  if (step->evaluations.size() == 1) {
    *out = step->evaluations.front().get();
    return nullptr;
  }
  std::string sizes;
  for (const auto &candidate : step->evaluations) {
    int64_t size = evaluationBatch(*candidate->description);
    if (size == batch) {
      *out = candidate.get();
      return nullptr;
    }
    sizes += (sizes.empty() ? "" : ", ") + std::to_string(size);
  }
  return AMP_STATUS(AMP_INVALID_ARGUMENT,
                    "step '%s' evaluates batches of %s examples (amp-compile "
                    "--eval-batch), not %lld: the evaluation did not run",
                    d.name, sizes.c_str(), static_cast<long long>(batch));
}

/// Sets every state tensor and hyperparameter to its initial value, the
/// random generator to [seed mod 2^53, 0], and zeroes the counters.
amp_status_t resetState(amp_step_t *step, uint64_t seed) {
  const amp_step_description_t &d = *step->description;
  step->microBatch = -1;
  for (size_t i = 0; i < d.tensor_count; ++i) {
    const amp_step_tensor_t &t = d.tensors[i];
    if (t.kind == AMP_STEP_RNG) {
      int64_t state[2] = {static_cast<int64_t>(seed & ((1ull << 53) - 1)), 0};
      AMP_RETURN_IF_ERROR(amp_buffer_write(step->tensors[i].get(), 0, state,
                                           sizeof state, step->stream));
      continue;
    }
    if (t.kind != AMP_STEP_STATE && t.kind != AMP_STEP_HPARAM &&
        t.kind != AMP_STEP_LOSS_PART && t.kind != AMP_STEP_BUFFER)
      continue;
    std::vector<char> host(byteSize(t));
    for (int64_t e = 0, n = elementCount(t); e < n; ++e)
      storeFloat(t.type, host.data(), e, t.initial);
    AMP_RETURN_IF_ERROR(amp_buffer_write(step->tensors[i].get(), 0, host.data(),
                                         host.size(), step->stream));
  }
  Results zero{};
  AMP_RETURN_IF_ERROR(amp_buffer_write(step->results.get(), 0, &zero,
                                       sizeof zero, step->stream));
  return amp_stream_synchronize(step->stream);
}

/// Whether a state file holds tensor `t`: parameters, optimizer and scaler
/// state and hyperparameters do; the batch and the loss's parts, which
/// each step writes anew, do not.
bool inStateFile(const amp_step_tensor_t &t) {
  return t.kind != AMP_STEP_INPUT && t.kind != AMP_STEP_LOSS_PART;
}

/// The entries of a state file: every parameter and state, the counters.
std::vector<amp_state_entry_t>
stateEntries(amp_step_t *step, std::vector<std::vector<char>> &host,
             double *counters) {
  const amp_step_description_t &d = *step->description;
  std::vector<amp_state_entry_t> entries;
  for (size_t i = 0; i < d.tensor_count; ++i) {
    const amp_step_tensor_t &t = d.tensors[i];
    if (!inStateFile(t))
      continue;
    host.emplace_back(byteSize(t));
    entries.push_back({t.name, host.back().data(), host.back().size()});
  }
  entries.push_back({"amp.counters", counters, 2 * sizeof(double)});
  // A step with sharded optimizer state holds one replica's parts: the
  // file says whose (rank, replicas), so that another rank's are refused.
  if (d.zero_replicas) {
    const int64_t part[2] = {step->partsRank, d.zero_replicas};
    host.emplace_back(sizeof part);
    std::memcpy(host.back().data(), part, sizeof part);
    entries.push_back({"amp.replica_part", host.back().data(), sizeof part});
  }
  return entries;
}

/// Reads every entry of a state file (stateEntries) into `host` and
/// `results`, waiting for the step's queued work.
amp_status_t readState(amp_step_t *step, std::vector<std::vector<char>> &host,
                       Results &results,
                       std::vector<amp_state_entry_t> &entries) {
  host.reserve(step->description->tensor_count);
  entries = stateEntries(step, host, results.counters);
  AMP_RETURN_IF_ERROR(amp_buffer_read(step->results.get(), 0, &results,
                                      sizeof results, step->stream));
  for (size_t i = 0, e = 0; i < step->description->tensor_count; ++i) {
    if (!inStateFile(step->description->tensors[i]))
      continue;
    AMP_RETURN_IF_ERROR(amp_buffer_read(step->tensors[i].get(), 0,
                                        entries[e].data, entries[e].size,
                                        step->stream));
    ++e;
  }
  return amp_stream_synchronize(step->stream);
}

/// FNV-1a over bytes, 64 bits: a fingerprint, not a defence against
/// anyone.
struct Fingerprint {
  uint64_t hash = 0xcbf29ce484222325ull;
  void add(const void *data, size_t size) {
    const auto *bytes = static_cast<const unsigned char *>(data);
    for (size_t i = 0; i < size; ++i)
      hash = (hash ^ bytes[i]) * 0x100000001b3ull;
  }
  template <typename T> void add(const T &value) { add(&value, sizeof value); }
  void add(const char *text) {
    text = text ? text : "";
    add(text, std::strlen(text) + 1);
  }
};

/// The number of elements of each replica's part of tensor `t`.
int64_t partSize(const amp_step_tensor_t &t, int64_t replicas) {
  int64_t count = elementCount(t);
  return count / replicas + (count % replicas != 0);
}

/// The description's fields for replicas: gradient accumulation's counter
/// is a 0-d f32 state, and a step with sharded optimizer state reduces its
/// gradients and has parts that are f32 state of one dimension, each the
/// part of a parameter over zero_replicas replicas.
amp_status_t checkReplicaFields(const amp_step_description_t &d) {
  const char *name = d.name ? d.name : "?";
  if (d.accumulate < 0 || d.accumulate == 1 ||
      (d.accumulate >= 2 &&
       (d.micro_batch_tensor >= d.tensor_count ||
        amprt::rawEnum(d.tensors[d.micro_batch_tensor].kind) !=
            AMP_STEP_STATE ||
        amprt::rawEnum(d.tensors[d.micro_batch_tensor].type) !=
            AMP_ELEMENT_F32 ||
        d.tensors[d.micro_batch_tensor].rank != 0)))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "step '%s' accumulates %d micro-batches with no 0-d "
                      "f32 state counting them",
                      name, d.accumulate);
  if (d.zero_replicas < 0 || (d.zero_replicas > 0 && !d.data_parallel))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "step '%s' shards its state over %d replicas without "
                      "reducing its gradients over them",
                      name, d.zero_replicas);
  for (size_t i = 0; i < d.tensor_count; ++i) {
    const amp_step_tensor_t &t = d.tensors[i];
    if (t.shard == 0)
      continue;
    const amp_step_tensor_t *whole =
        t.shard_of < d.tensor_count ? &d.tensors[t.shard_of] : nullptr;
    if ((t.shard != 1 && t.shard != 2) || d.zero_replicas < 1 || !whole ||
        amprt::rawEnum(whole->kind) != AMP_STEP_PARAM ||
        amprt::rawEnum(t.kind) != AMP_STEP_STATE ||
        amprt::rawEnum(t.type) != AMP_ELEMENT_F32 || t.rank != 1 ||
        !validTensor(*whole) || t.shape[0] != partSize(*whole, d.zero_replicas))
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "tensor %zu of step '%s' is not the f32 part of a "
                        "parameter over the step's %d replicas",
                        i, name, d.zero_replicas);
  }
  return nullptr;
}

/// The fingerprint of what a description says a step computes.
uint64_t programFingerprint(const amp_step_description_t &d) {
  Fingerprint f;
  auto addTensors = [&](size_t count, const amp_step_tensor_t *tensors) {
    f.add(count);
    for (size_t i = 0; i < count; ++i) {
      const amp_step_tensor_t &t = tensors[i];
      f.add(t.name);
      f.add(amprt::rawEnum(t.kind));
      f.add(amprt::rawEnum(t.type));
      f.add(t.rank);
      f.add(t.shape, sizeof(int64_t) * static_cast<size_t>(t.rank));
      f.add(t.fan_in);
      f.add(t.initial);
      f.add(t.shard);
      f.add(t.shard_of);
    }
  };
  auto addChecks = [&](size_t count, const amp_step_index_check_t *checks) {
    f.add(count);
    for (size_t c = 0; c < count; ++c) {
      f.add(checks[c].tensor);
      f.add(checks[c].bound);
      f.add(checks[c].has_ignored);
      f.add(checks[c].ignored);
    }
  };
  f.add(d.abi_version);
  f.add(d.name);
  f.add(amprt::rawEnum(d.target));
  addTensors(d.tensor_count, d.tensors);
  f.add(d.loss_scale_tensor);
  f.add(d.arena_size);
  addChecks(d.index_check_count, d.index_checks);
  f.add(d.data_parallel);
  f.add(d.zero_replicas);
  f.add(d.accumulate);
  f.add(d.micro_batch_tensor);
  f.add(d.eval != nullptr);
  f.add(d.other_eval_count);
  for (size_t k = 0; d.eval && k <= d.other_eval_count; ++k) {
    const amp_eval_description_t *e = k ? d.other_evals[k - 1] : d.eval;
    addTensors(e->tensor_count, e->tensors);
    addTensors(e->output_count, e->outputs);
    f.add(e->arena_size);
    addChecks(e->index_check_count, e->index_checks);
  }
  return f.hash;
}

} // namespace

extern "C" {

size_t amp_element_size(amp_element_type_t type) { return elementSize(type); }

const char *amp_element_type_name(amp_element_type_t type) {
  return elementName(type);
}

amp_status_t amp_step_create(const amp_step_description_t *description,
                             amp_device_kind_t kind, amp_step_t **out_step) {
  if (!description || !out_step)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "description or out_step is null");
  *out_step = nullptr;
  const char *name = description->name ? description->name : "?";
  if (description->abi_version != AMP_STEP_ABI_VERSION)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "step '%s' was compiled for step ABI %u; this runtime "
                      "runs ABI %u: recompile it",
                      name, description->abi_version, AMP_STEP_ABI_VERSION);
  if (!description->run || (description->tensor_count && !description->tensors))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the description of step '%s' lacks its code or tensors",
                      name);
  // Kinds compared and named as numbers: a value outside the enum is
  // legal C, and loading it as the enum is not.
  int rawKind = amprt::rawEnum(kind),
      rawTarget = amprt::rawEnum(description->target);
  auto kindName = [](int raw) {
    return raw == AMP_DEVICE_CUDA   ? "cuda"
           : raw == AMP_DEVICE_HOST ? "host"
                                    : nullptr;
  };
  if (!kindName(rawKind))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "unknown device kind %d", rawKind);
  if (!kindName(rawTarget))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the description of step '%s' has the unknown target "
                      "%d",
                      name, rawTarget);
  if (rawKind != rawTarget)
    return AMP_STATUS(AMP_UNAVAILABLE,
                      "step '%s' was compiled for the %s target; it cannot "
                      "run on a %s device (compile it with --target=%s)",
                      name, kindName(rawTarget), kindName(rawKind),
                      kindName(rawKind));
  int64_t scaleSlot = description->loss_scale_tensor;
  if (scaleSlot >= static_cast<int64_t>(description->tensor_count) ||
      (scaleSlot >= 0 &&
       (amprt::rawEnum(description->tensors[scaleSlot].kind) !=
            AMP_STEP_STATE ||
        amprt::rawEnum(description->tensors[scaleSlot].type) !=
            AMP_ELEMENT_F32)))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the loss scale of step '%s' (tensor %lld) is not an "
                      "f32 state tensor",
                      name, static_cast<long long>(scaleSlot));
  if (description->index_check_count && !description->index_checks)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the description of step '%s' lacks its index checks",
                      name);
  for (size_t c = 0; c < description->index_check_count; ++c) {
    const amp_step_index_check_t &check = description->index_checks[c];
    if (check.tensor >= description->tensor_count ||
        amprt::rawEnum(description->tensors[check.tensor].kind) !=
            AMP_STEP_INPUT ||
        (amprt::rawEnum(description->tensors[check.tensor].type) !=
             AMP_ELEMENT_I32 &&
         amprt::rawEnum(description->tensors[check.tensor].type) !=
             AMP_ELEMENT_I64))
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "index check %zu of step '%s' is not on an integer "
                        "batch input",
                        c, name);
  }
  AMP_RETURN_IF_ERROR(checkReplicaFields(*description));
  std::unique_ptr<amp_step_s> step(new (std::nothrow) amp_step_s);
  if (!step)
    return AMP_STATUS(AMP_OUT_OF_MEMORY, "cannot allocate a step");
  step->description = description;
  AMP_RETURN_IF_ERROR(amp_device_create(kind, 0, &step->device));
  AMP_RETURN_IF_ERROR(amp_stream_create(step->device, &step->stream));
  for (size_t i = 0; i < description->tensor_count; ++i) {
    const amp_step_tensor_t &t = description->tensors[i];
    int kind = amprt::rawEnum(t.kind);
    if (!validTensor(t))
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "tensor %zu of step '%s' has no name or a bad kind, "
                        "rank, shape or type",
                        i, name);
    // amp_step_init draws a parameter from its fan-in, or starts it and
    // every state at `initial`: a value it must be able to hold.
    if (t.fan_in < 0 || !std::isfinite(t.initial))
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "tensor %zu ('%s') of step '%s' starts from fan-in "
                        "%lld and initial value %g: the fan-in must not be "
                        "negative, the initial value must be finite",
                        i, t.name, name, static_cast<long long>(t.fan_in),
                        t.initial);
    // A hyperparameter is one f64 that starts in its range.
    if (kind == AMP_STEP_HPARAM) {
      amp_status_t bad =
          t.rank == 0 && t.type == AMP_ELEMENT_F64
              ? checkHyperParameter(t, &t.initial)
              : AMP_STATUS(AMP_INVALID_ARGUMENT, "it is %s of shape %s",
                           amp_element_type_name(t.type),
                           shapeString(t.rank, t.shape).c_str());
      if (bad) {
        std::string why = amp_status_message(bad);
        amp_status_free(bad);
        return AMP_STATUS(AMP_INVALID_ARGUMENT,
                          "hyperparameter '%s' of step '%s' must be a 0-d "
                          "f64 that starts in its range: %s",
                          t.name, name, why.c_str());
      }
    }
    // A buffer holds floats, which its starting value fills.
    if (kind == AMP_STEP_BUFFER && t.type != AMP_ELEMENT_F32 &&
        t.type != AMP_ELEMENT_F64 && t.type != AMP_ELEMENT_F16 &&
        t.type != AMP_ELEMENT_BF16)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "buffer '%s' of step '%s' must hold floats, not %s",
                        t.name, name, amp_element_type_name(t.type));
    // The generator's state is two i64: seed and forward pass.
    if (kind == AMP_STEP_RNG &&
        (t.rank != 1 || t.shape[0] != 2 || t.type != AMP_ELEMENT_I64))
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "the random generator '%s' of step '%s' must be 2 "
                        "i64 (seed, forward pass), not %s of shape %s",
                        t.name, name, amp_element_type_name(t.type),
                        shapeString(t.rank, t.shape).c_str());
    // A part of the loss is one f32, as the loss is.
    if (kind == AMP_STEP_LOSS_PART &&
        (t.rank != 0 || t.type != AMP_ELEMENT_F32))
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "part '%s' of the loss of step '%s' must be a 0-d "
                        "f32, not %s of shape %s",
                        t.name, name, amp_element_type_name(t.type),
                        shapeString(t.rank, t.shape).c_str());
    if (!sizeFits(t))
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "tensor %zu ('%s') of step '%s' has shape %s, whose "
                        "size in bytes does not fit in 64 bits",
                        i, t.name, name, shapeString(t.rank, t.shape).c_str());
    amp_buffer_t *buffer = nullptr;
    // Zero-sized tensors still get a (one-byte) buffer: a valid pointer.
    AMP_RETURN_IF_ERROR(amp_buffer_allocate(
        step->device, std::max<size_t>(byteSize(t), 1), &buffer));
    step->tensors.emplace_back(buffer);
    step->pointers.push_back(amp_buffer_data(buffer));
  }
  amp_buffer_t *buffer = nullptr;
  AMP_RETURN_IF_ERROR(amp_buffer_allocate(
      step->device, std::max<size_t>(description->arena_size, 1), &buffer));
  step->arena.reset(buffer);
  AMP_RETURN_IF_ERROR(
      amp_buffer_allocate(step->device, sizeof(Results), &buffer));
  step->results.reset(buffer);
  size_t batchBytes = 0;
  for (size_t i = 0; i < description->tensor_count; ++i)
    if (description->tensors[i].kind == AMP_STEP_INPUT)
      batchBytes += byteSize(description->tensors[i]);
  if (batchBytes) {
    amprt::Backend *backend = amprt::backendOf(step->stream);
    AMP_RETURN_IF_ERROR(backend->createEvent(&step->staged));
    AMP_RETURN_IF_ERROR(backend->allocateStaging(batchBytes, &step->staging));
  }
  if (!description->eval && description->other_eval_count)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "step '%s' has evaluations at other batch sizes but "
                      "none at the first",
                      description->name);
  if (description->other_eval_count && !description->other_evals)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "step '%s' has %zu evaluations at other batch sizes "
                      "and no table of them",
                      description->name, description->other_eval_count);
  if (description->eval)
    AMP_RETURN_IF_ERROR(createEvaluation(step.get(), description->eval));
  for (size_t k = 0; k < description->other_eval_count; ++k)
    AMP_RETURN_IF_ERROR(
        createEvaluation(step.get(), description->other_evals[k]));
  // Each evaluation takes a batch of its own size: that is how
  // amp_step_evaluate tells them apart.
  for (size_t a = 0; a < step->evaluations.size(); ++a)
    for (size_t b = 0; b < a; ++b)
      if (evaluationBatch(*step->evaluations[a]->description) ==
          evaluationBatch(*step->evaluations[b]->description))
        return AMP_STATUS(AMP_INVALID_ARGUMENT,
                          "the evaluation of step '%s' is malformed: two of "
                          "its evaluations take batches of %lld",
                          description->name,
                          static_cast<long long>(evaluationBatch(
                              *step->evaluations[a]->description)));
  AMP_RETURN_IF_ERROR(resetState(step.get(), 0));
  *out_step = step.release();
  return nullptr;
}

void amp_step_destroy(amp_step_t *step) { delete step; }

const amp_step_description_t *amp_step_description(const amp_step_t *step) {
  return step ? step->description : nullptr;
}

amp_status_t amp_step_init(amp_step_t *step, uint64_t seed) {
  if (!step)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "step is null");
  const amp_step_description_t &d = *step->description;
  // A parameter with an f32 master part (a sharded step's low-precision
  // weight) is drawn at f32 and rounded from there, as the unsharded step
  // rounds its f32 parameter; its values are kept for the masters.
  std::vector<std::vector<float>> masterValues(d.tensor_count);
  for (size_t i = 0; i < d.tensor_count; ++i)
    if (d.tensors[i].shard == 2)
      masterValues[d.tensors[i].shard_of].resize(
          static_cast<size_t>(elementCount(d.tensors[d.tensors[i].shard_of])));
  uint64_t state = seed;
  for (size_t i = 0; i < d.tensor_count; ++i) {
    const amp_step_tensor_t &t = d.tensors[i];
    if (t.kind != AMP_STEP_PARAM)
      continue;
    std::vector<char> host(byteSize(t));
    std::vector<float> &wide = masterValues[i];
    auto store = [&](int64_t e, double value) {
      if (wide.empty()) {
        storeFloat(t.type, host.data(), e, value);
        return;
      }
      wide[static_cast<size_t>(e)] = static_cast<float>(value);
      storeFloat(t.type, host.data(), e, wide[static_cast<size_t>(e)]);
    };
    if (t.fan_in <= 0) {
      for (int64_t e = 0, n = elementCount(t); e < n; ++e)
        store(e, t.initial);
    } else {
      double bound = 1.0 / std::sqrt(static_cast<double>(t.fan_in));
      for (int64_t e = 0, n = elementCount(t); e < n; ++e) {
        double unit = amprt::splitmix64Unit(state);
        store(e, (2 * unit - 1) * bound);
      }
    }
    AMP_RETURN_IF_ERROR(amp_buffer_write(step->tensors[i].get(), 0, host.data(),
                                         host.size(), step->stream));
  }
  AMP_RETURN_IF_ERROR(resetState(step, seed));
  if (!d.zero_replicas)
    return nullptr;
  // This replica's parts of the masters; the moments' are zeros already.
  int32_t rank = amp_replica_rank(step->stream);
  for (size_t i = 0; i < d.tensor_count; ++i) {
    const amp_step_tensor_t &t = d.tensors[i];
    if (t.shard != 2)
      continue;
    const std::vector<float> &wide = masterValues[t.shard_of];
    std::vector<float> part(static_cast<size_t>(t.shape[0]), 0.0f);
    size_t begin = static_cast<size_t>(rank) * part.size();
    for (size_t e = 0; e < part.size() && begin + e < wide.size(); ++e)
      part[e] = wide[begin + e];
    AMP_RETURN_IF_ERROR(amp_buffer_write(step->tensors[i].get(), 0, part.data(),
                                         part.size() * sizeof(float),
                                         step->stream));
  }
  step->partsRank = rank;
  return amp_stream_synchronize(step->stream);
}

amp_status_t amp_step_write_tensor(amp_step_t *step, size_t index,
                                   const void *data, size_t size) {
  AMP_RETURN_IF_ERROR(checkTransfer(step, index, data, size));
  AMP_RETURN_IF_ERROR(checkStateValues(step, index, data));
  AMP_RETURN_IF_ERROR(checkShardWrite(step, index));
  step->microBatch = -1; // the counter may be the tensor written
  AMP_RETURN_IF_ERROR(amp_buffer_write(step->tensors[index].get(), 0, data,
                                       size, step->stream));
  return amp_stream_synchronize(step->stream);
}

amp_status_t amp_step_set_hparam(amp_step_t *step, const char *name,
                                 double value) {
  size_t index;
  AMP_RETURN_IF_ERROR(findHyperParameter(step, name, &index));
  return amp_step_write_tensor(step, index, &value, sizeof value);
}

amp_status_t amp_step_get_hparam(amp_step_t *step, const char *name,
                                 double *out_value) {
  size_t index;
  AMP_RETURN_IF_ERROR(findHyperParameter(step, name, &index));
  if (!out_value)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "out_value is null");
  return amp_step_read_tensor(step, index, out_value, sizeof *out_value);
}

amp_status_t amp_step_read_tensor(amp_step_t *step, size_t index, void *data,
                                  size_t size) {
  AMP_RETURN_IF_ERROR(checkTransfer(step, index, data, size));
  AMP_RETURN_IF_ERROR(
      amp_buffer_read(step->tensors[index].get(), 0, data, size, step->stream));
  return amp_stream_synchronize(step->stream);
}

} // extern "C"

namespace {

/// A .npy file opened past its header: the header's dtype and shape
/// texts ("'<f4'", "(3, 4)"), checked to be well formed and in C order.
struct NpyFile {
  std::unique_ptr<FILE, int (*)(FILE *)> stream{nullptr, &std::fclose};
  std::string descr, shape;
};

amp_status_t openNpy(const char *path, NpyFile &file) {
  FILE *stream = nullptr;
  AMP_RETURN_IF_ERROR(amprt::openRegularFile(path, &stream));
  file.stream.reset(stream);
  // Versions 2 and 3 (which numpy writes for headers beyond 64 KiB, and
  // for UTF-8 ones) differ from 1 only in a 4-byte header length.
  unsigned char preamble[12];
  if (std::fread(preamble, 1, 10, file.stream.get()) != 10 ||
      std::memcmp(preamble, "\x93NUMPY", 6) != 0 || preamble[6] < 1 ||
      preamble[6] > 3)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "%s is not a version 1, 2 or 3 .npy file", path);
  size_t headerSize = preamble[8] | (static_cast<size_t>(preamble[9]) << 8);
  if (preamble[6] > 1) {
    if (std::fread(preamble + 10, 1, 2, file.stream.get()) != 2)
      return AMP_STATUS(AMP_DATA_LOSS, "%s: the header is truncated", path);
    headerSize |= static_cast<size_t>(preamble[10]) << 16 |
                  static_cast<size_t>(preamble[11]) << 24;
    if (headerSize > (size_t(1) << 20))
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "%s has a header of %zu bytes, beyond the 1 MiB read",
                        path, headerSize);
  }
  std::string header(headerSize, '\0');
  if (std::fread(&header[0], 1, headerSize, file.stream.get()) != headerSize)
    return AMP_STATUS(AMP_DATA_LOSS, "%s: the header is truncated", path);
  // A Python dict literal, padded with spaces and ended by a newline, with
  // a quoted dtype, a bool and a tuple.
  file.descr = headerValue(header, "descr");
  std::string order = headerValue(header, "fortran_order");
  file.shape = headerValue(header, "shape");
  const std::string &descr = file.descr, &shape = file.shape;
  size_t open = header.find_first_not_of(" \n");
  size_t close = header.find_last_not_of(" \n");
  if (open == std::string::npos || header[open] != '{' ||
      header[close] != '}' || descr.size() < 3 || descr.front() != '\'' ||
      descr.back() != '\'' || (order != "False" && order != "True") ||
      shape.size() < 2 || shape.front() != '(' || shape.back() != ')')
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "%s has a malformed .npy header",
                      path);
  if (order != "False")
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "%s is in Fortran order; only C order is read", path);
  return nullptr;
}

} // namespace

extern "C" {

amp_status_t amp_npy_inspect(const char *path, amp_step_tensor_t *out) {
  if (!path || !out)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "path or out is null");
  NpyFile file;
  AMP_RETURN_IF_ERROR(openNpy(path, file));
  int type = 0;
  while (type <= AMP_ELEMENT_I1 &&
         file.descr != std::string("'") +
                           npyDescr(static_cast<amp_element_type_t>(type)) +
                           "'")
    ++type;
  if (type > AMP_ELEMENT_I1)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "%s holds %s, which is none of f32, f16, bf16 (as "
                      "'<u2'), f64, i32, i64 and bool",
                      path, file.descr.c_str());
  // "()", "(3,)", "(2, 3)": numbers separated by commas.
  amp_step_tensor_t t{};
  const std::string &shape = file.shape;
  size_t at = 1;
  while (at + 1 < shape.size()) {
    while (at + 1 < shape.size() && (shape[at] == ' ' || shape[at] == ','))
      ++at;
    if (at + 1 >= shape.size())
      break;
    char *end = nullptr;
    errno = 0;
    long long dim = std::strtoll(shape.c_str() + at, &end, 10);
    // Python writes no leading zeros (and reads none: 040 is no number).
    bool leadingZero = shape[at] == '0' && end - (shape.c_str() + at) > 1;
    if (end == shape.c_str() + at || dim < 0 || errno == ERANGE ||
        leadingZero || t.rank == AMP_STEP_MAX_RANK)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "%s has shape %s, which is no tuple of up to %d "
                        "sizes",
                        path, shape.c_str(), AMP_STEP_MAX_RANK);
    t.shape[t.rank++] = dim;
    at = static_cast<size_t>(end - shape.c_str());
  }
  t.type = static_cast<amp_element_type_t>(type);
  t.kind = AMP_STEP_INPUT;
  if (!sizeFits(t))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "%s has shape %s, whose size in bytes does not fit in "
                      "64 bits",
                      path, shape.c_str());
  t.name = out->name;
  *out = t;
  return nullptr;
}

amp_status_t amp_npy_write(const amp_step_tensor_t *tensor, const char *path,
                           const void *data, size_t size) {
  if (!tensor || !path || !*path || (!data && size))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "tensor, path or data is null, or path is empty");
  const amp_step_tensor_t &t = *tensor;
  if (!validTensor(t) || !sizeFits(t))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the tensor has no name or a bad rank, shape or type");
  AMP_RETURN_IF_ERROR(checkByteSize(t, size));
  // Version 1: magic, a 16-bit header length, then the header dictionary,
  // padded with spaces and ended by a newline so that the data starts at
  // a multiple of 64 bytes.
  std::string dictionary =
      std::string("{'descr': '") + npyDescr(t.type) +
      "', 'fortran_order': False, 'shape': " + npyShape(t) + ", }";
  size_t unpadded = 10 + dictionary.size() + 1;
  dictionary.append((64 - unpadded % 64) % 64, ' ');
  dictionary += '\n';
  std::string preamble = "\x93NUMPY";
  preamble += '\x01';
  preamble += '\x00';
  preamble += static_cast<char>(dictionary.size() & 0xff);
  preamble += static_cast<char>(dictionary.size() >> 8);
  return amprt::writeAtomically(path, {{preamble.data(), preamble.size()},
                                       {dictionary.data(), dictionary.size()},
                                       {data, size}});
}

} // extern "C"

namespace {

/// Opens the .npy file at `path` past its header, which must give the
/// type and shape of `t`.
amp_status_t openNpyOf(const amp_step_tensor_t &t, const char *path,
                       NpyFile &file) {
  if (!validTensor(t) || !sizeFits(t))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the tensor has no name or a bad rank, shape or type");
  AMP_RETURN_IF_ERROR(openNpy(path, file));
  const std::string &descr = file.descr, &fileShape = file.shape;
  std::string expectedDescr = std::string("'") + npyDescr(t.type) + "'";
  if (descr != expectedDescr)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "%s holds %s; tensor '%s' needs %s (%s)", path,
                      descr.c_str(), t.name, expectedDescr.c_str(),
                      amp_element_type_name(t.type));
  std::string shape = npyShape(t);
  // numpy writes "(3,)" for rank 1 and "(2, 3)" otherwise; spaces vary.
  auto squeeze = [](std::string s) {
    std::string out;
    for (char c : s)
      if (c != ' ')
        out += c;
    return out;
  };
  if (squeeze(fileShape) != squeeze(shape))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "%s has shape %s; tensor '%s' has shape %s", path,
                      fileShape.c_str(), t.name, shape.c_str());
  return nullptr;
}

} // namespace

/// A .npy file's data in memory: mapped from the file, or read into
/// `bytes` where the mapping would not align its elements.
struct amp_npy_mapping_s {
  void *base = nullptr; ///< the mapping, of `length` bytes; null if read
  size_t length = 0;
  std::vector<char> bytes;
};

extern "C" {

amp_status_t amp_npy_read(const amp_step_tensor_t *tensor, const char *path,
                          void *data, size_t size) {
  if (!tensor || !path || (!data && size))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "tensor, path or data is null");
  const amp_step_tensor_t &t = *tensor;
  if (validTensor(t) && sizeFits(t))
    AMP_RETURN_IF_ERROR(checkByteSize(t, size));
  NpyFile file;
  AMP_RETURN_IF_ERROR(openNpyOf(t, path, file));
  // Into a copy first: `data` is unchanged on any error.
  std::vector<char> bytes(size);
  if (std::fread(bytes.data(), 1, size, file.stream.get()) != size)
    return AMP_STATUS(AMP_DATA_LOSS, "%s: the data is truncated", path);
  if (std::fgetc(file.stream.get()) != EOF)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "%s has bytes after its data",
                      path);
  if (size) // an empty tensor's data may be null
    std::memcpy(data, bytes.data(), size);
  return nullptr;
}

amp_status_t amp_npy_map(const amp_step_tensor_t *tensor, const char *path,
                         amp_npy_mapping_t **out_mapping,
                         const void **out_data) {
  if (!tensor || !path || !out_mapping || !out_data)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "tensor, path, out_mapping or out_data is null");
  const amp_step_tensor_t &t = *tensor;
  NpyFile file;
  AMP_RETURN_IF_ERROR(openNpyOf(t, path, file));
  const size_t size = byteSize(t);
  const long offset = std::ftell(file.stream.get());
  struct stat status;
  if (offset < 0 || fstat(fileno(file.stream.get()), &status) != 0)
    return AMP_STATUS(AMP_IO_ERROR, "cannot read %s: %s", path,
                      std::strerror(errno));
  const size_t length = static_cast<size_t>(status.st_size);
  if (length < static_cast<size_t>(offset) + size)
    return AMP_STATUS(AMP_DATA_LOSS, "%s: the data is truncated", path);
  if (length > static_cast<size_t>(offset) + size)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "%s has bytes after its data",
                      path);
  auto mapping = std::make_unique<amp_npy_mapping_s>();
  if (size == 0 || offset % static_cast<long>(amp_element_size(t.type))) {
    // Elements the mapping would leave unaligned (numpy's headers align
    // them, a hand-made one may not): read.
    mapping->bytes.resize(size);
    if (std::fread(mapping->bytes.data(), 1, size, file.stream.get()) != size)
      return AMP_STATUS(AMP_DATA_LOSS, "%s: the data is truncated", path);
    *out_data = mapping->bytes.data();
  } else {
    void *base = mmap(nullptr, length, PROT_READ, MAP_PRIVATE,
                      fileno(file.stream.get()), 0);
    if (base == MAP_FAILED)
      return AMP_STATUS(AMP_IO_ERROR, "cannot map %s: %s", path,
                        std::strerror(errno));
    mapping->base = base;
    mapping->length = length;
    *out_data = static_cast<const char *>(base) + offset;
  }
  *out_mapping = mapping.release();
  return nullptr;
}

void amp_npy_unmap(amp_npy_mapping_t *mapping) {
  if (mapping && mapping->base)
    munmap(mapping->base, mapping->length);
  delete mapping;
}

amp_status_t amp_step_save_npy(amp_step_t *step, size_t index,
                               const char *path) {
  AMP_RETURN_IF_ERROR(checkIndex(step, index));
  if (!path || !*path)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "path is empty");
  const amp_step_tensor_t &t = step->description->tensors[index];
  std::vector<char> data(byteSize(t));
  AMP_RETURN_IF_ERROR(
      amp_step_read_tensor(step, index, data.data(), data.size()));
  return amp_npy_write(&t, path, data.data(), data.size());
}

amp_status_t amp_step_load_npy(amp_step_t *step, size_t index,
                               const char *path) {
  AMP_RETURN_IF_ERROR(checkIndex(step, index));
  const amp_step_tensor_t &t = step->description->tensors[index];
  std::vector<char> data(byteSize(t));
  AMP_RETURN_IF_ERROR(amp_npy_read(&t, path, data.data(), data.size()));
  return amp_step_write_tensor(step, index, data.data(), data.size());
}

amp_status_t amp_step_run(amp_step_t *step, size_t input_count,
                          const amp_step_input_t *inputs) {
  if (!step)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "step is null");
  const amp_step_description_t &d = *step->description;
  AMP_RETURN_IF_ERROR(checkBatch(d.name, "step", d.tensor_count, d.tensors,
                                 d.index_check_count, d.index_checks,
                                 input_count, inputs));
  if (step->staging) {
    // The last run's copies out of the staging memory were its first
    // work: done before its kernels, so this seldom waits.
    amprt::Backend *backend = amprt::backendOf(step->stream);
    AMP_RETURN_IF_ERROR(backend->waitEvent(step->staged));
    auto *at = static_cast<unsigned char *>(step->staging);
    for (size_t i = 0, n = 0; i < d.tensor_count; ++i) {
      const amp_step_tensor_t &t = d.tensors[i];
      if (t.kind != AMP_STEP_INPUT)
        continue;
      if (size_t size = byteSize(t)) {
        std::memcpy(at, inputs[n].data, size);
        AMP_RETURN_IF_ERROR(amp_buffer_write(step->tensors[i].get(), 0, at,
                                             size, step->stream));
        at += size;
      }
      ++n;
    }
    AMP_RETURN_IF_ERROR(
        backend->recordEvent(step->staged, amprt::handleOf(step->stream)));
  } else {
    for (size_t i = 0, n = 0; i < d.tensor_count; ++i) {
      const amp_step_tensor_t &t = d.tensors[i];
      if (t.kind != AMP_STEP_INPUT)
        continue;
      if (size_t size = byteSize(t))
        AMP_RETURN_IF_ERROR(amp_buffer_write(
            step->tensors[i].get(), 0, inputs[n].data, size, step->stream));
      ++n;
    }
  }
  if (step->graph)
    return amp_graph_launch(step->graph, step->stream);
  return runCounted(step);
}

amp_status_t amp_epoch_order(int64_t rows, uint64_t seed, int64_t epoch,
                             int32_t shuffle, int64_t *order) {
  if (rows < 0 || (rows && !order) || epoch < 0)
    return AMP_STATUS(
        AMP_INVALID_ARGUMENT, "no order of %lld rows in epoch %lld",
        static_cast<long long>(rows), static_cast<long long>(epoch));
  for (int64_t i = 0; i < rows; ++i)
    order[i] = i;
  if (!shuffle)
    return nullptr;
  uint64_t state =
      seed ^ (0x9e3779b97f4a7c15ull * static_cast<uint64_t>(epoch + 1));
  for (int64_t i = rows - 1; i > 0; --i) {
    auto j = static_cast<int64_t>(amprt::splitmix64(state) %
                                  static_cast<uint64_t>(i + 1));
    std::swap(order[i], order[j]);
  }
  return nullptr;
}

amp_status_t amp_step_check_data(amp_step_t *step, int32_t evaluation,
                                 size_t tensor, const void *data, int64_t rows,
                                 int32_t finite) {
  if (!step)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "step is null");
  const amp_step_description_t &d = *step->description;
  if (evaluation && !d.eval)
    return AMP_STATUS(AMP_UNAVAILABLE,
                      "step '%s' was compiled without an evaluation", d.name);
  size_t count = evaluation ? d.eval->tensor_count : d.tensor_count;
  const amp_step_tensor_t *tensors = evaluation ? d.eval->tensors : d.tensors;
  size_t checkCount =
      evaluation ? d.eval->index_check_count : d.index_check_count;
  const amp_step_index_check_t *checks =
      evaluation ? d.eval->index_checks : d.index_checks;
  const char *what = evaluation ? "evaluation" : "step";
  if (tensor >= count || tensors[tensor].kind != AMP_STEP_INPUT ||
      tensors[tensor].rank < 1)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "tensor %zu of the %s of '%s' is no batch input with "
                      "rows",
                      tensor, what, d.name);
  const amp_step_tensor_t &t = tensors[tensor];
  int64_t perRow = elementCount(t) / t.shape[0];
  if (rows < 0 || (rows && !data) || (perRow && rows > INT64_MAX / perRow))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "%lld rows of input '%s' are no data set",
                      static_cast<long long>(rows), t.name);
  int64_t elements = rows * perRow;
  // Where element `flat` is: its row, and its place in the row.
  auto place = [&](int64_t flat) {
    return "row " + std::to_string(flat / perRow) + " of input '" + t.name +
           "' holds ";
  };
  auto inRow = [&](int64_t flat) {
    return t.rank > 1
               ? " at " + positionString(t.rank - 1, t.shape + 1, flat % perRow)
               : std::string();
  };
  for (size_t c = 0; c < checkCount; ++c) {
    const amp_step_index_check_t &check = checks[c];
    if (check.tensor != tensor)
      continue;
    int64_t i = firstOutOfRange(t.type, check, data, elements);
    if (i >= 0)
      return AMP_STATUS(AMP_INVALID_ARGUMENT, "%s%lld%s, outside [0, %lld): %s",
                        place(i).c_str(),
                        static_cast<long long>(loadInteger(t.type, data, i)),
                        inRow(i).c_str(), static_cast<long long>(check.bound),
                        check.reader ? check.reader : "an index");
  }
  if (finite && isFloat(t.type)) {
    int64_t i = firstNonFinite(t.type, data, elements);
    if (i >= 0)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "%s%g%s: a value that is not finite makes the loss "
                        "and, without a loss scaler to skip the step, every "
                        "parameter not finite",
                        place(i).c_str(), loadFloat(t.type, data, i),
                        inRow(i).c_str());
  }
  return nullptr;
}

amp_status_t amp_step_capture(amp_step_t *step) {
  if (!step)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "step is null");
  // The replicas' collectives are the transport's calls, which a graph
  // would not repeat (and MPI's wait for the host).
  if (step->stream->replicas.all_reduce)
    return AMP_STATUS(AMP_UNAVAILABLE,
                      "step '%s' is one of %d replicas: its collectives are "
                      "not captured into a graph; it runs as before",
                      step->description->name, step->stream->replicas.count);
  AMP_RETURN_IF_ERROR(checkShardedRun(step));
  AMP_RETURN_IF_ERROR(amp_graph_capture_begin(step->stream));
  amp_status_t run = runOnce(step);
  amp_graph_t *graph = nullptr;
  // End the capture whatever happened, so that the stream works again.
  amp_status_t end = amp_graph_capture_end(step->stream, &graph);
  if (run) {
    amp_status_free(end);
    amp_graph_destroy(graph);
    return run;
  }
  AMP_RETURN_IF_ERROR(end);
  amp_graph_destroy(step->graph);
  step->graph = graph;
  return nullptr;
}

amp_status_t amp_step_evaluate(amp_step_t *step, size_t input_count,
                               const amp_step_input_t *inputs,
                               float *out_loss) {
  if (!step || !out_loss)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "step or out_loss is null");
  const amp_step_description_t &d = *step->description;
  // The evaluation of the batch's size, where there are several; one
  // checks the batch as it is, whatever its size.
  int64_t batch = input_count && inputs && inputs[0].rank > 0 && inputs[0].shape
                      ? inputs[0].shape[0]
                      : -1;
  Evaluation *chosen = nullptr;
  AMP_RETURN_IF_ERROR(evaluationFor(step, batch, &chosen));
  Evaluation &evaluation = *chosen;
  const amp_eval_description_t &e = *evaluation.description;
  AMP_RETURN_IF_ERROR(checkBatch(d.name, "evaluation", e.tensor_count,
                                 e.tensors, e.index_check_count, e.index_checks,
                                 input_count, inputs));
  for (size_t i = 0, n = 0; i < e.tensor_count; ++i) {
    const amp_step_tensor_t &t = e.tensors[i];
    if (t.kind != AMP_STEP_INPUT)
      continue;
    if (size_t size = byteSize(t))
      AMP_RETURN_IF_ERROR(amp_buffer_write(evaluation.buffers[n].get(), 0,
                                           inputs[n].data, size, step->stream));
    ++n;
  }
  AMP_RETURN_IF_ERROR(e.run(step->stream, evaluation.pointers.data(),
                            amp_buffer_data(evaluation.arena.get()),
                            evaluation.outputs.data()));
  evaluation.ran = true;
  step->lastEvaluation = &evaluation;
  return amp_step_read_output(step, 0, out_loss, sizeof *out_loss);
}

amp_status_t amp_step_find_evaluation(amp_step_t *step, int64_t batch,
                                      const amp_eval_description_t **out) {
  if (!step || !out)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "step or out is null");
  Evaluation *evaluation = nullptr;
  AMP_RETURN_IF_ERROR(evaluationFor(step, batch, &evaluation));
  *out = evaluation->description;
  return nullptr;
}

const amp_eval_description_t *amp_step_last_evaluation(amp_step_t *step) {
  if (!step || step->evaluations.empty())
    return nullptr;
  return step->lastEvaluation ? step->lastEvaluation->description
                              : step->description->eval;
}

amp_status_t amp_step_read_output(amp_step_t *step, size_t index, void *data,
                                  size_t size) {
  if (!step || !data)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "step or data is null");
  if (step->evaluations.empty())
    return AMP_STATUS(AMP_UNAVAILABLE,
                      "step '%s' was compiled without an evaluation",
                      step->description->name);
  Evaluation &evaluation =
      step->lastEvaluation ? *step->lastEvaluation : *step->evaluations.front();
  const amp_eval_description_t &e = *evaluation.description;
  if (index >= e.output_count)
    return AMP_STATUS(AMP_OUT_OF_RANGE, "output %zu of an evaluation with %zu",
                      index, e.output_count);
  AMP_RETURN_IF_ERROR(checkByteSize(e.outputs[index], size));
  if (!evaluation.ran)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "step '%s' has not evaluated a batch yet: there are no "
                      "outputs to read (amp_step_evaluate first)",
                      step->description->name);
  AMP_RETURN_IF_ERROR(amp_buffer_read(evaluation.outputBuffers[index], 0, data,
                                      size, step->stream));
  return amp_stream_synchronize(step->stream);
}

amp_status_t amp_step_result(amp_step_t *step, float *out_loss,
                             float *out_found_inf) {
  if (!step || !out_loss || !out_found_inf)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "step, out_loss or out_found_inf is null");
  Results results;
  AMP_RETURN_IF_ERROR(amp_buffer_read(step->results.get(), 0, &results,
                                      sizeof results, step->stream));
  AMP_RETURN_IF_ERROR(amp_stream_synchronize(step->stream));
  *out_loss = results.loss;
  *out_found_inf = results.foundInf;
  return nullptr;
}

amp_status_t amp_step_scaler(amp_step_t *step, float *out_scale,
                             int64_t *out_steps, int64_t *out_skipped) {
  if (!step || !out_scale || !out_steps || !out_skipped)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "step or an out_ parameter is null");
  Results results;
  AMP_RETURN_IF_ERROR(amp_buffer_read(step->results.get(), 0, &results,
                                      sizeof results, step->stream));
  float scale = 1;
  int64_t slot = step->description->loss_scale_tensor;
  if (slot >= 0)
    AMP_RETURN_IF_ERROR(amp_buffer_read(step->tensors[slot].get(), 0, &scale,
                                        sizeof scale, step->stream));
  AMP_RETURN_IF_ERROR(amp_stream_synchronize(step->stream));
  *out_scale = scale;
  *out_steps = static_cast<int64_t>(results.counters[0]);
  *out_skipped = static_cast<int64_t>(results.counters[1]);
  return nullptr;
}

amp_status_t amp_step_save(amp_step_t *step, const char *path) {
  if (!step || !path)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "step or path is null");
  if (step->description->zero_replicas && step->partsRank < 0)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "step '%s' holds no parts of its optimizer state yet: "
                      "initialise or load it before saving it",
                      step->description->name);
  std::vector<std::vector<char>> host;
  Results results;
  std::vector<amp_state_entry_t> entries;
  AMP_RETURN_IF_ERROR(readState(step, host, results, entries));
  // A diverged state does not replace the last good one.
  struct stat existing;
  const amp_step_description_t &d = *step->description;
  for (size_t i = 0, e = 0; i < d.tensor_count; ++i) {
    const amp_step_tensor_t &t = d.tensors[i];
    if (!inStateFile(t))
      continue;
    int64_t bad = t.kind == AMP_STEP_PARAM && isFloat(t.type)
                      ? firstNonFinite(t.type, entries[e].data, elementCount(t))
                      : -1;
    ++e;
    if (bad >= 0 && ::stat(path, &existing) == 0)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "parameter '%s' of step '%s' holds %g at %s: a state "
                        "that is not finite is not saved over %s, which "
                        "keeps the last state saved there (save it to a new "
                        "path to keep it)",
                        t.name, d.name,
                        loadFloat(t.type, entries[e - 1].data, bad),
                        positionString(t.rank, t.shape, bad).c_str(), path);
  }
  return amp_state_save(path, entries.size(), entries.data());
}

amp_status_t amp_step_load(amp_step_t *step, const char *path) {
  if (!step || !path)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "step or path is null");
  std::vector<std::vector<char>> host;
  host.reserve(step->description->tensor_count);
  Results results{};
  std::vector<amp_state_entry_t> entries =
      stateEntries(step, host, results.counters);
  // Everything is checked here, before the step changes.
  AMP_RETURN_IF_ERROR(amp_state_load(path, entries.size(), entries.data()));
  const amp_step_description_t &d = *step->description;
  int32_t rank = amp_replica_rank(step->stream);
  if (d.zero_replicas) {
    int64_t part[2];
    std::memcpy(part, entries.back().data, sizeof part);
    if (part[0] != rank || part[1] != d.zero_replicas)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "%s holds the optimizer state's parts of rank %lld "
                        "of %lld; this step is rank %d of %d (each rank "
                        "loads the file it saved)",
                        path, static_cast<long long>(part[0]),
                        static_cast<long long>(part[1]), rank, d.zero_replicas);
  }
  for (size_t i = 0, e = 0; i <= step->description->tensor_count; ++i) {
    bool counters = i == step->description->tensor_count;
    if (!counters && !inStateFile(step->description->tensors[i]))
      continue;
    if (amp_status_t bad = counters
                               ? checkCounters(results.counters)
                               : checkStateValues(step, i, entries[e].data)) {
      std::string message = amp_status_message(bad);
      amp_status_free(bad);
      return AMP_STATUS(AMP_INVALID_ARGUMENT, "%s: %s", path, message.c_str());
    }
    ++e;
  }
  AMP_RETURN_IF_ERROR(amp_stream_synchronize(step->stream));
  for (size_t i = 0, e = 0; i < step->description->tensor_count; ++i) {
    if (!inStateFile(step->description->tensors[i]))
      continue;
    AMP_RETURN_IF_ERROR(amp_buffer_write(step->tensors[i].get(), 0,
                                         entries[e].data, entries[e].size,
                                         step->stream));
    ++e;
  }
  AMP_RETURN_IF_ERROR(amp_buffer_write(step->results.get(), 0, &results,
                                       sizeof results, step->stream));
  if (d.zero_replicas)
    step->partsRank = rank;
  step->microBatch = -1;
  return amp_stream_synchronize(step->stream);
}

amp_status_t amp_step_set_replicas(amp_step_t *step,
                                   const amp_replicas_t *replicas) {
  if (!step)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "step is null");
  const char *name = step->description->name;
  if (replicas) {
    if (!step->description->data_parallel)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "step '%s' was compiled without --data-parallel: it "
                        "reduces no gradients, so each replica would train "
                        "on its own",
                        name);
    if (!replicas->all_reduce || replicas->count < 1 || replicas->rank < 0 ||
        replicas->rank >= replicas->count)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "the replicas of step '%s' need an all-reduce and a "
                        "rank in [0, count); got rank %d of %d",
                        name, replicas->rank, replicas->count);
    if (!replicas->all_reduce_start != !replicas->all_reduce_wait)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "the replicas of step '%s' have all_reduce_%s "
                        "without all_reduce_%s: both or neither",
                        name, replicas->all_reduce_start ? "start" : "wait",
                        replicas->all_reduce_start ? "wait" : "start");
  }
  // A step with sharded optimizer state runs on the replicas it was
  // compiled for, as the rank whose parts it holds.
  const int32_t shards = step->description->zero_replicas;
  if (replicas && shards) {
    if (replicas->count != shards || !replicas->all_gather)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "step '%s' shards its optimizer state over %d "
                        "replicas (zero-stage=1); it cannot join %d%s",
                        name, shards, replicas->count,
                        replicas->all_gather ? "" : " that gather no parts");
  }
  if (replicas && shards && step->partsRank >= 0 &&
      step->partsRank != replicas->rank)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "step '%s' holds the optimizer state's parts of rank "
                      "%d; as rank %d it would update another rank's: join "
                      "the replicas before amp_step_init or amp_step_load",
                      name, step->partsRank, replicas->rank);
  // Runs queued before the change reduce as they were queued to.
  AMP_RETURN_IF_ERROR(amp_stream_synchronize(step->stream));
  step->stream->replicas = replicas ? *replicas : amp_replicas_t{};
  return nullptr;
}

amp_status_t amp_step_fingerprint(amp_step_t *step, uint64_t *out_program,
                                  uint64_t *out_state) {
  if (!step || !out_program || !out_state)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "step or an out pointer is null");
  std::vector<std::vector<char>> host;
  Results results;
  std::vector<amp_state_entry_t> entries;
  AMP_RETURN_IF_ERROR(readState(step, host, results, entries));
  // Buffers (batch norm's running statistics) are each replica's own,
  // computed from its own batches: they are no part of what replicas
  // share.
  // So are the parts of a sharded optimizer state.
  Fingerprint state;
  const amp_step_description_t &d = *step->description;
  size_t e = 0;
  for (size_t i = 0; i < d.tensor_count; ++i) {
    if (!inStateFile(d.tensors[i]))
      continue;
    const amp_state_entry_t &entry = entries[e++];
    if (d.tensors[i].kind == AMP_STEP_BUFFER || d.tensors[i].shard)
      continue;
    state.add(entry.name);
    state.add(entry.data, entry.size);
  }
  state.add(entries[e].data, entries[e].size); // the counters
  *out_program = programFingerprint(*step->description);
  *out_state = state.hash;
  return nullptr;
}

} // extern "C"
