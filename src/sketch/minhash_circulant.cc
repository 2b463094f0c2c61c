// SPDX-License-Identifier: Apache-2.0
//
// C-MinHash (Li and Li, "C-MinHash: Rigorously reducing K permutations to
// two", 2021), reimplemented from the paper's definition. The data are first
// shuffled by one permutation sigma; position k (0 <= k < P) is then the
// minimum over the shuffled set of a second permutation pi shifted
// circularly by k: h_k(S) = min_{x in S} pi((sigma(x) + k) mod D). Both
// documents of a pair use the same sigma and pi, so Pr[h_k(A) = h_k(B)] =
// J(A, B) for each k, and the paper shows the variance of the mean over k is
// at most that of P independent permutations.
//
// Here D = 2^32: sigma(x) is the low half of Mix64(x ^ seed) (a random
// function of the 64-bit shingle hash, a permutation of the shingles up to
// 2^-32 collisions), and pi(y) = fmix32(m*y + c) with m odd (MurmurHash3's
// 32-bit finalizer, a bijection, after an affine bijection). Because pi is a
// bijection, equal values mean equal shifted keys, so the signature has no
// accidental collisions beyond sigma's. m*(y + k) + c = m*y + (m*k + c): each
// shingle costs one multiply, then every position an add, the finalizer and
// a min, on 32-bit lanes (16 per AVX-512 instruction).
#include <algorithm>
#include <array>
#include <string>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "base/status_macros.h"
#include "sketch/minhash.h"
#include "sketch/mix.h"

namespace neardup::sketch {
namespace {

constexpr size_t kLanes = 32;      // positions per kernel call
constexpr size_t kKeyBlock = 512;  // shingles turned into keys at a time

// acc[l] = min(acc[l], min_j fmix32(keys[j] + add[l])) for kLanes lanes.
using Kernel = void (*)(const uint32_t* keys, size_t n, const uint32_t* add, uint32_t* acc);

void GenericKernel(const uint32_t* keys, size_t n, const uint32_t* add, uint32_t* acc) {
  for (size_t j = 0; j < n; ++j) {
    for (size_t l = 0; l < kLanes; ++l) acc[l] = std::min(acc[l], Fmix32(keys[j] + add[l]));
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(NEARDUP_NO_SIMD)
#define NEARDUP_CMINHASH_X86 1

// GCC 12 warns falsely about _mm512_set1_epi32's undefined start value.
#pragma GCC diagnostic push
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

__attribute__((target("avx512f"))) inline __m512i Fmix32x16(__m512i h) {
  h = _mm512_xor_si512(h, _mm512_srli_epi32(h, 16));
  h = _mm512_mullo_epi32(h, _mm512_set1_epi32(static_cast<int>(0x85EBCA6Bu)));
  h = _mm512_xor_si512(h, _mm512_srli_epi32(h, 13));
  h = _mm512_mullo_epi32(h, _mm512_set1_epi32(static_cast<int>(0xC2B2AE35u)));
  return _mm512_xor_si512(h, _mm512_srli_epi32(h, 16));
}

__attribute__((target("avx512f"))) void Avx512Kernel(const uint32_t* keys, size_t n,
                                                     const uint32_t* add, uint32_t* acc) {
  const __m512i d0 = _mm512_loadu_si512(add), d1 = _mm512_loadu_si512(add + 16);
  __m512i m0 = _mm512_loadu_si512(acc), m1 = _mm512_loadu_si512(acc + 16);
  for (size_t j = 0; j < n; ++j) {
    const __m512i x = _mm512_set1_epi32(static_cast<int>(keys[j]));
    m0 = _mm512_min_epu32(m0, Fmix32x16(_mm512_add_epi32(x, d0)));
    m1 = _mm512_min_epu32(m1, Fmix32x16(_mm512_add_epi32(x, d1)));
  }
  _mm512_storeu_si512(acc, m0);
  _mm512_storeu_si512(acc + 16, m1);
}
#pragma GCC diagnostic pop

__attribute__((target("avx2"))) inline __m256i Fmix32x8(__m256i h) {
  h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 16));
  h = _mm256_mullo_epi32(h, _mm256_set1_epi32(static_cast<int>(0x85EBCA6Bu)));
  h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 13));
  h = _mm256_mullo_epi32(h, _mm256_set1_epi32(static_cast<int>(0xC2B2AE35u)));
  return _mm256_xor_si256(h, _mm256_srli_epi32(h, 16));
}

__attribute__((target("avx2"))) void Avx2Kernel(const uint32_t* keys, size_t n, const uint32_t* add,
                                                uint32_t* acc) {
  __m256i d[4], m[4];
  for (int r = 0; r < 4; ++r) {
    d[r] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(add + 8 * r));
    m[r] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + 8 * r));
  }
  for (size_t j = 0; j < n; ++j) {
    const __m256i x = _mm256_set1_epi32(static_cast<int>(keys[j]));
    for (int r = 0; r < 4; ++r) {
      m[r] = _mm256_min_epu32(m[r], Fmix32x8(_mm256_add_epi32(x, d[r])));
    }
  }
  for (int r = 0; r < 4; ++r) _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc + 8 * r), m[r]);
}
#endif

struct NamedKernel {
  std::string_view name;
  Kernel fn;
};

// Best first, as MinHasher::Kernels() lists them.
const std::vector<NamedKernel>& CirculantKernels() {
  static const std::vector<NamedKernel> k = [] {
    std::vector<NamedKernel> v;
#ifdef NEARDUP_CMINHASH_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) v.push_back({"avx512", Avx512Kernel});
    if (__builtin_cpu_supports("avx2")) v.push_back({"avx2", Avx2Kernel});
#endif
    v.push_back({"generic", GenericKernel});
    return v;
  }();
  return k;
}

}  // namespace

void MinHasher::InitCirculant() {
  uint64_t state = options_.seed;
  sigma_seed_ = SplitMix64(&state);
  pi_mul_ = static_cast<uint32_t>(SplitMix64(&state)) | 1u;
  const auto c = static_cast<uint32_t>(SplitMix64(&state));
  pi_add_.assign(padded_, 0);
  for (size_t k = 0; k < padded_; ++k) pi_add_[k] = pi_mul_ * static_cast<uint32_t>(k) + c;
}

Status MinHasher::SketchCirculant(std::span<const uint64_t> shingles, std::span<uint32_t> out,
                                  std::string_view kernel) const {
  const auto& all = CirculantKernels();
  auto it = kernel.empty() ? all.begin() : std::find_if(all.begin(), all.end(), [&](const auto& k) {
    return k.name == kernel;
  });
  if (it == all.end()) {
    return Status::NotFound("MinHash kernel '" + std::string(kernel) + "' is not available here");
  }
  std::vector<uint32_t> acc(padded_, kEmptyMinHash);
  std::array<uint32_t, kKeyBlock> keys;
  for (size_t start = 0; start < shingles.size(); start += kKeyBlock) {
    const size_t n = std::min(kKeyBlock, shingles.size() - start);
    for (size_t j = 0; j < n; ++j) {
      keys[j] = pi_mul_ * static_cast<uint32_t>(Mix64(shingles[start + j] ^ sigma_seed_));
    }
    for (size_t c = 0; c < padded_; c += kLanes) it->fn(keys.data(), n, &pi_add_[c], &acc[c]);
  }
  std::copy_n(acc.begin(), out.size(), out.begin());
  return Status::OK();
}

}  // namespace neardup::sketch
