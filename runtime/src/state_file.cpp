//===- state_file.cpp - atomic, checked saves of a training state ---------===//

#include "amp_runtime/state_file.h"

#include "runtime_internal.h"
#include "status.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

constexpr char kMagic[8] = {'A', 'M', 'P', 'S', 'T', 'A', 'T', 'E'};
constexpr uint32_t kVersion = 1;

struct CrcTable {
  uint32_t entries[256];
  CrcTable() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int bit = 0; bit < 8; ++bit)
        c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      entries[i] = c;
    }
  }
};

template <typename T> void append(std::string &out, T value) {
  out.append(reinterpret_cast<const char *>(&value), sizeof value);
}

amp_status_t checkEntries(size_t count, const amp_state_entry_t *entries) {
  if (count && !entries)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "entries is null");
  for (size_t i = 0; i < count; ++i) {
    if (!entries[i].name || !*entries[i].name)
      return AMP_STATUS(AMP_INVALID_ARGUMENT, "entry %zu has no name", i);
    if (std::strlen(entries[i].name) > UINT32_MAX)
      return AMP_STATUS(AMP_INVALID_ARGUMENT, "entry %zu's name is too long",
                        i);
    if (entries[i].size && !entries[i].data)
      return AMP_STATUS(AMP_INVALID_ARGUMENT, "entry '%s' has no data",
                        entries[i].name);
    for (size_t j = 0; j < i; ++j)
      if (!std::strcmp(entries[i].name, entries[j].name))
        return AMP_STATUS(AMP_INVALID_ARGUMENT, "entry '%s' appears twice",
                          entries[i].name);
  }
  return nullptr;
}

amp_status_t ioError(const char *what, const std::string &path) {
  return AMP_STATUS(AMP_IO_ERROR, "cannot %s '%s': %s", what, path.c_str(),
                    std::strerror(errno));
}

/// Writes all of `data` to `fd`, retrying short writes.
bool writeAll(int fd, const char *data, size_t size) {
  while (size) {
    ssize_t written = ::write(fd, data, size);
    if (written < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    data += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

/// A cursor over the loaded bytes that fails (and stays failed) at the end.
struct Reader {
  const std::string &bytes;
  size_t offset = 0;
  bool ok = true;
  const char *take(size_t size) {
    if (!ok || bytes.size() - offset < size) {
      ok = false;
      return nullptr;
    }
    const char *at = bytes.data() + offset;
    offset += size;
    return at;
  }
  template <typename T> T read() {
    T value{};
    if (const char *at = take(sizeof value))
      std::memcpy(&value, at, sizeof value);
    return value;
  }
};

} // namespace

amp_status_t amprt::writeAtomically(const std::string &target,
                                    const std::vector<Piece> &pieces) {
  std::string temporary =
      target + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  int fd =
      ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return ioError("create", temporary);
  int error = 0; // the first failure's errno
  for (const Piece &piece : pieces)
    if (!error &&
        !writeAll(fd, static_cast<const char *>(piece.data), piece.size))
      error = errno;
  // On disk before the rename, so the new name never points at a hole.
  if (!error && ::fsync(fd) != 0)
    error = errno;
  if (::close(fd) != 0 && !error)
    error = errno;
  if (error) {
    errno = error;
    amp_status_t status = ioError("write", temporary);
    ::unlink(temporary.c_str());
    return status;
  }
  if (::rename(temporary.c_str(), target.c_str()) != 0) {
    amp_status_t status = ioError("rename the save to", target);
    ::unlink(temporary.c_str());
    return status;
  }
  // Make the rename itself durable.
  size_t slash = target.rfind('/');
  std::string directory =
      slash == std::string::npos ? "." : target.substr(0, slash ? slash : 1);
  int dirFd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd >= 0) {
    ::fsync(dirFd);
    ::close(dirFd);
  }
  return nullptr;
}

extern "C" {

uint32_t amp_crc32(uint32_t crc, const void *data, size_t size) {
  static const CrcTable table;
  const auto *bytes = static_cast<const unsigned char *>(data);
  crc = ~crc;
  for (size_t i = 0; i < size; ++i)
    crc = table.entries[(crc ^ bytes[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

amp_status_t amp_state_save(const char *path, size_t count,
                            const amp_state_entry_t *entries) {
  if (!path || !*path)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "path is empty");
  AMP_RETURN_IF_ERROR(checkEntries(count, entries));
  if (count > UINT32_MAX)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "%zu entries are too many", count);

  std::string header(kMagic, sizeof kMagic);
  append(header, kVersion);
  append(header, static_cast<uint32_t>(count));
  uint32_t crc = amp_crc32(0, header.data(), header.size());

  // The header, then each entry's name and size and its data, then the
  // CRC of all of it.
  std::vector<std::string> prefixes(count);
  std::vector<amprt::Piece> pieces{{header.data(), header.size()}};
  for (size_t i = 0; i < count; ++i) {
    std::string &prefix = prefixes[i];
    uint32_t nameLength = static_cast<uint32_t>(std::strlen(entries[i].name));
    append(prefix, nameLength);
    prefix.append(entries[i].name, nameLength);
    append(prefix, static_cast<uint64_t>(entries[i].size));
    crc = amp_crc32(crc, prefix.data(), prefix.size());
    crc = amp_crc32(crc, entries[i].data, entries[i].size);
    pieces.push_back({prefix.data(), prefix.size()});
    pieces.push_back({entries[i].data, entries[i].size});
  }
  pieces.push_back({&crc, sizeof crc});
  return amprt::writeAtomically(path, pieces);
}

amp_status_t amp_state_load(const char *path, size_t count,
                            const amp_state_entry_t *entries) {
  if (!path || !*path)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "path is empty");
  AMP_RETURN_IF_ERROR(checkEntries(count, entries));

  std::string bytes;
  {
    FILE *file = std::fopen(path, "rb");
    if (!file)
      return ioError("open", path);
    char buffer[1 << 16];
    size_t got;
    while ((got = std::fread(buffer, 1, sizeof buffer, file)) > 0)
      bytes.append(buffer, got);
    bool failed = std::ferror(file);
    std::fclose(file);
    if (failed)
      return ioError("read", path);
  }

  if (bytes.size() < sizeof kMagic + 12 ||
      std::memcmp(bytes.data(), kMagic, sizeof kMagic))
    return AMP_STATUS(AMP_DATA_LOSS, "'%s' is not an amp state file", path);
  uint32_t stored;
  std::memcpy(&stored, bytes.data() + bytes.size() - 4, 4);
  if (amp_crc32(0, bytes.data(), bytes.size() - 4) != stored)
    return AMP_STATUS(AMP_DATA_LOSS,
                      "'%s' is truncated or corrupted (checksum mismatch)",
                      path);

  std::string body = bytes.substr(0, bytes.size() - 4);
  Reader reader{body};
  reader.take(sizeof kMagic);
  uint32_t version = reader.read<uint32_t>();
  if (version != kVersion)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "'%s' has format version %u; this runtime reads %u", path,
                      version, kVersion);
  uint32_t fileCount = reader.read<uint32_t>();
  if (fileCount != count)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "'%s' holds %u entries, the step has %zu", path,
                      fileCount, count);
  std::vector<const char *> sources(count);
  for (size_t i = 0; i < count; ++i) {
    uint32_t nameLength = reader.read<uint32_t>();
    const char *name = reader.take(nameLength);
    uint64_t size = reader.read<uint64_t>();
    const char *data = reader.take(size);
    if (!reader.ok)
      return AMP_STATUS(AMP_DATA_LOSS, "'%s' ends inside entry %zu", path, i);
    if (std::string(name, nameLength) != entries[i].name)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "entry %zu of '%s' is '%.*s', the step expects '%s'", i,
                        path, static_cast<int>(nameLength), name,
                        entries[i].name);
    if (size != entries[i].size)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "entry '%s' of '%s' has %llu bytes, the step %zu",
                        entries[i].name, path,
                        static_cast<unsigned long long>(size), entries[i].size);
    sources[i] = data;
  }
  if (reader.offset != body.size())
    return AMP_STATUS(AMP_DATA_LOSS, "'%s' has %zu bytes after its entries",
                      path, body.size() - reader.offset);
  // Everything checked: only now are the destinations written.
  for (size_t i = 0; i < count; ++i)
    if (entries[i].size)
      std::memcpy(entries[i].data, sources[i], entries[i].size);
  return nullptr;
}

} // extern "C"
