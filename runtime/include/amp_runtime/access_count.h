//===- access_count.h - counted loads and stores of kernels -----*- C++ -*-===//
//
// A generated kernel reaches the tensors it reads through `In<T>` members
// and the ones it writes through `Out<T>` members (step_kernels.h); in a
// normal build these are `const T *` and `T *`. A host build of the same
// generated source with AMP_STEP_COUNT_ACCESSES defined (amp-compile
// --count-accesses) makes them the classes below, which count every
// element each launch loads and stores, and the distinct bytes among them.
// Each launch then appends one JSON line to the file named by the
// environment variable AMP_STEP_ACCESS_LOG (standard error without it):
//
//   {"kernel": "k5_relu", "loads": 16384, "stores": 16384,
//    "elements_read": 16384, "elements_written": 16384,
//    "bytes_read": 32768, "bytes_written": 32768}
//
// (examples/mlp.mlir in f16: a relu over 64x256 f16 values).
//
// `elements_read` and `elements_written` count distinct elements, and
// `bytes_read` and `bytes_written` their bytes: what the cost report models
// for a launch (each tensor element once, as if caches held it), measured
// instead of derived. `loads` and `stores` count every access, so that a
// value the kernel loads again (a row's statistics pass, a row prologue
// recomputed at each read of the row) shows. Memory a kernel reaches through
// plain pointers (its scratch, a constant table) is not counted, as the cost
// report does not count it. Each launch runs as one range of indices, on one
// thread, so that its accesses are counted one at a time.
//
// Host only: the CUDA target has no counting build.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_ACCESS_COUNT_H
#define AMP_RUNTIME_ACCESS_COUNT_H

#if defined(__CUDACC__)
#error "access counting is for host builds of a step"
#endif

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <unordered_set>

namespace ampstep {

/// The accesses of the launch that runs now.
class AccessCount {
public:
  /// The one count of this library.
  static AccessCount &get() {
    static AccessCount count;
    return count;
  }

  void load(const void *address, int64_t bytes) {
    ++loads;
    if (read.insert(reinterpret_cast<uintptr_t>(address)).second)
      bytesRead += bytes;
  }
  void store(const void *address, int64_t bytes) {
    ++stores;
    if (written.insert(reinterpret_cast<uintptr_t>(address)).second)
      bytesWritten += bytes;
  }

  /// Appends the launch `kernel`'s line to the log and starts the next.
  void finish(const char *kernel) {
    const char *path = std::getenv("AMP_STEP_ACCESS_LOG");
    std::FILE *log = path && *path ? std::fopen(path, "a") : stderr;
    if (log) {
      std::fprintf(log,
                   "{\"kernel\": \"%s\", \"loads\": %lld, \"stores\": %lld, "
                   "\"elements_read\": %lld, \"elements_written\": %lld, "
                   "\"bytes_read\": %lld, \"bytes_written\": %lld}\n",
                   kernel, static_cast<long long>(loads),
                   static_cast<long long>(stores),
                   static_cast<long long>(read.size()),
                   static_cast<long long>(written.size()),
                   static_cast<long long>(bytesRead),
                   static_cast<long long>(bytesWritten));
      if (log != stderr)
        std::fclose(log);
    }
    read.clear();
    written.clear();
    loads = stores = bytesRead = bytesWritten = 0;
  }

private:
  std::unordered_set<uintptr_t> read, written;
  int64_t loads = 0, stores = 0, bytesRead = 0, bytesWritten = 0;
};

/// A tensor a kernel only reads: each element it loads is counted.
template <typename T> class In {
public:
  In(const T *data = nullptr) : data(data) {}
  explicit operator bool() const { return data != nullptr; }
  T operator[](int64_t i) const {
    AccessCount::get().load(data + i, sizeof(T));
    return data[i];
  }

private:
  const T *data;
};

/// A tensor a kernel writes (and may read): each element it loads or
/// stores is counted.
template <typename T> class Out {
public:
  /// Element i: reading it is a load, assigning it a store.
  class Element {
  public:
    explicit Element(T *address) : address(address) {}
    operator T() const {
      AccessCount::get().load(address, sizeof(T));
      return *address;
    }
    Element &operator=(T value) {
      AccessCount::get().store(address, sizeof(T));
      *address = value;
      return *this;
    }
    Element &operator=(const Element &other) { return *this = T(other); }

  private:
    T *address;
  };

  Out(T *data = nullptr) : data(data) {}
  Element operator[](int64_t i) const { return Element(data + i); }

private:
  T *data;
};

} // namespace ampstep

#endif // AMP_RUNTIME_ACCESS_COUNT_H
