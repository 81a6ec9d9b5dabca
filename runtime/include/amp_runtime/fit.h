/*===- fit.h - training a compiled step on a data set -------------*- C -*-===*
 *
 * The training loop over a data set, once for every caller: amp-step --data
 * and Python's Step.fit both hand their arrays to amp_step_fit, so that
 * the two take the same batches in the same order, stop for the same
 * reasons and print and log the same lines.
 *
 *   const void *arrays[] = {x, labels};
 *   const char *names[] = {"x", "labels"};
 *   amp_data_set_t train = {"data", 60000, 2, arrays, names};
 *   amp_fit_options_t options = amp_fit_defaults();
 *   options.epochs = 3;
 *   options.progress = print_line;
 *   amp_step_fit(step, &options, &train, NULL);
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_FIT_H
#define AMP_RUNTIME_FIT_H

#include "amp_runtime/step.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A data set in host memory: one array per batch input (AMP_STEP_INPUT) of
 * the step, or of its evaluation, in their order; array i holds `rows`
 * examples of input i one after another, each of the input's type and of
 * its shape after the first dimension (the batch). Batch b of an order is
 * the examples order[b * batch], ..., order[(b + 1) * batch - 1]; the last
 * partial batch is left out.
 *
 * A data set may also come in pieces (shards: a directory of files, each
 * with some of the examples): with shard_count above 1, `arrays` and
 * `array_names` hold shard_count * array_count entries, array a of shard s
 * at [s * array_count + a], and every array of shard s holds
 * shard_rows[s] examples (together `rows`); example r is in the shard whose
 * rows hold it, the shards one after another. shard_count 0 (as a caller
 * that knows nothing of shards leaves it) or 1: each array in one piece. */
typedef struct amp_data_set_s {
  const char *name; /* for messages: "--data", "data" */
  int64_t rows;
  size_t array_count;
  const void *const *arrays;
  const char *const *array_names; /* for messages, one per array: "--data
                                     labels=y.npy", "data['labels']" */
  size_t shard_count;
  const int64_t *shard_rows;
} amp_data_set_t;

/* What amp_step_fit hands its progress callback: a line as amp-step prints
 * it ("epoch 1 step 50 loss 2.07 scale 65536 skipped 0 lr 0.001 steps/s
 * 41.2"), and the same record as one JSON object, as the log holds it
 * ({"step": 50, "epoch": 1, "loss": 2.07, ...: the parts of the loss the
 * model returns by name, "val_loss" where validated, "scale", "skipped",
 * "lr" where the step has one, "steps_per_s"}; numbers that round-trip to
 * the values read). Before the first step it hands the run's plan ("data:
 * 60000 examples, 937 batches of 64 per epoch (32 examples left out), 3
 * epochs; from step 0") with `json` NULL. */
typedef struct amp_fit_report_s {
  const char *line;
  const char *json;
  int32_t leads; /* 1 on rank 0 (the process that prints, logs and keeps
                    the evaluation's outputs), 0 on the other ranks */
} amp_fit_report_t;

/* Returns 0 to go on; anything else stops amp_step_fit after the step just
 * reported (its checkpoint, where one was due, not saved), with
 * AMP_INVALID_ARGUMENT "stopped by the progress callback". */
typedef int32_t (*amp_fit_progress_t)(void *context,
                                      const amp_fit_report_t *report);

typedef struct amp_fit_options_s {
  int64_t epochs;              /* >= 1, counted from step 0 */
  int64_t print_every;         /* a report every N steps, and at the end */
  int64_t val_every;           /* with `val`: validate every N steps, and at
                                  the end */
  int64_t checkpoint_every;    /* with `checkpoint`: save every N steps, and at
                                  the end */
  uint64_t shuffle_seed;       /* amp_epoch_order's seed */
  int32_t shuffle;             /* 0: every epoch in the data set's order */
  int32_t allow_nonfinite;     /* 1: train on where the data holds a float
                                  that is not finite, or the loss of a step
                                  without a loss scaler is not */
  const char *checkpoint;      /* a state file, or NULL */
  const char *log;             /* a JSON-lines file appended to, or NULL */
  amp_fit_progress_t progress; /* or NULL */
  void *context;               /* handed to `progress` */
  int64_t patience;    /* with `val`: stop once this many validations in a row
                          have not lowered the best validation loss; 0: never */
  int64_t keep_best;   /* with `val` and `checkpoint`: keep the states of the k
                          validations of the lowest loss, each saved as
                          `checkpoint`.best-step<S> when it is made (the others
                          removed); 0: none */
  const char *monitor; /* what patience and keep_best judge: NULL or
                          "val_loss" (lower is better), "val_accuracy" or
                          "val_top5_accuracy" (higher is better; the
                          evaluation must classify, as
                          amp_step_validate_metrics says) */
} amp_fit_options_t;

/* 1 epoch, a report every 100 steps, shuffled with seed 0; nothing else. */
amp_fit_options_t amp_fit_defaults(void);

/* Trains `step` on `train` for the epochs of `options`, from the step's
 * own counter: a step loaded from a checkpoint resumes where it stopped,
 * on the batches the whole run would have taken. Step k (from 0) takes
 * batch (k mod B) * R + r of epoch k / B's order (amp_epoch_order), where
 * R is the number of replicas of a data-parallel step (1 without), r this
 * replica's rank and B the number of full batches over R.
 *
 * Before the first step it checks everything it will need: every array of
 * both data sets (amp_step_check_data, floats finite unless
 * allow_nonfinite; the error names the array and its row), that the step
 * has not run more steps than the epochs hold, that the log opens and the
 * checkpoint can be written; nothing is trained, logged or saved on an
 * error.
 *
 * A step without a loss scaler updates its parameters with whatever
 * gradients a batch gives: unless allow_nonfinite, its loss is read after
 * every step and training stops with AMP_INVALID_ARGUMENT when it is not
 * finite, naming the epoch, the step and the batch, before that step is
 * reported, logged or checkpointed (the last checkpoint is the state from
 * before it). A step with a scaler skips such steps itself.
 *
 * Every print_every steps, and after the last, it hands `progress` a
 * report (amp_fit_report_t) and appends its JSON to the log (rank 0
 * only); with `val`, every val_every steps and after the last it adds the
 * mean loss of the evaluation over `val` (amp_step_validate). Every
 * checkpoint_every steps and after the last it saves the state to
 * `checkpoint` (rank 0, or every rank where the step shards its optimizer
 * state, rank r > 0 to `checkpoint`.rank<r>). An error of a step names its
 * epoch, step and batch ("epoch 2, step 9 (batch 3 of the epoch): ...").
 *
 * With `patience` P, training stops early after the P-th validation in a
 * row whose loss is not below the best so far: a report says so ("early
 * stop at step S: val_loss has not improved on B (step T) in P
 * validations") and the checkpoint, where given, is saved. With
 * `keep_best` k, each validation whose loss is among the k lowest so far
 * saves the state (atomically) to `checkpoint`.best-step<S>, and the file
 * it pushes out of the k is removed. Neither remembers an earlier run: a
 * resumed run counts afresh. */
amp_status_t amp_step_fit(amp_step_t *step, const amp_fit_options_t *options,
                          const amp_data_set_t *train,
                          const amp_data_set_t *val);

/* The mean loss of the step's evaluation over every full batch of `data`
 * (the evaluation's batch inputs), in order, written to *out_mean_loss.
 * Where `outputs` is not NULL, outputs[k] (host memory) receives output k
 * of every batch one after another (its size times the batches), output 0,
 * the loss, once: the mean as f32. AMP_UNAVAILABLE when the step was
 * compiled without an evaluation. */
amp_status_t amp_step_validate(amp_step_t *step, const amp_data_set_t *data,
                               double *out_mean_loss, void *const *outputs);

/* amp_step_validate's mean loss and, where the evaluation classifies (an
 * output named "logits" of [..., classes] and one integer batch input of
 * its leading shape, its labels: [batch] for [batch, classes], [batch,
 * length] for a language model's tokens), the share of the labels that are
 * the first largest
 * logit (*out_accuracy) and among the 5 largest (*out_top5, with more than
 * 5 classes), labels outside [0, classes) not counted; NaN where there is
 * no such figure. Progress lines and logs report them beside val_loss. */
amp_status_t amp_step_validate_metrics(amp_step_t *step,
                                       const amp_data_set_t *data,
                                       double *out_mean_loss,
                                       double *out_accuracy, double *out_top5);

/* The learning rate the step's next update applies, as the progress lines
 * report it: the "lr" hyperparameter or, where the step follows a schedule
 * (its hyperparameters are one kind's), the schedule's at the step's count
 * of applied updates, as torch.optim.lr_scheduler's get_last_lr() after
 * its step(). AMP_INVALID_ARGUMENT where the step has no "lr". Waits for
 * the device (the count is read from it). */
amp_status_t amp_step_current_lr(amp_step_t *step, double *out_lr);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AMP_RUNTIME_FIT_H */
