// SPDX-License-Identifier: Apache-2.0
#include "sketch/minhash.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <string>
#include <string_view>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "base/status_macros.h"
#include "sketch/mix.h"

namespace neardup::sketch {
namespace {

constexpr uint64_t kMersenne61 = (1ULL << 61) - 1;
constexpr uint64_t kLow32 = 0xFFFFFFFFULL;
constexpr size_t kLanes = 32;      // permutations per kernel call
constexpr size_t kKeyBlock = 512;  // shingles converted to keys at a time

// Kernels: acc[l] = min over the keys x of h_l(x) for kLanes lanes, where
// h_l(x) = a_l * x + b_l mod 2^64 and a_l * x = a_lo*x + (a_hi*x << 32), so
// every product is 32x32->64 (vpmuludq: one micro-op, unlike vpmullq). A
// kernel either keeps the 64-bit minimum (the signature takes its top half)
// or, without a 64-bit unsigned min instruction, the minimum of the top
// halves; both give the same signature because >> 32 is monotone.
using Kernel = void (*)(const uint64_t* keys, size_t n, const uint64_t* a_lo, const uint64_t* a_hi,
                        const uint64_t* b, uint64_t* acc);

void GenericKernel(const uint64_t* keys, size_t n, const uint64_t* a_lo, const uint64_t* a_hi,
                   const uint64_t* b, uint64_t* acc) {
  uint64_t m[kLanes];
  for (size_t l = 0; l < kLanes; ++l) m[l] = acc[l];
  for (size_t j = 0; j < n; ++j) {
    const uint64_t x = keys[j];
    for (size_t l = 0; l < kLanes; ++l) {
      const uint64_t v = a_lo[l] * x + ((a_hi[l] * x) << 32) + b[l];
      m[l] = v < m[l] ? v : m[l];
    }
  }
  for (size_t l = 0; l < kLanes; ++l) acc[l] = m[l];
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(NEARDUP_NO_SIMD)
#define NEARDUP_MINHASH_X86 1

// GCC 12 warns falsely about _mm512_set1_epi64's undefined start value.
#pragma GCC diagnostic push
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// 32 lanes in four 512-bit registers; keeps 64-bit minima.
__attribute__((target("avx512f"))) void Avx512Kernel(const uint64_t* keys, size_t n,
                                                     const uint64_t* a_lo, const uint64_t* a_hi,
                                                     const uint64_t* b, uint64_t* acc) {
  __m512i m[4], lo[4], hi[4], bb[4];
  for (int r = 0; r < 4; ++r) {
    m[r] = _mm512_loadu_si512(acc + 8 * r);
    lo[r] = _mm512_loadu_si512(a_lo + 8 * r);
    hi[r] = _mm512_loadu_si512(a_hi + 8 * r);
    bb[r] = _mm512_loadu_si512(b + 8 * r);
  }
  for (size_t j = 0; j < n; ++j) {
    const __m512i x = _mm512_set1_epi64(static_cast<long long>(keys[j]));
    for (int r = 0; r < 4; ++r) {
      const __m512i v = _mm512_add_epi64(_mm512_add_epi64(_mm512_mul_epu32(lo[r], x), bb[r]),
                                         _mm512_slli_epi64(_mm512_mul_epu32(hi[r], x), 32));
      m[r] = _mm512_min_epu64(m[r], v);
    }
  }
  for (int r = 0; r < 4; ++r) _mm512_storeu_si512(acc + 8 * r, m[r]);
}
#pragma GCC diagnostic pop

// 16 lanes at a time in four 256-bit registers; keeps minima of the top
// halves (AVX2 has no unsigned 64-bit min, but the top halves fit vpminud).
__attribute__((target("avx2"))) void Avx2Kernel(const uint64_t* keys, size_t n,
                                                const uint64_t* a_lo, const uint64_t* a_hi,
                                                const uint64_t* b, uint64_t* acc) {
  for (size_t half = 0; half < kLanes; half += 16) {
    __m256i m[4], lo[4], hi[4], bb[4];
    for (int r = 0; r < 4; ++r) {
      const size_t o = half + 4 * r;
      m[r] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + o));
      lo[r] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a_lo + o));
      hi[r] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a_hi + o));
      bb[r] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + o));
    }
    for (size_t j = 0; j < n; ++j) {
      const __m256i x = _mm256_set1_epi64x(static_cast<long long>(keys[j]));
      for (int r = 0; r < 4; ++r) {
        const __m256i v = _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(lo[r], x), bb[r]),
                                           _mm256_slli_epi64(_mm256_mul_epu32(hi[r], x), 32));
        m[r] = _mm256_min_epu32(m[r], _mm256_srli_epi64(v, 32));
      }
    }
    for (int r = 0; r < 4; ++r) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc + half + 4 * r), m[r]);
    }
  }
}
#endif

struct KernelChoice {
  std::string_view name;
  Kernel fn;
  bool keeps_top_half;  // acc holds minima of v >> 32 rather than of v
};

std::vector<KernelChoice> SupportedKernels() {
  std::vector<KernelChoice> k;
#ifdef NEARDUP_MINHASH_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) k.push_back({"avx512", Avx512Kernel, false});
  if (__builtin_cpu_supports("avx2")) k.push_back({"avx2", Avx2Kernel, true});
#endif
  k.push_back({"generic", GenericKernel, false});
  return k;
}

const KernelChoice& BestKernel() {
  static const KernelChoice k = SupportedKernels().front();
  return k;
}

uint64_t ModMersenne61(unsigned __int128 t) {
  uint64_t r = static_cast<uint64_t>(t & kMersenne61) + static_cast<uint64_t>(t >> 61);
  r = (r & kMersenne61) + (r >> 61);
  return r >= kMersenne61 ? r - kMersenne61 : r;
}

}  // namespace

MinHasher::MinHasher(const MinHashOptions& options) : options_(options) {
  const size_t p = static_cast<size_t>(options.num_perm);
  padded_ = (p + kLanes - 1) / kLanes * kLanes;
  uint64_t state = options.seed;
  if (options.scheme == MinHashScheme::kOnePermutation) return;
  if (options.family == MinHashFamily::kMultiplyShift) {
    a_lo_.assign(padded_, 0);
    a_hi_.assign(padded_, 0);
    b_.assign(padded_, 0);
    for (size_t i = 0; i < p; ++i) {
      const uint64_t a = SplitMix64(&state);
      a_lo_[i] = a & kLow32;
      a_hi_[i] = a >> 32;
      b_[i] = SplitMix64(&state);
    }
  } else {
    a_.resize(p);
    b_.resize(p);
    for (size_t i = 0; i < p; ++i) {
      a_[i] = 1 + SplitMix64(&state) % (kMersenne61 - 1);
      b_[i] = SplitMix64(&state) % kMersenne61;
    }
  }
}

Result<MinHasher> MinHasher::Create(const MinHashOptions& options) {
  if (options.num_perm < 1 || options.num_perm > 4096) {
    return Status::InvalidArgument("num_perm must be in [1, 4096], got " +
                                   std::to_string(options.num_perm));
  }
  return MinHasher(options);
}

std::vector<uint32_t> MinHasher::Sketch(std::span<const uint64_t> shingles) const {
  std::vector<uint32_t> out(static_cast<size_t>(options_.num_perm));
  Sketch(shingles, out);
  return out;
}

void MinHasher::Sketch(std::span<const uint64_t> shingles, std::span<uint32_t> out) const {
  NEARDUP_CHECK(out.size() == static_cast<size_t>(options_.num_perm));
  if (options_.scheme == MinHashScheme::kOnePermutation) {
    SketchOnePermutation(shingles, out);
  } else if (options_.family == MinHashFamily::kMultiplyShift) {
    SketchMultiplyShift(shingles, out);
  } else {
    SketchMersenne(shingles, out);
  }
}

std::vector<std::string_view> MinHasher::Kernels() {
  std::vector<std::string_view> names;
  for (const auto& k : SupportedKernels()) names.push_back(k.name);
  return names;
}

Status MinHasher::SketchWithKernel(std::string_view kernel, std::span<const uint64_t> shingles,
                                   std::span<uint32_t> out) const {
  if (options_.scheme != MinHashScheme::kPermutations ||
      options_.family != MinHashFamily::kMultiplyShift) {
    return Status::FailedPrecondition("kernels exist for multiply-shift permutations only");
  }
  for (const auto& k : SupportedKernels()) {
    if (k.name == kernel) {
      NEARDUP_CHECK(out.size() == static_cast<size_t>(options_.num_perm));
      SketchMultiplyShift(shingles, out, &k);
      return Status::OK();
    }
  }
  return Status::NotFound("MinHash kernel '" + std::string(kernel) + "' is not available here");
}

void MinHasher::SketchMultiplyShift(std::span<const uint64_t> shingles, std::span<uint32_t> out,
                                    const void* kernel_choice) const {
  const KernelChoice& kernel =
      kernel_choice ? *static_cast<const KernelChoice*>(kernel_choice) : BestKernel();
  std::vector<uint64_t> acc(padded_, kernel.keeps_top_half ? kLow32 : ~0ULL);
  std::array<uint64_t, kKeyBlock> keys;
  for (size_t start = 0; start < shingles.size(); start += kKeyBlock) {
    const size_t n = std::min(kKeyBlock, shingles.size() - start);
    for (size_t j = 0; j < n; ++j) {
      const uint64_t s = shingles[start + j];
      keys[j] = (s ^ (s >> 32)) & kLow32;
    }
    for (size_t c = 0; c < padded_; c += kLanes) {
      kernel.fn(keys.data(), n, &a_lo_[c], &a_hi_[c], &b_[c], &acc[c]);
    }
  }
  const int shift = kernel.keeps_top_half ? 0 : 32;
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint32_t>(acc[i] >> shift);
}

void MinHasher::SketchMersenne(std::span<const uint64_t> shingles, std::span<uint32_t> out) const {
  std::vector<uint64_t> acc(out.size(), ~0ULL);
  for (uint64_t s : shingles) {
    const uint64_t x = ModMersenne61(s);
    for (size_t i = 0; i < acc.size(); ++i) {
      const uint64_t v = ModMersenne61(static_cast<unsigned __int128>(a_[i]) * x + b_[i]);
      acc[i] = std::min(acc[i], v);
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = acc[i] == ~0ULL ? kEmptyMinHash : static_cast<uint32_t>(acc[i] & kLow32);
  }
}

void MinHasher::SketchOnePermutation(std::span<const uint64_t> shingles,
                                     std::span<uint32_t> out) const {
  const uint64_t p = out.size();
  std::vector<uint64_t> acc(p, ~0ULL);  // bin minimum of the 32-bit value; ~0 = empty
  for (uint64_t s : shingles) {
    const uint64_t v = Mix64(s ^ options_.seed);
    const uint64_t bin = ((v >> 32) * p) >> 32;
    acc[bin] = std::min<uint64_t>(acc[bin], v & kLow32);
  }
  const bool any = std::any_of(acc.begin(), acc.end(), [](uint64_t v) { return v != ~0ULL; });
  for (uint64_t i = 0; i < p; ++i) {
    uint64_t v = acc[i];
    // Optimal densification: bin i probes bins by its own hash sequence until
    // one is non-empty. Both documents of a pair follow the same sequence.
    for (uint64_t attempt = 0; v == ~0ULL && any; ++attempt) {
      const uint64_t h = Mix64(options_.seed + 0x9E3779B97F4A7C15ULL * (i + 1) + attempt);
      v = acc[((h >> 32) * p) >> 32];
    }
    out[i] = v == ~0ULL ? kEmptyMinHash : static_cast<uint32_t>(v);
  }
}

double EstimateJaccard(std::span<const uint32_t> a, std::span<const uint32_t> b) {
  NEARDUP_CHECK(a.size() == b.size() && !a.empty());
  size_t equal = 0;
  for (size_t i = 0; i < a.size(); ++i) equal += a[i] == b[i];
  return static_cast<double>(equal) / static_cast<double>(a.size());
}

Result<std::vector<uint64_t>> PackBBit(std::span<const uint32_t> signature, int bits) {
  if (bits <= 0 || bits > 32 || !std::has_single_bit(static_cast<unsigned>(bits))) {
    return Status::InvalidArgument("b-bit width must be 1, 2, 4, 8, 16 or 32, got " +
                                   std::to_string(bits));
  }
  const size_t per_word = 64 / static_cast<size_t>(bits);
  const uint64_t mask = (1ULL << bits) - 1;
  std::vector<uint64_t> packed((signature.size() + per_word - 1) / per_word, 0);
  for (size_t i = 0; i < signature.size(); ++i) {
    packed[i / per_word] |= (signature[i] & mask) << ((i % per_word) * bits);
  }
  return packed;
}

double EstimateJaccardBBit(std::span<const uint64_t> a, std::span<const uint64_t> b, int num_perm,
                           int bits) {
  NEARDUP_CHECK(a.size() == b.size() && num_perm > 0 && bits > 0 && bits <= 32);
  const size_t per_word = 64 / static_cast<size_t>(bits);
  const uint64_t mask = (1ULL << bits) - 1;
  size_t equal = 0;
  for (size_t i = 0; i < static_cast<size_t>(num_perm); ++i) {
    const int shift = static_cast<int>((i % per_word) * bits);
    equal += ((a[i / per_word] >> shift) & mask) == ((b[i / per_word] >> shift) & mask);
  }
  const double e = static_cast<double>(equal) / num_perm;
  const double c = std::ldexp(1.0, -bits);
  return std::clamp((e - c) / (1.0 - c), 0.0, 1.0);
}

}  // namespace neardup::sketch
