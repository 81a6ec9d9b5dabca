//===- thread_pool.cpp - the host's worker threads ------------------------===//
//
// A call cuts [0, count) into up to kRangesPerThread ranges per thread,
// fixed by the count, the grain and the thread count; the caller and the
// workers it wakes take ranges one at a time until none is left, so a
// thread slowed by other work on its core takes fewer. Which thread runs
// a range does not matter: ranges write disjoint outputs.
//
//===----------------------------------------------------------------------===//

#include "thread_pool.h"

#include "status.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <sched.h>
#include <string>
#include <system_error>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {
constexpr int kMaxThreads = 256;
constexpr int64_t kRangesPerThread = 4;

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
  /// A pool of `wanted` threads, the caller's included, or of as many as
  /// the system lets this process start.
  explicit ThreadPool(int wanted) {
    for (int index = 1; index < wanted; ++index) {
      try {
        workers.emplace_back([this] { work(); });
      } catch (const std::system_error &) {
        break; // out of threads: run on those there are
      }
    }
    threads = static_cast<int>(workers.size()) + 1;
  }
  // The pool lives as long as the process: workers wait on it until exit.
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  int size() const { return threads; }

  /// Runs `parts` ranges of [0, count), or all of it on this thread when
  /// there is no other thread or the pool is taken.
  void run(int64_t count, int parts, amp_range_body_t body, void *context) {
    std::unique_lock<std::mutex> taken(busy, std::try_to_lock);
    if (parts <= 1 || threads == 1 || insideBody || !taken.owns_lock()) {
      runInline(0, count, body, context);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      job = {count, parts, body, context};
      nextRange.store(0, std::memory_order_relaxed);
      pending = threads - 1;
      ++generation;
    }
    wake.notify_all();
    runRanges(job);
    // Every worker must have seen this job before the next one replaces it.
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

  /// Takes the job's ranges one at a time until none is left.
  void runRanges(const Job &job) {
    for (int64_t part; (part = nextRange.fetch_add(1)) < job.parts;) {
      // Equal ranges, the first count % parts of them one longer.
      int64_t size = job.count / job.parts, longer = job.count % job.parts;
      int64_t begin = part * size + std::min(part, longer);
      int64_t end = begin + size + (part < longer ? 1 : 0);
      if (begin < end)
        runInline(begin, end, job.body, job.context);
    }
  }

  void work() {
    uint64_t seen = 0;
    for (;;) {
      Job current;
      {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait(lock, [&] { return generation != seen; });
        seen = generation;
        current = job;
      }
      runRanges(current);
      std::lock_guard<std::mutex> lock(mutex);
      if (--pending == 0)
        done.notify_one();
    }
  }

  std::mutex busy; // held by the call whose job the workers run
  std::mutex mutex;
  std::condition_variable wake, done;
  Job job;
  std::atomic<int64_t> nextRange{0};
  uint64_t generation = 0;
  int pending = 0;
  int threads = 1;
  std::vector<std::thread> workers; // last: they start on a whole pool
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
  parts = std::max<int64_t>(
      1, std::min<int64_t>(parts, kRangesPerThread * threads->size()));
  threads->run(count, static_cast<int>(parts), body, context);
  return nullptr;
}

extern "C" int amp_host_thread_count(void) {
  ThreadPool *threads = processPool();
  return threads ? threads->size() : 1;
}
