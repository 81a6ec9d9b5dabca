// Training the example MLP from C++ with a step compiled by amp-compile.
//
//   build/bin/amp-compile examples/mlp.mlir --compute-type=f16 -o out/mlp
//   c++ -std=c++17 examples/cpp/train_mlp.cpp -Iout/mlp -Iruntime/include \
//       -Lout/mlp -lmlp -Lbuild/lib -lamp_runtime \
//       -Wl,-rpath,out/mlp -Wl,-rpath,build/lib -o train_mlp
//   ./train_mlp 200
//
// The data: 10 classes, each a random prototype in 784 dimensions plus
// noise, as ampmlir.data.clusters makes them.

#include "mlp.h" // mlp_describe(), from amp-compile

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

/// Prints the status's message and exits when a call failed.
void check(amp_status_t status, const char *what) {
  if (!status)
    return;
  std::fprintf(stderr, "%s: %s (%s)\n", what, amp_status_message(status),
               amp_status_code_name(amp_status_code(status)));
  amp_status_free(status);
  std::exit(1);
}

} // namespace

int main(int argc, char **argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 200;
  constexpr int64_t kBatch = 64, kFeatures = 784, kClasses = 10;

  std::mt19937_64 random(1);
  std::normal_distribution<float> normal;
  std::vector<float> prototypes(kClasses * kFeatures);
  for (float &p : prototypes)
    p = 0.1f * normal(random);

  amp_step_t *step = nullptr;
  check(amp_step_create(mlp_describe(), AMP_DEVICE_HOST, &step), "create");
  check(amp_step_init(step, /*seed=*/0), "init");

  std::vector<float> x(kBatch * kFeatures);
  std::vector<int64_t> labels(kBatch);
  const int64_t xShape[] = {kBatch, kFeatures}, labelShape[] = {kBatch};
  amp_step_input_t batch[] = {{x.data(), AMP_ELEMENT_F32, 2, xShape},
                              {labels.data(), AMP_ELEMENT_I64, 1, labelShape}};
  for (int i = 0; i < steps; ++i) {
    for (int64_t r = 0; r < kBatch; ++r) {
      labels[r] = static_cast<int64_t>(random() % kClasses);
      for (int64_t c = 0; c < kFeatures; ++c)
        x[r * kFeatures + c] =
            prototypes[labels[r] * kFeatures + c] + normal(random);
    }
    check(amp_step_run(step, 2, batch), "run"); // queued, no wait
    if ((i + 1) % 50 == 0) {
      float loss = 0, foundInf = 0, scale = 0;
      int64_t done = 0, skipped = 0;
      check(amp_step_result(step, &loss, &foundInf), "result");
      check(amp_step_scaler(step, &scale, &done, &skipped), "scaler");
      std::printf("step %lld loss %.4f scale %g skipped %lld\n",
                  static_cast<long long>(done), loss, scale,
                  static_cast<long long>(skipped));
    }
  }
  check(amp_step_save(step, "mlp.ampstate"), "save");
  amp_step_destroy(step);
  return 0;
}
