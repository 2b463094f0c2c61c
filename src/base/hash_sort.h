// SPDX-License-Identifier: Apache-2.0
//
// SortUniqueHashes: sorts 64-bit hash values ascending and drops repeats,
// faster than std::sort for the uniformly distributed keys hashes are.
//
// Method: one counting pass on the top k bits (2^k >= n buckets), a scatter
// into a scratch array, then each bucket sorted on its own (insertion sort
// for the few keys a uniform bucket holds, std::sort for a crowded one, so
// skewed input stays O(n log n)). Expected O(n) for hash values; the result
// is exactly std::sort + std::unique's.
//
// Thread safety: uses thread-local scratch; safe from many threads.
#ifndef NEARDUP_BASE_HASH_SORT_H_
#define NEARDUP_BASE_HASH_SORT_H_

#include <cstdint>
#include <vector>

namespace neardup::base {

void SortUniqueHashes(std::vector<uint64_t>* v);

}  // namespace neardup::base

#endif  // NEARDUP_BASE_HASH_SORT_H_
