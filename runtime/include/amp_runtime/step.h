/*===- step.h - running an ahead-of-time compiled training step --*- C -*-===*
 *
 * amp-compile turns a training graph into a shared library whose code is one
 * function, the step, and a table describing its tensors. This header is the
 * API that runs such a step; the library's own header (<name>.h) adds only
 * <name>_describe(), which returns the table.
 *
 * A step owns every tensor it threads from one call to the next (the
 * parameters, the optimizer state, the loss scaler), one device buffer per
 * batch input, and an arena for its temporaries, sized by the compiler's
 * buffer plan. A call to amp_step_run queues the whole step on the step's
 * stream and returns without waiting: the loss, found_inf, the scale and
 * the counters are read (and waited for) only when asked.
 *
 *   amp_step_t *step;
 *   amp_step_create(mlp_describe(), AMP_DEVICE_HOST, &step);
 *   amp_step_init(step, 42);
 *   amp_step_input_t batch[2] = {{x, ...}, {labels, ...}};
 *   amp_step_run(step, 2, batch);
 *   amp_step_result(step, &loss, &found_inf);
 *   amp_step_save(step, "mlp.ampstate");
 *   amp_step_destroy(step);
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_STEP_H
#define AMP_RUNTIME_STEP_H

#include "amp_runtime/replicas.h"
#include "amp_runtime/runtime.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types of step tensors (a superset of amp_dtype_t's 16/32-bit
 * floats: batches also carry integer labels and indices). */
typedef enum amp_element_type_e {
  AMP_ELEMENT_F32 = 0,
  AMP_ELEMENT_F16 = 1,
  AMP_ELEMENT_BF16 = 2,
  AMP_ELEMENT_F64 = 3,
  AMP_ELEMENT_I32 = 4,
  AMP_ELEMENT_I64 = 5,
  AMP_ELEMENT_I1 = 6, /* one byte, 0 or 1 */
} amp_element_type_t;

/* Bytes per element of `type`; 0 for a value outside the enum. */
size_t amp_element_size(amp_element_type_t type);
/* "f32", "f16", ...; "?" for a value outside the enum. */
const char *amp_element_type_name(amp_element_type_t type);

typedef enum amp_step_tensor_kind_e {
  AMP_STEP_PARAM = 0,     /* a trainable parameter (f32 master weight) */
  AMP_STEP_STATE = 1,     /* optimizer or loss-scaler state */
  AMP_STEP_INPUT = 2,     /* part of the batch, given to every run */
  AMP_STEP_HPARAM = 3,    /* a hyperparameter the optimizer reads at run time
                             (0-d f64): "lr", "weight_decay", ...; saved and
                             initialised as state, set by amp_step_set_hparam */
  AMP_STEP_LOSS_PART = 4, /* a part of the loss the model returns after it
                             (0-d f32, named as in the model): each step
                             writes its own, none reads it; kept out of
                             state files */
  AMP_STEP_BUFFER = 5,    /* a buffer of the model (batch norm's running
                             statistics, delayed FP8 scaling's scales,
                             amax histories and overflow counts): state the
                             step updates (not on a skipped step) and its
                             evaluation reads; saved and initialised as
                             state */
  AMP_STEP_RNG = 6,       /* the state of the generator the model's dropouts
                             draw their masks from (2 x i64: seed, forward
                             pass): amp_step_init seeds it, each run advances
                             the pass, skipped or not; saved as state */
} amp_step_tensor_kind_t;

#define AMP_STEP_MAX_RANK 8

/* One argument of the step function, in order. */
typedef struct amp_step_tensor_s {
  const char *name; /* unique; the key in state files */
  amp_step_tensor_kind_t kind;
  amp_element_type_t type;
  int32_t rank;
  int64_t shape[AMP_STEP_MAX_RANK];
  int64_t fan_in; /* a parameter's fan-in for amp_step_init, or 0 ... */
  double initial; /* ... for one that starts at this value, as a state */
  /* A step that shards its optimizer state (amp-optimizer{zero-stage=1}):
   * 0: the tensor is whole;
   * 1: it is this replica's part of the elements of tensor `shard_of` (an
   *    AMP_STEP_PARAM): ceil(its elements / zero_replicas) f32, those of
   *    [rank * part, (rank + 1) * part), zeros past the end; a moment,
   *    starting at `initial`;
   * 2: the same, the parameter's f32 master weights, which start at the
   *    parameter's values (amp_step_init draws them at f32). */
  int32_t shard;
  size_t shard_of;
} amp_step_tensor_t;

/* The compiled step itself: reads and updates `tensors` (device pointers,
 * one per argument, in order) in place, uses `arena` for temporaries,
 * writes the loss (f32) to `loss` and, with loss scaling, found_inf (f32,
 * 0 or 1) to `found_inf`, and adds 1 to counters[0] (steps) and found_inf
 * to counters[1] (skipped steps). Queues work on `stream`; never waits. */
typedef amp_status_t (*amp_step_function_t)(amp_stream_t *stream,
                                            void *const *tensors, void *arena,
                                            float *loss, float *found_inf,
                                            double *counters);

/* A range that an integer batch input must respect, because an op of the
 * step reads it as positions (embedding ids into a table's rows, labels
 * into the classes of logits). amp_step_run checks every element before it
 * copies the batch: the step does not run on a batch that breaks one. */
typedef struct amp_step_index_check_s {
  size_t tensor;       /* an AMP_STEP_INPUT of type i32 or i64 */
  int64_t bound;       /* elements lie in [0, bound) ... */
  int32_t has_ignored; /* ... or, where this is 1, equal `ignored` */
  int64_t ignored;
  const char *reader; /* what reads them, for messages: "the 10 classes
                         of amp.cross_entropy at mlp.mlir:12:11" */
} amp_step_index_check_t;

/* The forward-only evaluation amp-compile emits next to the step: the
 * model's loss (and the values named with --eval-outputs) for one batch,
 * in the precision the step trains in (autocast on), without loss scaling,
 * gradients or an update. It reads the step's parameters, never writes
 * them, and has an arena of its own.
 *
 * `tensors` (device pointers, one per entry of the table's `tensors`, in
 * order) are the step's parameters and buffers of the same names and the
 * batch;
 * `outputs` (device pointers) receive output 0, the loss (f32, 0-d), then
 * the named values. Queues work on `stream`; never waits. */
typedef amp_status_t (*amp_eval_function_t)(amp_stream_t *stream,
                                            void *const *tensors, void *arena,
                                            void *const *outputs);

typedef struct amp_eval_description_s {
  size_t tensor_count;
  const amp_step_tensor_t *tensors; /* AMP_STEP_PARAM, AMP_STEP_BUFFER: the
                                       step's tensor of that name and kind;
                                       AMP_STEP_INPUT: the batch */
  size_t output_count;
  const amp_step_tensor_t *outputs; /* "loss" first; kind AMP_STEP_INPUT */
  size_t arena_size;                /* bytes */
  amp_eval_function_t run;
  size_t index_check_count; /* on the evaluation's batch inputs */
  const amp_step_index_check_t *index_checks;
} amp_eval_description_t;

typedef struct amp_step_description_s {
  uint32_t abi_version; /* AMP_STEP_ABI_VERSION */
  const char *name;
  amp_device_kind_t target; /* the device the code was compiled for */
  size_t tensor_count;
  const amp_step_tensor_t *tensors;
  int64_t loss_scale_tensor; /* index of the loss scale, or -1 */
  size_t arena_size;         /* bytes */
  amp_step_function_t run;
  size_t index_check_count;
  const amp_step_index_check_t *index_checks;
  const amp_eval_description_t *eval; /* or NULL: compiled without one */
  int32_t data_parallel;     /* 1: compiled with --data-parallel, its gradients
                                reduced over the step's replicas (replicas.h) */
  int32_t zero_replicas;     /* 0, or the number of replicas a step compiled
                                with zero-stage=1 shards its optimizer state
                                over, and so runs on */
  int32_t accumulate;        /* gradient accumulation's micro-batches per
                                update (2 or more), or 0: none */
  size_t micro_batch_tensor; /* with accumulate: the 0-d f32 state that
                                counts them, which the runtime mirrors, so
                                that a replica's reductions know which
                                run updates without a wait for the
                                device */
  size_t other_eval_count;   /* the evaluation at other batch sizes
                                (amp-compile --eval-batch=N,M,...): `eval`
                                takes the first size, these the others */
  const amp_eval_description_t *const *other_evals;
} amp_step_description_t;

#define AMP_STEP_ABI_VERSION 11u

typedef struct amp_step_s amp_step_t;

/* Allocates every tensor (parameters zero, state at its initial value, the
 * counters zero) on a new device of description->target's kind.
 * AMP_UNAVAILABLE when `kind` is not the kind the step was compiled for or
 * the device is missing. */
amp_status_t amp_step_create(const amp_step_description_t *description,
                             amp_device_kind_t kind, amp_step_t **out_step);
void amp_step_destroy(amp_step_t *step);

const amp_step_description_t *amp_step_description(const amp_step_t *step);

/* Parameters as PyTorch initialises its layers: uniform in
 * [-1/sqrt(fan_in), 1/sqrt(fan_in)) from a generator seeded with `seed`
 * (splitmix64, one draw per element, in order; a weight's fan-in is its
 * matmul's inner dimension, a linear bias takes its weight's), or, where
 * fan_in is 0, every element at `initial` (norm scales 1, norm biases 0);
 * state at its initial values, counters zero; the random generator at
 * [seed mod 2^53, 0] (the interpreter holds integers exactly up to 2^53). */
amp_status_t amp_step_init(amp_step_t *step, uint64_t seed);

/* Copies all of tensor `index` from or to host memory; `size` must be its
 * size in bytes. A read waits for the step's queued work. */
amp_status_t amp_step_write_tensor(amp_step_t *step, size_t index,
                                   const void *data, size_t size);
amp_status_t amp_step_read_tensor(amp_step_t *step, size_t index, void *data,
                                  size_t size);
/* Sets tensor `index` from a .npy file, which must hold its type and shape
 * (bf16 as '<u2'); the tensor is unchanged on any error. */
amp_status_t amp_step_load_npy(amp_step_t *step, size_t index,
                               const char *path);
/* Writes tensor `index` to a .npy file (bf16 as '<u2'), atomically: the
 * path holds the old file or the whole new one. Waits for queued work. */
amp_status_t amp_step_save_npy(amp_step_t *step, size_t index,
                               const char *path);

/* Reads the .npy file at `path`, which must hold a tensor of `tensor`'s
 * type and shape (bf16 as '<u2', C order), into `data` (`size` bytes, all
 * of it); `data` is unchanged on any error. */
amp_status_t amp_npy_read(const amp_step_tensor_t *tensor, const char *path,
                          void *data, size_t size);
/* A .npy file's data in memory, for data sets larger than it: the file
 * mapped read-only (its pages read as they are first touched and dropped
 * under memory pressure), or, where the file's header leaves the elements
 * unaligned, read. */
typedef struct amp_npy_mapping_s amp_npy_mapping_t;
/* Checks the .npy file at `path` as amp_npy_read does (`tensor`'s type and
 * shape, C order, nothing after the data), then sets *out_data to its
 * elements, valid until amp_npy_unmap(*out_mapping). The file must not
 * change meanwhile. */
amp_status_t amp_npy_map(const amp_step_tensor_t *tensor, const char *path,
                         amp_npy_mapping_t **out_mapping,
                         const void **out_data);
void amp_npy_unmap(amp_npy_mapping_t *mapping);
/* The element type and shape of the .npy file at `path` (bf16 is read as
 * '<u2'), set in *out, whose name is kept and kind set to AMP_STEP_INPUT:
 * a tensor to read the file as with amp_npy_read. */
amp_status_t amp_npy_inspect(const char *path, amp_step_tensor_t *out);
/* Writes `data` (`size` bytes, all of `tensor`) as a .npy file of
 * `tensor`'s type and shape at `path`, atomically. */
amp_status_t amp_npy_write(const amp_step_tensor_t *tensor, const char *path,
                           const void *data, size_t size);

/* One batch input, in host memory; its type and shape must match the
 * step's input of the same position. */
typedef struct amp_step_input_s {
  const void *data;
  amp_element_type_t type;
  int32_t rank;
  const int64_t *shape;
} amp_step_input_t;

/* Queues one training step on `inputs` (one per AMP_STEP_INPUT tensor, in
 * order). Returns before the step has run on a CUDA device. Every input is
 * checked first, its index ranges included (amp_step_index_check_t): on
 * AMP_INVALID_ARGUMENT nothing was copied or run, and the step's state
 * and counters are those of the previous step. */
amp_status_t amp_step_run(amp_step_t *step, size_t input_count,
                          const amp_step_input_t *inputs);

/* Checks a data set's array for one batch input before training on it, so
 * that a bad value stops the run before its first step, named by its row
 * of the array: `data` holds `rows` examples of batch input `tensor` (an
 * index into the step's tensors, or, where `evaluation` is 1, the
 * evaluation's), one after another, each of the input's type and of its
 * shape after the first dimension. Integers are checked against the
 * index checks on that input (amp_step_index_check_t); floats, where
 * `finite` is 1, must be finite. AMP_INVALID_ARGUMENT names the first bad
 * element ("row 39 of input 'labels' holds 7 at [], outside [0, 5): read
 * by amp.cross_entropy at model.mlir:5:11"). */
amp_status_t amp_step_check_data(amp_step_t *step, int32_t evaluation,
                                 size_t tensor, const void *data, int64_t rows,
                                 int32_t finite);

/* The order of a data set's `rows` examples in epoch `epoch` (from 0),
 * written to `order` (`rows` elements): a Fisher-Yates shuffle drawn from
 * splitmix64 seeded with `seed` and the epoch, or the rows in order where
 * `shuffle` is 0. The same on every run and machine, so that a run resumed
 * from a checkpoint sees the batches the uninterrupted run would; amp-step
 * and Python's Step.fit both take their batches in it. */
amp_status_t amp_epoch_order(int64_t rows, uint64_t seed, int64_t epoch,
                             int32_t shuffle, int64_t *order);

/* Records the launches of one step, without running them, into a CUDA
 * graph that every later amp_step_run replays after copying its batch: one
 * launch per step instead of one per kernel. The step keeps no host-side
 * state between runs (the scale, the counters and found_inf live on the
 * device), so the replay computes what the launches would. Capturing again
 * replaces the graph. AMP_UNAVAILABLE on the host device, where work runs
 * as it is issued, and for a step joined to replicas (replicas.h), whose
 * collectives are the transport's calls; the step then runs as before. */
amp_status_t amp_step_capture(amp_step_t *step);

/* The last step's loss and found_inf (0 without loss scaling); waits. */
amp_status_t amp_step_result(amp_step_t *step, float *out_loss,
                             float *out_found_inf);
/* The current loss scale (1 without loss scaling), the number of steps run
 * and how many of them were skipped for inf/NaN gradients; waits. */
amp_status_t amp_step_scaler(amp_step_t *step, float *out_scale,
                             int64_t *out_steps, int64_t *out_skipped);

/* Sets hyperparameter `name` (an AMP_STEP_HPARAM tensor) for the steps
 * run after this call, waiting for those queued before it: the run-time
 * form of the option the step was compiled with (the learning rate as
 * `lr`, `weight_decay`, `beta1`, `beta2`, `eps`, `momentum`,
 * `max_grad_norm`). AMP_INVALID_ARGUMENT, changing nothing, when the step
 * has no such hyperparameter or `value` lies outside its range (those of
 * torch.optim: lr >= 0, betas in [0, 1), eps > 0, ...). amp_step_init and
 * amp_step_create set each to its compiled value; a state file holds
 * them. */
amp_status_t amp_step_set_hparam(amp_step_t *step, const char *name,
                                 double value);
amp_status_t amp_step_get_hparam(amp_step_t *step, const char *name,
                                 double *out_value);

/* Evaluates the model on one batch with the step's current parameters
 * (amp_eval_description_t), after the steps queued before it, and waits
 * for the loss. `inputs` are the evaluation's batch inputs, checked as
 * amp_step_run checks a step's (usually the same tensors: the model's
 * arguments other than its parameters). A step compiled with evaluations
 * at several batch sizes runs the one whose batch is the first input's
 * first dimension (AMP_INVALID_ARGUMENT, naming the sizes, where none
 * is). The step's parameters, state and counters are not changed.
 * AMP_UNAVAILABLE when the step was compiled without an evaluation. */
amp_status_t amp_step_evaluate(amp_step_t *step, size_t input_count,
                               const amp_step_input_t *inputs, float *out_loss);
/* The evaluation amp_step_evaluate ran last (its outputs' shapes are
 * those amp_step_read_output copies), or, before any, the step's `eval`;
 * NULL without one. */
const amp_eval_description_t *amp_step_last_evaluation(amp_step_t *step);
/* The evaluation that takes batches of `batch` examples (the first
 * dimension of its first batch input): the step's `eval` where the step
 * has one evaluation, whatever its batch (amp_step_evaluate then checks
 * the shapes); AMP_INVALID_ARGUMENT naming the sizes where it has several
 * and none is `batch`, AMP_UNAVAILABLE without an evaluation. */
amp_status_t amp_step_find_evaluation(amp_step_t *step, int64_t batch,
                                      const amp_eval_description_t **out);
/* Copies output `index` of the last evaluation (0 the loss, then the
 * values named at compile time, as the evaluation's table lists them) to
 * host memory; `size` must be its size in bytes. Waits. */
amp_status_t amp_step_read_output(amp_step_t *step, size_t index, void *data,
                                  size_t size);

/* Saves every parameter and state tensor and the counters to `path`
 * atomically (amp_state_save); a load checks the whole file first and
 * leaves the step unchanged if it is not a state of this step, or if it
 * holds values no step produces (a loss scale that is not finite and
 * positive, counters that are no counts, negative second moments).
 * A state whose parameters are not all finite is not saved over a file
 * that exists: AMP_INVALID_ARGUMENT names the parameter, and the file
 * (the last good state) is kept; such a state may be saved to a new
 * path. */
amp_status_t amp_step_save(amp_step_t *step, const char *path);
amp_status_t amp_step_load(amp_step_t *step, const char *path);

/* Makes the step one replica of a data-parallel job whose collective is
 * `replicas` (replicas.h; copied), or, with NULL, a single process again.
 * AMP_INVALID_ARGUMENT unless the step was compiled with --data-parallel
 * (a step that reduces nothing would train each replica apart). Waits for
 * the step's queued work. Most callers use amp_step_set_comm (comm.h),
 * which checks that the replicas start alike first. */
amp_status_t amp_step_set_replicas(amp_step_t *step,
                                   const amp_replicas_t *replicas);

/* Two 64-bit fingerprints: of the compiled step (its description: tensors,
 * types, shapes, arena, target, ABI) and of its state (every tensor a
 * state file holds but the buffers, and the counters). Replicas that agree
 * on both apply the same updates; their buffers (batch norm's running
 * statistics) follow each replica's own batches. Waits for the step's
 * queued work. */
amp_status_t amp_step_fingerprint(amp_step_t *step, uint64_t *out_program,
                                  uint64_t *out_state);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AMP_RUNTIME_STEP_H */
