//===- ThreadPoolTest.cpp - amp_host_parallel_for -------------------------===//
//
// Every index runs once whatever the split; calls inside a body and calls
// in a forked child work; a malformed AMP_NUM_THREADS is an error. The
// fork cases run in children, since the pool reads AMP_NUM_THREADS once
// per process.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

/// Counts, per index, the times a body ran it.
struct Visits {
  std::vector<std::atomic<int>> counts;
  std::atomic<int> ranges{0};
  explicit Visits(size_t n) : counts(n) {}
  static void body(void *context, int64_t begin, int64_t end) {
    auto *self = static_cast<Visits *>(context);
    ++self->ranges;
    for (int64_t i = begin; i < end; ++i)
      ++self->counts[i];
  }
  bool eachOnce() const {
    for (const std::atomic<int> &count : counts)
      if (count != 1)
        return false;
    return true;
  }
};

TEST(ThreadPoolTest, EveryIndexRunsOnce) {
  ASSERT_GE(amp_host_thread_count(), 1);
  for (int64_t count : {0, 1, 7, 1000, 100003})
    for (int64_t grain : {1, 64, 1000000}) {
      Visits visits(count);
      ASSERT_EQ(amp_host_parallel_for(count, grain, Visits::body, &visits),
                nullptr);
      EXPECT_TRUE(visits.eachOnce()) << count << " by " << grain;
      // At most four ranges per thread, and no more than grains.
      EXPECT_LE(visits.ranges, 4 * amp_host_thread_count());
      EXPECT_LE(visits.ranges, std::max<int64_t>(1, count / grain));
      if (grain > count) {
        EXPECT_LE(visits.ranges, 1);
      }
    }
}

TEST(ThreadPoolTest, ACallInsideABodyRunsOnItsThread) {
  struct Nested {
    Visits inner{64 * 8};
    static void body(void *context, int64_t begin, int64_t end) {
      auto *self = static_cast<Nested *>(context);
      for (int64_t i = begin; i < end; ++i) {
        struct Slice {
          Visits *visits;
          int64_t offset;
        } slice{&self->inner, i * 64};
        amp_status_t status = amp_host_parallel_for(
            64, 1,
            [](void *c, int64_t b, int64_t e) {
              auto *s = static_cast<Slice *>(c);
              Visits::body(s->visits, s->offset + b, s->offset + e);
            },
            &slice);
        if (status)
          std::abort();
      }
    }
  } nested;
  ASSERT_EQ(amp_host_parallel_for(8, 1, Nested::body, &nested), nullptr);
  EXPECT_TRUE(nested.inner.eachOnce());
}

TEST(ThreadPoolTest, BadArgumentsAreRejected) {
  amp_status_t status = amp_host_parallel_for(4, 1, nullptr, nullptr);
  EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
  amp_status_free(status);
  Visits visits(1);
  status = amp_host_parallel_for(-1, 1, Visits::body, &visits);
  EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
  amp_status_free(status);
}

/// The exit code of `child` run in a forked process.
template <typename Child> int inChild(Child child) {
  pid_t pid = fork();
  if (pid == 0)
    _exit(child());
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
    return -1;
  return WEXITSTATUS(status);
}

TEST(ThreadPoolTest, AForkedChildMakesItsOwnPool) {
  // The parent's pool exists and has run work before the fork.
  Visits before(10000);
  ASSERT_EQ(amp_host_parallel_for(10000, 1, Visits::body, &before), nullptr);
  EXPECT_EQ(inChild([] {
              setenv("AMP_NUM_THREADS", "3", 1);
              Visits visits(10000);
              if (amp_host_parallel_for(10000, 1, Visits::body, &visits))
                return 1;
              if (amp_host_thread_count() != 3)
                return 2;
              return visits.eachOnce() && visits.ranges > 1 &&
                             visits.ranges <= 12
                         ? 0
                         : 3;
            }),
            0);
  // And the parent's pool still works.
  Visits after(10000);
  ASSERT_EQ(amp_host_parallel_for(10000, 1, Visits::body, &after), nullptr);
  EXPECT_TRUE(after.eachOnce());
}

TEST(ThreadPoolTest, AMalformedThreadCountIsAnError) {
  for (const char *setting : {"0", "257", "two", "4x"})
    EXPECT_EQ(inChild([setting] {
                setenv("AMP_NUM_THREADS", setting, 1);
                Visits visits(4);
                amp_status_t status =
                    amp_host_parallel_for(4, 1, Visits::body, &visits);
                bool named =
                    status && std::string(amp_status_message(status))
                                      .find(std::string("AMP_NUM_THREADS='") +
                                            setting + "'") != std::string::npos;
                return amp_status_code(status) == AMP_INVALID_ARGUMENT &&
                               named && amp_host_thread_count() == 1
                           ? 0
                           : 1;
              }),
              0)
        << setting;
}

} // namespace
