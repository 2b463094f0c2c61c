// SPDX-License-Identifier: Apache-2.0
//
// Linear Hamming scan with run-time CPU dispatch (see scan.h). The AVX-512
// path XORs 8 fingerprints with the query, counts bits with VPOPCNTQ and
// compares against k into a lane mask whose set bits are the matches.
#include "index/scan.h"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace neardup::index {
namespace {

using ScanFn = size_t (*)(const uint64_t*, size_t, uint64_t, int, uint32_t*);
using PackedFn = size_t (*)(const uint8_t*, int, size_t, size_t, uint64_t, uint64_t, uint64_t, int,
                            uint32_t*);

inline uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

template <int kWidth>
inline size_t PackedLoop(const uint8_t* data, size_t begin, size_t end, uint64_t hi, uint64_t low,
                         uint64_t qp, int k, uint32_t* idx) {
  size_t c = 0;
  const uint64_t qx = qp ^ hi;
  for (size_t i = begin; i < end; ++i) {
    const uint64_t v = Load64(data + i * kWidth) & low;
    idx[c] = static_cast<uint32_t>(i);
    c += __builtin_popcountll(v ^ qx) <= k;
  }
  return c;
}

size_t PackedPortable(const uint8_t* data, int width, size_t begin, size_t end, uint64_t hi,
                      uint64_t low, uint64_t qp, int k, uint32_t* idx) {
  return width == 6 ? PackedLoop<6>(data, begin, end, hi, low, qp, k, idx)
                    : PackedLoop<8>(data, begin, end, hi, low, qp, k, idx);
}

template <typename Pop>
inline size_t ScanScalar(const uint64_t* fps, size_t begin, size_t n, uint64_t q, int k,
                         uint32_t* idx, size_t c, Pop pop) {
  for (size_t i = begin; i < n; ++i) {
    idx[c] = static_cast<uint32_t>(i);
    c += pop(fps[i] ^ q) <= k;
  }
  return c;
}

size_t ScanPortable(const uint64_t* fps, size_t n, uint64_t q, int k, uint32_t* idx) {
  return ScanScalar(fps, 0, n, q, k, idx, 0, [](uint64_t x) { return __builtin_popcountll(x); });
}

#if defined(__x86_64__)
__attribute__((target("popcnt"))) size_t ScanPopcnt(const uint64_t* fps, size_t n, uint64_t q,
                                                    int k, uint32_t* idx) {
  return ScanScalar(fps, 0, n, q, k, idx, 0, [](uint64_t x) { return __builtin_popcountll(x); });
}

__attribute__((target("popcnt"))) size_t PackedPopcnt(const uint8_t* data, int width, size_t begin,
                                                      size_t end, uint64_t hi, uint64_t low,
                                                      uint64_t qp, int k, uint32_t* idx) {
  return width == 6 ? PackedLoop<6>(data, begin, end, hi, low, qp, k, idx)
                    : PackedLoop<8>(data, begin, end, hi, low, qp, k, idx);
}

__attribute__((target("avx512f,avx512vpopcntdq,popcnt"))) size_t ScanAvx512(const uint64_t* fps,
                                                                            size_t n, uint64_t q,
                                                                            int k, uint32_t* idx) {
  const __m512i vq = _mm512_set1_epi64(static_cast<long long>(q));
  const __m512i vk = _mm512_set1_epi64(k);
  size_t c = 0, i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m512i x = _mm512_xor_si512(_mm512_loadu_si512(fps + i), vq);
    unsigned m = _mm512_cmple_epu64_mask(_mm512_popcnt_epi64(x), vk);
    while (m != 0) {
      idx[c++] = static_cast<uint32_t>(i + __builtin_ctz(m));
      m &= m - 1;
    }
  }
  return ScanScalar(fps, i, n, q, k, idx, c, [](uint64_t x) { return __builtin_popcountll(x); });
}
#endif

struct Dispatch {
  ScanFn fn = ScanPortable;
  PackedFn packed = PackedPortable;
  const char* name = "portable";
  Dispatch() {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq")) {
      fn = ScanAvx512;
      name = "avx512";
    } else if (__builtin_cpu_supports("popcnt")) {
      fn = ScanPopcnt;
      name = "popcnt";
    }
    if (__builtin_cpu_supports("popcnt")) packed = PackedPopcnt;
#endif
  }
};

const Dispatch& GetDispatch() {
  static const Dispatch d;
  return d;
}

}  // namespace

size_t ScanLinear(const uint64_t* fps, size_t n, uint64_t q, int k, uint32_t* idx) {
  return GetDispatch().fn(fps, n, q, k, idx);
}

size_t ScanPacked(const uint8_t* data, int width, size_t begin, size_t end, uint64_t hi,
                  uint64_t low, uint64_t qp, int k, uint32_t* idx) {
  return GetDispatch().packed(data, width, begin, end, hi, low, qp, k, idx);
}

const char* ScanLinearImplementation() { return GetDispatch().name; }

}  // namespace neardup::index
