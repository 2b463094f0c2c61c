// SPDX-License-Identifier: Apache-2.0
//
// Super-shingles (Broder, "Identifying and filtering near-duplicate
// documents", CPM 2000; Fetterly, Manasse, Najork, Wiener, "A large-scale
// study of the evolution of web pages", WWW 2003). A document's 84 min-hashes
// are cut into 6 groups of 14; each group hashes to one super-shingle. Two
// documents are near-duplicates when at least 2 super-shingles (at the same
// position) are equal. A group is equal with probability J^14, so the test
// is a steep step near J ~ 0.9: Pr[>= 2 of 6] = 1 - (1-p)^6 - 6p(1-p)^5.
//
// Super-shingle i = XXH3-64(seed i) of the 14 32-bit min-hashes of group i.
//
// Thread safety: SuperShingler is immutable; SuperShingleIndex needs external
// synchronization for writers (concurrent const calls are safe).
#ifndef NEARDUP_SKETCH_SUPERSHINGLE_H_
#define NEARDUP_SKETCH_SUPERSHINGLE_H_

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "neardup/status.h"
#include "sketch/minhash.h"

namespace neardup::sketch {

struct SuperShingleOptions {
  int groups = 6;       // super-shingles per document
  int group_size = 14;  // min-hashes per super-shingle
  int min_equal = 2;    // equal super-shingles for a near-duplicate
  uint64_t seed = 1;    // MinHash seed
};

class SuperShingler {
 public:
  // Errors: InvalidArgument for groups or group_size < 1, groups*group_size >
  // 4096, or min_equal outside [1, groups].
  static Result<SuperShingler> Create(const SuperShingleOptions& options);

  // The `groups` super-shingles of the set of distinct shingle hashes.
  std::vector<uint64_t> Sketch(std::span<const uint64_t> shingles) const;
  // Groups an existing signature of groups*group_size min-hashes.
  std::vector<uint64_t> FromMinHashes(std::span<const uint32_t> minhashes) const;

  const SuperShingleOptions& options() const { return options_; }

 private:
  SuperShingler(const SuperShingleOptions& options, MinHasher hasher)
      : options_(options), hasher_(std::move(hasher)) {}
  SuperShingleOptions options_;
  MinHasher hasher_;
};

// Number of positions where a and b are equal (sizes must match).
int CountEqualSuperShingles(std::span<const uint64_t> a, std::span<const uint64_t> b);

}  // namespace neardup::sketch

#endif  // NEARDUP_SKETCH_SUPERSHINGLE_H_
