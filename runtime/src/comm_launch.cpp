//===- comm_launch.cpp - ranks started without MPI ------------------------===//

#include "comm_launch.h"

#include "runtime_internal.h"
#include "status.h"

#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

// The id file: this header, then the id's bytes.
constexpr char kMagic[8] = {'A', 'M', 'P', 'N', 'C', 'I', 'D', '1'};
struct Header {
  char magic[8];
  uint32_t size;  // the job's ranks
  uint32_t bytes; // the id's
};

const char *variable(const char *name) {
  const char *value = std::getenv(name);
  return value && *value ? value : nullptr;
}

/// `name`'s value as a whole decimal number in [low, high].
amp_status_t readNumber(const char *name, long low, long high, long *out) {
  const char *text = variable(name);
  if (!text)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "%s is not set: a launch without mpirun gives each "
                      "process RANK and WORLD_SIZE, as torchrun does",
                      name);
  errno = 0;
  char *end = nullptr;
  long value = std::strtol(text, &end, 10);
  // Digits only: strtol would take leading blanks and a sign.
  if (!std::isdigit(static_cast<unsigned char>(text[0])) || errno || *end ||
      value < low || value > high)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "%s=%s: need a whole number from %ld to %ld", name, text,
                      low, high);
  *out = value;
  return nullptr;
}

} // namespace

amp_status_t amprt::readLaunch(Launch *out) {
  long size = 0, rank = 0;
  AMP_RETURN_IF_ERROR(readNumber("WORLD_SIZE", 1, INT_MAX, &size));
  AMP_RETURN_IF_ERROR(readNumber("RANK", 0, size - 1, &rank));
  Launch launch;
  launch.rank = static_cast<int>(rank);
  launch.size = static_cast<int>(size);
  if (const char *file = variable("AMP_NCCL_ID_FILE")) {
    launch.idFile = file;
  } else if (const char *commId = variable("NCCL_COMM_ID")) {
    launch.address = commId;
  } else if (const char *host = variable("MASTER_ADDR")) {
    long port = 0;
    AMP_RETURN_IF_ERROR(readNumber("MASTER_PORT", 1, 65535, &port));
    // NCCL reads an IPv6 address in brackets before its port.
    std::string address = host;
    if (address.find(':') != std::string::npos && address.front() != '[')
      address = "[" + address + "]";
    launch.address = address + ":" + std::to_string(port);
  } else {
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "no way to NCCL's unique id: set AMP_NCCL_ID_FILE (a "
                      "path on a file system every rank sees), NCCL_COMM_ID "
                      "(host:port where rank 0 listens), or MASTER_ADDR and "
                      "MASTER_PORT");
  }
  *out = launch;
  return nullptr;
}

amp_status_t amprt::publishId(const std::string &path, const void *id,
                              size_t bytes, int size) {
  if (::access(path.c_str(), F_OK) == 0)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "AMP_NCCL_ID_FILE=%s exists already (an earlier job's? "
                      "the other ranks could read its id): give each job a "
                      "path of its own, or remove it",
                      path.c_str());
  Header header{};
  std::memcpy(header.magic, kMagic, sizeof kMagic);
  header.size = static_cast<uint32_t>(size);
  header.bytes = static_cast<uint32_t>(bytes);
  return writeAtomically(path, {{&header, sizeof header}, {id, bytes}});
}

amp_status_t amprt::awaitId(const std::string &path, void *id, size_t bytes,
                            int size, double timeout) {
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
  int fd = -1;
  // Rank 0 renames the whole file into place: once it opens, it is whole.
  while ((fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC)) < 0) {
    if (errno != ENOENT)
      return AMP_STATUS(AMP_UNAVAILABLE, "cannot open AMP_NCCL_ID_FILE=%s: %s",
                        path.c_str(), std::strerror(errno));
    if (std::chrono::steady_clock::now() > deadline)
      return AMP_STATUS(AMP_DEADLINE_EXCEEDED,
                        "AMP_NCCL_ID_FILE=%s: rank 0 did not write NCCL's id "
                        "there within %g s; it has failed or sees another "
                        "file system",
                        path.c_str(), timeout);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // One byte more than an id file holds, to tell a longer file.
  std::vector<char> content(sizeof(Header) + bytes + 1);
  size_t got = 0;
  while (got < content.size()) {
    ssize_t n = ::read(fd, content.data() + got, content.size() - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  Header header{};
  if (got >= sizeof header)
    std::memcpy(&header, content.data(), sizeof header);
  if (got < sizeof header ||
      std::memcmp(header.magic, kMagic, sizeof kMagic) != 0 ||
      header.bytes != bytes || got != sizeof header + bytes)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "AMP_NCCL_ID_FILE=%s is not a file of NCCL's id as "
                      "rank 0 of this runtime writes it",
                      path.c_str());
  if (header.size != static_cast<uint32_t>(size))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "AMP_NCCL_ID_FILE=%s was written by rank 0 of %u ranks; "
                      "WORLD_SIZE is %d here",
                      path.c_str(), header.size, size);
  std::memcpy(id, content.data() + sizeof header, bytes);
  return nullptr;
}
