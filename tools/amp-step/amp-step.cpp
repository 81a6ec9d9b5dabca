//===- amp-step.cpp - train with a step built by amp-compile --------------===//
//
//   amp-step DIR/lib<name>.so <name> --inputs=DIR --steps=N [--device=host]
//
// Loads every tensor of the step from DIR/arg<i>.npy (as amp-run
// --save-inputs writes them), runs N steps on that batch and prints each
// loss as amp-run --train-steps --print-every=1 does, so that the two
// outputs can be compared line for line. --load restores a state saved with
// --save, and the step numbers continue from it. --graph runs the first
// step as it is and replays every later one from a CUDA graph of it.
// --output-dir writes the parameters and state after the last step as
// result<k>.npy, numbered as amp-run --output-dir numbers the step's
// results, so that the two can be compared tensor by tensor.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/step.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

int fail(amp_status_t status) {
  std::fprintf(stderr, "amp-step: error: %s (%s)\n",
               amp_status_message(status),
               amp_status_code_name(amp_status_code(status)));
  amp_status_free(status);
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: amp-step LIB NAME --inputs=DIR --steps=N "
                         "[--device=host|cuda] [--load=FILE] [--save=FILE] "
                         "[--graph] [--output-dir=DIR]\n");
    return 2;
  }
  std::string inputs, load, save, outputDir;
  long steps = 1;
  bool graph = false;
  amp_device_kind_t device = AMP_DEVICE_HOST;
  for (int i = 3; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--inputs=", 0) == 0)
      inputs = arg.substr(9);
    else if (arg.rfind("--steps=", 0) == 0) {
      char *end = nullptr;
      steps = std::strtol(arg.c_str() + 8, &end, 10);
      if (end == arg.c_str() + 8 || *end != '\0' || steps < 0) {
        std::fprintf(stderr,
                     "amp-step: error: --steps needs a count >= 0, "
                     "not '%s'\n",
                     arg.c_str() + 8);
        return 2;
      }
    } else if (arg == "--device=cuda")
      device = AMP_DEVICE_CUDA;
    else if (arg.rfind("--load=", 0) == 0)
      load = arg.substr(7);
    else if (arg.rfind("--save=", 0) == 0)
      save = arg.substr(7);
    else if (arg == "--graph")
      graph = true;
    else if (arg.rfind("--output-dir=", 0) == 0)
      outputDir = arg.substr(13);
    else if (arg != "--device=host") {
      std::fprintf(stderr, "amp-step: error: unknown argument '%s'\n",
                   arg.c_str());
      return 2;
    }
  }
  void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
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

  // Every tensor from arg<i>.npy; inputs are kept on the host.
  std::vector<std::vector<char>> batch;
  std::vector<amp_step_input_t> batchInputs;
  for (size_t i = 0; i < description->tensor_count; ++i) {
    std::string path = inputs + "/arg" + std::to_string(i) + ".npy";
    if (amp_status_t status = amp_step_load_npy(step, i, path.c_str()))
      return fail(status);
    const amp_step_tensor_t &t = description->tensors[i];
    if (t.kind != AMP_STEP_INPUT)
      continue;
    int64_t count = 1;
    for (int32_t d = 0; d < t.rank; ++d)
      count *= t.shape[d];
    batch.emplace_back(count * amp_element_size(t.type));
    if (amp_status_t status = amp_step_read_tensor(
            step, i, batch.back().data(), batch.back().size()))
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
    if (graph && s == 0)
      if (amp_status_t status = amp_step_capture(step))
        return fail(status);
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
    for (size_t i = 0, k = 0; i < description->tensor_count; ++i) {
      if (description->tensors[i].kind == AMP_STEP_INPUT)
        continue;
      std::string path = outputDir + "/result" + std::to_string(k++) + ".npy";
      if (amp_status_t status = amp_step_save_npy(step, i, path.c_str()))
        return fail(status);
    }
  }
  amp_step_destroy(step);
  return 0;
}
