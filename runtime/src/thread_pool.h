//===- thread_pool.h - the host's worker threads ----------------*- C++ -*-===//
//
// One pool per process, made on first use and made again in a child after
// fork (a child has only the thread that forked). amp_host_parallel_for is
// its C face; the host backend calls parallelFor with a lambda.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_SRC_THREAD_POOL_H
#define AMP_RUNTIME_SRC_THREAD_POOL_H

#include "amp_runtime/runtime.h"

#include <cstdint>

namespace amprt {

/// body(begin, end) over [0, count) in ranges of at least `grain` indices,
/// one per thread (amp_host_parallel_for).
template <typename Body>
amp_status_t parallelFor(int64_t count, int64_t grain, const Body &body) {
  return amp_host_parallel_for(
      count, grain,
      [](void *context, int64_t begin, int64_t end) {
        (*static_cast<const Body *>(context))(begin, end);
      },
      const_cast<Body *>(&body));
}

} // namespace amprt

#endif // AMP_RUNTIME_SRC_THREAD_POOL_H
