//===- random.h - counter-based random numbers, written once ---*- C++ -*-===//
//
// Dropout's masks come from Philox4x32-10 (Salmon, Moraes, Dror and Shaw,
// "Parallel Random Numbers: As Easy as 1, 2, 3", SC 2011), the generator
// cuRAND and PyTorch's CUDA dropout use: a pure function of a 128-bit
// counter and a 64-bit key, so element i of a mask is computed where it is
// needed, by any thread, with no generator state to carry. The
// interpreter, the host backend and the generated CUDA code all call these
// functions; integer arithmetic only, so every target draws the same bits.
//
// The layout of a mask (amp.dropout): the key is the generator's seed;
// the counter is (element / 4 in two words, the forward pass's number
// modulo 2^32, the op's stream), and element i takes word i % 4 of its
// block. An element is dropped when the top 24 bits of its word are below
// ceil(p * 2^24), i.e. with probability p to within 2^-24.
//
// The tests' oracles stay outside this header: Random123's published
// known answers and an independent implementation in Python.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_RANDOM_H
#define AMP_RUNTIME_RANDOM_H

#include "amp_runtime/float_formats.h" // AMP_HOST_DEVICE

#include <math.h>
#include <stdint.h>

namespace amprt {

/// Four 32-bit words: a Philox counter or its output.
struct PhiloxBlock {
  uint32_t word[4];
};

/// Philox4x32 with 10 rounds: the block for `counter` under key (k0, k1).
AMP_HOST_DEVICE inline PhiloxBlock philox4x32(PhiloxBlock counter, uint32_t k0,
                                              uint32_t k1) {
  const uint32_t multiplier0 = 0xD2511F53u, multiplier1 = 0xCD9E8D57u;
  const uint32_t weyl0 = 0x9E3779B9u, weyl1 = 0xBB67AE85u;
  uint32_t c0 = counter.word[0], c1 = counter.word[1];
  uint32_t c2 = counter.word[2], c3 = counter.word[3];
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += weyl0;
      k1 += weyl1;
    }
    uint64_t product0 = static_cast<uint64_t>(multiplier0) * c0;
    uint64_t product1 = static_cast<uint64_t>(multiplier1) * c2;
    uint32_t hi0 = static_cast<uint32_t>(product0 >> 32);
    uint32_t lo0 = static_cast<uint32_t>(product0);
    uint32_t hi1 = static_cast<uint32_t>(product1 >> 32);
    uint32_t lo1 = static_cast<uint32_t>(product1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
  }
  return {{c0, c1, c2, c3}};
}

/// The drop threshold of probability `p` (in [0, 1)): ceil(p * 2^24).
inline uint32_t dropoutThreshold(double p) {
  return static_cast<uint32_t>(ceil(p * 16777216.0));
}

/// Whether element `index` of a mask survives: `seed` and `pass` are the
/// generator's state (amp.dropout's rng operand), `stream` the op's.
AMP_HOST_DEVICE inline bool dropoutKeeps(int64_t seed, int64_t pass,
                                         int64_t stream, int64_t index,
                                         uint32_t threshold) {
  uint64_t block = static_cast<uint64_t>(index) >> 2;
  PhiloxBlock counter = {
      {static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
       static_cast<uint32_t>(pass), static_cast<uint32_t>(stream)}};
  uint64_t key = static_cast<uint64_t>(seed);
  PhiloxBlock bits = philox4x32(counter, static_cast<uint32_t>(key),
                                static_cast<uint32_t>(key >> 32));
  return (bits.word[index & 3] >> 8) >= threshold;
}

/// Element `index` of dropout: x times 1 / (1 - p) where the mask keeps
/// it, times 0 where it drops it (an inf or NaN dropped is NaN, as
/// PyTorch's x * mask * scale); in T (f32 for the 16-bit formats).
template <typename T>
AMP_HOST_DEVICE inline T dropout(T x, int64_t seed, int64_t pass,
                                 int64_t stream, int64_t index,
                                 uint32_t threshold, T scale) {
  return x *
         (dropoutKeeps(seed, pass, stream, index, threshold) ? scale : T(0));
}

/// splitmix64 (Steele, Lea and Flood, "Fast Splittable Pseudorandom
/// Number Generators", OOPSLA 2014): the next of a sequence of well-mixed
/// 64-bit values. The host's sequential draws come from it: the
/// parameters amp_step_init draws, the data sets' shuffles
/// (amp_epoch_order) and the interpreter's random inputs.
inline uint64_t splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// A double uniform in [0, 1): the top 53 bits of `bits`.
inline double unitOfBits(uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1p-53;
}

/// A double uniform in [0, 1) from the next splitmix64 value.
inline double splitmix64Unit(uint64_t &state) {
  return unitOfBits(splitmix64(state));
}

} // namespace amprt

#endif // AMP_RUNTIME_RANDOM_H
