// SPDX-License-Identifier: Apache-2.0
//
// MinHash (Broder, "On the resemblance and containment of documents", 1997;
// Broder, Charikar, Frieze, Mitzenmacher, "Min-wise independent permutations",
// STOC 1998). For P random hash functions h_i, the signature of a set S is
// sig_i = min_{x in S} h_i(x); Pr[sig_i(A) == sig_i(B)] = J(A, B), so the
// fraction of equal positions estimates the Jaccard similarity with standard
// deviation sqrt(J(1-J)/P).
//
// Families (both strongly universal; chosen by MinHashFamily):
//  - kMultiplyShift (default): h(x) = ((a*x + b) mod 2^64) >> 32 on the 32-bit
//    key x = lo32(s) ^ hi32(s) of a shingle hash s, with a, b uniform 64-bit
//    (Dietzfelbinger 1996, "multiply-add-shift"). Vectorizes: two 32x32->64
//    multiplies per lane; AVX-512 and AVX2 kernels are chosen at run time
//    (CPUID), with a portable fallback; all give identical signatures.
//  - kMersenne61: h(x) = (a*x + b) mod (2^61 - 1) on the 64-bit shingle hash
//    reduced mod p, a in [1, p), b in [0, p); scalar 128-bit arithmetic. The
//    textbook family (as in datasketch); slower.
// Signature values are 32 bits (the family's top 32 bits, or the low 32 bits
// of the 61-bit value), enough that unequal minima collide with prob. 2^-32.
//
// One-permutation hashing with densification (Li, Owen, Zhang, NIPS 2012;
// Shrivastava, "Optimal densification for fast and accurate minwise hashing",
// ICML 2017): one hash per shingle picks a bin (P equal ranges) and a value;
// each bin keeps its minimum. Empty bins copy the value of the bin reached by a
// per-bin random probe sequence. O(n + P) instead of O(nP).
//
// C-MinHash (Li and Li, "C-MinHash: Rigorously reducing K permutations to
// two", 2021): two permutations instead of P. sigma maps each shingle to a
// 32-bit key; pi is a fixed random bijection of 32-bit words; position k is
// min over the set of pi((sigma(x) + k) mod 2^32), i.e. pi circularly
// shifted by k. Unbiased, with a variance no larger than P independent
// permutations (smaller for sets of overlapping structure). Here sigma is the
// seeded Mix64 of the shingle and pi(y) = fmix32(m*y + c) (MurmurHash3's
// finalizer after an odd multiplier: a bijection). O(n*P); AVX-512 and AVX2
// kernels run 16 and 8 positions per instruction, identical to the portable one.
//
// b-bit minwise hashing (Li and König, WWW 2010): keep the lowest b bits of
// each value; J is estimated as (E - 2^-b) / (1 - 2^-b) from the fraction E of
// equal b-bit values (the large-set approximation).
//
// Coefficients derive from `seed` by SplitMix64 and are part of the on-disk
// format together with the shingle hash (features::HashFeature).
//
// Thread safety: MinHasher is immutable after Create(); Sketch() is const and
// may run concurrently. Complexity: O(n*P) per set (permutations, C-MinHash)
// or O(n + P) (one permutation).
#ifndef NEARDUP_SKETCH_MINHASH_H_
#define NEARDUP_SKETCH_MINHASH_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "neardup/status.h"

namespace neardup::sketch {

enum class MinHashFamily { kMultiplyShift, kMersenne61 };
enum class MinHashScheme { kPermutations, kOnePermutation, kCirculant };

struct MinHashOptions {
  int num_perm = 128;  // P, 1..4096
  uint64_t seed = 1;
  MinHashFamily family = MinHashFamily::kMultiplyShift;  // kPermutations only
  MinHashScheme scheme = MinHashScheme::kPermutations;
};

// The value of every position for an empty set.
inline constexpr uint32_t kEmptyMinHash = 0xFFFFFFFFu;

class MinHasher {
 public:
  // Errors: InvalidArgument for num_perm outside [1, 4096].
  static Result<MinHasher> Create(const MinHashOptions& options);

  int num_perm() const { return options_.num_perm; }
  const MinHashOptions& options() const { return options_; }

  // Writes the signature of the set of distinct values in `shingles` to `out`
  // (out.size() must be num_perm()). Repeated shingles do not change it; an
  // empty input gives kEmptyMinHash everywhere.
  void Sketch(std::span<const uint64_t> shingles, std::span<uint32_t> out) const;
  std::vector<uint32_t> Sketch(std::span<const uint64_t> shingles) const;

  // For tests and benchmarks: the SIMD kernels this CPU runs ("avx512",
  // "avx2", "generic"; the first is the one Sketch() uses), and a sketch with
  // a named one. Errors: NotFound (kernel unavailable), FailedPrecondition
  // (neither multiply-shift permutations nor C-MinHash).
  static std::vector<std::string_view> Kernels();
  Status SketchWithKernel(std::string_view kernel, std::span<const uint64_t> shingles,
                          std::span<uint32_t> out) const;

 private:
  explicit MinHasher(const MinHashOptions& options);
  // `kernel` is an internal KernelChoice, or null for the best one.
  void SketchMultiplyShift(std::span<const uint64_t> shingles, std::span<uint32_t> out,
                           const void* kernel = nullptr) const;
  void SketchMersenne(std::span<const uint64_t> shingles, std::span<uint32_t> out) const;
  void SketchOnePermutation(std::span<const uint64_t> shingles, std::span<uint32_t> out) const;
  // minhash_circulant.cc; `kernel` is a kernel name, or empty for the best.
  void InitCirculant();
  Status SketchCirculant(std::span<const uint64_t> shingles, std::span<uint32_t> out,
                         std::string_view kernel = {}) const;

  MinHashOptions options_;
  size_t padded_ = 0;           // num_perm rounded up to the kernel width
  std::vector<uint64_t> a_lo_;  // multiply-shift: low / high halves of a
  std::vector<uint64_t> a_hi_;
  std::vector<uint64_t> b_;  // multiply-shift: b; Mersenne: b
  std::vector<uint64_t> a_;  // Mersenne: a
  // C-MinHash: sigma's seed, pi's multiplier, and m*k + c per position k.
  uint64_t sigma_seed_ = 0;
  uint32_t pi_mul_ = 1;
  std::vector<uint32_t> pi_add_;
};

// Fraction of equal positions; a and b must have equal, non-zero size.
double EstimateJaccard(std::span<const uint32_t> a, std::span<const uint32_t> b);

// b-bit signatures: `bits` in {1, 2, 4, 8, 16, 32}; packs the lowest `bits`
// of each value into 64-bit words, position i at bit offset i*bits.
// Errors: InvalidArgument for other widths.
Result<std::vector<uint64_t>> PackBBit(std::span<const uint32_t> signature, int bits);
// Estimates J from two packed signatures of `num_perm` values each.
double EstimateJaccardBBit(std::span<const uint64_t> a, std::span<const uint64_t> b, int num_perm,
                           int bits);

}  // namespace neardup::sketch

#endif  // NEARDUP_SKETCH_MINHASH_H_
