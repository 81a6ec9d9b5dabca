//===- IdBucketsTest.cpp - positions bucketed by id -----------------------===//
//
// amp_id_buckets against buckets worked out by hand, on each device (the
// host's counting sort, CUDA's radix sort, which must agree), and its
// refusals.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/id_buckets.h"

#include "KernelTest.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace {

class IdBucketsTest : public KernelTest {};

// Ids 3, 1, 3, 0, 7 (out of a 5-row table), 3, -1 (out), 1 over 5 rows:
// row 0 holds position 3; row 1 positions 1 and 7; row 2 none; row 3
// positions 0, 2 and 5, in that order; row 4 none. The ends: 1, 3, 3, 6, 6.
TEST_P(IdBucketsTest, BucketsByHand) {
  const std::vector<int64_t> ids = {3, 1, 3, 0, 7, 3, -1, 1};
  const std::vector<int64_t> wantEnd = {1, 3, 3, 6, 6};
  const std::vector<int64_t> wantPositions = {3, 1, 7, 0, 2, 5};
  for (int idBytes : {8, 4}) {
    SCOPED_TRACE("ids of " + std::to_string(idBytes) + " bytes");
    void *deviceIds = nullptr;
    if (idBytes == 8) {
      deviceIds = upload(ids);
    } else {
      deviceIds = upload(std::vector<int32_t>(ids.begin(), ids.end()));
    }
    int64_t *end = upload(std::vector<int64_t>(5, -9));
    int64_t *positions = upload(std::vector<int64_t>(8, -9));
    char *workspace = upload(std::vector<char>(amp_id_buckets_workspace(8), 0));
    ASSERT_EQ(amp_id_buckets(stream, deviceIds, idBytes, 8, 5, end, positions,
                             workspace),
              nullptr);
    EXPECT_EQ(download(end, 5), wantEnd);
    std::vector<int64_t> got = download(positions, 8);
    got.resize(6); // the two out of range fall in no bucket
    EXPECT_EQ(got, wantPositions);
  }
}

// Many ids of few rows (the buckets long) and of many (the sort's passes
// over several bytes of key): against std::stable_sort of the positions by
// id.
TEST_P(IdBucketsTest, LongBucketsStayInOrder) {
  for (int64_t rows : {int64_t(3), int64_t(300), int64_t(70000)}) {
    SCOPED_TRACE("rows " + std::to_string(rows));
    const int64_t count = 5000;
    std::vector<int64_t> ids(count);
    for (int64_t n = 0; n < count; ++n)
      ids[n] = (n * 7919 + n / 3) % rows;
    std::vector<int64_t> wantPositions(count), wantEnd(rows);
    std::iota(wantPositions.begin(), wantPositions.end(), int64_t(0));
    std::stable_sort(wantPositions.begin(), wantPositions.end(),
                     [&](int64_t a, int64_t b) { return ids[a] < ids[b]; });
    for (int64_t v = 0; v < rows; ++v)
      wantEnd[v] =
          std::upper_bound(wantPositions.begin(), wantPositions.end(), v,
                           [&](int64_t row, int64_t position) {
                             return row < ids[position];
                           }) -
          wantPositions.begin();
    int64_t *end = upload(std::vector<int64_t>(rows, -9));
    int64_t *positions = upload(std::vector<int64_t>(count, -9));
    char *workspace =
        upload(std::vector<char>(amp_id_buckets_workspace(count), 0));
    ASSERT_EQ(amp_id_buckets(stream, upload(ids), 8, count, rows, end,
                             positions, workspace),
              nullptr);
    EXPECT_EQ(download(end, rows), wantEnd);
    EXPECT_EQ(download(positions, count), wantPositions);
  }
}

TEST_P(IdBucketsTest, BadArgumentsAreRefused) {
  int64_t *end = upload(std::vector<int64_t>(4, 0));
  auto refused = [&](amp_status_t status, const char *fragment) {
    ASSERT_NE(status, nullptr);
    EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
    EXPECT_NE(std::string(amp_status_message(status)).find(fragment),
              std::string::npos)
        << amp_status_message(status);
    amp_status_free(status);
  };
  refused(amp_id_buckets(stream, end, 2, 1, 4, end, end, end),
          "int32 or int64");
  refused(amp_id_buckets(stream, end, 8, 1, 0, end, end, end), "rows in [1,");
  refused(amp_id_buckets(stream, end, 8, -1, 4, end, end, end), "count >= 0");
  refused(amp_id_buckets(stream, end, 8, 1, 4, end, end, nullptr), "is null");
  // No ids: every bucket empty, nothing else read.
  ASSERT_EQ(amp_id_buckets(stream, nullptr, 8, 0, 4, end, nullptr, nullptr),
            nullptr);
  EXPECT_EQ(download(end, 4), std::vector<int64_t>(4, 0));
  EXPECT_EQ(amp_id_buckets_workspace(3), 48u);
  EXPECT_EQ(amp_id_buckets_workspace(INT64_MAX / 8), 0u);
}

INSTANTIATE_TEST_SUITE_P(Devices, IdBucketsTest,
                         ::testing::Values(AMP_DEVICE_HOST, AMP_DEVICE_CUDA),
                         deviceName);

} // namespace
