//===- thread_pool.cpp - the host's worker threads ------------------------===//
//
// The caller runs range 0 and wakes the workers, which run ranges 1 to
// parts - 1; ranges are fixed by the thread count alone, so a given count
// always splits the same way.
//
//===----------------------------------------------------------------------===//

#include "thread_pool.h"

#include "status.h"

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <sched.h>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {
constexpr int kMaxThreads = 256;

/// The thread count `text` (AMP_NUM_THREADS) asks for, the cores this process
/// may run on without it, or -1 when it is malformed.
int requestedThreads(const char *text) {
  if (text && *text) {
    char *end = nullptr;
    long value = std::strtol(text, &end, 10);
    if (*end != '\0' || value < 1 || value > kMaxThreads)
      return -1;
    return static_cast<int>(value);
  }
  cpu_set_t cores;
  if (sched_getaffinity(0, sizeof cores, &cores) == 0)
    return std::max(1, std::min(CPU_COUNT(&cores), kMaxThreads));
  return 1;
}

thread_local bool insideBody = false;

class ThreadPool {
public:
  explicit ThreadPool(int threads) : threads(threads) {
    for (int index = 1; index < threads; ++index)
      workers.emplace_back([this, index] { work(index); });
  }
  // The pool lives as long as the process: workers wait on it until exit.
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  int size() const { return threads; }

  /// Runs `parts` ranges of [0, count), or all of it on this thread when
  /// the pool is taken.
  void run(int64_t count, int parts, amp_range_body_t body, void *context) {
    std::unique_lock<std::mutex> taken(busy, std::try_to_lock);
    if (parts <= 1 || insideBody || !taken.owns_lock()) {
      runInline(0, count, body, context);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      job = {count, parts, body, context};
      pending = threads - 1;
      ++generation;
    }
    wake.notify_all();
    runRange(0, job, body, context);
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [this] { return pending == 0; });
  }

private:
  struct Job {
    int64_t count = 0;
    int parts = 0;
    amp_range_body_t body = nullptr;
    void *context = nullptr;
  };

  static void runInline(int64_t begin, int64_t end, amp_range_body_t body,
                        void *context) {
    bool outer = insideBody;
    insideBody = true;
    body(context, begin, end);
    insideBody = outer;
  }

  static void runRange(int part, const Job &job, amp_range_body_t body,
                       void *context) {
    int64_t begin = job.count * part / job.parts;
    int64_t end = job.count * (part + 1) / job.parts;
    if (begin < end)
      runInline(begin, end, body, context);
  }

  void work(int index) {
    uint64_t seen = 0;
    for (;;) {
      Job current;
      {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait(lock, [&] { return generation != seen; });
        seen = generation;
        current = job;
      }
      if (index < current.parts)
        runRange(index, current, current.body, current.context);
      std::lock_guard<std::mutex> lock(mutex);
      if (--pending == 0)
        done.notify_one();
    }
  }

  const int threads;
  std::vector<std::thread> workers;
  std::mutex busy; // held by the call whose job the workers run
  std::mutex mutex;
  std::condition_variable wake, done;
  Job job;
  uint64_t generation = 0;
  int pending = 0;
};

// The pool and the process that made it. A forked child finds another
// process id and makes its own; the parent's pool, whose threads the child
// does not have, is left untouched (and unfreed) there.
std::mutex poolMutex;
ThreadPool *pool = nullptr;
pid_t poolProcess = 0;
std::string poolSetting; // AMP_NUM_THREADS when the pool was made

void lockForFork() { poolMutex.lock(); }
void unlockAfterFork() { poolMutex.unlock(); }

/// The process's pool, or null when AMP_NUM_THREADS is malformed.
ThreadPool *processPool() {
  static const bool registered = [] {
    // A fork while another thread makes the pool must not leave the
    // child's poolMutex locked.
    pthread_atfork(lockForFork, unlockAfterFork, unlockAfterFork);
    return true;
  }();
  (void)registered;
  std::lock_guard<std::mutex> lock(poolMutex);
  if (!pool || poolProcess != getpid()) {
    const char *setting = std::getenv("AMP_NUM_THREADS");
    poolSetting = setting ? setting : "";
    int threads = requestedThreads(setting);
    // The parent's pool stays reachable, so that leak checkers at the
    // child's exit see it as kept, not lost.
    static auto *parents = new std::vector<ThreadPool *>(); // never freed
    if (pool)
      parents->push_back(pool);
    pool = threads < 0 ? nullptr : new ThreadPool(threads);
    poolProcess = getpid();
  }
  return pool;
}
} // namespace

extern "C" amp_status_t amp_host_parallel_for(int64_t count, int64_t grain,
                                              amp_range_body_t body,
                                              void *context) {
  if (!body || count < 0)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "parallel for of %lld indices with%s a body",
                      static_cast<long long>(count), body ? "" : "out");
  ThreadPool *threads = processPool();
  if (!threads)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "AMP_NUM_THREADS='%s' is not a thread count in [1, %d]",
                      poolSetting.c_str(), kMaxThreads);
  if (count == 0)
    return nullptr;
  int64_t parts = count / std::max<int64_t>(grain, 1);
  parts = std::max<int64_t>(1, std::min<int64_t>(parts, threads->size()));
  threads->run(count, static_cast<int>(parts), body, context);
  return nullptr;
}

extern "C" int amp_host_thread_count(void) {
  ThreadPool *threads = processPool();
  return threads ? threads->size() : 1;
}
