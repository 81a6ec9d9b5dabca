//===- TestFiles.h - statuses and scratch files for tests -------*- C++ -*-===//
//
// What the state-file and compiled-step tests share: a status that frees
// itself, a check of a failed call's status, and a fixture with a fresh
// temporary directory and whole-file reads and writes.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_TESTS_TESTFILES_H
#define AMP_RUNTIME_TESTS_TESTFILES_H

#include "amp_runtime/runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

/// A status that frees itself.
struct Status {
  explicit Status(amp_status_t status) : status(status) {}
  ~Status() { amp_status_free(status); }
  Status(const Status &) = delete;
  Status &operator=(const Status &) = delete;
  amp_status_code_t code() const { return amp_status_code(status); }
  std::string message() const {
    return status ? amp_status_message(status) : "";
  }
  amp_status_t status;
};

/// Expects `call` to fail with `expectedCode` and a message holding
/// `fragment`.
#define EXPECT_STATUS(call, expectedCode, fragment)                            \
  do {                                                                         \
    Status status_(call);                                                      \
    EXPECT_EQ(status_.code(), expectedCode) << status_.message();              \
    EXPECT_NE(status_.message().find(fragment), std::string::npos)             \
        << status_.message();                                                  \
  } while (0)

/// A test with its own temporary directory, removed afterwards.
class TempDirectoryTest : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/amp-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    directory = pattern;
  }
  void TearDown() override {
    std::string command = "rm -rf '" + directory + "'";
    ASSERT_EQ(std::system(command.c_str()), 0);
  }
  static std::string readFile(const std::string &file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  static void writeFile(const std::string &file, const std::string &bytes) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

  std::string directory;
};

#endif // AMP_RUNTIME_TESTS_TESTFILES_H
