//===- CommLaunchTest.cpp - ranks started without MPI ---------------------===//
//
// The environment a launcher without MPI sets (RANK, WORLD_SIZE and where
// NCCL's id comes from), read or refused with the variable named; and the
// id file that rank 0 writes and the others wait for, with two ranks as
// threads of this process.
//
//===----------------------------------------------------------------------===//

#include "comm_launch.h"

#include "TestFiles.h"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>

namespace {

/// Sets (or with null, unsets) the launch's variables for one test, and
/// restores them after.
class LaunchEnvTest : public TempDirectoryTest {
protected:
  static constexpr const char *kNames[] = {
      "RANK",         "WORLD_SIZE",  "AMP_NCCL_ID_FILE",
      "NCCL_COMM_ID", "MASTER_ADDR", "MASTER_PORT"};

  void SetUp() override {
    TempDirectoryTest::SetUp();
    for (size_t i = 0; i < std::size(kNames); ++i) {
      const char *value = std::getenv(kNames[i]);
      saved[i] = value ? std::optional<std::string>(value) : std::nullopt;
      unsetenv(kNames[i]);
    }
  }
  void TearDown() override {
    for (size_t i = 0; i < std::size(kNames); ++i) {
      if (saved[i])
        setenv(kNames[i], saved[i]->c_str(), 1);
      else
        unsetenv(kNames[i]);
    }
    TempDirectoryTest::TearDown();
  }

  std::array<std::optional<std::string>, std::size(kNames)> saved;
};

TEST_F(LaunchEnvTest, ReadsTheRankTheSizeAndTheIdFile) {
  setenv("RANK", "3", 1);
  setenv("WORLD_SIZE", "4", 1);
  setenv("AMP_NCCL_ID_FILE", "/shared/job7.id", 1);
  // The file comes before NCCL's own address.
  setenv("NCCL_COMM_ID", "10.0.0.1:29501", 1);
  amprt::Launch launch;
  ASSERT_EQ(Status(amprt::readLaunch(&launch)).status, nullptr);
  EXPECT_EQ(launch.rank, 3);
  EXPECT_EQ(launch.size, 4);
  EXPECT_EQ(launch.idFile, "/shared/job7.id");
  EXPECT_EQ(launch.address, "");
}

TEST_F(LaunchEnvTest, TakesNcclsAddressThenTorchrunsMaster) {
  setenv("RANK", "0", 1);
  setenv("WORLD_SIZE", "2", 1);
  setenv("MASTER_ADDR", "node1", 1);
  setenv("MASTER_PORT", "29500", 1);
  amprt::Launch launch;
  ASSERT_EQ(Status(amprt::readLaunch(&launch)).status, nullptr);
  EXPECT_EQ(launch.address, "node1:29500");
  EXPECT_EQ(launch.idFile, "");
  setenv("NCCL_COMM_ID", "10.0.0.1:29501", 1);
  ASSERT_EQ(Status(amprt::readLaunch(&launch)).status, nullptr);
  EXPECT_EQ(launch.address, "10.0.0.1:29501");
  // An IPv6 master in brackets before its port, as NCCL reads it.
  unsetenv("NCCL_COMM_ID");
  setenv("MASTER_ADDR", "fe80::1", 1);
  ASSERT_EQ(Status(amprt::readLaunch(&launch)).status, nullptr);
  EXPECT_EQ(launch.address, "[fe80::1]:29500");
}

TEST_F(LaunchEnvTest, NamesTheVariableThatIsMissingOrWrong) {
  amprt::Launch launch;
  EXPECT_STATUS(amprt::readLaunch(&launch), AMP_INVALID_ARGUMENT,
                "WORLD_SIZE is not set");
  setenv("WORLD_SIZE", "2", 1);
  EXPECT_STATUS(amprt::readLaunch(&launch), AMP_INVALID_ARGUMENT,
                "RANK is not set");
  for (const char *rank : {"2", "-1", "+1", "1x", "x", " 1"}) {
    setenv("RANK", rank, 1);
    EXPECT_STATUS(amprt::readLaunch(&launch), AMP_INVALID_ARGUMENT,
                  "RANK=" + std::string(rank) +
                      ": need a whole number from 0 to 1");
  }
  setenv("WORLD_SIZE", "0", 1);
  EXPECT_STATUS(amprt::readLaunch(&launch), AMP_INVALID_ARGUMENT,
                "WORLD_SIZE=0: need a whole number from 1 to");
  setenv("WORLD_SIZE", "99999999999", 1);
  EXPECT_STATUS(amprt::readLaunch(&launch), AMP_INVALID_ARGUMENT,
                "WORLD_SIZE=99999999999: need a whole number from 1 to");
  setenv("WORLD_SIZE", "2", 1);
  setenv("RANK", "1", 1);
  EXPECT_STATUS(amprt::readLaunch(&launch), AMP_INVALID_ARGUMENT,
                "no way to NCCL's unique id: set AMP_NCCL_ID_FILE");
  setenv("MASTER_ADDR", "node1", 1);
  EXPECT_STATUS(amprt::readLaunch(&launch), AMP_INVALID_ARGUMENT,
                "MASTER_PORT is not set");
  setenv("MASTER_PORT", "65536", 1);
  EXPECT_STATUS(amprt::readLaunch(&launch), AMP_INVALID_ARGUMENT,
                "MASTER_PORT=65536: need a whole number from 1 to 65535");
}

using IdFileTest = TempDirectoryTest;
using Id = std::array<char, 128>;

Id someId(char seed) {
  Id id;
  for (size_t i = 0; i < id.size(); ++i)
    id[i] = static_cast<char>(seed + 7 * i);
  return id;
}

/// Rank 0's id for `size` ranks written to `path`.
void publish(const std::string &path, const Id &id, int size) {
  Status status(amprt::publishId(path, id.data(), id.size(), size));
  EXPECT_EQ(status.status, nullptr) << status.message();
}

/// The id at `path` for `size` ranks, as a rank that comes late reads it.
Id readBack(const std::string &path, int size) {
  Id id{};
  Status status(amprt::awaitId(path, id.data(), id.size(), size, 1.0));
  EXPECT_EQ(status.status, nullptr) << status.message();
  return id;
}

TEST_F(IdFileTest, AWaitingRankReadsWhatRankZeroWritesLater) {
  std::string path = directory + "/job.id";
  auto id = someId(5);
  Id read{};
  amp_status_t waited = nullptr;
  // Rank 1 waits before rank 0 has written.
  std::thread rank1([&] {
    waited = amprt::awaitId(path, read.data(), read.size(), 2, 30.0);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  publish(path, id, 2);
  rank1.join();
  ASSERT_EQ(Status(waited).status, nullptr);
  EXPECT_EQ(read, id);
  // A rank that comes late reads it too.
  EXPECT_EQ(readBack(path, 2), id);
}

TEST_F(IdFileTest, RankZeroRefusesAFileThatExists) {
  std::string path = directory + "/job.id";
  auto first = someId(1), second = someId(2);
  publish(path, first, 2);
  EXPECT_STATUS(amprt::publishId(path, second.data(), second.size(), 2),
                AMP_INVALID_ARGUMENT, "exists already");
  // The first job's id is still there, whole.
  EXPECT_EQ(readBack(path, 2), first);
}

TEST_F(IdFileTest, AWaitingRankGivesUpAtTheTimeout) {
  std::string path = directory + "/never.id";
  Id read{};
  auto start = std::chrono::steady_clock::now();
  EXPECT_STATUS(amprt::awaitId(path, read.data(), read.size(), 2, 0.3),
                AMP_DEADLINE_EXCEEDED, "rank 0 did not write NCCL's id there");
  double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_GE(waited, 0.3);
  EXPECT_LT(waited, 10.0);
}

TEST_F(IdFileTest, RefusesWhatIsNotAnIdFileForThisJob) {
  std::string path = directory + "/job.id";
  Id read{};
  // Rank 0 of another job size.
  auto id = someId(3);
  publish(path, id, 3);
  EXPECT_STATUS(amprt::awaitId(path, read.data(), read.size(), 2, 1.0),
                AMP_INVALID_ARGUMENT,
                "was written by rank 0 of 3 ranks; WORLD_SIZE is 2 here");
  // An id of another length (another NCCL).
  EXPECT_STATUS(amprt::awaitId(path, read.data(), 64, 3, 1.0),
                AMP_INVALID_ARGUMENT, "is not a file of NCCL's id");
  // Every truncation, one byte more, and another file altogether.
  std::string whole = readFile(path);
  for (size_t length = 0; length < whole.size(); ++length) {
    writeFile(path, whole.substr(0, length));
    EXPECT_STATUS(amprt::awaitId(path, read.data(), read.size(), 3, 1.0),
                  AMP_INVALID_ARGUMENT, "is not a file of NCCL's id");
  }
  writeFile(path, whole + "x");
  EXPECT_STATUS(amprt::awaitId(path, read.data(), read.size(), 3, 1.0),
                AMP_INVALID_ARGUMENT, "is not a file of NCCL's id");
  writeFile(path, "P" + whole.substr(1));
  EXPECT_STATUS(amprt::awaitId(path, read.data(), read.size(), 3, 1.0),
                AMP_INVALID_ARGUMENT, "is not a file of NCCL's id");
  writeFile(path, whole);
  EXPECT_EQ(readBack(path, 3), id);
}

TEST_F(IdFileTest, SaysWhyItCannotWrite) {
  auto id = someId(4);
  EXPECT_STATUS(amprt::publishId(directory + "/no/such/dir/job.id", id.data(),
                                 id.size(), 2),
                AMP_IO_ERROR, "no/such/dir");
}

} // namespace
