//===- BroadcastTest.cpp - numpy broadcasting of static shapes ------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

std::vector<int64_t> broadcast(std::vector<std::vector<int64_t>> shapes,
                               bool &ok) {
  SmallVector<ArrayRef<int64_t>> refs(shapes.begin(), shapes.end());
  SmallVector<int64_t> result;
  ok = succeeded(amp::broadcastShapes(refs, result));
  return {result.begin(), result.end()};
}

TEST(BroadcastTest, TrailingAlignment) {
  bool ok = false;
  EXPECT_EQ(broadcast({{64, 256}, {256}}, ok), (std::vector<int64_t>{64, 256}));
  EXPECT_TRUE(ok);
  EXPECT_EQ(broadcast({{2, 1, 16}, {4, 1}}, ok),
            (std::vector<int64_t>{2, 4, 16}));
  EXPECT_TRUE(ok);
}

TEST(BroadcastTest, ScalarsAndOnes) {
  bool ok = false;
  EXPECT_EQ(broadcast({{}, {3, 5}}, ok), (std::vector<int64_t>{3, 5}));
  EXPECT_TRUE(ok);
  EXPECT_EQ(broadcast({{1, 1}, {1}}, ok), (std::vector<int64_t>{1, 1}));
  EXPECT_TRUE(ok);
  EXPECT_EQ(broadcast({{}, {}}, ok), (std::vector<int64_t>{}));
  EXPECT_TRUE(ok);
}

TEST(BroadcastTest, ThreeWay) {
  bool ok = false;
  EXPECT_EQ(broadcast({{16, 16}, {2, 4, 16, 16}, {}}, ok),
            (std::vector<int64_t>{2, 4, 16, 16}));
  EXPECT_TRUE(ok);
}

TEST(BroadcastTest, Incompatible) {
  bool ok = true;
  broadcast({{3, 4}, {5}}, ok);
  EXPECT_FALSE(ok);
  broadcast({{2, 3}, {3, 3}}, ok);
  EXPECT_FALSE(ok);
  // A zero-sized dimension only broadcasts against 1 or 0.
  broadcast({{0}, {2}}, ok);
  EXPECT_FALSE(ok);
}

} // namespace
