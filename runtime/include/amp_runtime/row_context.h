//===- row_context.h - a row's sums in the order of a warp ------*- C++ -*-===//
//
// The row ops (row_math.h) sum and take maxima over a row through a row
// context, so that one body runs on the host and on a GPU and combines in
// the same order on both. The order is a warp's: lane l of kRowLanes folds
// the terms j = l, l + 32, l + 64, ... in order from the identity; then the
// lanes combine by a butterfly of offsets 16, 8, 4, 2, 1, where the lanes
// i and i + offset (i < offset) both take combine(p[i], p[i + offset]); the
// result is what lane 0 holds, and every lane holds the same.
//
// HostRow computes the 32 lane partials one after another in an array and
// then the same butterfly, so that the host (the interpreter, the host
// backend, the generated host code) gives a GPU's bits. WarpRow, under
// nvcc, is one lane of a warp that works on the row: its sum folds the
// lane's terms and combines them with __shfl_xor_sync; every lane of the
// warp must call it (a row's control flow is the same in all its lanes).
// forEach(n, f) calls f(j) for every j, each j once: in order on the host,
// strided over the lanes on a GPU; leads() is true in one lane of the row.
//
// Header-only, free of LLVM, AMP_HOST_DEVICE; RowContextTest checks the
// host order bit for bit against the butterfly written out.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_ROW_CONTEXT_H
#define AMP_RUNTIME_ROW_CONTEXT_H

#include "amp_runtime/float_formats.h" // AMP_HOST_DEVICE

#include <math.h>
#include <stdint.h>

namespace amprt {

/// The lanes of a warp, over which a row's terms are dealt.
constexpr int kRowLanes = 32;

/// The larger of `a` and `b`, NaN when either is (torch.maximum).
template <typename T> AMP_HOST_DEVICE inline T maxOrNaN(T a, T b) {
  if (a != a || b != b)
    return static_cast<T>(NAN);
  return a < b ? b : a;
}

/// a + b, the combination of a row sum.
struct AddTerms {
  template <typename T> AMP_HOST_DEVICE T operator()(T a, T b) const {
    return a + b;
  }
};

/// maxOrNaN(a, b), the combination of a row maximum.
struct MaxTerms {
  template <typename T> AMP_HOST_DEVICE T operator()(T a, T b) const {
    return maxOrNaN(a, b);
  }
};

/// A row on the host: the 32 lanes of a warp emulated one after another.
struct HostRow {
  /// Combines `term(j)` for j in [0, n) in the warp's order.
  template <typename T, typename Term, typename Combine>
  AMP_HOST_DEVICE static T reduce(int64_t n, T identity, Term &&term,
                                  Combine &&combine) {
    T lanes[kRowLanes];
    for (int l = 0; l < kRowLanes; ++l)
      lanes[l] = identity;
    // Row by row of the lanes: each lane still folds its terms in order.
    for (int64_t start = 0; start < n; start += kRowLanes) {
      int count =
          n - start < kRowLanes ? static_cast<int>(n - start) : kRowLanes;
      for (int l = 0; l < count; ++l)
        lanes[l] = combine(lanes[l], static_cast<T>(term(start + l)));
    }
    for (int offset = kRowLanes / 2; offset > 0; offset /= 2)
      for (int l = 0; l < offset; ++l)
        lanes[l] = combine(lanes[l], lanes[l + offset]);
    return lanes[0];
  }

  /// The sum of `term(j)` for j in [0, n), from 0.
  template <typename Term>
  AMP_HOST_DEVICE auto sum(int64_t n, Term &&term) const {
    using T = decltype(term(int64_t()));
    return reduce(n, static_cast<T>(0), term, AddTerms());
  }

  /// The maximum of `term(j)` for j in [0, n), NaN when a term is, -inf
  /// when n is 0.
  template <typename Term>
  AMP_HOST_DEVICE auto max(int64_t n, Term &&term) const {
    using T = decltype(term(int64_t()));
    return reduce(n, static_cast<T>(-INFINITY), term, MaxTerms());
  }

  /// f(j) for j in [0, n), in order.
  template <typename Fn> AMP_HOST_DEVICE void forEach(int64_t n, Fn &&f) const {
    for (int64_t j = 0; j < n; ++j)
      f(j);
  }

  /// Whether this lane writes what the row has once (a row's loss).
  AMP_HOST_DEVICE bool leads() const { return true; }
};

#if defined(__CUDACC__)
/// A row on a GPU: lane `lane` of the warp that works on it.
struct WarpRow {
  unsigned lane;

  template <typename T, typename Term, typename Combine>
  __device__ T reduce(int64_t n, T identity, Term &&term,
                      Combine &&combine) const {
    T value = identity;
    for (int64_t j = lane; j < n; j += kRowLanes)
      value = combine(value, static_cast<T>(term(j)));
    // Both lanes of a pair put the lower lane's partial on the left, as the
    // host does, so that every lane has lane 0's bits.
    for (int offset = kRowLanes / 2; offset > 0; offset /= 2) {
      T other = __shfl_xor_sync(0xffffffffu, value, offset);
      value = (lane & offset) ? combine(other, value) : combine(value, other);
    }
    return value;
  }

  template <typename Term> __device__ auto sum(int64_t n, Term &&term) const {
    using T = decltype(term(int64_t()));
    return reduce(n, static_cast<T>(0), term, AddTerms());
  }

  template <typename Term> __device__ auto max(int64_t n, Term &&term) const {
    using T = decltype(term(int64_t()));
    return reduce(n, static_cast<T>(-INFINITY), term, MaxTerms());
  }

  template <typename Fn> __device__ void forEach(int64_t n, Fn &&f) const {
    for (int64_t j = lane; j < n; j += kRowLanes)
      f(j);
  }

  __device__ bool leads() const { return lane == 0; }
};
#endif

} // namespace amprt

#endif // AMP_RUNTIME_ROW_CONTEXT_H
