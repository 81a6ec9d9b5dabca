//===- CommTest.cpp - the communicator's collectives, under mpirun -------===//
//
// Run by test/Runtime/comm.test on 2 and 4 ranks (mpirun --oversubscribe
// on this machine). Each rank checks its own results against what it
// computes here from every rank's inputs, which it knows (they are a
// function of the rank), and the ranks' results against each other, bit
// for bit.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/comm.h"
#include "amp_runtime/float_formats.h"
#include "amp_runtime/runtime.h"
#include "amp_runtime/step.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

int worldRank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}
int worldSize() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

class CommTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(amp_device_create(AMP_DEVICE_HOST, 0, &device), nullptr);
    ASSERT_EQ(amp_stream_create(device, &stream), nullptr);
    MPI_Comm world = MPI_COMM_WORLD;
    ASSERT_EQ(amp_comm_create_mpi(&world, 30.0, &comm), nullptr);
  }
  void TearDown() override {
    amp_comm_destroy(comm);
    amp_stream_destroy(stream);
    amp_device_destroy(device);
  }

  /// Every rank's `bytes` at `data`, rank by rank (the test's own MPI).
  static std::vector<char> everyRanks(const void *data, size_t bytes) {
    std::vector<char> all(bytes * worldSize());
    MPI_Allgather(data, static_cast<int>(bytes), MPI_BYTE, all.data(),
                  static_cast<int>(bytes), MPI_BYTE, MPI_COMM_WORLD);
    return all;
  }
  /// Whether every rank holds the same `bytes` at `data`.
  static bool sameOnEveryRank(const void *data, size_t bytes) {
    std::vector<char> all = everyRanks(data, bytes);
    for (int r = 1; r < worldSize(); ++r)
      if (std::memcmp(all.data(), all.data() + r * bytes, bytes) != 0)
        return false;
    return true;
  }

  amp_device_t *device = nullptr;
  amp_stream_t *stream = nullptr;
  amp_comm_t *comm = nullptr;
};

/// Rank r's i-th value: large and small magnitudes mixed, so that the
/// order of the sum shows in its rounding.
float valueOf(int rank, int64_t i) {
  return (rank % 2 ? -1.0f : 1.0f) * std::ldexp(1.0f + 0.125f * i, 3 * rank) +
         0.1f * static_cast<float>(i + rank);
}

TEST_F(CommTest, KnowsItsRanks) {
  EXPECT_EQ(amp_comm_available(), 1);
  EXPECT_EQ(amp_comm_rank(comm), worldRank());
  EXPECT_EQ(amp_comm_size(comm), worldSize());
}

TEST_F(CommTest, SumsInRankOrderToTheSameBitsEverywhere) {
  const int64_t count = 1000;
  std::vector<float> data(count);
  for (int64_t i = 0; i < count; ++i)
    data[i] = valueOf(worldRank(), i);
  ASSERT_EQ(amp_comm_all_reduce(comm, stream, data.data(), count, AMP_F32,
                                AMP_REDUCE_SUM),
            nullptr);
  for (int64_t i = 0; i < count; ++i) {
    float expected = valueOf(0, i);
    for (int r = 1; r < worldSize(); ++r)
      expected = expected + valueOf(r, i);
    ASSERT_EQ(amprt::floatToBits(data[i]), amprt::floatToBits(expected))
        << "value " << i;
  }
  EXPECT_TRUE(sameOnEveryRank(data.data(), count * sizeof(float)));
}

TEST_F(CommTest, SumsLowPrecisionInF32RoundedOnce) {
  for (amp_dtype_t dtype : {AMP_F16, AMP_BF16}) {
    SCOPED_TRACE(dtype == AMP_F16 ? "f16" : "bf16");
    auto bitsOf = [&](float v) {
      return dtype == AMP_F16 ? amprt::floatToHalfBits(v)
                              : amprt::floatToBFloat16Bits(v);
    };
    auto valueOfBits = [&](uint16_t b) {
      return dtype == AMP_F16 ? amprt::halfBitsToFloat(b)
                              : amprt::bfloat16BitsToFloat(b);
    };
    // Rank r holds 1 + r/1024 and a small 2^-12: summed in the low type
    // one rank at a time, the small ones would be lost.
    const int64_t count = 3;
    std::vector<uint16_t> data;
    for (int64_t i = 0; i < count; ++i)
      data.push_back(
          bitsOf(i == 0 ? 0x1p-12f : 1.0f + worldRank() / 1024.0f * i));
    ASSERT_EQ(amp_comm_all_reduce(comm, stream, data.data(), count, dtype,
                                  AMP_REDUCE_SUM),
              nullptr);
    for (int64_t i = 0; i < count; ++i) {
      float sum = 0.0f;
      for (int r = 0; r < worldSize(); ++r) {
        float v =
            valueOfBits(bitsOf(i == 0 ? 0x1p-12f : 1.0f + r / 1024.0f * i));
        sum = r == 0 ? v : sum + v;
      }
      EXPECT_EQ(data[i], bitsOf(sum)) << "value " << i;
    }
    EXPECT_TRUE(sameOnEveryRank(data.data(), count * sizeof(uint16_t)));
  }
}

TEST_F(CommTest, MaxOfAFlagAndANaN) {
  // found_inf as a step reduces it: 1 on one rank only is 1 everywhere; a
  // NaN on one rank is NaN everywhere.
  std::vector<float> data = {worldRank() == worldSize() - 1 ? 1.0f : 0.0f,
                             worldRank() == 0 ? NAN : 1.0f,
                             static_cast<float>(-worldRank())};
  ASSERT_EQ(amp_comm_all_reduce(comm, stream, data.data(), 3, AMP_F32,
                                AMP_REDUCE_MAX),
            nullptr);
  EXPECT_EQ(data[0], 1.0f);
  EXPECT_TRUE(std::isnan(data[1]));
  EXPECT_EQ(data[2], 0.0f);
}

TEST_F(CommTest, RanksThatDisagreeAreToldHow) {
  // Rank 0 reduces 4 values, the others 5: every rank gets the error.
  std::vector<float> data(5, 1.0f);
  int64_t count = worldRank() == 0 ? 4 : 5;
  amp_status_t status = amp_comm_all_reduce(comm, stream, data.data(), count,
                                            AMP_F32, AMP_REDUCE_SUM);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
  EXPECT_NE(std::string(amp_status_message(status)).find("f32 values by sum"),
            std::string::npos)
      << amp_status_message(status);
  amp_status_free(status);
  // The communicator still works.
  EXPECT_EQ(amp_comm_all_reduce(comm, stream, data.data(), 5, AMP_F32,
                                AMP_REDUCE_SUM),
            nullptr);
  EXPECT_EQ(data[0], static_cast<float>(worldSize()));
}

TEST_F(CommTest, RefusesBadArguments) {
  float value = 1.0f;
  auto code = [](amp_status_t status) {
    amp_status_code_t c = amp_status_code(status);
    amp_status_free(status);
    return c;
  };
  EXPECT_EQ(code(amp_comm_all_reduce(nullptr, stream, &value, 1, AMP_F32,
                                     AMP_REDUCE_SUM)),
            AMP_INVALID_ARGUMENT);
  EXPECT_EQ(code(amp_comm_all_reduce(comm, stream, nullptr, 1, AMP_F32,
                                     AMP_REDUCE_SUM)),
            AMP_INVALID_ARGUMENT);
  EXPECT_EQ(code(amp_comm_all_reduce(comm, stream, &value, -1, AMP_F32,
                                     AMP_REDUCE_SUM)),
            AMP_INVALID_ARGUMENT);
  EXPECT_EQ(
      code(amp_comm_all_reduce(comm, stream, &value, 1,
                               static_cast<amp_dtype_t>(9), AMP_REDUCE_SUM)),
      AMP_INVALID_ARGUMENT);
  EXPECT_EQ(code(amp_comm_all_reduce(comm, stream, &value, 1, AMP_F32,
                                     static_cast<amp_reduce_op_t>(7))),
            AMP_INVALID_ARGUMENT);
  MPI_Comm world = MPI_COMM_WORLD;
  amp_comm_t *other = nullptr;
  EXPECT_EQ(code(amp_comm_create_mpi(&world, 0.0, &other)),
            AMP_INVALID_ARGUMENT);
  EXPECT_EQ(other, nullptr);
  EXPECT_EQ(code(amp_comm_create_mpi(nullptr, 1.0, &other)),
            AMP_INVALID_ARGUMENT);
  // Nothing is left half done: the next collective works.
  EXPECT_EQ(
      amp_comm_all_reduce(comm, stream, &value, 1, AMP_F32, AMP_REDUCE_SUM),
      nullptr);
  EXPECT_EQ(value, static_cast<float>(worldSize()));
}

TEST_F(CommTest, ReplicasHookReducesABucketAsOne) {
  // Two tensors of a bucket, one of them empty-sized in between: the sum
  // of each element in rank order, as amp_comm_all_reduce gives it.
  std::vector<float> a(5), b(300);
  for (int64_t i = 0; i < 5; ++i)
    a[i] = valueOf(worldRank(), i);
  for (int64_t i = 0; i < 300; ++i)
    b[i] = valueOf(worldRank(), 5 + i);
  float *const data[] = {a.data(), nullptr, b.data()};
  const size_t sizes[] = {5, 0, 300};
  amp_replicas_t replicas;
  ASSERT_EQ(amp_comm_replicas(comm, &replicas), nullptr);
  EXPECT_EQ(replicas.rank, worldRank());
  EXPECT_EQ(replicas.count, worldSize());
  ASSERT_EQ(replicas.all_reduce(replicas.context, stream,
                                amp_tensor_list_t{3, data, sizes},
                                AMP_REDUCE_SUM),
            nullptr);
  auto expected = [](int64_t i) {
    float sum = valueOf(0, i);
    for (int r = 1; r < worldSize(); ++r)
      sum = sum + valueOf(r, i);
    return sum;
  };
  for (int64_t i = 0; i < 5; ++i)
    EXPECT_EQ(a[i], expected(i)) << i;
  for (int64_t i = 0; i < 300; ++i)
    EXPECT_EQ(b[i], expected(5 + i)) << i;
}

TEST_F(CommTest, ReductionsStartedTogetherFinishInOrder) {
  // Three buckets under way at once (a step's overlap): the values are
  // the rank's own until a wait reaches their ticket; a wait for the
  // second finishes the first two, one for the third the rest.
  std::vector<std::vector<float>> buckets{
      std::vector<float>(5), std::vector<float>(300), std::vector<float>(1)};
  int64_t at = 0;
  for (std::vector<float> &bucket : buckets)
    for (float &value : bucket)
      value = valueOf(worldRank(), at++);
  amp_replicas_t replicas;
  ASSERT_EQ(amp_comm_replicas(comm, &replicas), nullptr);
  ASSERT_NE(replicas.all_reduce_start, nullptr);
  ASSERT_NE(replicas.all_reduce_wait, nullptr);
  std::vector<int64_t> tickets;
  for (std::vector<float> &bucket : buckets) {
    float *const data[] = {bucket.data()};
    const size_t sizes[] = {bucket.size()};
    int64_t ticket = 0;
    ASSERT_EQ(replicas.all_reduce_start(replicas.context, stream,
                                        amp_tensor_list_t{1, data, sizes},
                                        AMP_REDUCE_SUM, &ticket),
              nullptr);
    tickets.push_back(ticket);
  }
  EXPECT_GT(tickets[0], 0);
  EXPECT_EQ(tickets[1], tickets[0] + 1);
  EXPECT_EQ(tickets[2], tickets[1] + 1);
  auto expected = [](int64_t i) {
    float sum = valueOf(0, i);
    for (int r = 1; r < worldSize(); ++r)
      sum = sum + valueOf(r, i);
    return sum;
  };
  // Over MPI a started reduction has only sent this rank's slices: the
  // values in place are still the rank's own.
  EXPECT_EQ(buckets[2][0], valueOf(worldRank(), 305));
  ASSERT_EQ(replicas.all_reduce_wait(replicas.context, stream, tickets[1]),
            nullptr);
  at = 0;
  for (int b = 0; b < 2; ++b)
    for (float value : buckets[b])
      EXPECT_EQ(value, expected(at++)) << "bucket " << b;
  EXPECT_EQ(buckets[2][0], valueOf(worldRank(), 305));
  ASSERT_EQ(replicas.all_reduce_wait(replicas.context, stream, INT64_MAX),
            nullptr);
  EXPECT_EQ(buckets[2][0], expected(305));
  // Nothing left: a wait for any ticket returns at once.
  EXPECT_EQ(replicas.all_reduce_wait(replicas.context, stream, INT64_MAX),
            nullptr);
}

TEST_F(CommTest, ReplicasHookGathersABucketAsOne) {
  // An f16 tensor of 7 elements and an f32 one of 3, as a sharded step's
  // parts: rank r's part holds r * 100 + its index; each whole is the
  // parts in rank order, cut at its size.
  const size_t n = static_cast<size_t>(worldSize());
  const size_t sizes[] = {7, 3};
  const size_t partSizes[] = {(7 + n - 1) / n, (3 + n - 1) / n};
  const size_t bytes[] = {2, 4};
  auto valueAt = [](size_t rank, size_t e) {
    return static_cast<float>(rank * 100 + e);
  };
  std::vector<uint16_t> halfPart(partSizes[0]), halfWhole(7);
  std::vector<float> floatPart(partSizes[1]), floatWhole(3);
  for (size_t e = 0; e < partSizes[0]; ++e)
    halfPart[e] = amprt::floatToHalfBits(valueAt(worldRank(), e));
  for (size_t e = 0; e < partSizes[1]; ++e)
    floatPart[e] = valueAt(worldRank(), e);
  const void *const parts[] = {halfPart.data(), floatPart.data()};
  void *const wholes[] = {halfWhole.data(), floatWhole.data()};
  amp_replicas_t replicas;
  ASSERT_EQ(amp_comm_replicas(comm, &replicas), nullptr);
  ASSERT_NE(replicas.all_gather, nullptr);
  ASSERT_EQ(replicas.all_gather(
                replicas.context, stream,
                amp_gather_list_t{2, parts, wholes, partSizes, sizes, bytes}),
            nullptr);
  for (size_t e = 0; e < 7; ++e)
    EXPECT_EQ(amprt::halfBitsToFloat(halfWhole[e]),
              valueAt(e / partSizes[0], e % partSizes[0]))
        << e;
  for (size_t e = 0; e < 3; ++e)
    EXPECT_EQ(floatWhole[e], valueAt(e / partSizes[1], e % partSizes[1])) << e;
}

TEST_F(CommTest, RanksThatGatherOtherSizesAreToldHow) {
  // Rank 0 gathers parts of 2 f32, the others of 3: every rank gets the
  // error, and the communicator still works.
  std::vector<float> part(3, 1.0f), whole(3 * worldSize());
  const void *const parts[] = {part.data()};
  void *const wholes[] = {whole.data()};
  const size_t partSizes[] = {worldRank() == 0 ? size_t{2} : size_t{3}};
  const size_t sizes[] = {partSizes[0] * worldSize()};
  const size_t bytes[] = {4};
  amp_replicas_t replicas;
  ASSERT_EQ(amp_comm_replicas(comm, &replicas), nullptr);
  amp_status_t status = replicas.all_gather(
      replicas.context, stream,
      amp_gather_list_t{1, parts, wholes, partSizes, sizes, bytes});
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
  EXPECT_NE(std::string(amp_status_message(status)).find(" bytes a rank here"),
            std::string::npos)
      << amp_status_message(status);
  amp_status_free(status);
  float value = 1.0f;
  EXPECT_EQ(
      amp_comm_all_reduce(comm, stream, &value, 1, AMP_F32, AMP_REDUCE_SUM),
      nullptr);
  EXPECT_EQ(value, static_cast<float>(worldSize()));
}

/// A data-parallel step whose parameter the test sets per rank.
amp_status_t stillStep(amp_stream_t *, void *const *, void *, float *loss,
                       float *foundInf, double *counters) {
  *loss = 0;
  *foundInf = 0;
  counters[0] += 1;
  return nullptr;
}

TEST_F(CommTest, StepsJoinOnlyWhenTheyAgree) {
  static const amp_step_tensor_t tensors[] = {
      {"w", AMP_STEP_PARAM, AMP_ELEMENT_F32, 1, {2}, 0, 1}};
  amp_step_description_t d{AMP_STEP_ABI_VERSION,
                           "still",
                           AMP_DEVICE_HOST,
                           1,
                           tensors,
                           -1,
                           0,
                           &stillStep};
  d.data_parallel = 1;
  amp_step_t *step = nullptr;
  ASSERT_EQ(amp_step_create(&d, AMP_DEVICE_HOST, &step), nullptr);
  ASSERT_EQ(amp_step_init(step, 7), nullptr);
  EXPECT_EQ(amp_step_set_comm(step, comm), nullptr);
  EXPECT_EQ(amp_comm_check_state(comm, step), nullptr);
  // The last rank's parameter drifts: every rank learns which.
  if (worldRank() == worldSize() - 1) {
    const float drifted[] = {1, 1.5f};
    ASSERT_EQ(amp_step_write_tensor(step, 0, drifted, sizeof drifted), nullptr);
  }
  amp_status_t status = amp_comm_check_state(comm, step);
  std::string message = amp_status_message(status);
  EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
  amp_status_free(status);
  EXPECT_NE(message.find("rank " + std::to_string(worldSize() - 1) +
                         " holds another state than rank 0"),
            std::string::npos)
      << message;
  status = amp_step_set_comm(step, comm);
  EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
  amp_status_free(status);
  amp_step_destroy(step);
}

TEST_F(CommTest, NcclReducesOnTheGpuOrRefusesClearly) {
  MPI_Comm world = MPI_COMM_WORLD;
  amp_comm_t *nccl = nullptr;
  amp_status_t status = amp_comm_create_nccl(&world, 30.0, &nccl);
  std::string message = amp_status_message(status);
  amp_status_code_t code = amp_status_code(status);
  amp_status_free(status);
  if (!amp_comm_nccl_available() || !amp_device_available(AMP_DEVICE_CUDA)) {
    // Without NCCL in the build, or without a GPU: every rank refuses, none
    // waits for another.
    EXPECT_EQ(code, AMP_UNAVAILABLE) << message;
    EXPECT_NE(message.find(amp_comm_nccl_available()
                               ? "rank 0 has no CUDA device; NCCL needs a GPU "
                                 "on every rank"
                               : "no NCCL"),
              std::string::npos)
        << message;
    EXPECT_EQ(nccl, nullptr);
    return;
  }
  ASSERT_EQ(code, AMP_OK) << message;
  // On a GPU: a bucket of two tensors through the replicas' hook, summed
  // by NCCL on the stream (in NCCL's order: checked within rounding, and
  // the same bits on every rank).
  amp_device_t *gpu = nullptr;
  amp_stream_t *gpuStream = nullptr;
  ASSERT_EQ(amp_device_create(AMP_DEVICE_CUDA, 0, &gpu), nullptr);
  ASSERT_EQ(amp_stream_create(gpu, &gpuStream), nullptr);
  const int64_t sizes[] = {3, 1000};
  amp_buffer_t *buffers[2] = {};
  std::vector<std::vector<float>> host(2);
  for (int t = 0; t < 2; ++t) {
    host[t].resize(sizes[t]);
    for (int64_t i = 0; i < sizes[t]; ++i)
      host[t][i] = valueOf(worldRank(), i + 3 * t);
    ASSERT_EQ(amp_buffer_allocate(gpu, sizes[t] * 4, &buffers[t]), nullptr);
    ASSERT_EQ(amp_buffer_write(buffers[t], 0, host[t].data(), sizes[t] * 4,
                               gpuStream),
              nullptr);
  }
  float *const data[] = {static_cast<float *>(amp_buffer_data(buffers[0])),
                         static_cast<float *>(amp_buffer_data(buffers[1]))};
  const size_t counts[] = {3, 1000};
  amp_replicas_t replicas;
  ASSERT_EQ(amp_comm_replicas(nccl, &replicas), nullptr);
  ASSERT_EQ(replicas.all_reduce(replicas.context, gpuStream,
                                amp_tensor_list_t{2, data, counts},
                                AMP_REDUCE_SUM),
            nullptr);
  for (int t = 0; t < 2; ++t) {
    ASSERT_EQ(
        amp_buffer_read(buffers[t], 0, host[t].data(), sizes[t] * 4, gpuStream),
        nullptr);
    ASSERT_EQ(amp_stream_synchronize(gpuStream), nullptr);
    for (int64_t i = 0; i < sizes[t]; ++i) {
      double exact = 0, magnitude = 0;
      for (int r = 0; r < worldSize(); ++r) {
        exact += valueOf(r, i + 3 * t);
        magnitude += std::fabs(valueOf(r, i + 3 * t));
      }
      EXPECT_NEAR(host[t][i], exact, worldSize() * 6e-8 * magnitude) << i;
    }
    EXPECT_TRUE(sameOnEveryRank(host[t].data(), sizes[t] * 4));
    amp_buffer_release(buffers[t]);
  }
  amp_comm_destroy(nccl);
  amp_stream_destroy(gpuStream);
  amp_device_destroy(gpu);
}

TEST_F(CommTest, ARankThatDoesNotComeTimesOut) {
  // Rank 0 reduces with a 0.3 s timeout; rank 1 comes after 1.5 s (with
  // nothing to reduce, which completes rank 0's pending collective and
  // tells rank 1 they disagree). The others take no part.
  if (worldSize() < 2)
    GTEST_SKIP() << "needs 2 ranks";
  MPI_Comm pair;
  MPI_Comm_split(MPI_COMM_WORLD, worldRank() < 2 ? 0 : MPI_UNDEFINED,
                 worldRank(), &pair);
  if (pair == MPI_COMM_NULL)
    return;
  amp_comm_t *slow = nullptr;
  ASSERT_EQ(amp_comm_create_mpi(&pair, 0.3, &slow), nullptr);
  std::vector<float> data(4, 1.0f);
  if (worldRank() == 0) {
    auto start = std::chrono::steady_clock::now();
    amp_status_t status = amp_comm_all_reduce(slow, stream, data.data(), 4,
                                              AMP_F32, AMP_REDUCE_SUM);
    double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    ASSERT_NE(status, nullptr);
    EXPECT_EQ(amp_status_code(status), AMP_DEADLINE_EXCEEDED);
    EXPECT_NE(std::string(amp_status_message(status)).find("within 0.3 s"),
              std::string::npos)
        << amp_status_message(status);
    amp_status_free(status);
    EXPECT_LT(waited, 1.2);
    // Broken now: it refuses further work at once.
    status = amp_comm_all_reduce(slow, stream, data.data(), 4, AMP_F32,
                                 AMP_REDUCE_SUM);
    EXPECT_EQ(amp_status_code(status), AMP_UNAVAILABLE);
    amp_status_free(status);
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    amp_status_t status = amp_comm_all_reduce(slow, stream, data.data(), 0,
                                              AMP_F32, AMP_REDUCE_SUM);
    EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
    amp_status_free(status);
  }
  // Once rank 1 has joined rank 0's late collective, it completes: both
  // free their communicators.
  MPI_Barrier(pair);
  amp_comm_destroy(slow);
  MPI_Comm_free(&pair);
}

TEST_F(CommTest, KilledRank) {
  // Only when asked (comm.test runs it on its own): rank 1 dies before the
  // collective, and the job must end with an error, not hang.
  if (!std::getenv("AMP_COMM_TEST_KILL"))
    GTEST_SKIP() << "set AMP_COMM_TEST_KILL to run it";
  std::vector<float> data(4, 1.0f);
  if (worldRank() == 1)
    std::raise(SIGKILL);
  amp_status_t status = amp_comm_all_reduce(comm, stream, data.data(), 4,
                                            AMP_F32, AMP_REDUCE_SUM);
  EXPECT_NE(status, nullptr);
  if (status)
    std::fprintf(stderr, "rank %d: %s\n", worldRank(),
                 amp_status_message(status));
  amp_status_free(status);
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  // Only rank 0 prints GoogleTest's report; every rank's failures count.
  if (worldRank() != 0) {
    ::testing::TestEventListeners &listeners =
        ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int failed = RUN_ALL_TESTS();
  int anyFailed = 0;
  MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return anyFailed;
}
