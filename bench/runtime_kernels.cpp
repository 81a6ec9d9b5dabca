//===- runtime_kernels.cpp - throughput of the runtime's kernels ----------===//
//
// Times the runtime's kernels on one device and prints each against a
// ceiling measured in the same run: GEMMs in TFLOP/s against the fastest
// GEMM of the run (cuBLASLt's peak on CUDA), the memory-bound kernels in
// GB/s against a device-to-device copy of the same device.
//
//   amp-runtime-bench [--device host|cuda] [--json FILE]
//
// Without --device it picks CUDA when a GPU is present. Host sizes are
// smaller, so host and CUDA figures are not comparable with each other.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/attention.h"
#include "amp_runtime/gemm.h"
#include "amp_runtime/optimizer_kernels.h"
#include "amp_runtime/row_kernels.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fail(amp_status_t status, const char *what) {
  std::fprintf(stderr, "amp-runtime-bench: %s: %s\n", what,
               amp_status_message(status));
  std::exit(1);
}

#define CHECK(call)                                                            \
  do {                                                                         \
    if (amp_status_t status_ = (call))                                         \
      fail(status_, #call);                                                    \
  } while (0)

struct Result {
  std::string name, unit;
  double value, ceiling;
};

class Bench {
public:
  explicit Bench(amp_device_kind_t kind) : kind(kind) {
    CHECK(amp_device_create(kind, 0, &device));
    CHECK(amp_stream_create(device, &stream));
  }
  ~Bench() {
    for (amp_buffer_t *buffer : buffers)
      amp_buffer_release(buffer);
    amp_stream_destroy(stream);
    amp_device_destroy(device);
  }

  bool onGpu() const { return kind == AMP_DEVICE_CUDA; }

  /// A zero-filled device buffer of `bytes`, and its buffer handle.
  void *allocate(size_t bytes, amp_buffer_t **out = nullptr) {
    amp_buffer_t *buffer = nullptr;
    CHECK(amp_buffer_allocate(device, bytes, &buffer));
    buffers.push_back(buffer);
    if (out)
      *out = buffer;
    return amp_buffer_data(buffer);
  }

  /// Seconds per call of `body`: median of 5 timings of `iterations` calls.
  double time(int iterations, const std::function<void()> &body) {
    body(); // warm up (and load the kernels)
    CHECK(amp_stream_synchronize(stream));
    std::vector<double> samples;
    for (int sample = 0; sample < 5; ++sample) {
      auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < iterations; ++i)
        body();
      CHECK(amp_stream_synchronize(stream));
      std::chrono::duration<double> elapsed =
          std::chrono::steady_clock::now() - start;
      samples.push_back(elapsed.count() / iterations);
    }
    std::sort(samples.begin(), samples.end());
    return samples[samples.size() / 2];
  }

  amp_device_kind_t kind;
  amp_device_t *device = nullptr;
  amp_stream_t *stream = nullptr;
  std::vector<amp_buffer_t *> buffers;
};

const char *dtypeName(amp_dtype_t dtype) {
  return dtype == AMP_F16 ? "f16" : dtype == AMP_BF16 ? "bf16" : "f32";
}

size_t dtypeBytes(amp_dtype_t dtype) { return dtype == AMP_F32 ? 4 : 2; }

/// Device-to-device copy bandwidth (read + write bytes per second).
double copyBandwidth(Bench &bench, size_t bytes, int iterations) {
  amp_buffer_t *source = nullptr, *destination = nullptr;
  bench.allocate(bytes, &source);
  bench.allocate(bytes, &destination);
  double seconds = bench.time(iterations, [&] {
    CHECK(amp_buffer_copy(source, 0, destination, 0, bytes, bench.stream));
  });
  return 2.0 * bytes / seconds;
}

} // namespace

int main(int argc, char **argv) {
  amp_device_kind_t kind =
      amp_device_available(AMP_DEVICE_CUDA) ? AMP_DEVICE_CUDA : AMP_DEVICE_HOST;
  const char *jsonPath = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--device") && i + 1 < argc) {
      std::string name = argv[++i];
      if (name != "host" && name != "cuda") {
        std::fprintf(stderr, "amp-runtime-bench: unknown device '%s'\n",
                     name.c_str());
        return 1;
      }
      kind = name == "cuda" ? AMP_DEVICE_CUDA : AMP_DEVICE_HOST;
    } else if (!std::strcmp(argv[i], "--json") && i + 1 < argc) {
      jsonPath = argv[++i];
    } else {
      std::fprintf(stderr, "usage: amp-runtime-bench [--device host|cuda] "
                           "[--json FILE]\n");
      return 1;
    }
  }
  Bench bench(kind);
  const bool gpu = bench.onGpu();
  const int reps = gpu ? 20 : 2;
  std::vector<Result> results;

  // Ceiling of the memory-bound kernels.
  double copy = copyBandwidth(bench, gpu ? (512u << 20) : (64u << 20), reps);
  results.push_back({"device-to-device copy", "GB/s", copy / 1e9, copy / 1e9});

  // GEMMs at transformer sizes: tokens x 4d x d and back, and a square one.
  struct Shape {
    int64_t m, n, k;
  };
  std::vector<Shape> shapes =
      gpu ? std::vector<Shape>{{8192, 8192, 8192},
                               {16384, 3072, 768},
                               {16384, 768, 3072}}
          : std::vector<Shape>{{256, 256, 256}, {512, 384, 96}};
  std::vector<Result> gemms;
  for (amp_dtype_t dtype : {AMP_F16, AMP_BF16, AMP_F32})
    for (const Shape &shape : shapes) {
      size_t e = dtypeBytes(dtype);
      void *a = bench.allocate(shape.m * shape.k * e);
      void *b = bench.allocate(shape.k * shape.n * e);
      void *c = bench.allocate(shape.m * shape.n * e);
      amp_gemm_t g{dtype,   dtype, 0,    0,    shape.m,          shape.n,
                   shape.k, 1,     1.0f, 0.0f, AMP_EPILOGUE_NONE};
      double seconds = bench.time(
          reps, [&] { CHECK(amp_gemm(bench.stream, &g, a, b, nullptr, c)); });
      char name[96];
      std::snprintf(name, sizeof name, "gemm %s %lldx%lldx%lld",
                    dtypeName(dtype), static_cast<long long>(shape.m),
                    static_cast<long long>(shape.n),
                    static_cast<long long>(shape.k));
      gemms.push_back({name, "TFLOP/s",
                       2.0 * shape.m * shape.n * shape.k / seconds / 1e12, 0});
    }
  double peak = 0;
  for (const Result &r : gemms)
    peak = std::max(peak, r.value);
  for (Result &r : gemms) {
    r.ceiling = peak;
    results.push_back(r);
  }

  // Row kernels on [rows, cols] f16 activations; bytes moved per call.
  const int64_t rows = gpu ? 16384 : 512, cols = gpu ? 4096 : 1024;
  amp_rows_t shape{AMP_F16, rows, cols};
  size_t activation = rows * cols * 2;
  void *x = bench.allocate(activation), *y = bench.allocate(activation);
  float *weight = static_cast<float *>(bench.allocate(cols * 4));
  auto bandwidth = [&](const char *name, double bytes,
                       const std::function<void()> &body) {
    double seconds = bench.time(reps, body);
    results.push_back({name, "GB/s", bytes / seconds / 1e9, copy / 1e9});
  };
  bandwidth("softmax forward f16", 2.0 * activation,
            [&] { CHECK(amp_softmax_forward(bench.stream, shape, x, y, 0)); });
  bandwidth("layer_norm forward f16", 2.0 * activation, [&] {
    CHECK(amp_layer_norm_forward(bench.stream, shape, x, weight, weight, 1e-5f,
                                 y, nullptr, nullptr));
  });
  bandwidth("rms_norm forward f16", 2.0 * activation, [&] {
    CHECK(amp_rms_norm_forward(bench.stream, shape, x, weight, 1e-6f, y,
                               nullptr));
  });
  auto *labels = static_cast<int64_t *>(bench.allocate(rows * 8));
  bandwidth("cross_entropy loss+grad f16", 2.0 * activation, [&] {
    CHECK(amp_cross_entropy(bench.stream, shape, x, labels, nullptr, y, nullptr,
                            AMP_LOSS_MEAN));
  });

  // Multi-tensor kernels over many parameter tensors.
  const size_t tensors = gpu ? 96 : 16, each = gpu ? (1u << 20) : (1u << 16);
  std::vector<float *> params, grads, m, v;
  std::vector<void *> copies;
  std::vector<size_t> sizes(tensors, each);
  for (size_t t = 0; t < tensors; ++t) {
    params.push_back(static_cast<float *>(bench.allocate(each * 4)));
    grads.push_back(static_cast<float *>(bench.allocate(each * 4)));
    m.push_back(static_cast<float *>(bench.allocate(each * 4)));
    v.push_back(static_cast<float *>(bench.allocate(each * 4)));
    copies.push_back(bench.allocate(each * 2));
  }
  float *scalars = static_cast<float *>(bench.allocate(16));
  float *invScale = scalars, *foundInf = scalars + 1, *step = scalars + 2;
  double elements = static_cast<double>(tensors * each);
  bandwidth("multi-tensor unscale", 8 * elements, [&] {
    CHECK(amp_unscale(bench.stream, {tensors, grads.data(), sizes.data()},
                      invScale, foundInf));
  });
  amp_adamw_config_t adamw{1e-3, 0.9, 0.999, 1e-8, 0.01, /*coupled_decay=*/0};
  // Reads param, grad, m, v; writes param, m, v and the f16 copy.
  bandwidth("fused AdamW + f16 copy", 30 * elements, [&] {
    CHECK(amp_adamw_update(
        bench.stream, &adamw, {tensors, params.data(), sizes.data()},
        {tensors, grads.data(), sizes.data()},
        {tensors, m.data(), sizes.data()}, {tensors, v.data(), sizes.data()},
        step, foundInf, {AMP_F16, copies.data()}));
  });

  // Attention, causal, GPT-2-small heads.
  amp_attention_t attention{
      AMP_F16, gpu ? 48 : 2, gpu ? 1024 : 128, gpu ? 1024 : 128, 64, 0.125f, 1};
  size_t qkv = attention.batch * attention.seq_q * attention.head_dim * 2;
  void *q = bench.allocate(qkv), *k = bench.allocate(qkv),
       *vv = bench.allocate(qkv), *out = bench.allocate(qkv);
  double seconds = bench.time(reps, [&] {
    CHECK(amp_attention_forward(bench.stream, &attention, q, k, vv, out,
                                nullptr));
  });
  // Causal: half the 4 * T^2 * d FLOPs of both products.
  double flops = 2.0 * attention.batch * attention.seq_q * attention.seq_k *
                 attention.head_dim;
  results.push_back({"attention forward f16 causal", "TFLOP/s",
                     flops / seconds / 1e12, peak});

  std::printf("amp runtime kernels on %s\n", gpu ? "cuda:0" : "host");
  std::printf("%-36s %12s %10s %8s\n", "kernel", "value", "unit", "of ceil");
  for (const Result &r : results)
    std::printf("%-36s %12.4g %10s %7.1f%%\n", r.name.c_str(), r.value,
                r.unit.c_str(), 100 * r.value / r.ceiling);

  if (jsonPath) {
    std::string json = "{\"device\": \"";
    json += gpu ? "cuda" : "host";
    json += "\", \"results\": [";
    for (size_t i = 0; i < results.size(); ++i) {
      char line[256];
      std::snprintf(line, sizeof line,
                    "%s\n  {\"name\": \"%s\", \"value\": %.6g, \"unit\": "
                    "\"%s\", \"ceiling\": %.6g}",
                    i ? "," : "", results[i].name.c_str(), results[i].value,
                    results[i].unit.c_str(), results[i].ceiling);
      json += line;
    }
    json += "\n]}\n";
    // Written to a temporary file and renamed, so a reader never sees half.
    std::string temporary = std::string(jsonPath) + ".tmp";
    FILE *file = std::fopen(temporary.c_str(), "w");
    if (!file || std::fputs(json.c_str(), file) < 0 || std::fclose(file) ||
        std::rename(temporary.c_str(), jsonPath)) {
      std::fprintf(stderr, "amp-runtime-bench: cannot write %s\n", jsonPath);
      return 1;
    }
  }
  return 0;
}
