//===- kernel_times.cpp - per-kernel GPU times without a profiler ---------===//
//
// A library to preload into any CUDA program (amp-step, say) on a machine
// that has CUPTI but no Nsight Systems: it records every kernel the program
// runs with CUPTI's activity API and, as the program exits, writes to
// $AMP_KERNEL_TIMES the summary `nsys stats --report cuda_gpu_kern_sum
// --format csv` writes ("Time (%)","Total Time (ns)","Instances","Avg
// (ns)","Name", the costliest first, names demangled), which
// `scripts/gpu_check.py cost --kernels=FILE` reads. scripts/gpu_check.py's
// run.sh builds and uses it where nsys is absent:
//
//   c++ -std=c++17 -O2 -shared -fPIC kernel_times.cpp
//       -o libkernel_times.so -I$CUDA/include -L$CUDA/lib64 -lcupti
//   AMP_KERNEL_TIMES=kernels.csv LD_PRELOAD=./libkernel_times.so amp-step ...
//
// Where CUPTI cannot start (no GPU, no driver) it says so on stderr and
// writes nothing; the program runs as without it.
//
//===----------------------------------------------------------------------===//

#include <cupti.h>
#include <cxxabi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace {

struct Total {
  uint64_t nanoseconds = 0;
  uint64_t instances = 0;
};

std::mutex mutex;
std::map<std::string, Total> totals;
bool started = false;

std::string demangled(const char *name) {
  int status = 0;
  char *plain = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string result = status == 0 && plain ? plain : name;
  std::free(plain);
  return result;
}

constexpr size_t kBufferBytes = size_t(8) << 20;

void CUPTIAPI giveBuffer(uint8_t **buffer, size_t *size, size_t *records) {
  *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *records = 0; // as many as fit
}

void CUPTIAPI takeBuffer(CUcontext, uint32_t, uint8_t *buffer, size_t,
                         size_t used) {
  std::lock_guard<std::mutex> lock(mutex);
  CUpti_Activity *record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, used, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
      continue;
    const auto *kernel =
        reinterpret_cast<const CUpti_ActivityKernel10 *>(record);
    Total &total = totals[demangled(kernel->name)];
    total.nanoseconds += kernel->end - kernel->start;
    total.instances += 1;
  }
  std::free(buffer);
}

/// Writes the summary, the costliest kernel first.
void writeSummary(const char *path) {
  std::vector<std::pair<std::string, Total>> rows(totals.begin(), totals.end());
  std::sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
    return a.second.nanoseconds > b.second.nanoseconds;
  });
  uint64_t all = 0;
  for (const auto &row : rows)
    all += row.second.nanoseconds;
  std::FILE *file = std::fopen(path, "w");
  if (!file) {
    std::fprintf(stderr, "kernel_times: cannot write %s\n", path);
    return;
  }
  std::fprintf(file, "\"Time (%%)\",\"Total Time (ns)\",\"Instances\","
                     "\"Avg (ns)\",\"Name\"\n");
  for (const auto &[name, total] : rows) {
    std::string quoted;
    for (char c : name)
      quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    std::fprintf(file, "\"%.1f\",\"%llu\",\"%llu\",\"%.1f\",\"%s\"\n",
                 all ? 100.0 * total.nanoseconds / all : 0.0,
                 static_cast<unsigned long long>(total.nanoseconds),
                 static_cast<unsigned long long>(total.instances),
                 static_cast<double>(total.nanoseconds) / total.instances,
                 quoted.c_str());
  }
  std::fclose(file);
  std::fprintf(stderr, "kernel_times: %zu kernels written to %s\n", rows.size(),
               path);
}

__attribute__((constructor)) void start() {
  if (!std::getenv("AMP_KERNEL_TIMES"))
    return;
  if (cuptiActivityRegisterCallbacks(giveBuffer, takeBuffer) != CUPTI_SUCCESS ||
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) !=
          CUPTI_SUCCESS) {
    std::fprintf(stderr, "kernel_times: CUPTI did not start; no kernel "
                         "times are recorded\n");
    return;
  }
  started = true;
}

__attribute__((destructor)) void finish() {
  const char *path = std::getenv("AMP_KERNEL_TIMES");
  if (!started || !path)
    return;
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(mutex);
  writeSummary(path);
}

} // namespace
