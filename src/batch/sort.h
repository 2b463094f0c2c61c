// SPDX-License-Identifier: Apache-2.0
//
// In-place sort of spill buffers: MSD radix partitioning, a byte at a time,
// on the top bits of a 64-bit key (American flag sort: McIlroy, Bostic and
// McIlroy, "Engineering radix sort", Computing Systems 1993), then std::sort
// with the record's full order inside each small bucket. No scratch memory is
// needed, so a buffer may fill its whole budget.
//
// Thread safety: pure. Complexity: O(n) moves per level plus O(n log 256) comparisons.
#ifndef NEARDUP_BATCH_SORT_H_
#define NEARDUP_BATCH_SORT_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include "base/parallel.h"

namespace neardup::batch {

namespace sort_internal {

// Partitions `v` by byte `shift` of KeyFn(record) in place; returns bucket
// start offsets (257 entries).
template <typename T, typename KeyFn>
std::array<size_t, 257> FlagPartition(std::span<T> v, int shift, KeyFn key) {
  std::array<size_t, 257> start{};
  for (const T& x : v) ++start[((key(x) >> shift) & 0xFF) + 1];
  for (int i = 1; i <= 256; ++i) start[i] += start[i - 1];
  std::array<size_t, 256> next;
  for (int i = 0; i < 256; ++i) next[i] = start[i];
  for (int b = 0; b < 256; ++b) {
    while (next[b] < start[b + 1]) {
      T& x = v[next[b]];
      int d = static_cast<int>((key(x) >> shift) & 0xFF);
      while (d != b) {  // cycle-leader: move x to its bucket, take what was there
        std::swap(x, v[next[d]++]);
        d = static_cast<int>((key(x) >> shift) & 0xFF);
      }
      ++next[b];
    }
  }
  return start;
}

}  // namespace sort_internal

// Sorts `v` by `less`, which must order first by KeyFn(record) (an unsigned
// 64-bit value) ascending. Partitions by successive bytes from the top while
// a part holds more than a few hundred records (at most four levels), so
// skewed top bytes (key spaces, small doc ids) still split evenly.
template <typename T, typename KeyFn, typename Less>
void RadixSort(std::span<T> v, KeyFn key, Less less, int shift = 56) {
  constexpr size_t kSmall = 256;
  if (v.size() <= kSmall || shift < 24) {
    std::sort(v.begin(), v.end(), less);
    return;
  }
  const auto start = sort_internal::FlagPartition(v, shift, key);
  for (int b = 0; b < 256; ++b) {
    RadixSort(v.subspan(start[b], start[b + 1] - start[b]), key, less, shift - 8);
  }
}

// RadixSort with the buckets of the first level sorted on `threads` threads
// (base::ParallelFor); the same result.
template <typename T, typename KeyFn, typename Less>
void ParallelRadixSort(std::span<T> v, KeyFn key, Less less, int threads) {
  if (threads <= 1 || v.size() < (1u << 16)) {
    RadixSort(v, key, less);
    return;
  }
  // Partition on the highest byte that varies (small doc ids leave the top
  // bytes of pairs zero).
  uint64_t bits = 0;
  for (const T& x : v) bits |= key(x);
  const int top = bits == 0 ? 0 : 63 - __builtin_clzll(bits);
  const int shift = std::max(0, top - 7);
  const auto start = sort_internal::FlagPartition(v, shift, key);
  base::ParallelFor(256, threads, 1, [&](int, size_t begin, size_t end) {
    for (size_t b = begin; b < end; ++b) {
      RadixSort(v.subspan(start[b], start[b + 1] - start[b]), key, less, shift - 8);
    }
  });
}

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_SORT_H_
