//===- ReplicasTest.cpp - the replicas of a data-parallel step ------------===//
//
// amp_replica_count, amp_replica_all_reduce and amp_step_set_replicas with
// hooks written here (a peer whose values the reduction adds), and the
// fingerprints that ranks compare before they train. The MPI transport
// behind amp_step_set_comm is tested under mpirun (test/Runtime).
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/step.h"

#include "TestFiles.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

/// The gradient of w is the batch's x: the step sums it over the replicas
/// where the batch's `update` flag is 1, divides it by their count and
/// takes it from w.
amp_status_t replicaStep(amp_stream_t *stream, void *const *tensors,
                         void *arena, float *loss, float *foundInf,
                         double *counters) {
  auto *w = static_cast<float *>(tensors[0]);
  auto *x = static_cast<const float *>(tensors[1]);
  auto *update = static_cast<const uint8_t *>(tensors[2]);
  auto *grad = static_cast<float *>(arena);
  std::memcpy(grad, x, 3 * sizeof(float));
  float *const data[] = {grad};
  const size_t sizes[] = {3};
  if (amp_status_t status = amp_replica_all_reduce(
          stream, amp_tensor_list_t{1, data, sizes}, AMP_REDUCE_SUM, update))
    return status;
  auto count = static_cast<float>(amp_replica_count(stream));
  for (int i = 0; i < 3; ++i)
    w[i] -= grad[i] / count;
  *loss = w[0];
  *foundInf = 0;
  counters[0] += 1;
  return nullptr;
}

const amp_step_tensor_t kTensors[] = {
    {"w", AMP_STEP_PARAM, AMP_ELEMENT_F32, 1, {3}, 0, 1},
    {"x", AMP_STEP_INPUT, AMP_ELEMENT_F32, 1, {3}, 0, 0},
    {"update", AMP_STEP_INPUT, AMP_ELEMENT_I1, 0, {}, 0, 0},
};

amp_step_description_t replicaDescription() {
  amp_step_description_t d{
      AMP_STEP_ABI_VERSION, "replica",   AMP_DEVICE_HOST, 3, kTensors, -1,
      3 * sizeof(float),    &replicaStep};
  d.data_parallel = 1;
  return d;
}

/// One peer replica, whose gradient is `peer`: the hook adds it.
struct Peer {
  std::vector<float> values;
  int calls = 0;
};

amp_status_t addPeer(void *context, amp_stream_t *, amp_tensor_list_t tensors,
                     amp_reduce_op_t op) {
  auto *peer = static_cast<Peer *>(context);
  ++peer->calls;
  EXPECT_EQ(op, AMP_REDUCE_SUM);
  size_t k = 0;
  for (size_t t = 0; t < tensors.count; ++t)
    for (size_t i = 0; i < tensors.sizes[t]; ++i)
      tensors.data[t][i] += peer->values.at(k++);
  return nullptr;
}

class ReplicasTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(amp_step_create(&description, AMP_DEVICE_HOST, &step), nullptr);
    ASSERT_EQ(amp_step_init(step, 0), nullptr);
  }
  void TearDown() override { amp_step_destroy(step); }

  void run(std::vector<float> x, uint8_t update) {
    static const int64_t shape[] = {3};
    amp_step_input_t inputs[] = {{x.data(), AMP_ELEMENT_F32, 1, shape},
                                 {&update, AMP_ELEMENT_I1, 0, nullptr}};
    ASSERT_EQ(amp_step_run(step, 2, inputs), nullptr);
  }
  std::vector<float> w() {
    std::vector<float> values(3);
    EXPECT_EQ(amp_step_read_tensor(step, 0, values.data(), 12), nullptr);
    return values;
  }

  amp_step_description_t description = replicaDescription();
  amp_step_t *step = nullptr;
};

TEST_F(ReplicasTest, OneProcessIsOneReplica) {
  // w starts at 1: 1 - x / 1.
  run({0.5f, 0.25f, -2}, 1);
  EXPECT_EQ(w(), (std::vector<float>{0.5f, 0.75f, 3}));
}

TEST_F(ReplicasTest, ReducesThroughTheHooksWhenAsked) {
  Peer peer{{1.5f, 0.25f, 2}};
  amp_replicas_t replicas{&peer, 0, 2, addPeer};
  ASSERT_EQ(amp_step_set_replicas(step, &replicas), nullptr);
  // (x + the peer's) / 2: (0.5 + 1.5) / 2 = 1, (0.25 + 0.25) / 2, 0.
  run({0.5f, 0.25f, -2}, 1);
  EXPECT_EQ(peer.calls, 1);
  EXPECT_EQ(w(), (std::vector<float>{0, 0.75f, 1}));
  // `when` 0: no collective; x alone, still divided by the 2 replicas.
  run({1, 1, 1}, 0);
  EXPECT_EQ(peer.calls, 1);
  EXPECT_EQ(w(), (std::vector<float>{-0.5f, 0.25f, 0.5f}));
  // Its collectives are no graph's.
  EXPECT_STATUS(amp_step_capture(step), AMP_UNAVAILABLE,
                "is one of 2 replicas: its collectives are not captured");
  // Back to one process.
  ASSERT_EQ(amp_step_set_replicas(step, nullptr), nullptr);
  run({0.5f, 0.25f, 0.5f}, 1);
  EXPECT_EQ(peer.calls, 1);
  EXPECT_EQ(w(), (std::vector<float>{-1, 0, 0}));
}

TEST_F(ReplicasTest, RefusesBadReplicas) {
  Peer peer;
  amp_replicas_t replicas{&peer, 2, 2, addPeer};
  EXPECT_STATUS(amp_step_set_replicas(step, &replicas), AMP_INVALID_ARGUMENT,
                "need an all-reduce and a rank in [0, count); got rank 2 of 2");
  replicas = {&peer, 0, 2, nullptr};
  EXPECT_STATUS(amp_step_set_replicas(step, &replicas), AMP_INVALID_ARGUMENT,
                "need an all-reduce");
  EXPECT_STATUS(amp_step_set_replicas(nullptr, &replicas), AMP_INVALID_ARGUMENT,
                "step is null");
  // A step that reduces nothing would train each replica on its own.
  amp_step_description_t plain = replicaDescription();
  plain.data_parallel = 0;
  amp_step_t *other = nullptr;
  ASSERT_EQ(amp_step_create(&plain, AMP_DEVICE_HOST, &other), nullptr);
  replicas = {&peer, 0, 2, addPeer};
  EXPECT_STATUS(amp_step_set_replicas(other, &replicas), AMP_INVALID_ARGUMENT,
                "compiled without --data-parallel");
  amp_step_destroy(other);
}

TEST(ReplicaCallsTest, RefuseBadArguments) {
  amp_device_t *device = nullptr;
  amp_stream_t *stream = nullptr;
  ASSERT_EQ(amp_device_create(AMP_DEVICE_HOST, 0, &device), nullptr);
  ASSERT_EQ(amp_stream_create(device, &stream), nullptr);
  EXPECT_EQ(amp_replica_count(stream), 1);
  EXPECT_EQ(amp_replica_count(nullptr), 1);
  float value = 3;
  float *const data[] = {&value};
  const size_t sizes[] = {1};
  EXPECT_EQ(
      amp_replica_all_reduce(stream, {1, data, sizes}, AMP_REDUCE_MAX, nullptr),
      nullptr);
  EXPECT_EQ(value, 3);
  EXPECT_STATUS(amp_replica_all_reduce(stream, {1, data, sizes},
                                       static_cast<amp_reduce_op_t>(7),
                                       nullptr),
                AMP_INVALID_ARGUMENT, "unknown reduction 7");
  EXPECT_STATUS(amp_replica_all_reduce(stream, {1, nullptr, nullptr},
                                       AMP_REDUCE_SUM, nullptr),
                AMP_INVALID_ARGUMENT, "the tensor list is null");
  EXPECT_STATUS(amp_replica_all_reduce(nullptr, {1, data, sizes},
                                       AMP_REDUCE_SUM, nullptr),
                AMP_INVALID_ARGUMENT, "stream is null");
  amp_stream_destroy(stream);
  amp_device_destroy(device);
}

TEST(FingerprintTest, TellsStepsAndStatesApart) {
  amp_step_description_t d = replicaDescription();
  amp_step_t *a = nullptr, *b = nullptr;
  ASSERT_EQ(amp_step_create(&d, AMP_DEVICE_HOST, &a), nullptr);
  ASSERT_EQ(amp_step_create(&d, AMP_DEVICE_HOST, &b), nullptr);
  uint64_t programA = 0, stateA = 0, programB = 0, stateB = 0;
  ASSERT_EQ(amp_step_fingerprint(a, &programA, &stateA), nullptr);
  ASSERT_EQ(amp_step_fingerprint(b, &programB, &stateB), nullptr);
  EXPECT_EQ(programA, programB);
  EXPECT_EQ(stateA, stateB);
  // Another value of w.
  const float changed[] = {1, 1, 1.0000001f};
  ASSERT_EQ(amp_step_write_tensor(b, 0, changed, sizeof changed), nullptr);
  ASSERT_EQ(amp_step_fingerprint(b, &programB, &stateB), nullptr);
  EXPECT_EQ(programA, programB);
  EXPECT_NE(stateA, stateB);
  // The batch is no state: a step writes it anew.
  const float x[] = {5, 6, 7};
  ASSERT_EQ(amp_step_write_tensor(a, 1, x, sizeof x), nullptr);
  uint64_t programA2 = 0, stateA2 = 0;
  ASSERT_EQ(amp_step_fingerprint(a, &programA2, &stateA2), nullptr);
  EXPECT_EQ(stateA2, stateA);
  // Another compiled step: a parameter's starting value differs.
  amp_step_tensor_t tensors[3];
  std::memcpy(tensors, kTensors, sizeof tensors);
  tensors[0].initial = 2;
  amp_step_description_t other = d;
  other.tensors = tensors;
  amp_step_t *c = nullptr;
  ASSERT_EQ(amp_step_create(&other, AMP_DEVICE_HOST, &c), nullptr);
  uint64_t programC = 0, stateC = 0;
  ASSERT_EQ(amp_step_fingerprint(c, &programC, &stateC), nullptr);
  EXPECT_NE(programC, programA);
  EXPECT_STATUS(amp_step_fingerprint(c, nullptr, &stateC), AMP_INVALID_ARGUMENT,
                "null");
  // A buffer follows each replica's batches: not part of the state they
  // share. The parameter beside it is.
  static const amp_step_tensor_t buffered[] = {
      {"w", AMP_STEP_PARAM, AMP_ELEMENT_F32, 1, {3}, 0, 1},
      {"running", AMP_STEP_BUFFER, AMP_ELEMENT_F32, 1, {2}, 0, 0}};
  amp_step_description_t withBuffer = d;
  withBuffer.tensor_count = 2;
  withBuffer.tensors = buffered;
  amp_step_t *e = nullptr;
  ASSERT_EQ(amp_step_create(&withBuffer, AMP_DEVICE_HOST, &e), nullptr);
  uint64_t programE = 0, stateE = 0, programE2 = 0, stateE2 = 0;
  ASSERT_EQ(amp_step_fingerprint(e, &programE, &stateE), nullptr);
  const float running[] = {0.5f, 2};
  ASSERT_EQ(amp_step_write_tensor(e, 1, running, sizeof running), nullptr);
  ASSERT_EQ(amp_step_fingerprint(e, &programE2, &stateE2), nullptr);
  EXPECT_EQ(stateE2, stateE);
  ASSERT_EQ(amp_step_write_tensor(e, 0, changed, sizeof changed), nullptr);
  ASSERT_EQ(amp_step_fingerprint(e, &programE2, &stateE2), nullptr);
  EXPECT_NE(stateE2, stateE);
  amp_step_destroy(e);
  amp_step_destroy(a);
  amp_step_destroy(b);
  amp_step_destroy(c);
}

} // namespace
