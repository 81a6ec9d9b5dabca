//===- StateFileTest.cpp - atomic, checked state files --------------------===//
//
// Round trips, every truncation, corrupted bytes, mismatched expectations,
// unwritable places, and a saver killed mid-write: a load either restores
// exactly what was saved or fails and writes nothing.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/state_file.h"

#include "TestFiles.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

class StateFileTest : public TempDirectoryTest {
protected:
  void SetUp() override {
    TempDirectoryTest::SetUp();
    path = directory + "/step.state";
  }

  std::string path;
};

TEST(Crc32Test, MatchesTheStandardCheckValue) {
  // The CRC-32/IEEE check value of "123456789" (as zlib's crc32 gives).
  EXPECT_EQ(amp_crc32(0, "123456789", 9), 0xCBF43926u);
  EXPECT_EQ(amp_crc32(0, "", 0), 0u);
  // Continuing a CRC equals one pass over the concatenation.
  EXPECT_EQ(amp_crc32(amp_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
}

TEST_F(StateFileTest, RoundTripsEveryEntry) {
  std::vector<float> weights = {1.5f, -2.0f, 3.25f};
  std::vector<uint16_t> half = {0x3C00, 0x7BFF};
  float scale = 65536;
  amp_state_entry_t saved[] = {{"weights", weights.data(), 12},
                               {"half", half.data(), 4},
                               {"empty", nullptr, 0},
                               {"scale", &scale, 4}};
  ASSERT_EQ(amp_state_save(path.c_str(), 4, saved), nullptr);
  std::vector<float> w2(3);
  std::vector<uint16_t> h2(2);
  float s2 = 0;
  amp_state_entry_t loaded[] = {{"weights", w2.data(), 12},
                                {"half", h2.data(), 4},
                                {"empty", nullptr, 0},
                                {"scale", &s2, 4}};
  ASSERT_EQ(amp_state_load(path.c_str(), 4, loaded), nullptr);
  EXPECT_EQ(w2, weights);
  EXPECT_EQ(h2, half);
  EXPECT_EQ(s2, scale);
  // No temporary file is left beside the state.
  std::string listing = directory + "/step.state.tmp.*";
  EXPECT_NE(std::system(("ls " + listing + " >/dev/null 2>&1").c_str()), 0);
}

TEST_F(StateFileTest, EveryTruncationAndCorruptionIsRefusedWithoutWrites) {
  std::vector<float> weights = {1, 2, 3, 4};
  amp_state_entry_t saved[] = {{"w", weights.data(), 16}};
  ASSERT_EQ(amp_state_save(path.c_str(), 1, saved), nullptr);
  const std::string good = readFile(path);
  std::vector<float> target(4, -7.0f);
  amp_state_entry_t loaded[] = {{"w", target.data(), 16}};
  for (size_t length = 0; length < good.size(); ++length) {
    writeFile(path, good.substr(0, length));
    Status status(amp_state_load(path.c_str(), 1, loaded));
    EXPECT_EQ(status.code(), AMP_DATA_LOSS) << "length " << length;
  }
  for (size_t at = 0; at < good.size(); ++at) {
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x10);
    writeFile(path, bad);
    Status status(amp_state_load(path.c_str(), 1, loaded));
    EXPECT_EQ(status.code(), AMP_DATA_LOSS) << "byte " << at;
  }
  writeFile(path, good + "x");
  EXPECT_EQ(Status(amp_state_load(path.c_str(), 1, loaded)).code(),
            AMP_DATA_LOSS);
  EXPECT_EQ(target, std::vector<float>(4, -7.0f));
}

TEST_F(StateFileTest, MismatchesNameTheEntry) {
  float a = 1, b[2] = {2, 3};
  amp_state_entry_t saved[] = {{"a", &a, 4}, {"b", b, 8}};
  ASSERT_EQ(amp_state_save(path.c_str(), 2, saved), nullptr);
  float x = 0, y[3] = {0, 0, 0};
  amp_state_entry_t renamed[] = {{"a", &x, 4}, {"c", y, 8}};
  Status name(amp_state_load(path.c_str(), 2, renamed));
  EXPECT_EQ(name.code(), AMP_INVALID_ARGUMENT);
  EXPECT_NE(name.message().find("is 'b', the step expects 'c'"),
            std::string::npos)
      << name.message();
  amp_state_entry_t resized[] = {{"a", &x, 4}, {"b", y, 12}};
  Status size(amp_state_load(path.c_str(), 2, resized));
  EXPECT_NE(size.message().find("entry 'b'"), std::string::npos)
      << size.message();
  Status count(amp_state_load(path.c_str(), 1, renamed));
  EXPECT_NE(count.message().find("holds 2 entries, the step has 1"),
            std::string::npos)
      << count.message();
  EXPECT_EQ(x, 0.0f); // nothing written by any failed load
  amp_state_entry_t twice[] = {{"a", &x, 4}, {"a", &x, 4}};
  EXPECT_EQ(Status(amp_state_save(path.c_str(), 2, twice)).code(),
            AMP_INVALID_ARGUMENT);
  amp_state_entry_t noData[] = {{"a", nullptr, 4}};
  EXPECT_EQ(Status(amp_state_save(path.c_str(), 1, noData)).code(),
            AMP_INVALID_ARGUMENT);
  EXPECT_EQ(Status(amp_state_load("", 0, nullptr)).code(),
            AMP_INVALID_ARGUMENT);
}

TEST_F(StateFileTest, UnwritablePlacesFailAndKeepTheOldFile) {
  float a = 1;
  amp_state_entry_t entry[] = {{"a", &a, 4}};
  ASSERT_EQ(amp_state_save(path.c_str(), 1, entry), nullptr);
  const std::string old = readFile(path);
  Status missing(
      amp_state_save((directory + "/no/such/dir/s").c_str(), 1, entry));
  EXPECT_EQ(missing.code(), AMP_IO_ERROR);
  EXPECT_NE(missing.message().find("No such file"), std::string::npos)
      << missing.message();
  // A directory where the file should be: refused before anything is
  // written, and the directory is untouched.
  std::string blocked = directory + "/blocked";
  ASSERT_EQ(mkdir(blocked.c_str(), 0755), 0);
  ASSERT_EQ(mkdir((blocked + "/inside").c_str(), 0755), 0);
  Status directoryThere(amp_state_save(blocked.c_str(), 1, entry));
  EXPECT_EQ(directoryThere.code(), AMP_INVALID_ARGUMENT);
  EXPECT_NE(directoryThere.message().find("is not a regular file"),
            std::string::npos)
      << directoryThere.message();
  EXPECT_EQ(Status(amp_state_check_path(blocked.c_str())).code(),
            AMP_INVALID_ARGUMENT);
  EXPECT_EQ(readFile(path), old);
  EXPECT_EQ(
      Status(amp_state_load((directory + "/absent").c_str(), 1, entry)).code(),
      AMP_IO_ERROR);
}

TEST_F(StateFileTest, SavesWriteRegularFilesAndFollowLinks) {
  float a = 1, b = 2;
  amp_state_entry_t first[] = {{"a", &a, 4}}, second[] = {{"a", &b, 4}};
  // A FIFO (a device alike) is refused and stays what it is; a load of it
  // is refused at once instead of blocking for a writer.
  std::string fifo = directory + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_EQ(Status(amp_state_save(fifo.c_str(), 1, first)).code(),
            AMP_INVALID_ARGUMENT);
  EXPECT_EQ(Status(amp_state_check_path(fifo.c_str())).code(),
            AMP_INVALID_ARGUMENT);
  EXPECT_EQ(Status(amp_state_load(fifo.c_str(), 1, first)).code(),
            AMP_INVALID_ARGUMENT);
  EXPECT_EQ(Status(amp_state_load("/dev/zero", 1, first)).code(),
            AMP_INVALID_ARGUMENT);
  struct stat info;
  ASSERT_EQ(lstat(fifo.c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode));
  // Through a link (relative, in the link's directory), the file it
  // names is replaced and the link stays a link; a dangling link's file
  // is created.
  ASSERT_EQ(amp_state_save(path.c_str(), 1, first), nullptr);
  std::string latest = directory + "/latest";
  ASSERT_EQ(symlink("step.state", latest.c_str()), 0);
  EXPECT_EQ(amp_state_check_path(latest.c_str()), nullptr);
  ASSERT_EQ(amp_state_save(latest.c_str(), 1, second), nullptr);
  ASSERT_EQ(lstat(latest.c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode));
  float back = 0;
  amp_state_entry_t loaded[] = {{"a", &back, 4}};
  ASSERT_EQ(amp_state_load(path.c_str(), 1, loaded), nullptr);
  EXPECT_EQ(back, 2);
  std::string dangling = directory + "/dangling";
  ASSERT_EQ(symlink("fresh", dangling.c_str()), 0);
  ASSERT_EQ(amp_state_save(dangling.c_str(), 1, first), nullptr);
  ASSERT_EQ(lstat(dangling.c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode));
  ASSERT_EQ(amp_state_load((directory + "/fresh").c_str(), 1, loaded), nullptr);
  EXPECT_EQ(back, 1);
  // A loop of links is refused.
  std::string loop = directory + "/loop";
  ASSERT_EQ(symlink("loop", loop.c_str()), 0);
  EXPECT_EQ(Status(amp_state_save(loop.c_str(), 1, first)).code(),
            AMP_INVALID_ARGUMENT);
}

TEST_F(StateFileTest, ASaveRemovesTheTemporariesOfKilledSaves) {
  float a = 1;
  amp_state_entry_t entry[] = {{"a", &a, 4}};
  // A pid above any the system hands out is gone; pid 1 is alive; a name
  // that is no pid is another file.
  for (const char *suffix : {".tmp.999999999", ".tmp.1", ".tmp.x"})
    ASSERT_EQ(std::system(("echo partial > " + path + suffix).c_str()), 0);
  ASSERT_EQ(amp_state_save(path.c_str(), 1, entry), nullptr);
  EXPECT_NE(access((path + ".tmp.999999999").c_str(), F_OK), 0);
  EXPECT_EQ(access((path + ".tmp.1").c_str(), F_OK), 0);
  EXPECT_EQ(access((path + ".tmp.x").c_str(), F_OK), 0);
}

TEST_F(StateFileTest, ASaverKilledMidWriteLeavesAWholeFile) {
  // The old state: 16 MiB of ones. A child saves 16 MiB of twos and is
  // killed at some point of the write; whatever the moment, the file then
  // loads as all ones or all twos.
  const size_t count = 4u << 20;
  std::vector<float> ones(count, 1.0f);
  amp_state_entry_t oldEntry[] = {{"w", ones.data(), count * 4}};
  ASSERT_EQ(amp_state_save(path.c_str(), 1, oldEntry), nullptr);
  for (int delayUs : {0, 2000, 20000}) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      std::vector<float> twos(count, 2.0f);
      amp_state_entry_t newEntry[] = {{"w", twos.data(), count * 4}};
      for (;;) // save over and over until killed
        amp_status_free(amp_state_save(path.c_str(), 1, newEntry));
    }
    usleep(static_cast<useconds_t>(delayUs));
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    std::vector<float> loaded(count);
    amp_state_entry_t entry[] = {{"w", loaded.data(), count * 4}};
    ASSERT_EQ(amp_state_load(path.c_str(), 1, entry), nullptr)
        << "after " << delayUs << " us";
    EXPECT_TRUE(loaded == ones || loaded == std::vector<float>(count, 2.0f))
        << "a mixed state after " << delayUs << " us";
  }
}

} // namespace
