//===- amp-step.cpp - train with a step built by amp-compile --------------===//
//
//   amp-step DIR/lib<name>.so <name> --inputs=DIR --steps=N [--device=host]
//
// Loads every tensor of the step from DIR/<name>.npy, named as the step
// names it (w1.npy, w1.exp_avg.npy, x.npy, labels.npy), or else from
// DIR/arg<i>.npy by its position (as amp-run --save-inputs writes them),
// runs N steps on that batch and prints each loss as amp-run --train-steps
// --print-every=1 does, so that the two outputs can be compared line for
// line, with the parts of the loss that the model returns after it
// ("step 3 loss 2.13 ce 1.93 l2 2004 scale 65536"). --seed=S instead
// initialises the parameters from S (amp_step_init)
// and draws a random batch (integers below --index-bound), for models
// whose tensors are too large to ship.
// --bench=N then times N more steps queued back to back with one wait.
// --load restores a state saved with --save, and the step numbers continue
// from it. --graph runs the first step as it is and replays every later
// one from a CUDA graph of it. --output-dir writes the parameters and state
// after the last step as <name>.npy, and the last loss, where a step ran,
// as loss.npy. A name that is no plain file name (other than letters,
// digits, '_', '-' and '.', not first), or is "loss" or arg<k>, is
// arg<i>.npy in both directions. --hparam=NAME=VALUE sets a hyperparameter
// (lr, weight_decay, ...) after the tensors and any --load, before the
// first step. --eval=DIR evaluates the model after the last step on the
// batch in DIR (x.npy, labels.npy, named as the evaluation names its
// inputs) and prints its loss; with --output-dir it writes the
// evaluation's outputs under DIR/eval by their names (loss.npy,
// logits.npy).
//
//   amp-step LIB NAME --seed=S --data=x=train_x.npy --data=labels=train_y.npy
//       [--val-data=x=val_x.npy ...] [--epochs=E] [--val-every=N]
//       [--print-every=N] [--checkpoint=FILE [--checkpoint-every=N]]
//       [--log=FILE.jsonl] [--shuffle-seed=S | --no-shuffle]
//
// trains on a data set instead: one array per batch input whose rows are
// the examples (or a directory of them, shards in the order of their file
// names, every input's cut at the same examples), batched to the compiled batch
// size in an order shuffled per epoch (the last partial batch left out), for E
// epochs from the step's own counter (so that --load of a checkpoint resumes
// where it stopped, on the batches the whole run would have seen). It prints a
// progress line every N steps and at the end, validates the evaluation on
// every full batch of --val-data every --val-every steps and at the end,
// appends each progress line to the log as JSON, and saves the state to
// --checkpoint every N steps and at the end. --output-dir then also writes
// the evaluation's outputs over the validation set under DIR/eval.
//
//   mpirun -np N amp-step LIB NAME --seed=S --data=... [--comm=mpi|nccl]
//       [--comm-timeout=SEC]
//
// runs a step compiled with --train-options=data-parallel=true as N
// replicas, one per process that mpirun starts: each rank trains on its
// own batch of every N consecutive ones of the epoch's order (batch k*N + r
// of the epoch on rank r at its step k), the step reduces the gradients
// over the ranks, and rank 0 alone prints, logs and writes files. The
// ranks check first that they run the same step from the same state, and
// last that they hold the same state. A collective that a rank does not
// join within --comm-timeout seconds (default 300) ends the run with an
// error. --comm=nccl reduces the gradients of a cuda step through NCCL on
// the GPUs (amp_comm_create_nccl; a host step's go through MPI either
// way).
//
//   RANK=r WORLD_SIZE=N AMP_NCCL_ID_FILE=PATH amp-step LIB NAME ...
//
// joins a job that a launcher without MPI started (torchrun, a scheduler's
// script): through NCCL alone (amp_comm_create_env), so a GPU on every
// rank; NCCL's id through PATH, or NCCL_COMM_ID, or MASTER_ADDR and
// MASTER_PORT. A step compiled with zero-stage=1 replicas=N runs on N ranks,
// each holding its own parts of the optimizer state: each rank saves and loads
// a state file of its own, rank r > 0 FILE.rank<r> beside rank 0's FILE.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/comm.h"
#include "amp_runtime/edit_distance.h"
#include "amp_runtime/fit.h"
#include "amp_runtime/float_formats.h"
#include "amp_runtime/random.h"
#include "amp_runtime/state_file.h"
#include "amp_runtime/step.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

/// The environment variable `name`, or null when it is unset or empty (as
/// the runtime reads a launch's variables).
const char *environment(const char *name) {
  const char *value = std::getenv(name);
  return value && *value ? value : nullptr;
}

/// This process's place in a data-parallel job that mpirun started: rank
/// `rank` of `size`, joined by `comm`; rank 0 of 1 and no communicator
/// otherwise.
struct Job {
  amp_comm_t *comm = nullptr;
  int rank = 0, size = 1;
  bool leads() const { return rank == 0; }
  // A step with sharded optimizer state (zero-stage=1): every rank holds
  // parts of its own, and so saves and loads a state file of its own.
  bool sharded = false;
  bool saves() const { return leads() || sharded; }
  /// Rank 0's state file is `path`, rank r's of a sharded step
  /// `path.rank<r>`.
  std::string stateFile(const std::string &path) const {
    return sharded && rank > 0 ? path + ".rank" + std::to_string(rank) : path;
  }
};
Job job;

/// Prints `status` (after `context`, as "epoch 1, step 3: ") and frees
/// it; returns the exit code 1.
int fail(amp_status_t status, const std::string &context = "") {
  std::string where =
      job.size > 1 ? "rank " + std::to_string(job.rank) + ": " : "";
  std::fprintf(stderr, "amp-step: error: %s%s%s (%s)\n", where.c_str(),
               context.c_str(), amp_status_message(status),
               amp_status_code_name(amp_status_code(status)));
  amp_status_free(status);
  return 1;
}

/// A count >= 0 from `text` (decimal digits only), -1 if it is none, -2 if
/// it is beyond the range of long (where strtol would clamp it).
long parseCount(const char *text) {
  if (!std::isdigit(static_cast<unsigned char>(*text)))
    return -1;
  char *end = nullptr;
  errno = 0;
  long value = std::strtol(text, &end, 10);
  if (*end != '\0')
    return -1;
  return errno == ERANGE ? -2 : value;
}

/// The elements of tensor `t`, and their bytes.
int64_t elementCount(const amp_step_tensor_t &t) {
  int64_t count = 1;
  for (int32_t d = 0; d < t.rank; ++d)
    count *= t.shape[d];
  return count;
}

size_t byteSize(const amp_step_tensor_t &t) {
  return static_cast<size_t>(elementCount(t)) * amp_element_size(t.type);
}

/// A batch input of `t`'s type and shape: floats uniform in [-1, 1),
/// integers uniform in [0, indexBound), booleans 0 or 1.
std::vector<char> randomInput(const amp_step_tensor_t &t, uint64_t &state,
                              int64_t indexBound) {
  int64_t count = elementCount(t);
  std::vector<char> bytes(byteSize(t));
  for (int64_t i = 0; i < count; ++i) {
    uint64_t r = amprt::splitmix64(state);
    double unit = amprt::unitOfBits(r); // [0, 1)
    float value = static_cast<float>(2 * unit - 1);
    auto put = [&](auto v) { std::memcpy(&bytes[i * sizeof v], &v, sizeof v); };
    switch (t.type) {
    case AMP_ELEMENT_F32:
      put(value);
      break;
    case AMP_ELEMENT_F64:
      put(2 * unit - 1);
      break;
    case AMP_ELEMENT_F16:
      put(amprt::floatToHalfBits(value));
      break;
    case AMP_ELEMENT_BF16:
      put(amprt::doubleToBFloat16Bits(value));
      break;
    case AMP_ELEMENT_I32:
      put(static_cast<int32_t>(r % static_cast<uint64_t>(indexBound)));
      break;
    case AMP_ELEMENT_I64:
      put(static_cast<int64_t>(r % static_cast<uint64_t>(indexBound)));
      break;
    case AMP_ELEMENT_I1:
      put(static_cast<uint8_t>(r & 1));
      break;
    }
  }
  return bytes;
}

/// The file of tensor `index` (named `name`) in a directory of .npy files:
/// <name>.npy where the name is a plain file name (letters, digits, '_',
/// '-' and '.', not first; at most 200 bytes) other than the loss's
/// (where `lossReserved`: a directory that holds loss.npy) and other than
/// a positional one (arg<k>), else arg<index>.npy.
std::string tensorFile(const char *name, size_t index,
                       bool lossReserved = true) {
  std::string plain = name;
  bool positional =
      plain.size() > 3 && plain.compare(0, 3, "arg") == 0 &&
      plain.find_first_not_of("0123456789", 3) == std::string::npos;
  bool usable = !plain.empty() && plain.size() <= 200 && plain.front() != '.' &&
                (plain != "loss" || !lossReserved) && !positional &&
                plain.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                        "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_-.") == std::string::npos;
  return usable ? plain + ".npy" : "arg" + std::to_string(index) + ".npy";
}

/// Reads every batch input of `tensors` (the evaluation's) from `dir`,
/// by name (tensorFile, whose positional names count the evaluation's
/// tensors), into `batch`, and describes them in `inputs`.
amp_status_t readBatch(const std::string &dir, size_t count,
                       const amp_step_tensor_t *tensors,
                       std::vector<std::vector<char>> &batch,
                       std::vector<amp_step_input_t> &inputs) {
  batch.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const amp_step_tensor_t &t = tensors[i];
    if (t.kind != AMP_STEP_INPUT)
      continue;
    batch.emplace_back(byteSize(t));
    std::string path =
        dir + "/" + tensorFile(t.name, i, /*lossReserved=*/false);
    if (amp_status_t status = amp_npy_read(
            &t, path.c_str(), batch.back().data(), batch.back().size()))
      return status;
    inputs.push_back({batch.back().data(), t.type, t.rank, t.shape});
  }
  return nullptr;
}

/// Of a step's evaluations at several batch sizes (amp-compile
/// --eval-batch=N,M), the one whose batch is that of `dir`'s first batch
/// input (amp_step_find_evaluation), into `chosen`; prints why none is.
bool chooseEvaluation(const std::string &dir, amp_step_t *step,
                      const amp_eval_description_t *&chosen) {
  const amp_eval_description_t &first = *amp_step_description(step)->eval;
  size_t input = 0;
  while (input < first.tensor_count &&
         first.tensors[input].kind != AMP_STEP_INPUT)
    ++input;
  if (input == first.tensor_count)
    return true; // no batch inputs: the first is as good as any
  std::string path = dir + "/" +
                     tensorFile(first.tensors[input].name, input,
                                /*lossReserved=*/false);
  amp_step_tensor_t shape{};
  shape.name = first.tensors[input].name;
  amp_status_t status = amp_npy_inspect(path.c_str(), &shape);
  if (!status)
    status = amp_step_find_evaluation(step, shape.rank ? shape.shape[0] : 0,
                                      &chosen);
  if (status) {
    fail(status, "--eval=" + dir + ": ");
    return false;
  }
  return true;
}

/// A data set: for each batch input of a step (or of its evaluation), an
/// array whose rows are examples (`--data NAME=FILE`), all of one count,
/// or a directory of such arrays (`--data NAME=DIR`: shards, each with
/// some of the examples, taken in the order of their file names).
struct DataSet {
  /// One file of an array: the whole array, or one of its shards.
  struct Piece {
    std::string file;
    // The file's elements, mapped (amp_npy_map): a data set need not fit
    // in memory.
    std::unique_ptr<amp_npy_mapping_t, void (*)(amp_npy_mapping_t *)> mapping{
        nullptr, &amp_npy_unmap};
    const void *data = nullptr;
  };
  struct Array {
    const amp_step_tensor_t *input; // the input it feeds
    std::string given;              // the FILE or DIR of its option
    std::vector<Piece> pieces;      // one per shard
  };
  std::vector<Array> arrays;      // in the order of the inputs
  std::vector<int64_t> shardRows; // the examples of each shard
  int64_t rows = 0;
  int64_t batch = 0; // rows per batch: the inputs' first dimension

  int64_t batches() const { return batch ? rows / batch : 0; }
};

/// The files of an array given as `path`: the file itself, or the `.npy`
/// files of a directory in the order of their names. Prints why there are
/// none.
bool arrayFiles(const std::string &path, const char *what,
                const std::string &setting, std::vector<std::string> &files) {
  std::error_code error;
  if (!std::filesystem::is_directory(path, error)) {
    files.push_back(path);
    return true;
  }
  for (const auto &entry : std::filesystem::directory_iterator(path, error))
    if (entry.path().extension() == ".npy" && entry.is_regular_file(error))
      files.push_back(entry.path().string());
  if (error) {
    std::fprintf(stderr, "amp-step: error: %s %s: cannot list %s: %s\n", what,
                 setting.c_str(), path.c_str(), error.message().c_str());
    return false;
  }
  if (files.empty()) {
    std::fprintf(stderr,
                 "amp-step: error: %s %s: the directory %s holds no .npy "
                 "files (a directory of shards holds one .npy per shard)\n",
                 what, setting.c_str(), path.c_str());
    return false;
  }
  std::sort(files.begin(), files.end());
  return true;
}

/// Reads the arrays `files` (NAME=FILE or NAME=DIR) for the batch inputs of
/// `tensors` into `set`: each input needs one, of its element type and of
/// its shape after the first dimension, all with the same number of rows,
/// at least one batch of them; the inputs given as directories are cut
/// into shards at the same examples. `what` names the option in messages.
bool readDataSet(const std::vector<std::string> &files, size_t count,
                 const amp_step_tensor_t *tensors, const char *what,
                 DataSet &set) {
  std::vector<std::pair<std::string, std::string>> named;
  for (const std::string &setting : files) {
    size_t equals = setting.find('=');
    if (equals == 0 || equals == std::string::npos ||
        equals + 1 == setting.size()) {
      std::fprintf(stderr,
                   "amp-step: error: %s needs NAME=FILE (or NAME=DIR, a "
                   "directory of shards), not '%s'\n",
                   what, setting.c_str());
      return false;
    }
    std::string name = setting.substr(0, equals);
    for (const auto &[other, file] : named)
      if (other == name) {
        std::fprintf(stderr,
                     "amp-step: error: %s gives input '%s' twice (%s and "
                     "%s)\n",
                     what, name.c_str(), file.c_str(),
                     setting.c_str() + equals + 1);
        return false;
      }
    named.emplace_back(name, setting.substr(equals + 1));
  }
  std::string inputs;
  for (size_t i = 0; i < count; ++i)
    if (tensors[i].kind == AMP_STEP_INPUT)
      inputs += (inputs.empty() ? "" : ", ") + std::string(tensors[i].name);
  for (const auto &[name, file] : named) {
    bool known = false;
    for (size_t i = 0; i < count && !known; ++i)
      known = tensors[i].kind == AMP_STEP_INPUT && name == tensors[i].name;
    if (!known) {
      std::fprintf(stderr,
                   "amp-step: error: %s %s=%s: the step has no batch input "
                   "'%s' (it has: %s)\n",
                   what, name.c_str(), file.c_str(), name.c_str(),
                   inputs.c_str());
      return false;
    }
  }
  for (size_t i = 0; i < count; ++i) {
    const amp_step_tensor_t &t = tensors[i];
    if (t.kind != AMP_STEP_INPUT)
      continue;
    const std::string *given = nullptr;
    for (const auto &[name, path] : named)
      if (name == t.name)
        given = &path;
    if (!given) {
      std::fprintf(stderr,
                   "amp-step: error: %s gives no array for the batch input "
                   "'%s' (give one for each of: %s)\n",
                   what, t.name, inputs.c_str());
      return false;
    }
    std::vector<std::string> paths;
    if (!arrayFiles(*given, what, std::string(t.name) + "=" + *given, paths))
      return false;
    const DataSet::Array *first =
        set.arrays.empty() ? nullptr : &set.arrays.front();
    if (first && paths.size() != first->pieces.size()) {
      std::fprintf(stderr,
                   "amp-step: error: %s %s=%s is in %zu shards; %s=%s in "
                   "%zu (each input's shards hold the same examples)\n",
                   what, t.name, given->c_str(), paths.size(),
                   first->input->name, first->given.c_str(),
                   first->pieces.size());
      return false;
    }
    DataSet::Array array;
    array.input = &t;
    array.given = *given;
    int64_t rows = 0;
    for (size_t s = 0; s < paths.size(); ++s) {
      const std::string &file = paths[s];
      amp_step_tensor_t shape{};
      shape.name = t.name;
      if (amp_status_t status = amp_npy_inspect(file.c_str(), &shape)) {
        fail(status);
        return false;
      }
      bool rowsMatch = t.rank >= 1 && shape.rank == t.rank &&
                       amp_element_size(shape.type) != 0 &&
                       shape.type == t.type;
      for (int32_t d = 1; rowsMatch && d < t.rank; ++d)
        rowsMatch = shape.shape[d] == t.shape[d];
      if (!rowsMatch) {
        std::string expected = "[N";
        for (int32_t d = 1; d < t.rank; ++d)
          expected += ", " + std::to_string(t.shape[d]);
        std::string got = "[";
        for (int32_t d = 0; d < shape.rank; ++d)
          got += (d ? ", " : "") + std::to_string(shape.shape[d]);
        std::fprintf(stderr,
                     "amp-step: error: %s %s: input '%s' takes rows of %s x "
                     "%s (one example each); the file holds %s x %s\n",
                     what, file.c_str(), t.name, (expected + "]").c_str(),
                     amp_element_type_name(t.type), (got + "]").c_str(),
                     amp_element_type_name(shape.type));
        return false;
      }
      if (first && shape.shape[0] != set.shardRows[s]) {
        const std::string &other = first->pieces[s].file;
        std::fprintf(stderr,
                     "amp-step: error: %s %s holds %lld examples; %s holds "
                     "%lld%s\n",
                     what, file.c_str(), static_cast<long long>(shape.shape[0]),
                     other.c_str(), static_cast<long long>(set.shardRows[s]),
                     paths.size() > 1 ? " (each input's shards hold the same "
                                        "examples)"
                                      : "");
        return false;
      }
      DataSet::Piece piece;
      piece.file = file;
      amp_npy_mapping_t *mapping = nullptr;
      if (amp_status_t status =
              amp_npy_map(&shape, file.c_str(), &mapping, &piece.data)) {
        fail(status);
        return false;
      }
      piece.mapping.reset(mapping);
      if (!first)
        set.shardRows.push_back(shape.shape[0]);
      rows += shape.shape[0];
      array.pieces.push_back(std::move(piece));
    }
    set.rows = rows;
    set.batch = t.shape[0];
    set.arrays.push_back(std::move(array));
  }
  if (set.batches() == 0) {
    std::fprintf(stderr,
                 "amp-step: error: %s holds %lld examples, fewer than one "
                 "batch of %lld\n",
                 what, static_cast<long long>(set.rows),
                 static_cast<long long>(set.batch));
    return false;
  }
  return true;
}

/// Creates `dir` and its parents; prints why it cannot.
bool makeDirectory(const std::string &dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error)
    std::fprintf(stderr, "amp-step: error: cannot create %s: %s\n", dir.c_str(),
                 error.message().c_str());
  return !error;
}

/// Writes the evaluation's outputs into `dir` by their names: output k
/// from the bytes `outputs[k]`. `stacked` outputs (other than the loss, a
/// mean) hold the values of several batches one after another along the
/// first dimension, a scalar one per batch.
bool writeEvalOutputs(const std::string &dir, const amp_eval_description_t &e,
                      const std::vector<std::vector<char>> &outputs,
                      bool stacked) {
  if (!makeDirectory(dir))
    return false;
  for (size_t k = 0; k < e.output_count; ++k) {
    amp_step_tensor_t t = e.outputs[k];
    size_t size = byteSize(t);
    if (stacked && k > 0) {
      int64_t batches = static_cast<int64_t>(outputs[k].size() / size);
      if (t.rank == 0) {
        t.rank = 1;
        t.shape[0] = 1;
      }
      t.shape[0] *= batches;
    }
    std::string path = dir + "/" + tensorFile(t.name, k, false);
    if (amp_status_t status = amp_npy_write(&t, path.c_str(), outputs[k].data(),
                                            outputs[k].size())) {
      fail(status);
      return false;
    }
  }
  return true;
}

/// The settings of training on a data set.
struct DataOptions {
  std::vector<std::string> data, valData;
  long epochs = 1, printEvery = 100, valEvery = 0, checkpointEvery = 0;
  long patience = 0, keepBest = 0;
  std::string monitor; // what they judge; empty: val_loss
  uint64_t shuffleSeed = 0;
  bool shuffle = true;
  // Train on where a value is not finite: in the data, or the loss of a
  // step without a loss scaler (which would stop the run).
  bool allowNonFinite = false;
  std::string checkpoint, log, outputDir;
};

/// Whether the last step's loss is finite, or the step has a loss scaler
/// (which skips such steps): else prints why training stops, after
/// `context`, and returns false. Waits for the step.
bool lossIsUsable(amp_step_t *step, const std::string &context) {
  if (amp_step_description(step)->loss_scale_tensor >= 0)
    return true;
  float loss = 0, found = 0;
  if (amp_status_t status = amp_step_result(step, &loss, &found)) {
    fail(status, context);
    return false;
  }
  if (std::isfinite(loss))
    return true;
  std::fprintf(stderr,
               "amp-step: error: %sthe loss is %g and the step has no loss "
               "scaler to skip it: its parameters are no longer finite. "
               "Stopped before saving anything; the last state saved is "
               "kept (--allow-nonfinite trains on)\n",
               context.c_str(), static_cast<double>(loss));
  return false;
}

/// The parts of the last step's loss (AMP_STEP_LOSS_PART tensors), by
/// name, in the step's order; waits for the step.
amp_status_t readLossParts(amp_step_t *step,
                           std::vector<std::pair<const char *, float>> &out) {
  out.clear();
  const amp_step_description_t *d = amp_step_description(step);
  for (size_t i = 0; i < d->tensor_count; ++i) {
    if (d->tensors[i].kind != AMP_STEP_LOSS_PART)
      continue;
    float value = 0;
    if (amp_status_t status =
            amp_step_read_tensor(step, i, &value, sizeof value))
      return status;
    out.emplace_back(d->tensors[i].name, value);
  }
  return nullptr;
}

/// `set` as the runtime's data set, named `name` in messages, each array
/// by its option ("--data x=train_x.npy").
struct DataView {
  std::vector<const void *> arrays;
  std::vector<std::string> names;
  std::vector<const char *> namePointers;
  amp_data_set_t set{};

  DataView(const DataSet &data, const char *name) {
    // Shard by shard, each with every input's piece of it.
    for (size_t s = 0; s < data.shardRows.size(); ++s)
      for (const DataSet::Array &array : data.arrays) {
        arrays.push_back(array.pieces[s].data);
        names.push_back(std::string(name) + " " + array.input->name + "=" +
                        array.pieces[s].file);
      }
    for (const std::string &n : names)
      namePointers.push_back(n.c_str());
    set = {name,
           data.rows,
           data.arrays.size(),
           arrays.data(),
           namePointers.data(),
           data.shardRows.size(),
           data.shardRows.data()};
  }
};

/// Prints a report of amp_step_fit (every rank's: all but rank 0's stdout
/// is quieted).
int32_t printReport(void *, const amp_fit_report_t *report) {
  std::printf("%s\n", report->line);
  std::fflush(stdout);
  return 0;
}

/// Trains `step` for the epochs of `options` on its data set
/// (amp_step_fit), resuming at the step's own counter (a loaded
/// checkpoint's), then writes the evaluation's outputs over the
/// validation set. Returns the exit code.
int trainOnData(amp_step_t *step, const DataOptions &options) {
  const amp_step_description_t *d = amp_step_description(step);
  DataSet train, val;
  if (!readDataSet(options.data, d->tensor_count, d->tensors, "--data", train))
    return 1;
  bool validates = !options.valData.empty();
  if (validates && !d->eval) {
    std::fprintf(stderr, "amp-step: error: --val-data: the step was "
                         "compiled without an evaluation "
                         "(amp-compile --eval=false)\n");
    return 1;
  }
  if (validates && !readDataSet(options.valData, d->eval->tensor_count,
                                d->eval->tensors, "--val-data", val))
    return 1;
  DataView trainView(train, "--data"), valView(val, "--val-data");
  amp_fit_options_t fit = amp_fit_defaults();
  fit.epochs = options.epochs;
  fit.print_every = options.printEvery;
  fit.val_every = options.valEvery;
  fit.checkpoint_every = options.checkpointEvery;
  fit.patience = options.patience;
  fit.keep_best = options.keepBest;
  fit.monitor = options.monitor.empty() ? nullptr : options.monitor.c_str();
  fit.shuffle_seed = options.shuffleSeed;
  fit.shuffle = options.shuffle ? 1 : 0;
  fit.allow_nonfinite = options.allowNonFinite ? 1 : 0;
  fit.checkpoint =
      options.checkpoint.empty() ? nullptr : options.checkpoint.c_str();
  fit.log = options.log.empty() ? nullptr : options.log.c_str();
  fit.progress = printReport;
  if (amp_status_t status = amp_step_fit(step, &fit, &trainView.set,
                                         validates ? &valView.set : nullptr))
    return fail(status);
  // The evaluation's outputs over the whole validation set.
  if (options.outputDir.empty() || !validates || !job.leads())
    return 0;
  const amp_eval_description_t &e = *d->eval;
  std::vector<std::vector<char>> outputs(e.output_count);
  std::vector<void *> buffers;
  for (size_t k = 0; k < e.output_count; ++k) {
    outputs[k].resize(k ? byteSize(e.outputs[k]) * val.batches()
                        : sizeof(float));
    buffers.push_back(outputs[k].data());
  }
  double valLoss = 0;
  if (amp_status_t status =
          amp_step_validate(step, &valView.set, &valLoss, buffers.data()))
    return fail(status);
  bool written = writeEvalOutputs(options.outputDir + "/eval", e, outputs,
                                  /*stacked=*/true);
  return written ? 0 : 1;
}

/// Checks before the first step that this process can write what it will:
/// the state files of --save and --checkpoint (amp_state_check_path) and
/// the directory of --output-dir (made now). Prints why not.
bool checkOutputs(const std::string &save, const std::string &checkpoint,
                  const std::string &outputDir) {
  for (auto [flag, path] :
       {std::pair{"--save", &save}, std::pair{"--checkpoint", &checkpoint}})
    if (!path->empty() && job.saves())
      if (amp_status_t status =
              amp_state_check_path(job.stateFile(*path).c_str())) {
        fail(status, std::string(flag) + "=" + *path + ": ");
        return false;
      }
  if (outputDir.empty() || !job.leads())
    return true;
  if (!makeDirectory(outputDir))
    return false;
  if (amp_status_t status =
          amp_state_check_path((outputDir + "/loss.npy").c_str())) {
    fail(status, "--output-dir=" + outputDir + ": ");
    return false;
  }
  return true;
}

/// The usage text.
const char *const kUsage =
    "usage: amp-step LIB NAME (--inputs=DIR | --seed=S [--index-bound=N]) "
    "[--steps=N] [--bench=N] [--device=host|cuda] [--graph] [--load=FILE] "
    "[--save=FILE] [--output-dir=DIR] [--hparam=NAME=VALUE]... "
    "[--eval=DIR]\n"
    "       amp-step LIB NAME (--seed=S | --load=FILE) --data=NAME=FILE|DIR... "
    "[--val-data=NAME=FILE|DIR]... [--epochs=N] [--val-every=N] "
    "[--print-every=N] [--checkpoint=FILE] [--checkpoint-every=N] "
    "[--patience=N] [--keep-best=K] [--monitor=NAME] "
    "[--log=FILE] [--shuffle-seed=S | --no-shuffle] [--output-dir=DIR] "
    "[--allow-nonfinite]\n"
    "       mpirun -np N amp-step ... [--comm=mpi|nccl] "
    "[--comm-timeout=SECONDS]\n"
    "       RANK=R WORLD_SIZE=N AMP_NCCL_ID_FILE=PATH amp-step ... "
    "[--comm-timeout=SECONDS]\n";

/// Every option amp-step takes: its name as the usage writes it (up to
/// and with its `=`), its value's form, and what it does, with its default
/// (`--help` lists them; a misspelled one is matched against the names).
struct OptionHelp {
  const char *name, *value, *help;
};
const OptionHelp kOptions[] = {
    {"--inputs=", "DIR",
     "the batch and the starting tensors as .npy files, as amp-run "
     "--save-inputs writes them"},
    {"--seed=", "S",
     "random starting tensors (and batch, without --data) from seed S"},
    {"--index-bound=", "N", "random integer inputs lie in [0, N) (default 2)"},
    {"--steps=", "N", "steps on the one batch (default 1)"},
    {"--bench=", "N", "then N more steps timed: ms/step (default 0: none)"},
    {"--device=", "host|cuda", "where the step runs (default host)"},
    {"--graph", "", "replay each step as one CUDA graph (cuda)"},
    {"--load=", "FILE", "start from a state --save or --checkpoint wrote"},
    {"--save=", "FILE", "save the state at the end, atomically"},
    {"--output-dir=", "DIR", "write the losses and final tensors as .npy"},
    {"--hparam=", "NAME=VALUE",
     "set a hyperparameter before the first step (repeatable)"},
    {"--eval=", "DIR", "evaluate on DIR's batch after the last step"},
    {"--data=", "NAME=FILE|DIR",
     "train on a data set: an .npy per batch input, a row per example, "
     "memory-mapped, or a directory of .npy shards taken in name order "
     "(repeatable)"},
    {"--val-data=", "NAME=FILE|DIR", "a validation set, in the same form"},
    {"--epochs=", "N",
     "epochs over --data, counted from the step's counter (default 1)"},
    {"--val-every=", "N", "validate every N steps (default 0: at the end)"},
    {"--print-every=", "N",
     "a progress line every N steps (default 100; 0: at the end)"},
    {"--checkpoint=", "FILE",
     "save the state there at the end and every --checkpoint-every steps"},
    {"--checkpoint-every=", "N", "(default 0: only at the end)"},
    {"--patience=", "N",
     "stop after N validations in a row that do not lower the best "
     "--val-data loss (default 0: never)"},
    {"--keep-best=", "K",
     "keep the states of the K validations of the lowest loss as "
     "FILE.best-step<S> beside --checkpoint (default 0: none)"},
    {"--monitor=", "NAME",
     "what --patience and --keep-best judge: val_loss (the default, lower "
     "is better), val_accuracy or val_top5_accuracy (higher is better)"},
    {"--log=", "FILE", "append each progress line as a JSON object"},
    {"--shuffle-seed=", "S",
     "each epoch's order drawn from S and the epoch (default 0)"},
    {"--no-shuffle", "", "keep the data files' order"},
    {"--allow-nonfinite", "",
     "train on where the data, or a loss without a loss scaler, is not "
     "finite (default: stop there)"},
    {"--comm=", "mpi|nccl",
     "how the ranks reduce (default mpi under mpirun, else nccl)"},
    {"--comm-timeout=", "SECONDS",
     "how long a rank waits for the others (default 300)"},
};

/// `--help`: the usage, then every option with its default.
void printHelp() {
  std::printf("%s\noptions:\n", kUsage);
  for (const OptionHelp &option : kOptions) {
    std::string flag = std::string(option.name) + option.value;
    std::printf("  %-24s %s\n", flag.c_str(), option.help);
  }
}

/// The option `arg` (`--stpes=5`) most likely misspells, by its name
/// before any `=`, or "" when none is within a third of its length.
std::string suggestOption(const std::string &arg) {
  std::vector<std::string> names;
  for (const OptionHelp &option : kOptions) {
    names.push_back(option.name);
    if (names.back().back() == '=')
      names.back().pop_back();
  }
  size_t closest = amprt::closestName(arg.substr(0, arg.find('=')), names);
  return closest == names.size() ? "" : kOptions[closest].name;
}

/// The communicator, where one is joined, is destroyed when the run ends
/// well. An error on one rank of several leaves it to the launcher to end
/// the job: a rank that finalized MPI alone would wait there for the
/// others until their collectives timed out.
struct CommCloser {
  bool ended = false;
  ~CommCloser() {
    if (ended || job.size <= 1)
      amp_comm_destroy(job.comm);
    job.comm = nullptr;
  }
};

/// What main returns from a stage that lets the run go on.
constexpr int kGoOn = -1;

/// One run of amp-step: its arguments, then the stages of main, each
/// returning an exit code or kGoOn.
struct Run {
  const char *libraryArg = nullptr, *stepName = nullptr;
  std::string inputs, load, save, outputDir, evalDir;
  DataOptions dataOptions;
  long shuffleSeed = 0;
  std::vector<std::pair<std::string, double>> hparams;
  // -1: not given (steps 1, bench 0, index bound 2 then).
  long steps = -1, bench = -1, seed = -1, indexBound = -1, commTimeout = 300;
  amp_comm_transport_t transport = AMP_COMM_MPI;
  bool transportGiven = false;
  bool graph = false;
  amp_device_kind_t device = AMP_DEVICE_HOST;
  bool onData = false;
  const amp_step_description_t *description = nullptr;
  // Destroyed on every exit, before the communicator it uses.
  std::unique_ptr<amp_step_t, void (*)(amp_step_t *)> stepOwner{
      nullptr, amp_step_destroy};
  amp_step_t *step = nullptr;
  std::vector<std::vector<char>> batch, evalBatch;
  std::vector<amp_step_input_t> batchInputs, evalInputs;
  const amp_eval_description_t *eval = nullptr;

  int parse(int argc, char **argv);
  int joinJob();
  int openStep();
  int loadTensors();
  int train();
  int reportFp8Overflows();
  int finish();
};

/// Reads the arguments; checks that they go together.
int Run::parse(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 ||
        std::strcmp(argv[i], "-h") == 0) {
      printHelp();
      return 0;
    }
  if (argc < 3) {
    std::fprintf(stderr, "%s", kUsage);
    return 2;
  }
  // The library and the step's name come first: an option in their place
  // (`amp-step libmlp.so --steps=3`) is not a step named "--steps=3".
  for (int i = 1; i < 3; ++i)
    if (argv[i][0] == '-') {
      std::fprintf(stderr,
                   "amp-step: error: the step's library and its name come "
                   "first (amp-step LIB NAME ...), not '%s'\n%s",
                   argv[i], kUsage);
      return 2;
    }
  libraryArg = argv[1];
  stepName = argv[2];
  for (int i = 3; i < argc; ++i) {
    std::string arg = argv[i];
    auto count = [&](const char *flag, long &to, long least) {
      size_t length = std::strlen(flag);
      if (arg.compare(0, length, flag) != 0)
        return false;
      to = parseCount(arg.c_str() + length);
      if (to == -2) {
        std::fprintf(stderr,
                     "amp-step: error: %s needs a count up to %ld, "
                     "not '%s'\n",
                     flag, LONG_MAX, arg.c_str() + length);
        std::exit(2);
      }
      if (to < least) {
        std::fprintf(stderr,
                     "amp-step: error: %s needs a count >= %ld, not "
                     "'%s'\n",
                     flag, least, arg.c_str() + length);
        std::exit(2);
      }
      return true;
    };
    if (arg.rfind("--inputs=", 0) == 0)
      inputs = arg.substr(9);
    else if (count("--steps=", steps, 0) || count("--bench=", bench, 0) ||
             count("--seed=", seed, 0) ||
             count("--index-bound=", indexBound, 1) ||
             count("--epochs=", dataOptions.epochs, 1) ||
             count("--print-every=", dataOptions.printEvery, 0) ||
             count("--val-every=", dataOptions.valEvery, 0) ||
             count("--checkpoint-every=", dataOptions.checkpointEvery, 0) ||
             count("--patience=", dataOptions.patience, 0) ||
             count("--keep-best=", dataOptions.keepBest, 0) ||
             count("--shuffle-seed=", shuffleSeed, 0) ||
             count("--comm-timeout=", commTimeout, 1))
      continue;
    else if (arg.rfind("--data=", 0) == 0)
      dataOptions.data.push_back(arg.substr(7));
    else if (arg.rfind("--val-data=", 0) == 0)
      dataOptions.valData.push_back(arg.substr(11));
    else if (arg.rfind("--checkpoint=", 0) == 0)
      dataOptions.checkpoint = arg.substr(13);
    else if (arg.rfind("--log=", 0) == 0)
      dataOptions.log = arg.substr(6);
    else if (arg.rfind("--monitor=", 0) == 0)
      dataOptions.monitor = arg.substr(10);
    else if (arg == "--comm=nccl" || arg == "--comm=mpi") {
      transport = arg == "--comm=nccl" ? AMP_COMM_NCCL : AMP_COMM_MPI;
      transportGiven = true;
    } else if (arg == "--no-shuffle")
      dataOptions.shuffle = false;
    else if (arg == "--allow-nonfinite")
      dataOptions.allowNonFinite = true;
    else if (arg == "--device=cuda")
      device = AMP_DEVICE_CUDA;
    else if (arg.rfind("--load=", 0) == 0)
      load = arg.substr(7);
    else if (arg.rfind("--save=", 0) == 0)
      save = arg.substr(7);
    else if (arg == "--graph")
      graph = true;
    else if (arg.rfind("--output-dir=", 0) == 0)
      outputDir = arg.substr(13);
    else if (arg.rfind("--eval=", 0) == 0)
      evalDir = arg.substr(7);
    else if (arg.rfind("--hparam=", 0) == 0) {
      std::string setting = arg.substr(9);
      size_t equals = setting.find('=');
      const char *text =
          equals == std::string::npos ? "" : setting.c_str() + equals + 1;
      char *end = nullptr;
      double value = std::strtod(text, &end);
      if (equals == 0 || !*text || *end != '\0') {
        std::fprintf(stderr,
                     "amp-step: error: --hparam needs NAME=VALUE with a "
                     "number, not '%s'\n",
                     setting.c_str());
        return 2;
      }
      hparams.emplace_back(setting.substr(0, equals), value);
    } else if (arg != "--device=host") {
      std::string suggestion = suggestOption(arg);
      std::fprintf(stderr, "amp-step: error: unknown argument '%s'%s%s%s\n%s",
                   arg.c_str(), suggestion.empty() ? "" : "; did you mean '",
                   suggestion.c_str(), suggestion.empty() ? "" : "'?", kUsage);
      return 2;
    }
  }
  onData = !dataOptions.data.empty();
  // A resumed run whose state nothing keeps: its epochs are lost at exit.
  if (onData && !load.empty() && dataOptions.checkpoint.empty() &&
      save.empty() && outputDir.empty())
    std::fprintf(stderr,
                 "amp-step: warning: resuming from %s, but nothing keeps "
                 "this run's state: give --checkpoint=FILE (or --save=FILE)\n",
                 load.c_str());
  if (onData && (steps >= 0 || bench >= 0 || indexBound >= 0)) {
    std::fprintf(stderr,
                 "amp-step: error: --steps, --bench and --index-bound run "
                 "random or --inputs batches; with --data the epochs set the "
                 "steps (--epochs)\n%s",
                 kUsage);
    return 2;
  }
  steps = steps < 0 ? 1 : steps;
  bench = bench < 0 ? 0 : bench;
  indexBound = indexBound < 0 ? 2 : indexBound;
  dataOptions.shuffleSeed = static_cast<uint64_t>(shuffleSeed);
  dataOptions.outputDir = outputDir;
  if (onData && (!inputs.empty() || (seed < 0 && load.empty()))) {
    std::fprintf(stderr,
                 "amp-step: error: --data takes the parameters from --seed "
                 "or --load%s\n%s",
                 inputs.empty() ? ": give one" : ", not --inputs", kUsage);
    return 2;
  }
  if (!onData && inputs.empty() == (seed < 0)) {
    std::fprintf(stderr,
                 "amp-step: error: give --inputs or --seed, one of "
                 "them\n%s",
                 kUsage);
    return 2;
  }
  bool dataOnly = !dataOptions.valData.empty() || dataOptions.valEvery ||
                  !dataOptions.checkpoint.empty() ||
                  dataOptions.checkpointEvery || !dataOptions.log.empty() ||
                  dataOptions.epochs != 1 || dataOptions.patience ||
                  dataOptions.keepBest || !dataOptions.monitor.empty();
  if (!onData && dataOnly) {
    std::fprintf(stderr, "amp-step: error: --val-data, --val-every, "
                         "--epochs, --checkpoint, --checkpoint-every, "
                         "--patience, --keep-best, --monitor and --log train "
                         "on a data set: give --data\n");
    return 2;
  }
  return kGoOn;
}

/// Joins the job that started this process, where one did.
int Run::joinJob() {
  // Started by mpirun with more than one rank (Open MPI's or a PMI
  // launcher's variables; a process of one rank, such as a child of an
  // MPI singleton, is no job): one rank of a data-parallel job. Rank 0
  // alone prints.
  const char *worldSize = environment("OMPI_COMM_WORLD_SIZE");
  if (!worldSize)
    worldSize = environment("PMI_SIZE");
  // Else started by a launcher without MPI, as torchrun starts processes
  // (RANK, WORLD_SIZE): the ranks join through NCCL alone.
  const char *envSize = environment("WORLD_SIZE");
  bool underMpirun = worldSize ? std::atol(worldSize) > 1
                               : environment("PMIX_RANK") != nullptr;
  bool withoutMpi = !underMpirun && !worldSize &&
                    (environment("RANK") || envSize) &&
                    !(envSize && std::strcmp(envSize, "1") == 0);
  if (withoutMpi && transportGiven && transport == AMP_COMM_MPI) {
    std::fprintf(stderr,
                 "amp-step: error: --comm=mpi, but this process was started "
                 "without mpirun (RANK and WORLD_SIZE, as torchrun sets "
                 "them): there is no MPI job to join; start it with mpirun, "
                 "or reduce through NCCL (--comm=nccl, the default here)\n");
    return 2;
  }
  if (underMpirun || withoutMpi) {
    double timeout = static_cast<double>(commTimeout);
    if (amp_status_t status =
            withoutMpi ? amp_comm_create_env(timeout, &job.comm)
                       : amp_comm_create_world(transport, timeout, &job.comm))
      return fail(status, withoutMpi
                              ? "joining the job from RANK and WORLD_SIZE: "
                              : "joining the job that mpirun started: ");
    job.rank = amp_comm_rank(job.comm);
    job.size = amp_comm_size(job.comm);
    if (job.size == 1) {
      amp_comm_destroy(job.comm);
      job.comm = nullptr;
    }
    if (!job.leads() && !std::freopen("/dev/null", "w", stdout)) {
      std::fprintf(stderr, "amp-step: error: rank %d: cannot quiet stdout\n",
                   job.rank);
      return 1;
    }
  }
  return kGoOn;
}

/// Loads the library and creates its step, checked against the job.
int Run::openStep() {
  // dlopen looks a name without a slash up on the library path, not in the
  // current directory: a bare file name is a path like any other here.
  std::string libraryPath = libraryArg;
  if (libraryPath.find('/') == std::string::npos)
    libraryPath = "./" + libraryPath;
  void *library = dlopen(libraryPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    std::fprintf(stderr, "amp-step: error: %s\n", dlerror());
    return 1;
  }
  std::string symbol = std::string(stepName) + "_describe";
  auto describe = reinterpret_cast<const amp_step_description_t *(*)()>(
      dlsym(library, symbol.c_str()));
  if (!describe) {
    std::fprintf(stderr, "amp-step: error: %s has no %s\n", libraryArg,
                 symbol.c_str());
    return 1;
  }
  description = describe();
  if (amp_status_t status = amp_step_create(description, device, &step))
    return fail(status);
  stepOwner.reset(step);
  // Joined before the state is set: a step with sharded optimizer state
  // initialises or loads the parts of its rank.
  job.sharded = description->zero_replicas > 0;
  if (job.sharded && description->zero_replicas != job.size) {
    std::fprintf(
        stderr,
        "amp-step: error: %s%s shards its optimizer state over %d "
        "replicas (zero-stage=1 replicas=%d); start it with mpirun "
        "-np %d, not as %d process%s\n",
        job.size > 1 ? ("rank " + std::to_string(job.rank) + ": ").c_str() : "",
        libraryArg, description->zero_replicas, description->zero_replicas,
        description->zero_replicas, job.size, job.size == 1 ? "" : "es");
    return 1;
  }
  if (job.comm) {
    if (!description->data_parallel) {
      std::fprintf(stderr,
                   "amp-step: error: rank %d: started as rank %d of %d, but "
                   "%s was compiled without data parallelism: each rank "
                   "would train on its own (amp-compile "
                   "--train-options=data-parallel=true)\n",
                   job.rank, job.rank, job.size, libraryArg);
      return 1;
    }
    if (amp_status_t status = amp_step_set_comm(step, job.comm))
      return fail(status);
  }

  return kGoOn;
}

/// Sets every tensor, and reads the batches, before the first step.
int Run::loadTensors() {
  // Every tensor from <name>.npy or arg<i>.npy, or the parameters and state
  // from the seed and a random batch; the batch is kept on the host.
  uint64_t state = static_cast<uint64_t>(seed) ^ 0x5eedull;
  if (seed >= 0)
    if (amp_status_t status = amp_step_init(step, static_cast<uint64_t>(seed)))
      return fail(status);
  for (size_t i = 0; i < description->tensor_count && !onData; ++i) {
    const amp_step_tensor_t &t = description->tensors[i];
    if (t.kind == AMP_STEP_LOSS_PART)
      continue; // written by each step, read by none
    if (seed >= 0) {
      if (t.kind == AMP_STEP_INPUT)
        batch.push_back(randomInput(t, state, indexBound));
      continue;
    }
    std::string named = inputs + "/" + tensorFile(t.name, i);
    std::string positional = inputs + "/arg" + std::to_string(i) + ".npy";
    std::error_code error;
    std::string path =
        std::filesystem::exists(named, error) ? named : positional;
    if (!std::filesystem::exists(path, error)) {
      std::string files = named == positional
                              ? tensorFile(t.name, i)
                              : "neither " + tensorFile(t.name, i) +
                                    " nor arg" + std::to_string(i) + ".npy";
      std::fprintf(stderr,
                   "amp-step: error: %s has no file for tensor '%s': %s\n",
                   inputs.c_str(), t.name, files.c_str());
      return 1;
    }
    if (amp_status_t status = amp_step_load_npy(step, i, path.c_str()))
      return fail(status);
    if (t.kind != AMP_STEP_INPUT)
      continue;
    batch.emplace_back(byteSize(t));
    if (amp_status_t status = amp_step_read_tensor(step, i, batch.back().data(),
                                                   batch.back().size()))
      return fail(status);
  }
  for (size_t i = 0, n = 0; i < description->tensor_count && !onData; ++i) {
    const amp_step_tensor_t &t = description->tensors[i];
    if (t.kind == AMP_STEP_INPUT)
      batchInputs.push_back({batch[n++].data(), t.type, t.rank, t.shape});
  }
  if (!load.empty())
    if (amp_status_t status = amp_step_load(step, job.stateFile(load).c_str()))
      return fail(status);
  for (const auto &[name, value] : hparams)
    if (amp_status_t status = amp_step_set_hparam(step, name.c_str(), value))
      return fail(status);
  // The ranks agree on the state they start from (a sharded optimizer's
  // parts aside, each rank's own).
  if (job.comm)
    if (amp_status_t status = amp_comm_check_state(job.comm, step))
      return fail(status);
  // Every output path, and the evaluation's batch, before the first step:
  // a typo found after a long run would cost the run.
  if (!checkOutputs(save, dataOptions.checkpoint, outputDir))
    return 1;
  eval = description->eval;
  if (!evalDir.empty()) {
    if (!eval) {
      std::fprintf(stderr,
                   "amp-step: error: --eval: %s was compiled without an "
                   "evaluation (amp-compile --eval=false)\n",
                   libraryArg);
      return 1;
    }
    if (description->other_eval_count && !chooseEvaluation(evalDir, step, eval))
      return 1;
    if (amp_status_t status = readBatch(evalDir, eval->tensor_count,
                                        eval->tensors, evalBatch, evalInputs))
      return fail(status, "--eval=" + evalDir + ": ");
  }

  return kGoOn;
}

/// Delayed FP8 scaling's overflow counts (state `<layer>.fp8_overflows`:
/// x, w, the gradient), where any cast overflowed: how often a tensor's
/// values went past its format's range at the scale of its history.
int Run::reportFp8Overflows() {
  constexpr std::string_view kSuffix = ".fp8_overflows";
  for (size_t i = 0; i < description->tensor_count; ++i) {
    const amp_step_tensor_t &t = description->tensors[i];
    std::string_view name = t.name;
    if (t.kind != AMP_STEP_BUFFER || t.type != AMP_ELEMENT_F32 || t.rank != 1 ||
        t.shape[0] != 3 || name.size() <= kSuffix.size() ||
        name.substr(name.size() - kSuffix.size()) != kSuffix)
      continue;
    float counts[3];
    if (amp_status_t status =
            amp_step_read_tensor(step, i, counts, sizeof counts))
      return fail(status);
    if (counts[0] + counts[1] + counts[2] > 0)
      std::printf("fp8 overflows %.*s: x %.0f, w %.0f, gradient %.0f steps\n",
                  static_cast<int>(name.size() - kSuffix.size()), name.data(),
                  counts[0], counts[1], counts[2]);
  }
  return kGoOn;
}

/// The steps: on the data set, or on the one batch, then timed.
int Run::train() {
  if (onData) {
    if (int code = trainOnData(step, dataOptions))
      return code;
    steps = bench = 0; // the data set's steps ran instead
  }
  bool captured = false;
  for (long s = 0; s < steps; ++s) {
    float scale = 0, loss = 0, found = 0;
    int64_t count = 0, skipped = 0;
    if (amp_status_t status = amp_step_scaler(step, &scale, &count, &skipped))
      return fail(status);
    if (amp_status_t status =
            amp_step_run(step, batchInputs.size(), batchInputs.data()))
      return fail(status);
    if (amp_status_t status = amp_step_result(step, &loss, &found))
      return fail(status);
    // Numbered by the step's own counter, so that a loaded run continues
    // the numbering of the run that saved it.
    std::vector<std::pair<const char *, float>> parts;
    if (amp_status_t status = readLossParts(step, parts))
      return fail(status);
    // Numbered as this loop's lines number steps (from the step's counter
    // before the step).
    if (!dataOptions.allowNonFinite &&
        !lossIsUsable(step, "step " + std::to_string(count) + ": "))
      return 1;
    std::printf("step %lld loss %.9g", static_cast<long long>(count), loss);
    for (const auto &[name, value] : parts)
      std::printf(" %s %.9g", name, value);
    if (description->loss_scale_tensor >= 0)
      std::printf(" scale %g%s", scale, found != 0 ? " skipped" : "");
    std::printf("\n");
    std::fflush(stdout);
    if (graph && !captured) {
      if (amp_status_t status = amp_step_capture(step))
        return fail(status);
      captured = true;
    }
  }
  if (steps > 0)
    if (int code = reportFp8Overflows(); code != kGoOn)
      return code;
  // Timed steps: queued back to back, one wait at the end.
  if (bench > 0) {
    if (graph && !captured) {
      if (amp_status_t status = amp_step_capture(step))
        return fail(status);
      captured = true;
    }
    auto start = std::chrono::steady_clock::now();
    for (long s = 0; s < bench; ++s)
      if (amp_status_t status =
              amp_step_run(step, batchInputs.size(), batchInputs.data()))
        return fail(status);
    float loss = 0, found = 0;
    if (amp_status_t status = amp_step_result(step, &loss, &found))
      return fail(status);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    std::printf("timed %ld steps%s: %.3f ms/step, last loss %.9g\n", bench,
                captured ? " (graph replays)" : "", 1e3 * seconds / bench,
                loss);
  }
  return kGoOn;
}

/// Saves and writes what was asked for, then evaluates.
int Run::finish() {
  if (!save.empty() && job.saves())
    if (amp_status_t status = amp_step_save(step, job.stateFile(save).c_str()))
      return fail(status);
  if (!outputDir.empty() && job.leads()) {
    if (!makeDirectory(outputDir))
      return 1;
    for (size_t i = 0; i < description->tensor_count; ++i) {
      const amp_step_tensor_t &t = description->tensors[i];
      if (t.kind == AMP_STEP_INPUT)
        continue;
      std::string path = outputDir + "/" + tensorFile(t.name, i);
      if (amp_status_t status = amp_step_save_npy(step, i, path.c_str()))
        return fail(status);
    }
    // The last loss, where a step ran; none, and none of an earlier run,
    // where none did.
    float loss = 0, found = 0;
    if (amp_status_t status = amp_step_result(step, &loss, &found))
      return fail(status);
    std::string path = outputDir + "/loss.npy";
    bool ran = steps + bench > 0 || onData;
    const amp_step_tensor_t scalar = {
        "loss", AMP_STEP_INPUT, AMP_ELEMENT_F32, 0, {}, 0, 0};
    std::error_code error;
    if (!ran)
      std::filesystem::remove(path, error);
    else if (amp_status_t status =
                 amp_npy_write(&scalar, path.c_str(), &loss, sizeof loss))
      return fail(status);
  }
  // The evaluation last, on the trained parameters: its loss printed, its
  // outputs written under <output-dir>/eval by their names.
  if (!evalDir.empty()) {
    float loss = 0;
    if (amp_status_t status = amp_step_evaluate(step, evalInputs.size(),
                                                evalInputs.data(), &loss))
      return fail(status);
    std::printf("eval loss %.9g\n", loss);
    std::vector<std::vector<char>> outputs(eval->output_count);
    for (size_t k = 0; k < eval->output_count && !outputDir.empty(); ++k) {
      size_t size = byteSize(eval->outputs[k]);
      outputs[k].resize(size);
      if (amp_status_t status =
              amp_step_read_output(step, k, outputs[k].data(), size))
        return fail(status);
    }
    if (!outputDir.empty() && job.leads() &&
        !writeEvalOutputs(outputDir + "/eval", *eval, outputs,
                          /*stacked=*/false))
      return 1;
  }
  // The replicas applied the same updates: they hold the same state.
  if (job.comm)
    if (amp_status_t status = amp_comm_check_state(job.comm, step))
      return fail(status);
  return kGoOn;
}

} // namespace

int main(int argc, char **argv) {
  CommCloser commCloser;
  Run run; // destroyed first: its step uses the communicator
  int code = run.parse(argc, argv);
  for (int (Run::*stage)() : {&Run::joinJob, &Run::openStep, &Run::loadTensors,
                              &Run::train, &Run::finish})
    if (code == kGoOn)
      code = (run.*stage)();
  if (code != kGoOn)
    return code;
  // The runtime said each call once as it fell back; the count says how
  // often (a GPU run's timing is then not the cost report's).
  if (int64_t fallbacks = amp_library_fallbacks())
    std::fprintf(stderr,
                 "amp-step: %lld cuDNN calls ran on the runtime's kernels "
                 "instead\n",
                 static_cast<long long>(fallbacks));
  commCloser.ended = true;
  return 0;
}
