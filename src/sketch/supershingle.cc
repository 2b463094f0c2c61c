// SPDX-License-Identifier: Apache-2.0
#include "sketch/supershingle.h"

#include <xxhash.h>

#include <algorithm>
#include <string>

#include "base/status_macros.h"

namespace neardup::sketch {

Result<SuperShingler> SuperShingler::Create(const SuperShingleOptions& options) {
  if (options.groups < 1 || options.group_size < 1 || options.groups * options.group_size > 4096) {
    return Status::InvalidArgument(
        "super-shingles need groups, group_size >= 1 and "
        "groups*group_size <= 4096");
  }
  if (options.min_equal < 1 || options.min_equal > options.groups) {
    return Status::InvalidArgument("min_equal must be in [1, groups], got " +
                                   std::to_string(options.min_equal));
  }
  NEARDUP_ASSIGN_OR_RETURN(
      MinHasher hasher,
      MinHasher::Create({.num_perm = options.groups * options.group_size, .seed = options.seed}));
  return SuperShingler(options, std::move(hasher));
}

std::vector<uint64_t> SuperShingler::Sketch(std::span<const uint64_t> shingles) const {
  return FromMinHashes(hasher_.Sketch(shingles));
}

std::vector<uint64_t> SuperShingler::FromMinHashes(std::span<const uint32_t> minhashes) const {
  const size_t g = static_cast<size_t>(options_.group_size);
  NEARDUP_CHECK(minhashes.size() == g * static_cast<size_t>(options_.groups));
  std::vector<uint64_t> supers(static_cast<size_t>(options_.groups));
  for (size_t i = 0; i < supers.size(); ++i) {
    supers[i] = XXH3_64bits_withSeed(minhashes.data() + i * g, g * sizeof(uint32_t), i);
  }
  return supers;
}

int CountEqualSuperShingles(std::span<const uint64_t> a, std::span<const uint64_t> b) {
  NEARDUP_CHECK(a.size() == b.size());
  int equal = 0;
  for (size_t i = 0; i < a.size(); ++i) equal += a[i] == b[i];
  return equal;
}

}  // namespace neardup::sketch
