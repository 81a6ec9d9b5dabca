//===- state_file.cpp - atomic, checked saves of a training state ---------===//

#include "amp_runtime/state_file.h"

#include "runtime_internal.h"
#include "status.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <dirent.h>
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

/// The directory of `path` ("." for a bare file name) and its last
/// component.
std::pair<std::string, std::string> splitPath(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return {".", path};
  return {path.substr(0, slash ? slash : 1), path.substr(slash + 1)};
}

/// The file a save to `path` replaces: `path`, or through symbolic links
/// the file they name, so that a link (latest -> ckpt-100) still names the
/// state it did and that state is the new one. A path that exists and is
/// no regular file (a device, a directory, a FIFO) is refused: renaming
/// over it would replace it (as root, /dev/null itself).
amp_status_t saveTarget(const std::string &path, std::string &target) {
  target = path;
  for (int links = 0;; ++links) {
    struct stat info;
    if (::lstat(target.c_str(), &info) != 0)
      return errno == ENOENT ? nullptr : ioError("examine", target);
    if (S_ISREG(info.st_mode))
      return nullptr;
    if (!S_ISLNK(info.st_mode))
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "'%s' exists and is not a regular file (a device, "
                        "directory or pipe): saves write regular files only",
                        target.c_str());
    if (links == 40)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "'%s' goes through more than 40 symbolic links",
                        path.c_str());
    std::string link(static_cast<size_t>(info.st_size ? info.st_size : 256),
                     '\0');
    ssize_t length = ::readlink(target.c_str(), &link[0], link.size());
    if (length < 0)
      return ioError("read the link", target);
    link.resize(static_cast<size_t>(length));
    target = link.front() == '/' ? link : splitPath(target).first + "/" + link;
  }
}

/// Removes the temporaries (`<target>.tmp.<pid>`) that saves killed before
/// their rename left beside `target`, those whose process is gone. A state
/// path is written from one machine at a time: another machine's pids are
/// not this one's.
void removeStaleTemporaries(const std::string &target) {
  auto [directory, base] = splitPath(target);
  std::string prefix = base + ".tmp.";
  DIR *dir = ::opendir(directory.c_str());
  if (!dir)
    return;
  while (const dirent *entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix))
      continue;
    std::string digits = name.substr(prefix.size());
    if (digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      continue;
    auto pid = static_cast<pid_t>(std::stol(digits));
    if (pid > 0 && pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH)
      ::unlinkat(::dirfd(dir), name.c_str(), 0);
  }
  ::closedir(dir);
}

} // namespace

amp_status_t amprt::openRegularFile(const char *path, FILE **out) {
  *out = nullptr;
  // Not blocking on a FIFO that no one writes: it is refused below.
  int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return AMP_STATUS(AMP_IO_ERROR, "cannot open %s: %s", path,
                      std::strerror(errno));
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    amp_status_t status = ioError("examine", path);
    ::close(fd);
    return status;
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "'%s' is not a regular file (a device, directory or "
                      "pipe): only files are read",
                      path);
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  *out = ::fdopen(fd, "rb");
  if (!*out) {
    amp_status_t status = ioError("open", path);
    ::close(fd);
    return status;
  }
  return nullptr;
}

amp_status_t amprt::writeAtomically(const std::string &path,
                                    const std::vector<Piece> &pieces) {
  std::string target;
  AMP_RETURN_IF_ERROR(saveTarget(path, target));
  removeStaleTemporaries(target);
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
  int dirFd = ::open(splitPath(target).first.c_str(),
                     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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

amp_status_t amp_state_check_path(const char *path) {
  if (!path || !*path)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "path is empty");
  std::string target;
  AMP_RETURN_IF_ERROR(saveTarget(path, target));
  // The temporary a save would write, made and removed: the one test that
  // holds for root, read-only mounts and network file systems alike.
  std::string probe =
      target + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return ioError("create", probe);
  ::close(fd);
  ::unlink(probe.c_str());
  return nullptr;
}

amp_status_t amp_state_load(const char *path, size_t count,
                            const amp_state_entry_t *entries) {
  if (!path || !*path)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "path is empty");
  AMP_RETURN_IF_ERROR(checkEntries(count, entries));

  // A regular file, read to the size it has (a device or a pipe would
  // never end).
  std::string bytes;
  {
    FILE *file = nullptr;
    AMP_RETURN_IF_ERROR(amprt::openRegularFile(path, &file));
    struct stat info;
    bool failed = ::fstat(::fileno(file), &info) != 0;
    if (!failed) {
      bytes.resize(static_cast<size_t>(info.st_size));
      bytes.resize(std::fread(&bytes[0], 1, bytes.size(), file));
      failed = std::ferror(file);
    }
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

  bytes.resize(bytes.size() - 4); // the entries, without their CRC
  const std::string &body = bytes;
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
