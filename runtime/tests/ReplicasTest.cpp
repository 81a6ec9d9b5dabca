//===- ReplicasTest.cpp - the replicas of a data-parallel step ------------===//
//
// amp_replica_count, amp_replica_all_reduce (whole, or started and waited
// for apart) and amp_step_set_replicas with hooks written here (a peer
// whose values the reduction adds), the
// fingerprints that ranks compare before they train, and the parts of a
// step with sharded optimizer state (zero-stage=1). The MPI transport
// behind amp_step_set_comm is tested under mpirun (test/Runtime).
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/float_formats.h"
#include "amp_runtime/step.h"

#include "TestFiles.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

/// What the steps below share: w, the batch's x and `update` flag, and
/// w's gradient, which is x, in the arena.
struct ReplicaRun {
  ReplicaRun(void *const *tensors, void *arena)
      : w(static_cast<float *>(tensors[0])),
        x(static_cast<const float *>(tensors[1])),
        update(static_cast<const uint8_t *>(tensors[2])),
        grad(static_cast<float *>(arena)) {
    std::memcpy(grad, x, 3 * sizeof(float));
  }
  /// The gradient as a bucket of one tensor.
  amp_tensor_list_t bucket() const {
    return amp_tensor_list_t{1, &grad, &size};
  }
  /// w less the gradient (summed over the replicas) over their count.
  void descend(amp_stream_t *stream) {
    auto count = static_cast<float>(amp_replica_count(stream));
    for (int i = 0; i < 3; ++i)
      w[i] -= grad[i] / count;
  }

  float *w;
  const float *x;
  const uint8_t *update;
  float *grad;
  size_t size = 3;
};

/// The gradient of w is the batch's x: the step sums it over the replicas
/// where the batch's `update` flag is 1, divides it by their count and
/// takes it from w.
amp_status_t replicaStep(amp_stream_t *stream, void *const *tensors,
                         void *arena, float *loss, float *foundInf,
                         double *counters) {
  ReplicaRun run(tensors, arena);
  if (amp_status_t status = amp_replica_all_reduce(stream, run.bucket(),
                                                   AMP_REDUCE_SUM, run.update))
    return status;
  run.descend(stream);
  *loss = run.w[0];
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

/// A peer whose reductions start and finish apart (all_reduce_start and
/// all_reduce_wait): a started bucket is only recorded, and the peer's
/// values are added when a wait reaches its ticket.
struct LatePeer {
  std::vector<float> values;
  struct Started {
    int64_t ticket;
    std::vector<float *> data;
    std::vector<size_t> sizes;
  };
  std::vector<Started> started;
  int64_t lastTicket = 0;
  int64_t badTicket = 0; // given by the next start where not 0
  std::vector<int64_t> waits;
};

amp_status_t startLate(void *context, amp_stream_t *, amp_tensor_list_t tensors,
                       amp_reduce_op_t op, int64_t *ticket) {
  auto *peer = static_cast<LatePeer *>(context);
  EXPECT_EQ(op, AMP_REDUCE_SUM);
  if (peer->badTicket) {
    *ticket = peer->badTicket;
    return nullptr;
  }
  peer->started.push_back(
      {++peer->lastTicket,
       std::vector<float *>(tensors.data, tensors.data + tensors.count),
       std::vector<size_t>(tensors.sizes, tensors.sizes + tensors.count)});
  *ticket = peer->lastTicket;
  return nullptr;
}

amp_status_t waitLate(void *context, amp_stream_t *, int64_t ticket) {
  auto *peer = static_cast<LatePeer *>(context);
  peer->waits.push_back(ticket);
  while (!peer->started.empty() && peer->started.front().ticket <= ticket) {
    LatePeer::Started &bucket = peer->started.front();
    size_t k = 0;
    for (size_t t = 0; t < bucket.data.size(); ++t)
      for (size_t i = 0; i < bucket.sizes[t]; ++i)
        bucket.data[t][i] += peer->values.at(k++);
    peer->started.erase(peer->started.begin());
  }
  return nullptr;
}

/// As replicaStep, with the reduction of w's gradient started, x's first
/// element written to the loss while it is under way, then waited for; a
/// batch whose first element is negative makes the step fail between the
/// two, as a failed launch would.
amp_status_t overlappingStep(amp_stream_t *stream, void *const *tensors,
                             void *arena, float *loss, float *foundInf,
                             double *counters) {
  ReplicaRun run(tensors, arena);
  int64_t ticket = -1;
  if (amp_status_t status = amp_replica_all_reduce_start(
          stream, run.bucket(), AMP_REDUCE_SUM, run.update, &ticket))
    return status;
  // Under way: the gradient is still this replica's own.
  *loss = run.grad[0];
  counters[0] = static_cast<double>(ticket);
  if (run.x[0] < 0)
    return amp_status_make(AMP_DEVICE_ERROR, __FILE__, __LINE__,
                           "a launch failed");
  if (amp_status_t status = amp_replica_all_reduce_wait(stream, ticket))
    return status;
  run.descend(stream);
  *foundInf = 0;
  return nullptr;
}

class OverlapTest : public ReplicasTest {
protected:
  void SetUp() override {
    description.run = &overlappingStep;
    ReplicasTest::SetUp();
  }
  float loss() {
    float value = 0, foundInf = 0;
    EXPECT_EQ(amp_step_result(step, &value, &foundInf), nullptr);
    return value;
  }
};

TEST_F(OverlapTest, StartsAndWaitsApart) {
  LatePeer peer{{1.5f, 0.25f, 2}};
  amp_replicas_t replicas{&peer, 0, 2, addPeer, nullptr, startLate, waitLate};
  ASSERT_EQ(amp_step_set_replicas(step, &replicas), nullptr);
  run({0.5f, 0.25f, -2 + 4}, 1);
  // The loss was read while the reduction was under way: x's own 0.5.
  EXPECT_EQ(loss(), 0.5f);
  // (0.5 + 1.5) / 2 = 1, (0.25 + 0.25) / 2, (2 + 2) / 2.
  EXPECT_EQ(w(), (std::vector<float>{0, 0.75f, -1}));
  // The step's wait, then the runtime's after every run, which finds
  // nothing left.
  EXPECT_EQ(peer.waits, (std::vector<int64_t>{1, INT64_MAX}));
  EXPECT_TRUE(peer.started.empty());
  // `when` 0: nothing starts, ticket 0, the step's wait is no call.
  run({1, 1, 1}, 0);
  EXPECT_EQ(peer.lastTicket, 1);
  EXPECT_EQ(peer.waits, (std::vector<int64_t>{1, INT64_MAX, INT64_MAX}));
  EXPECT_EQ(w(), (std::vector<float>{-0.5f, 0.25f, -1.5f}));
}

TEST_F(OverlapTest, HooksWithoutStartReduceAtOnce) {
  Peer peer{{1.5f, 0.25f, 2}};
  amp_replicas_t replicas{&peer, 0, 2, addPeer};
  ASSERT_EQ(amp_step_set_replicas(step, &replicas), nullptr);
  run({0.5f, 0.25f, 2}, 1);
  // Reduced before start returned: the loss saw the sum, the ticket is 0.
  EXPECT_EQ(peer.calls, 1);
  EXPECT_EQ(loss(), 2.0f);
  EXPECT_EQ(w(), (std::vector<float>{0, 0.75f, -1}));
  // One process: ticket 0 too.
  ASSERT_EQ(amp_step_set_replicas(step, nullptr), nullptr);
  run({1, 1, 1}, 1);
  EXPECT_EQ(w(), (std::vector<float>{-1, -0.25f, -2}));
}

TEST_F(OverlapTest, AFailedRunFinishesWhatItStarted) {
  LatePeer peer{{1, 1, 1}};
  amp_replicas_t replicas{&peer, 0, 2, addPeer, nullptr, startLate, waitLate};
  ASSERT_EQ(amp_step_set_replicas(step, &replicas), nullptr);
  static const int64_t shape[] = {3};
  float x[] = {-1, 0, 0};
  uint8_t update = 1;
  amp_step_input_t inputs[] = {{x, AMP_ELEMENT_F32, 1, shape},
                               {&update, AMP_ELEMENT_I1, 0, nullptr}};
  // The step's error is the one returned; the runtime finished every
  // reduction the step started before the arena is touched again.
  EXPECT_STATUS(amp_step_run(step, 2, inputs), AMP_DEVICE_ERROR,
                "a launch failed");
  EXPECT_TRUE(peer.started.empty());
  EXPECT_EQ(peer.waits, (std::vector<int64_t>{INT64_MAX}));
}

TEST_F(OverlapTest, RefusesHalfHooksAndBadTickets) {
  LatePeer peer{{0, 0, 0}};
  amp_replicas_t replicas{&peer, 0, 2, addPeer, nullptr, startLate, nullptr};
  EXPECT_STATUS(amp_step_set_replicas(step, &replicas), AMP_INVALID_ARGUMENT,
                "have all_reduce_start without all_reduce_wait: both or "
                "neither");
  replicas = {&peer, 0, 2, addPeer, nullptr, nullptr, waitLate};
  EXPECT_STATUS(amp_step_set_replicas(step, &replicas), AMP_INVALID_ARGUMENT,
                "have all_reduce_wait without all_reduce_start");
  replicas = {&peer, 0, 2, addPeer, nullptr, startLate, waitLate};
  ASSERT_EQ(amp_step_set_replicas(step, &replicas), nullptr);
  peer.badTicket = -3;
  static const int64_t shape[] = {3};
  float x[] = {1, 1, 1};
  uint8_t update = 1;
  amp_step_input_t inputs[] = {{x, AMP_ELEMENT_F32, 1, shape},
                               {&update, AMP_ELEMENT_I1, 0, nullptr}};
  EXPECT_STATUS(amp_step_run(step, 2, inputs), AMP_INVALID_ARGUMENT,
                "all_reduce_start gave ticket -3; tickets are positive");
  // The calls a generated step makes, with bad arguments.
  EXPECT_STATUS(amp_replica_all_reduce_wait(nullptr, 1), AMP_INVALID_ARGUMENT,
                "stream is null");
  EXPECT_STATUS(amp_replica_all_reduce_start(nullptr, amp_tensor_list_t{},
                                             AMP_REDUCE_SUM, nullptr, nullptr),
                AMP_INVALID_ARGUMENT, "ticket is null");
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

/// A step with sharded optimizer state over 2 replicas: an f16 weight of
/// 5 elements with an f32 master part and a moment part of 3 each. It
/// gathers the master parts (as f32) and reports elements 0 and 4 of the
/// whole as its loss: element 0 + 10 * element 4.
amp_status_t gatherStep(amp_stream_t *stream, void *const *tensors, void *arena,
                        float *loss, float *foundInf, double *counters) {
  auto *whole = static_cast<float *>(arena);
  const void *const parts[] = {tensors[1]};
  void *const wholes[] = {whole};
  const size_t partSizes[] = {3}, sizes[] = {5}, bytes[] = {4};
  if (amp_status_t status = amp_replica_all_gather(
          stream, {1, parts, wholes, partSizes, sizes, bytes}, 2, nullptr))
    return status;
  *loss = whole[0] + 10 * whole[4];
  *foundInf = 0;
  counters[0] += 1;
  return nullptr;
}

const amp_step_tensor_t kSharded[] = {
    {"w", AMP_STEP_PARAM, AMP_ELEMENT_F16, 1, {5}, 4, 0},
    {"w.master", AMP_STEP_STATE, AMP_ELEMENT_F32, 1, {3}, 0, 0, 2, 0},
    {"w.exp_avg", AMP_STEP_STATE, AMP_ELEMENT_F32, 1, {3}, 0, 0, 1, 0},
};

amp_step_description_t shardedDescription() {
  amp_step_description_t d{
      AMP_STEP_ABI_VERSION, "sharded", AMP_DEVICE_HOST, 3, kSharded, -1, 20,
      &gatherStep};
  d.data_parallel = 1;
  d.zero_replicas = 2;
  return d;
}

/// Whole tensors from parts: the parts of the other replicas are their
/// ranks plus 100 (f32) in every element.
amp_status_t gatherFake(void *context, amp_stream_t *, amp_gather_list_t list) {
  auto rank = *static_cast<int32_t *>(context);
  for (size_t i = 0; i < list.count; ++i) {
    EXPECT_EQ(list.element_bytes[i], sizeof(float));
    auto *whole = static_cast<float *>(list.wholes[i]);
    for (size_t e = 0; e < list.sizes[i]; ++e) {
      auto q = static_cast<int32_t>(e / list.part_sizes[i]);
      whole[e] = q == rank ? static_cast<const float *>(
                                 list.parts[i])[e % list.part_sizes[i]]
                           : static_cast<float>(q + 100);
    }
  }
  return nullptr;
}

template <typename T> std::vector<T> readTensor(amp_step_t *step, size_t i) {
  const amp_step_tensor_t &t = amp_step_description(step)->tensors[i];
  std::vector<T> values(static_cast<size_t>(t.shape[0]));
  EXPECT_EQ(
      amp_step_read_tensor(step, i, values.data(), values.size() * sizeof(T)),
      nullptr);
  return values;
}

class ShardedStepTest : public TempDirectoryTest {
protected:
  amp_step_description_t description = shardedDescription();
  int32_t rank1 = 1;
  amp_replicas_t second{&rank1, 1, 2, addPeer, gatherFake};
};

TEST_F(ShardedStepTest, EachRankStartsWithItsPartOfTheMasters) {
  amp_step_t *first = nullptr, *other = nullptr;
  ASSERT_EQ(amp_step_create(&description, AMP_DEVICE_HOST, &first), nullptr);
  ASSERT_EQ(amp_step_create(&description, AMP_DEVICE_HOST, &other), nullptr);
  // Rank 0 alone (a step runs only on its 2 replicas, but may be set up
  // as rank 0 without them), rank 1 joined first.
  ASSERT_EQ(amp_step_init(first, 7), nullptr);
  ASSERT_EQ(amp_step_set_replicas(other, &second), nullptr);
  ASSERT_EQ(amp_step_init(other, 7), nullptr);
  std::vector<uint16_t> w = readTensor<uint16_t>(first, 0);
  EXPECT_EQ(w, readTensor<uint16_t>(other, 0)); // the same weights
  // Each master part rounds to its elements of the f16 weight, is not
  // that rounding (the master keeps f32's bits), and pads with zeros.
  std::vector<float> part0 = readTensor<float>(first, 1);
  std::vector<float> part1 = readTensor<float>(other, 1);
  const float master[] = {part0[0], part0[1], part0[2], part1[0], part1[1]};
  bool wider = false;
  for (int e = 0; e < 5; ++e) {
    EXPECT_EQ(amprt::floatToHalfBits(master[e]), w[e]) << e;
    EXPECT_NE(master[e], 0) << e;
    EXPECT_LE(std::abs(master[e]), 0.5f) << e; // +-1/sqrt(fan_in 4)
    wider |= amprt::halfBitsToFloat(w[e]) != master[e];
  }
  EXPECT_TRUE(wider);
  EXPECT_EQ(part1[2], 0);
  EXPECT_EQ(readTensor<float>(other, 2), (std::vector<float>{0, 0, 0}));
  // The parts are each rank's own: the fingerprints leave them out.
  uint64_t program0, state0, program1, state1;
  ASSERT_EQ(amp_step_fingerprint(first, &program0, &state0), nullptr);
  ASSERT_EQ(amp_step_fingerprint(other, &program1, &state1), nullptr);
  EXPECT_EQ(program0, program1);
  EXPECT_EQ(state0, state1);
  // Rank 0's parts are not rank 1's.
  EXPECT_STATUS(amp_step_set_replicas(first, &second), AMP_INVALID_ARGUMENT,
                "holds the optimizer state's parts of rank 0; as rank 1 it "
                "would update another rank's: join the replicas before "
                "amp_step_init or amp_step_load");
  // Nor is rank 1's file rank 0's.
  std::string file = directory + "/rank1";
  ASSERT_EQ(amp_step_save(other, file.c_str()), nullptr);
  EXPECT_STATUS(amp_step_load(first, file.c_str()), AMP_INVALID_ARGUMENT,
                "holds the optimizer state's parts of rank 1 of 2; this step "
                "is rank 0 of 2 (each rank loads the file it saved)");
  amp_step_t *again = nullptr;
  ASSERT_EQ(amp_step_create(&description, AMP_DEVICE_HOST, &again), nullptr);
  ASSERT_EQ(amp_step_set_replicas(again, &second), nullptr);
  ASSERT_EQ(amp_step_load(again, file.c_str()), nullptr);
  EXPECT_EQ(readTensor<float>(again, 1), part1);
  // A run gathers through the hooks: rank 0's part (100 from the fake
  // peer), then rank 1's own, cut at 5 elements.
  ASSERT_EQ(amp_step_run(other, 0, nullptr), nullptr);
  float loss = 0, found = 1;
  ASSERT_EQ(amp_step_result(other, &loss, &found), nullptr);
  EXPECT_EQ(loss, 100 + 10 * part1[1]);
  // Alone, the step is one replica of the 2 it needs.
  EXPECT_STATUS(amp_step_run(first, 0, nullptr), AMP_INVALID_ARGUMENT,
                "shards its optimizer state over 2 replicas (zero-stage=1 "
                "replicas=2) and runs on 1");

  amp_step_destroy(again);
  amp_step_destroy(first);
  amp_step_destroy(other);
}

TEST_F(ShardedStepTest, RunsOnItsReplicasOnly) {
  amp_step_t *step = nullptr;
  ASSERT_EQ(amp_step_create(&description, AMP_DEVICE_HOST, &step), nullptr);
  int32_t rank = 0;
  amp_replicas_t four{&rank, 0, 4, addPeer, gatherFake};
  EXPECT_STATUS(amp_step_set_replicas(step, &four), AMP_INVALID_ARGUMENT,
                "step 'sharded' shards its optimizer state over 2 replicas "
                "(zero-stage=1); it cannot join 4");
  amp_replicas_t noGather{&rank, 0, 2, addPeer};
  EXPECT_STATUS(amp_step_set_replicas(step, &noGather), AMP_INVALID_ARGUMENT,
                "it cannot join 2 that gather no parts");
  // Joined but neither initialised nor loaded: no parts to run or save.
  ASSERT_EQ(amp_step_set_replicas(step, &second), nullptr);
  EXPECT_STATUS(amp_step_run(step, 0, nullptr), AMP_INVALID_ARGUMENT,
                "step 'sharded' holds no parts of the optimizer state yet; "
                "it runs as rank 1: initialise or load it after joining the "
                "replicas");
  std::string file = directory + "/none";
  EXPECT_STATUS(amp_step_save(step, file.c_str()), AMP_INVALID_ARGUMENT,
                "holds no parts of its optimizer state yet: initialise or "
                "load it before saving it");
  // A weight gathered from its master, and a part of several replicas',
  // change only with their state file.
  ASSERT_EQ(amp_step_init(step, 1), nullptr);
  const uint16_t weights[5] = {};
  EXPECT_STATUS(amp_step_write_tensor(step, 0, weights, sizeof weights),
                AMP_INVALID_ARGUMENT,
                "parameter 'w' of step 'sharded' is gathered from its f32 "
                "master 'w.master' after each update: written alone it would "
                "be undone; load a state file instead");
  const float part[3] = {};
  EXPECT_STATUS(amp_step_write_tensor(step, 2, part, sizeof part),
                AMP_INVALID_ARGUMENT,
                "tensor 'w.exp_avg' of step 'sharded' is one replica's part "
                "of the optimizer state; load the state file each rank saved "
                "(amp_step_load) instead");
  // Detached, rank 1's parts are no one's to run.
  ASSERT_EQ(amp_step_set_replicas(step, nullptr), nullptr);
  EXPECT_STATUS(amp_step_run(step, 0, nullptr), AMP_INVALID_ARGUMENT,
                "and runs on 1: join them first");
  amp_step_destroy(step);
  // A description whose parts are not its parameters' is refused.
  amp_step_tensor_t tensors[3];
  std::memcpy(tensors, kSharded, sizeof tensors);
  tensors[1].shape[0] = 2;
  amp_step_description_t bad = shardedDescription();
  bad.tensors = tensors;
  EXPECT_STATUS(amp_step_create(&bad, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT,
                "tensor 1 of step 'sharded' is not the f32 part of a "
                "parameter over the step's 2 replicas");
  std::memcpy(tensors, kSharded, sizeof tensors);
  tensors[2].shard_of = 1; // a state, not a parameter
  EXPECT_STATUS(amp_step_create(&bad, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT, "tensor 2 of step 'sharded'");
  std::memcpy(tensors, kSharded, sizeof tensors);
  tensors[2].shard = 3; // neither a moment nor a master
  EXPECT_STATUS(amp_step_create(&bad, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT, "tensor 2 of step 'sharded'");
  bad = shardedDescription();
  bad.zero_replicas = -2;
  EXPECT_STATUS(amp_step_create(&bad, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT,
                "shards its state over -2 replicas without reducing");
  bad = shardedDescription();
  bad.data_parallel = 0;
  EXPECT_STATUS(amp_step_create(&bad, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT,
                "shards its state over 2 replicas without reducing its "
                "gradients over them");
}

/// A step accumulating 2 micro-batches: tensor 1 counts them as the
/// compiled step's counter does, and its update flag (`when`) comes from
/// the counter, or is always 1 where the batch's `wrong` flag says so.
amp_status_t accumulatingStep(amp_stream_t *stream, void *const *tensors,
                              void *arena, float *loss, float *foundInf,
                              double *counters) {
  auto *w = static_cast<float *>(tensors[0]);
  auto *micro = static_cast<float *>(tensors[1]);
  auto *wrong = static_cast<const uint8_t *>(tensors[2]);
  auto *when = static_cast<uint8_t *>(arena);
  float next = *micro + 1;
  *when = *wrong || next >= 2 ? 1 : 0;
  float grad = 1;
  float *const data[] = {&grad};
  const size_t sizes[] = {1};
  if (amp_status_t status = amp_replica_all_reduce(
          stream, amp_tensor_list_t{1, data, sizes}, AMP_REDUCE_SUM, when))
    return status;
  *micro = next >= 2 ? 0 : next;
  w[0] += grad;
  *loss = w[0];
  *foundInf = 0;
  counters[0] += 1;
  return nullptr;
}

TEST(AccumulatingReplicaTest, TheRuntimeCountsTheMicroBatches) {
  static const amp_step_tensor_t tensors[] = {
      {"w", AMP_STEP_PARAM, AMP_ELEMENT_F32, 0, {}, 0, 0},
      {"micro_batch", AMP_STEP_STATE, AMP_ELEMENT_F32, 0, {}, 0, 0},
      {"wrong", AMP_STEP_INPUT, AMP_ELEMENT_I1, 0, {}, 0, 0},
  };
  amp_step_description_t d{
      AMP_STEP_ABI_VERSION, "accumulating", AMP_DEVICE_HOST, 3, tensors, -1, 1,
      &accumulatingStep};
  d.data_parallel = 1;
  d.accumulate = 2;
  d.micro_batch_tensor = 1;
  amp_step_t *step = nullptr;
  ASSERT_EQ(amp_step_create(&d, AMP_DEVICE_HOST, &step), nullptr);
  ASSERT_EQ(amp_step_init(step, 0), nullptr);
  Peer peer{{2, 2, 2, 2, 2, 2}};
  amp_replicas_t replicas{&peer, 0, 2, addPeer};
  ASSERT_EQ(amp_step_set_replicas(step, &replicas), nullptr);
  uint8_t wrong = 0;
  amp_step_input_t input{&wrong, AMP_ELEMENT_I1, 0, nullptr};
  // Micro-batches 1 and 2, 1 and 2: the peer is added on the second of
  // each pair only.
  for (int run = 0; run < 4; ++run)
    ASSERT_EQ(amp_step_run(step, 1, &input), nullptr);
  EXPECT_EQ(peer.calls, 2);
  float w = 0;
  ASSERT_EQ(amp_step_read_tensor(step, 0, &w, sizeof w), nullptr);
  EXPECT_EQ(w, 1 + 3 + 1 + 3);
  // A counter written between runs is read again: at 1, the next run
  // updates.
  const float one = 1;
  ASSERT_EQ(amp_step_write_tensor(step, 1, &one, sizeof one), nullptr);
  ASSERT_EQ(amp_step_run(step, 1, &input), nullptr);
  EXPECT_EQ(peer.calls, 3);
  // A flag that is not the count's is caught (on the host, where reading
  // it costs nothing).
  wrong = 1;
  EXPECT_STATUS(amp_step_run(step, 1, &input), AMP_INVALID_ARGUMENT,
                "the step's update flag (1) is not the one its micro-batch "
                "count gives (0)");
  // A description whose counter is no 0-d f32 state is refused.
  amp_step_description_t bad = d;
  bad.micro_batch_tensor = 2;
  amp_step_t *other = nullptr;
  EXPECT_STATUS(amp_step_create(&bad, AMP_DEVICE_HOST, &other),
                AMP_INVALID_ARGUMENT,
                "step 'accumulating' accumulates 2 micro-batches with no 0-d "
                "f32 state counting them");
  amp_step_destroy(step);
}

TEST(ReplicaGatherTest, OneReplicaCopiesAndChecks) {
  amp_device_t *device = nullptr;
  amp_stream_t *stream = nullptr;
  ASSERT_EQ(amp_device_create(AMP_DEVICE_HOST, 0, &device), nullptr);
  ASSERT_EQ(amp_stream_create(device, &stream), nullptr);
  EXPECT_EQ(amp_replica_rank(stream), 0);
  const float part[] = {1, 2, 3};
  float whole[3] = {};
  const void *const parts[] = {part};
  void *const wholes[] = {whole};
  const size_t partSizes[] = {3}, sizes[] = {3}, bytes[] = {4};
  ASSERT_EQ(amp_replica_all_gather(stream,
                                   {1, parts, wholes, partSizes, sizes, bytes},
                                   1, nullptr),
            nullptr);
  EXPECT_EQ(whole[2], 3);
  EXPECT_STATUS(
      amp_replica_all_gather(
          stream, {1, parts, wholes, partSizes, sizes, bytes}, 2, nullptr),
      AMP_INVALID_ARGUMENT,
      "tensor 0 of the bucket: a part of 3 elements is not the part "
      "of 3 elements over 2 replicas");
  const size_t halves[] = {2};
  EXPECT_STATUS(amp_replica_all_gather(stream,
                                       {1, parts, wholes, halves, sizes, bytes},
                                       2, nullptr),
                AMP_INVALID_ARGUMENT,
                "shards its optimizer state over 2 replicas (zero-stage=1 "
                "replicas=2) and runs on 1");
  EXPECT_STATUS(
      amp_replica_all_gather(
          stream, {1, nullptr, wholes, partSizes, sizes, bytes}, 1, nullptr),
      AMP_INVALID_ARGUMENT, "the gather list is null");
  EXPECT_STATUS(
      amp_replica_all_gather(
          nullptr, {1, parts, wholes, partSizes, sizes, bytes}, 1, nullptr),
      AMP_INVALID_ARGUMENT, "stream is null");
  // `when` 0: nothing gathered, the whole keeps its values.
  const uint8_t no = 0;
  float kept[3] = {7, 7, 7};
  void *const keptWholes[] = {kept};
  ASSERT_EQ(
      amp_replica_all_gather(
          stream, {1, parts, keptWholes, partSizes, sizes, bytes}, 1, &no),
      nullptr);
  EXPECT_EQ(kept[0], 7);
  amp_stream_destroy(stream);
  amp_device_destroy(device);
}

} // namespace
