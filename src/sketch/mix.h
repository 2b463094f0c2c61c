// SPDX-License-Identifier: Apache-2.0
//
// Small integer mixers shared by the sketches (internal header).
//  - SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
//    generators", OOPSLA 2014): a seeded stream for coefficients.
//  - Mix64: the MurmurHash3 fmix64 finalizer, a bijection on 64 bits with full
//    avalanche; Fmix32, its 32-bit counterpart (C-MinHash's permutation).
// Both are part of the on-disk format of the sketches that use them.
#ifndef NEARDUP_SKETCH_MIX_H_
#define NEARDUP_SKETCH_MIX_H_

#include <cstdint>

namespace neardup::sketch {

inline uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

inline uint64_t Mix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xFF51AFD7ED558CCDULL;
  k ^= k >> 33;
  k *= 0xC4CEB9FE1A85EC53ULL;
  k ^= k >> 33;
  return k;
}

inline uint32_t Fmix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

}  // namespace neardup::sketch

#endif  // NEARDUP_SKETCH_MIX_H_
