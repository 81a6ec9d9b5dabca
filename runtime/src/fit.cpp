//===- fit.cpp - training a compiled step on a data set -------------------===//
//
// amp_step_fit and amp_step_validate (fit.h): the one training loop that
// amp-step --data and Python's Step.fit drive. It uses the step's public
// API, and the step's replicas for its rank.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/fit.h"
#include "amp_runtime/float_formats.h"
#include "amp_runtime/scalar_math.h"

#include "amp_runtime/state_file.h"
#include "runtime_internal.h"
#include "status.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

/// Appends printf-style text to `out`.
[[gnu::format(printf, 2, 3)]] void appendf(std::string &out, const char *format,
                                           ...) {
  va_list args, count;
  va_start(args, format);
  va_copy(count, args);
  int n = std::vsnprintf(nullptr, 0, format, count);
  va_end(count);
  if (n > 0) {
    size_t at = out.size();
    out.resize(at + n + 1);
    std::vsnprintf(&out[at], n + 1, format, args);
    out.resize(at + n);
  }
  va_end(args);
}

/// `value` as a JSON number that reads back as the same double, or as
/// Python's json writes what JSON cannot hold (NaN, Infinity).
std::string jsonNumber(double value) {
  if (std::isnan(value))
    return "NaN";
  if (std::isinf(value))
    return value > 0 ? "Infinity" : "-Infinity";
  std::string text;
  appendf(text, "%.17g", value);
  return text;
}

/// A data set checked against the batch inputs it feeds, and the buffers
/// that one batch of it is gathered into.
class Batches {
public:
  /// Checks `set` against the batch inputs of `tensors` (`count` of them,
  /// a table of step `step`).
  amp_status_t describe(const amp_data_set_t *set, size_t count,
                        const amp_step_tensor_t *tensors, const char *step);

  int64_t batch() const { return size; }
  int64_t count() const { return set->rows / size; }
  int64_t rows() const { return set->rows; }
  size_t inputCount() const { return inputIndex.size(); }

  /// Checks every array once (amp_step_check_data); the error names the
  /// array and its row.
  amp_status_t check(amp_step_t *step, bool evaluation, bool finite) const;

  /// Batch `index` of `order` copied into the buffers; the inputs that
  /// describe it, one per array.
  const amp_step_input_t *gather(const std::vector<int64_t> &order,
                                 int64_t index);

private:
  /// Where example `row` of array `a` is.
  const char *rowOf(size_t a, int64_t row) const;

  const amp_data_set_t *set = nullptr;
  const amp_step_tensor_t *tensors = nullptr;
  // The example each shard starts at, and the end of the last (one entry
  // more than there are shards; {0, rows} for a set in one piece).
  std::vector<int64_t> shardStart;
  std::vector<size_t> inputIndex; // of each array, into `tensors`
  std::vector<size_t> rowBytes;
  int64_t size = 0;
  std::vector<std::vector<char>> buffers;
  std::vector<amp_step_input_t> inputs;
};

amp_status_t Batches::describe(const amp_data_set_t *data, size_t count,
                               const amp_step_tensor_t *table,
                               const char *step) {
  set = data;
  tensors = table;
  if (!data || data->rows < 0 || (data->array_count && !data->arrays))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "a data set of step '%s' is null, or has no arrays or "
                      "a negative count of examples",
                      step);
  const char *name = data->name ? data->name : "the data set";
  inputIndex.clear();
  rowBytes.clear();
  size = 0;
  for (size_t i = 0; i < count; ++i) {
    const amp_step_tensor_t &t = table[i];
    if (t.kind != AMP_STEP_INPUT)
      continue;
    if (t.rank < 1 || t.shape[0] < 1 || (size && t.shape[0] != size))
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "%s: input '%s' of step '%s' is no batch of the "
                        "others' examples (its first dimension)",
                        name, t.name, step);
    size = t.shape[0];
    inputIndex.push_back(i);
    rowBytes.push_back(amprt::stepTensorBytes(t) / static_cast<size_t>(size));
  }
  if (inputIndex.empty())
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "step '%s' takes no batch inputs to make batches of",
                      step);
  if (data->array_count != inputIndex.size())
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "%s has %zu arrays; step '%s' takes %zu batch inputs",
                      name, data->array_count, step, inputIndex.size());
  size_t shards = data->shard_count > 1 ? data->shard_count : 1;
  if (shards > 1 && !data->shard_rows)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "%s has %zu shards and no count of their examples "
                      "(shard_rows is null)",
                      name, shards);
  shardStart.assign(1, 0);
  for (size_t s = 0; s < shards; ++s) {
    int64_t rows = shards == 1 ? data->rows : data->shard_rows[s];
    if (rows < 0 || rows > data->rows - shardStart.back())
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "%s: shard %zu of %zu holds %lld examples; the "
                        "shards' examples must add up to the set's %lld",
                        name, s, shards, static_cast<long long>(rows),
                        static_cast<long long>(data->rows));
    shardStart.push_back(shardStart.back() + rows);
  }
  if (shardStart.back() != data->rows)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "%s: its %zu shards hold %lld examples, not the set's "
                      "%lld",
                      name, shards, static_cast<long long>(shardStart.back()),
                      static_cast<long long>(data->rows));
  for (size_t s = 0; s < shards; ++s)
    for (size_t a = 0; a < data->array_count; ++a)
      if (!data->arrays[s * data->array_count + a] &&
          shardStart[s + 1] > shardStart[s])
        return AMP_STATUS(AMP_INVALID_ARGUMENT,
                          "%s: array %zu of shard %zu is null", name, a, s);
  if (data->rows < size)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "%s holds %lld examples, fewer than one batch of %lld",
                      name, static_cast<long long>(data->rows),
                      static_cast<long long>(size));
  return nullptr;
}

amp_status_t Batches::check(amp_step_t *step, bool evaluation,
                            bool finite) const {
  size_t count = inputIndex.size();
  for (size_t s = 0; s + 1 < shardStart.size(); ++s)
    for (size_t a = 0; a < count; ++a) {
      size_t piece = s * count + a;
      amp_status_t status = amp_step_check_data(
          step, evaluation ? 1 : 0, inputIndex[a], set->arrays[piece],
          shardStart[s + 1] - shardStart[s], finite ? 1 : 0);
      if (status && set->array_names && set->array_names[piece])
        return amprt::prefixStatus(
            status, (std::string(set->array_names[piece]) + ": ").c_str());
      if (status)
        return status;
    }
  return nullptr;
}

const char *Batches::rowOf(size_t a, int64_t row) const {
  // The last shard that starts at or before `row` (and an empty shard
  // starts where the next one does).
  size_t s = static_cast<size_t>(
      std::upper_bound(shardStart.begin(), shardStart.end() - 1, row) -
      shardStart.begin() - 1);
  const auto *from =
      static_cast<const char *>(set->arrays[s * inputIndex.size() + a]);
  return from + static_cast<size_t>(row - shardStart[s]) * rowBytes[a];
}

const amp_step_input_t *Batches::gather(const std::vector<int64_t> &order,
                                        int64_t index) {
  buffers.resize(inputIndex.size());
  inputs.clear();
  for (size_t a = 0; a < inputIndex.size(); ++a) {
    size_t row = rowBytes[a];
    buffers[a].resize(row * static_cast<size_t>(size));
    for (int64_t r = 0; r < size; ++r)
      std::memcpy(&buffers[a][r * row], rowOf(a, order[index * size + r]), row);
    const amp_step_tensor_t &t = tensors[inputIndex[a]];
    inputs.push_back({buffers[a].data(), t.type, t.rank, t.shape});
  }
  return inputs.data();
}

amp_status_t epochOrder(int64_t rows, uint64_t seed, int64_t epoch,
                        bool shuffle, std::vector<int64_t> &order) {
  order.resize(static_cast<size_t>(rows));
  return amp_epoch_order(rows, seed, epoch, shuffle ? 1 : 0, order.data());
}

/// The mean loss of the evaluation over every full batch of `set`, in
/// order; with `outputs`, each output of every batch one after another
/// (output 0: the mean).
/// Classification accuracy over a validation set, where the evaluation
/// has one: an output named "logits" of [..., classes] (an image's
/// [batch, classes], a language model's tokens [batch, length, vocab])
/// and one integer batch input of its leading shape, the labels. Top-1 is
/// numpy's argmax (the first largest logit) against the label; top-5
/// (with more than 5 classes) counts a label whose logit fewer than 5
/// others exceed. Labels outside [0, classes) (ignored ones, padding
/// tokens) are not counted.
struct Accuracy {
  size_t output = 0, input = 0;
  int64_t classes = 0, rows = 0;
  int64_t top1 = 0, top5 = 0, counted = 0;

  /// Finds the logits and the labels; false where the evaluation has not
  /// both.
  bool find(const amp_eval_description_t &e) {
    bool found = false;
    for (size_t k = 1; k < e.output_count; ++k) {
      const amp_step_tensor_t &t = e.outputs[k];
      if (std::strcmp(t.name, "logits") == 0 && t.rank >= 2 &&
          (t.type == AMP_ELEMENT_F32 || t.type == AMP_ELEMENT_F16 ||
           t.type == AMP_ELEMENT_BF16)) {
        output = k;
        classes = t.shape[t.rank - 1];
        rows = 1;
        for (int32_t d = 0; d + 1 < t.rank; ++d)
          rows *= t.shape[d];
        found = true;
      }
    }
    // The integer inputs of the logits' leading shape; of several (a
    // language model's tokens and targets), the one named as labels are.
    int labels = 0, named = 0;
    size_t position = 0, namedPosition = 0;
    for (size_t i = 0; i < e.tensor_count; ++i) {
      const amp_step_tensor_t &t = e.tensors[i];
      if (t.kind != AMP_STEP_INPUT)
        continue;
      bool leading = found && t.rank == e.outputs[output].rank - 1 &&
                     (t.type == AMP_ELEMENT_I32 || t.type == AMP_ELEMENT_I64);
      for (int32_t d = 0; leading && d < t.rank; ++d)
        leading = t.shape[d] == e.outputs[output].shape[d];
      if (leading) {
        input = position;
        ++labels;
        if (isLabelsName(t.name)) {
          namedPosition = position;
          ++named;
        }
      }
      ++position;
    }
    if (labels > 1 && named == 1) {
      input = namedPosition;
      labels = 1;
    }
    return found && labels == 1 && classes > 0;
  }

  /// Whether `name` names labels: labels, label, targets, target or y.
  static bool isLabelsName(const char *name) {
    for (const char *known : {"labels", "label", "targets", "target", "y"})
      if (std::strcmp(name, known) == 0)
        return true;
    return false;
  }

  /// Counts one batch: its logits (host memory, the output's type) and
  /// its labels input.
  void count(const amp_step_tensor_t &logits, const void *data,
             const amp_step_input_t &labels) {
    std::vector<float> row(static_cast<size_t>(classes));
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < classes; ++c) {
        int64_t at = r * classes + c;
        row[c] = logits.type == AMP_ELEMENT_F32
                     ? static_cast<const float *>(data)[at]
                 : logits.type == AMP_ELEMENT_F16
                     ? amprt::halfBitsToFloat(
                           static_cast<const uint16_t *>(data)[at])
                     : amprt::bfloat16BitsToFloat(
                           static_cast<const uint16_t *>(data)[at]);
      }
      int64_t label = labels.type == AMP_ELEMENT_I32
                          ? static_cast<const int32_t *>(labels.data)[r]
                          : static_cast<const int64_t *>(labels.data)[r];
      if (label < 0 || label >= classes)
        continue;
      ++counted;
      int64_t first = 0, above = 0;
      for (int64_t c = 0; c < classes; ++c) {
        if (row[c] > row[first])
          first = c;
        above += row[c] > row[label];
      }
      top1 += first == label;
      top5 += above < 5;
    }
  }

  /// The shares of the labels counted that are top-1 and top-5 (with more
  /// than 5 classes); NaN where there is none.
  double top1Share() const {
    return counted > 0 ? static_cast<double>(top1) / counted : NAN;
  }
  double top5Share() const {
    return counted > 0 && classes > 5 ? static_cast<double>(top5) / counted
                                      : NAN;
  }
};

amp_status_t validate(amp_step_t *step, Batches &set, double *meanLoss,
                      void *const *outputs, Accuracy *accuracy = nullptr) {
  const amp_eval_description_t &e = *amp_step_description(step)->eval;
  std::vector<int64_t> order;
  AMP_RETURN_IF_ERROR(epochOrder(set.rows(), 0, 0, /*shuffle=*/false, order));
  double sum = 0;
  std::vector<char> logits;
  if (accuracy)
    logits.resize(amprt::stepTensorBytes(e.outputs[accuracy->output]));
  for (int64_t b = 0; b < set.count(); ++b) {
    const amp_step_input_t *inputs = set.gather(order, b);
    float loss = 0;
    AMP_RETURN_IF_ERROR(
        amp_step_evaluate(step, set.inputCount(), inputs, &loss));
    sum += loss;
    if (accuracy) {
      AMP_RETURN_IF_ERROR(amp_step_read_output(step, accuracy->output,
                                               logits.data(), logits.size()));
      accuracy->count(e.outputs[accuracy->output], logits.data(),
                      inputs[accuracy->input]);
    }
    for (size_t k = 1; outputs && k < e.output_count; ++k) {
      size_t size = amprt::stepTensorBytes(e.outputs[k]);
      AMP_RETURN_IF_ERROR(amp_step_read_output(
          step, k, static_cast<char *>(outputs[k]) + b * size, size));
    }
  }
  *meanLoss = sum / static_cast<double>(set.count());
  if (outputs) {
    auto mean = static_cast<float>(*meanLoss);
    std::memcpy(outputs[0], &mean, sizeof mean);
  }
  return nullptr;
}

/// The training loop of amp_step_fit, its settings checked.
class Fit {
public:
  Fit(amp_step_t *step, const amp_fit_options_t &options)
      : step(step), options(options), d(*amp_step_description(step)) {
    const amp_replicas_t &replicas = amprt::replicasOf(step);
    rank = replicas.count > 0 ? replicas.rank : 0;
    ranks = replicas.count > 0 ? replicas.count : 1;
  }

  /// Everything checked before the first step.
  amp_status_t prepare(const amp_data_set_t *train, const amp_data_set_t *val);
  amp_status_t run();

private:
  bool leads() const { return rank == 0; }
  bool saves() const { return leads() || d.zero_replicas > 0; }
  std::string stateFile() const {
    std::string path = options.checkpoint;
    return d.zero_replicas > 0 && rank > 0
               ? path + ".rank" + std::to_string(rank)
               : path;
  }
  amp_status_t report(const std::string &line, const char *json);
  amp_status_t checkLoss(const std::string &context);
  amp_status_t record(int64_t epoch, bool validating);
  amp_status_t judge(double valLoss, bool *stop);

  amp_step_t *step;
  const amp_fit_options_t &options;
  const amp_step_description_t &d;
  int32_t rank = 0, ranks = 1;
  Batches train, val;
  bool validates = false;
  int64_t perEpoch = 0, total = 0, done = 0;
  std::unique_ptr<FILE, int (*)(FILE *)> log{nullptr, std::fclose};
  std::chrono::steady_clock::time_point since;
  int64_t sinceStep = 0;
  // Early stopping and the best states (patience, keep_best), judged by
  // the monitored figure of the last validation: its name, whether higher
  // is better, its value.
  std::string monitor = "val_loss";
  bool higherIsBetter = false;
  double lastMonitored = 0;
  double bestMonitored = INFINITY;
  int64_t bestStep = 0, stale = 0;
  std::vector<std::pair<double, int64_t>> kept; // (figure, step), best first
  bool better(double a, double b) const {
    return higherIsBetter ? a > b : a < b;
  }
};

amp_status_t Fit::prepare(const amp_data_set_t *trainSet,
                          const amp_data_set_t *valSet) {
  if (options.monitor)
    monitor = options.monitor;
  if (monitor != "val_loss" && monitor != "val_accuracy" &&
      monitor != "val_top5_accuracy")
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "monitor must be val_loss, val_accuracy or "
                      "val_top5_accuracy, not '%s'",
                      monitor.c_str());
  higherIsBetter = monitor != "val_loss";
  bestMonitored = higherIsBetter ? -INFINITY : INFINITY;
  if ((options.patience || options.keep_best) && !valSet)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "patience and keep_best judge validation losses: give "
                      "a validation set");
  if (options.keep_best && !options.checkpoint)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "keep_best saves beside the checkpoint: give one");
  if (options.patience < 0 || options.keep_best < 0)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "patience and keep_best are counts >= 0; got %lld and "
                      "%lld",
                      static_cast<long long>(options.patience),
                      static_cast<long long>(options.keep_best));
  if (options.epochs < 1 || options.print_every < 0 || options.val_every < 0 ||
      options.checkpoint_every < 0)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "fit needs epochs >= 1 and counts of steps >= 0; got "
                      "epochs %lld, print_every %lld, val_every %lld, "
                      "checkpoint_every %lld",
                      static_cast<long long>(options.epochs),
                      static_cast<long long>(options.print_every),
                      static_cast<long long>(options.val_every),
                      static_cast<long long>(options.checkpoint_every));
  AMP_RETURN_IF_ERROR(
      train.describe(trainSet, d.tensor_count, d.tensors, d.name));
  validates = valSet != nullptr;
  if (higherIsBetter && (options.patience || options.keep_best)) {
    Accuracy accuracy;
    if (!d.eval || !accuracy.find(*d.eval) ||
        (monitor == "val_top5_accuracy" && accuracy.classes <= 5))
      return AMP_STATUS(
          AMP_INVALID_ARGUMENT,
          "monitor=%s needs an evaluation that classifies: an output named "
          "\"logits\" of [..., classes]%s and integer labels of its "
          "leading shape",
          monitor.c_str(),
          monitor == "val_top5_accuracy" ? " (more than 5 classes)" : "");
  }
  if (validates && !d.eval)
    return AMP_STATUS(AMP_UNAVAILABLE,
                      "%s: step '%s' was compiled without an evaluation "
                      "(amp-compile --eval=false)",
                      valSet->name ? valSet->name : "the validation set",
                      d.name);
  if (validates)
    AMP_RETURN_IF_ERROR(
        val.describe(valSet, d.eval->tensor_count, d.eval->tensors, d.name));
  // With R ranks, a step takes R batches of the epoch's order, one a rank.
  perEpoch = train.count() / ranks;
  if (perEpoch == 0)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "%s holds %lld batches of %lld, fewer than one for "
                      "each of the %d ranks",
                      trainSet->name ? trainSet->name : "the data set",
                      static_cast<long long>(train.count()),
                      static_cast<long long>(train.batch()), ranks);
  total = options.epochs * perEpoch;
  float scale = 0;
  int64_t skipped = 0;
  AMP_RETURN_IF_ERROR(amp_step_scaler(step, &scale, &done, &skipped));
  if (done > total)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the step has run %lld steps already, more than the "
                      "%lld of %lld epochs of %lld batches",
                      static_cast<long long>(done),
                      static_cast<long long>(total),
                      static_cast<long long>(options.epochs),
                      static_cast<long long>(perEpoch));
  // Once, before any step: a bad row stops the run before anything is
  // trained, logged or saved, named by its row, not at its batch.
  bool finite = !options.allow_nonfinite;
  AMP_RETURN_IF_ERROR(train.check(step, false, finite));
  if (validates)
    AMP_RETURN_IF_ERROR(val.check(step, true, finite));
  if (options.checkpoint && saves())
    AMP_RETURN_IF_ERROR(amp_state_check_path(stateFile().c_str()));
  if (options.log && leads()) {
    log.reset(std::fopen(options.log, "a"));
    if (!log)
      return AMP_STATUS(AMP_IO_ERROR, "cannot open the log %s: %s", options.log,
                        std::strerror(errno));
  }
  return nullptr;
}

amp_status_t Fit::report(const std::string &line, const char *json) {
  if (json && log) {
    std::fprintf(log.get(), "%s\n", json);
    std::fflush(log.get());
  }
  amp_fit_report_t report{line.c_str(), json, leads() ? 1 : 0};
  if (options.progress && options.progress(options.context, &report) != 0)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "stopped by the progress callback after step %lld",
                      static_cast<long long>(done));
  return nullptr;
}

amp_status_t Fit::checkLoss(const std::string &context) {
  if (d.loss_scale_tensor >= 0 || options.allow_nonfinite)
    return nullptr;
  float loss = 0, found = 0;
  AMP_RETURN_IF_ERROR(amp_step_result(step, &loss, &found));
  if (std::isfinite(loss))
    return nullptr;
  return AMP_STATUS(AMP_INVALID_ARGUMENT,
                    "%sthe loss is %g and the step has no loss scaler to "
                    "skip it: its parameters are no longer finite. Stopped "
                    "before reporting, logging or saving the step; the last "
                    "state saved is kept (allow_nonfinite, amp-step's "
                    "--allow-nonfinite, trains on)",
                    context.c_str(),
                    // A NaN prints as "nan", whatever its sign bit.
                    std::isnan(loss) ? std::fabs(static_cast<double>(loss))
                                     : static_cast<double>(loss));
}

amp_status_t Fit::record(int64_t epoch, bool validating) {
  float loss = 0, found = 0, scale = 0;
  int64_t skipped = 0;
  AMP_RETURN_IF_ERROR(amp_step_result(step, &loss, &found));
  AMP_RETURN_IF_ERROR(amp_step_scaler(step, &scale, &done, &skipped));
  auto now = std::chrono::steady_clock::now();
  double seconds = std::chrono::duration<double>(now - since).count();
  double rate =
      seconds > 0 ? static_cast<double>(done - sinceStep) / seconds : 0;
  since = now;
  sinceStep = done;
  double valLoss = 0;
  Accuracy accuracy;
  bool classifies = validating && accuracy.find(*d.eval);
  if (validating)
    AMP_RETURN_IF_ERROR(validate(step, val, &valLoss, nullptr,
                                 classifies ? &accuracy : nullptr));
  lastMonitored = monitor == "val_loss"       ? valLoss
                  : monitor == "val_accuracy" ? accuracy.top1Share()
                                              : accuracy.top5Share();
  // A step without a learning rate reports none.
  double lr = 0;
  bool hasRate = false;
  for (size_t i = 0; i < d.tensor_count; ++i)
    hasRate |= d.tensors[i].kind == AMP_STEP_HPARAM &&
               std::strcmp(d.tensors[i].name, "lr") == 0;
  if (hasRate)
    AMP_RETURN_IF_ERROR(amp_step_current_lr(step, &lr));
  std::string line, json;
  appendf(line, "epoch %lld step %lld loss %.9g",
          static_cast<long long>(epoch + 1), static_cast<long long>(done),
          static_cast<double>(loss));
  appendf(json, "{\"step\": %lld, \"epoch\": %lld, \"loss\": %s",
          static_cast<long long>(done), static_cast<long long>(epoch + 1),
          jsonNumber(loss).c_str());
  // The parts of the loss; their names are plain (letters, digits, '_',
  // '.', '-'): JSON keys as they are.
  for (size_t i = 0; i < d.tensor_count; ++i) {
    if (d.tensors[i].kind != AMP_STEP_LOSS_PART)
      continue;
    float value = 0;
    AMP_RETURN_IF_ERROR(amp_step_read_tensor(step, i, &value, sizeof value));
    appendf(line, " %s %.9g", d.tensors[i].name, static_cast<double>(value));
    appendf(json, ", \"%s\": %s", d.tensors[i].name, jsonNumber(value).c_str());
  }
  if (validating) {
    appendf(line, " val_loss %.9g", valLoss);
    appendf(json, ", \"val_loss\": %s", jsonNumber(valLoss).c_str());
  }
  if (classifies && accuracy.counted > 0) {
    appendf(line, " val_accuracy %.4f", accuracy.top1Share());
    appendf(json, ", \"val_accuracy\": %s",
            jsonNumber(accuracy.top1Share()).c_str());
    if (accuracy.classes > 5) {
      appendf(line, " val_top5 %.4f", accuracy.top5Share());
      appendf(json, ", \"val_top5_accuracy\": %s",
              jsonNumber(accuracy.top5Share()).c_str());
    }
  }
  appendf(line, " scale %g skipped %lld", static_cast<double>(scale),
          static_cast<long long>(skipped));
  appendf(json, ", \"scale\": %s, \"skipped\": %lld", jsonNumber(scale).c_str(),
          static_cast<long long>(skipped));
  if (hasRate) {
    appendf(line, " lr %g", lr);
    appendf(json, ", \"lr\": %s", jsonNumber(lr).c_str());
  }
  appendf(line, " steps/s %.1f", rate);
  appendf(json, ", \"steps_per_s\": %.3f}", rate);
  return report(line, json.c_str());
}

amp_status_t Fit::run() {
  std::string plan;
  appendf(
      plan,
      "data: %lld examples, %lld batches of %lld per epoch (%lld "
      "examples left out), %lld epochs; from step %lld",
      static_cast<long long>(train.rows()),
      static_cast<long long>(train.count()),
      static_cast<long long>(train.batch()),
      static_cast<long long>(train.rows() - perEpoch * ranks * train.batch()),
      static_cast<long long>(options.epochs), static_cast<long long>(done));
  AMP_RETURN_IF_ERROR(report(plan, nullptr));
  if (ranks > 1) {
    std::string parallel;
    appendf(parallel,
            "data parallel: %d ranks, each a batch of %lld a step: %lld "
            "steps per epoch",
            ranks, static_cast<long long>(train.batch()),
            static_cast<long long>(perEpoch));
    AMP_RETURN_IF_ERROR(report(parallel, nullptr));
  }
  std::vector<int64_t> order;
  int64_t orderEpoch = -1;
  since = std::chrono::steady_clock::now();
  sinceStep = done;
  for (int64_t k = done; k < total; ++k) {
    int64_t epoch = k / perEpoch;
    if (epoch != orderEpoch) {
      AMP_RETURN_IF_ERROR(epochOrder(train.rows(), options.shuffle_seed, epoch,
                                     options.shuffle != 0, order));
      orderEpoch = epoch;
    }
    int64_t index = k % perEpoch * ranks + rank;
    const amp_step_input_t *inputs = train.gather(order, index);
    // Numbered as the reports number steps: step k + 1 is the one that
    // follows the k done.
    std::string context = "epoch " + std::to_string(epoch + 1) + ", step " +
                          std::to_string(k + 1) + " (batch " +
                          std::to_string(index) + " of the epoch): ";
    if (amp_status_t status = amp_step_run(step, train.inputCount(), inputs))
      return amprt::prefixStatus(status, context.c_str());
    AMP_RETURN_IF_ERROR(checkLoss(context));
    done = k + 1;
    bool last = k + 1 == total;
    auto every = [&](int64_t n) { return last || (n && (k + 1) % n == 0); };
    bool validating = validates && every(options.val_every);
    if (every(options.print_every) || validating)
      AMP_RETURN_IF_ERROR(record(epoch, validating));
    bool stop = false;
    if (validating)
      AMP_RETURN_IF_ERROR(judge(lastMonitored, &stop));
    if (options.checkpoint && saves() &&
        (stop || every(options.checkpoint_every)))
      AMP_RETURN_IF_ERROR(amp_step_save(step, stateFile().c_str()));
    if (stop)
      break;
  }
  return nullptr;
}

/// Keeps the best states and decides on an early stop after a validation
/// whose monitored figure is `value` at step `done`.
amp_status_t Fit::judge(double value, bool *stop) {
  if (better(value, bestMonitored)) {
    bestMonitored = value;
    bestStep = done;
    stale = 0;
  } else {
    ++stale;
  }
  if (options.keep_best && saves()) {
    size_t k = static_cast<size_t>(options.keep_best);
    auto at = std::find_if(kept.begin(), kept.end(), [&](const auto &entry) {
      return better(value, entry.first);
    });
    if (kept.size() < k || at != kept.end()) {
      std::string path = stateFile() + ".best-step" + std::to_string(done);
      AMP_RETURN_IF_ERROR(amp_step_save(step, path.c_str()));
      kept.insert(at, {value, done});
      if (kept.size() > k) {
        std::string worst =
            stateFile() + ".best-step" + std::to_string(kept.back().second);
        kept.pop_back();
        if (std::remove(worst.c_str()) != 0)
          return AMP_STATUS(AMP_IO_ERROR, "cannot remove %s: %s", worst.c_str(),
                            std::strerror(errno));
      }
    }
  }
  if (options.patience && stale >= options.patience) {
    *stop = true;
    std::string line;
    appendf(line,
            "early stop at step %lld: %s has not improved on %.9g "
            "(step %lld) in %lld validations",
            static_cast<long long>(done), monitor.c_str(), bestMonitored,
            static_cast<long long>(bestStep),
            static_cast<long long>(options.patience));
    return report(line, nullptr);
  }
  return nullptr;
}

} // namespace

extern "C" {

amp_fit_options_t amp_fit_defaults(void) {
  amp_fit_options_t options{};
  options.epochs = 1;
  options.print_every = 100;
  options.shuffle = 1;
  return options;
}

amp_status_t amp_step_fit(amp_step_t *step, const amp_fit_options_t *options,
                          const amp_data_set_t *train,
                          const amp_data_set_t *val) {
  if (!step || !options || !train)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "step, options or train is null");
  Fit fit(step, *options);
  AMP_RETURN_IF_ERROR(fit.prepare(train, val));
  return fit.run();
}

/// `data` as batches of the step's evaluation, which it must have.
static amp_status_t
describeEvaluation(amp_step_t *step, const amp_data_set_t *data, Batches &set) {
  const amp_step_description_t &d = *amp_step_description(step);
  if (!d.eval)
    return AMP_STATUS(AMP_UNAVAILABLE,
                      "step '%s' was compiled without an evaluation "
                      "(amp-compile --eval=false)",
                      d.name);
  return set.describe(data, d.eval->tensor_count, d.eval->tensors, d.name);
}

amp_status_t amp_step_validate(amp_step_t *step, const amp_data_set_t *data,
                               double *out_mean_loss, void *const *outputs) {
  if (!step || !out_mean_loss)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "step or out_mean_loss is null");
  Batches set;
  AMP_RETURN_IF_ERROR(describeEvaluation(step, data, set));
  const amp_step_description_t &d = *amp_step_description(step);
  if (outputs)
    for (size_t k = 0; k < d.eval->output_count; ++k)
      if (!outputs[k])
        return AMP_STATUS(AMP_INVALID_ARGUMENT,
                          "validate: output %zu's buffer is null", k);
  return validate(step, set, out_mean_loss, outputs);
}

amp_status_t amp_step_validate_metrics(amp_step_t *step,
                                       const amp_data_set_t *data,
                                       double *out_mean_loss,
                                       double *out_accuracy, double *out_top5) {
  if (!step || !out_mean_loss || !out_accuracy || !out_top5)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "step or an output pointer is null");
  Batches set;
  AMP_RETURN_IF_ERROR(describeEvaluation(step, data, set));
  const amp_step_description_t &d = *amp_step_description(step);
  Accuracy accuracy;
  bool classifies = accuracy.find(*d.eval);
  AMP_RETURN_IF_ERROR(validate(step, set, out_mean_loss, nullptr,
                               classifies ? &accuracy : nullptr));
  *out_accuracy = classifies ? accuracy.top1Share() : NAN;
  *out_top5 = classifies ? accuracy.top5Share() : NAN;
  return nullptr;
}

amp_status_t amp_step_current_lr(amp_step_t *step, double *out_lr) {
  if (!step || !out_lr)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "step or out_lr is null");
  double lr = 0;
  AMP_RETURN_IF_ERROR(amp_step_get_hparam(step, "lr", &lr));
  const amp_step_description_t &d = *amp_step_description(step);
  double params[4] = {};
  // warmup-cosine's names hold the others': it is tried first.
  for (int kind : {3, 0, 1, 2}) {
    int found = 0, wanted = 0;
    for (const char *name : amprt::kLrScheduleParams[kind]) {
      if (!name)
        continue;
      amp_status_t absent = amp_step_get_hparam(step, name, &params[wanted]);
      found += absent == nullptr;
      ++wanted;
      amp_status_free(absent);
    }
    if (found < wanted)
      continue;
    float count = 0;
    for (size_t i = 0; i < d.tensor_count; ++i)
      if (d.tensors[i].kind == AMP_STEP_STATE &&
          std::strcmp(d.tensors[i].name, "step") == 0)
        AMP_RETURN_IF_ERROR(
            amp_step_read_tensor(step, i, &count, sizeof count));
    lr = amprt::scheduledRate(static_cast<amprt::LrScheduleKind>(kind), lr,
                              count, params);
    break;
  }
  *out_lr = lr;
  return nullptr;
}

} // extern "C"
