//===- amp-step.cpp - train with a step built by amp-compile --------------===//
//
//   amp-step DIR/lib<name>.so <name> --inputs=DIR --steps=N [--device=host]
//
// Loads every tensor of the step from DIR/<name>.npy, named as the step
// names it (w1.npy, w1.exp_avg.npy, x.npy, labels.npy), or else from
// DIR/arg<i>.npy by its position (as amp-run --save-inputs writes them),
// runs N steps on that batch and prints each loss as amp-run --train-steps
// --print-every=1 does, so that the two outputs can be compared line for
// line. --seed=S instead initialises the parameters from S (amp_step_init)
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
//===----------------------------------------------------------------------===//

#include "amp_runtime/float_formats.h"
#include "amp_runtime/step.h"

#include <dlfcn.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

int fail(amp_status_t status) {
  std::fprintf(stderr, "amp-step: error: %s (%s)\n", amp_status_message(status),
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

/// splitmix64: the next of a sequence of well-mixed 64-bit values.
uint64_t nextRandom(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// A batch input of `t`'s type and shape: floats uniform in [-1, 1),
/// integers uniform in [0, indexBound), booleans 0 or 1.
std::vector<char> randomInput(const amp_step_tensor_t &t, uint64_t &state,
                              int64_t indexBound) {
  int64_t count = 1;
  for (int32_t d = 0; d < t.rank; ++d)
    count *= t.shape[d];
  std::vector<char> bytes(count * amp_element_size(t.type));
  for (int64_t i = 0; i < count; ++i) {
    uint64_t r = nextRandom(state);
    double unit = static_cast<double>(r >> 11) * 0x1p-53; // [0, 1)
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
/// by name (tensorFile), into `batch`, and describes them in `inputs`.
amp_status_t readBatch(const std::string &dir, size_t count,
                       const amp_step_tensor_t *tensors,
                       std::vector<std::vector<char>> &batch,
                       std::vector<amp_step_input_t> &inputs) {
  batch.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const amp_step_tensor_t &t = tensors[i];
    if (t.kind != AMP_STEP_INPUT)
      continue;
    int64_t elements = 1;
    for (int32_t d = 0; d < t.rank; ++d)
      elements *= t.shape[d];
    batch.emplace_back(elements * amp_element_size(t.type));
    std::string path = dir + "/" + tensorFile(t.name, i);
    if (amp_status_t status = amp_npy_read(
            &t, path.c_str(), batch.back().data(), batch.back().size()))
      return status;
    inputs.push_back({batch.back().data(), t.type, t.rank, t.shape});
  }
  return nullptr;
}

} // namespace

int main(int argc, char **argv) {
  const char *usage =
      "usage: amp-step LIB NAME (--inputs=DIR | --seed=S [--index-bound=N]) "
      "[--steps=N] [--bench=N] [--device=host|cuda] [--graph] [--load=FILE] "
      "[--save=FILE] [--output-dir=DIR] [--hparam=NAME=VALUE]... "
      "[--eval=DIR]\n";
  if (argc < 3) {
    std::fprintf(stderr, "%s", usage);
    return 2;
  }
  std::string inputs, load, save, outputDir, evalDir;
  std::vector<std::pair<std::string, double>> hparams;
  long steps = 1, bench = 0, seed = -1, indexBound = 2;
  bool graph = false;
  amp_device_kind_t device = AMP_DEVICE_HOST;
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
             count("--index-bound=", indexBound, 1))
      continue;
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
      std::fprintf(stderr, "amp-step: error: unknown argument '%s'\n%s",
                   arg.c_str(), usage);
      return 2;
    }
  }
  if (inputs.empty() == (seed < 0)) {
    std::fprintf(stderr,
                 "amp-step: error: give --inputs or --seed, one of "
                 "them\n%s",
                 usage);
    return 2;
  }
  // dlopen looks a name without a slash up on the library path, not in the
  // current directory: a bare file name is a path like any other here.
  std::string libraryPath = argv[1];
  if (libraryPath.find('/') == std::string::npos)
    libraryPath = "./" + libraryPath;
  void *library = dlopen(libraryPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    std::fprintf(stderr, "amp-step: error: %s\n", dlerror());
    return 1;
  }
  std::string symbol = std::string(argv[2]) + "_describe";
  auto describe = reinterpret_cast<const amp_step_description_t *(*)()>(
      dlsym(library, symbol.c_str()));
  if (!describe) {
    std::fprintf(stderr, "amp-step: error: %s has no %s\n", argv[1],
                 symbol.c_str());
    return 1;
  }
  const amp_step_description_t *description = describe();
  amp_step_t *step = nullptr;
  if (amp_status_t status = amp_step_create(description, device, &step))
    return fail(status);

  // Every tensor from <name>.npy or arg<i>.npy, or the parameters and state
  // from the seed and a random batch; the batch is kept on the host.
  std::vector<std::vector<char>> batch;
  std::vector<amp_step_input_t> batchInputs;
  uint64_t state = static_cast<uint64_t>(seed) ^ 0x5eedull;
  if (seed >= 0)
    if (amp_status_t status = amp_step_init(step, static_cast<uint64_t>(seed)))
      return fail(status);
  for (size_t i = 0; i < description->tensor_count; ++i) {
    const amp_step_tensor_t &t = description->tensors[i];
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
    int64_t count = 1;
    for (int32_t d = 0; d < t.rank; ++d)
      count *= t.shape[d];
    batch.emplace_back(count * amp_element_size(t.type));
    if (amp_status_t status = amp_step_read_tensor(step, i, batch.back().data(),
                                                   batch.back().size()))
      return fail(status);
  }
  for (size_t i = 0, n = 0; i < description->tensor_count; ++i) {
    const amp_step_tensor_t &t = description->tensors[i];
    if (t.kind == AMP_STEP_INPUT)
      batchInputs.push_back({batch[n++].data(), t.type, t.rank, t.shape});
  }
  if (!load.empty())
    if (amp_status_t status = amp_step_load(step, load.c_str()))
      return fail(status);
  for (const auto &[name, value] : hparams)
    if (amp_status_t status = amp_step_set_hparam(step, name.c_str(), value))
      return fail(status);

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
    std::printf("step %lld loss %.9g", static_cast<long long>(count), loss);
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
  if (!save.empty())
    if (amp_status_t status = amp_step_save(step, save.c_str()))
      return fail(status);
  if (!outputDir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(outputDir, error);
    if (error) {
      std::fprintf(stderr, "amp-step: error: cannot create %s: %s\n",
                   outputDir.c_str(), error.message().c_str());
      return 1;
    }
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
    const amp_step_tensor_t scalar = {
        "loss", AMP_STEP_INPUT, AMP_ELEMENT_F32, 0, {}, 0, 0};
    if (steps + bench == 0)
      std::filesystem::remove(path, error);
    else if (amp_status_t status =
                 amp_npy_write(&scalar, path.c_str(), &loss, sizeof loss))
      return fail(status);
  }
  // The evaluation last, on the trained parameters: its loss printed, its
  // outputs written under <output-dir>/eval by their names.
  if (!evalDir.empty()) {
    const amp_eval_description_t *eval = description->eval;
    if (!eval) {
      std::fprintf(stderr,
                   "amp-step: error: --eval: %s was compiled without an "
                   "evaluation (amp-compile --eval=false)\n",
                   argv[1]);
      return 1;
    }
    std::vector<std::vector<char>> evalBatch;
    std::vector<amp_step_input_t> evalInputs;
    if (amp_status_t status = readBatch(evalDir, eval->tensor_count,
                                        eval->tensors, evalBatch, evalInputs))
      return fail(status);
    float loss = 0;
    if (amp_status_t status = amp_step_evaluate(step, evalInputs.size(),
                                                evalInputs.data(), &loss))
      return fail(status);
    std::printf("eval loss %.9g\n", loss);
    if (!outputDir.empty()) {
      std::string dir = outputDir + "/eval";
      std::error_code error;
      std::filesystem::create_directories(dir, error);
      if (error) {
        std::fprintf(stderr, "amp-step: error: cannot create %s: %s\n",
                     dir.c_str(), error.message().c_str());
        return 1;
      }
      for (size_t k = 0; k < eval->output_count; ++k) {
        const amp_step_tensor_t &t = eval->outputs[k];
        int64_t elements = 1;
        for (int32_t d = 0; d < t.rank; ++d)
          elements *= t.shape[d];
        std::vector<char> data(elements * amp_element_size(t.type));
        std::string path =
            dir + "/" + tensorFile(t.name, k, /*lossReserved=*/false);
        if (amp_status_t status =
                amp_step_read_output(step, k, data.data(), data.size()))
          return fail(status);
        if (amp_status_t status =
                amp_npy_write(&t, path.c_str(), data.data(), data.size()))
          return fail(status);
      }
    }
  }
  amp_step_destroy(step);
  return 0;
}
