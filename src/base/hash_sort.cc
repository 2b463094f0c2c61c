// SPDX-License-Identifier: Apache-2.0
#include "base/hash_sort.h"

#include <algorithm>
#include <bit>

namespace neardup::base {
namespace {

constexpr size_t kSmall = 32;        // below this, std::sort
constexpr uint32_t kInsertion = 16;  // buckets up to this size: insertion sort

void SortBucket(uint64_t* d, uint32_t n) {
  if (n > kInsertion) {
    std::sort(d, d + n);
    return;
  }
  for (uint32_t i = 1; i < n; ++i) {
    const uint64_t x = d[i];
    uint32_t j = i;
    for (; j > 0 && d[j - 1] > x; --j) d[j] = d[j - 1];
    d[j] = x;
  }
}

}  // namespace

void SortUniqueHashes(std::vector<uint64_t>* v) {
  const size_t n = v->size();
  if (n < kSmall) {
    std::sort(v->begin(), v->end());
  } else {
    thread_local std::vector<uint64_t> scratch;
    thread_local std::vector<uint32_t> end;  // end[b]: one past bucket b
    const int k = std::bit_width(n);
    const int shift = 64 - k;
    const size_t buckets = size_t{1} << k;
    end.assign(buckets, 0);
    for (uint64_t x : *v) ++end[x >> shift];
    uint32_t sum = 0;
    for (uint32_t& e : end) e = (sum += e);
    scratch.resize(n);
    // Filled from the back so that `end` ends up holding each bucket's start.
    for (size_t i = n; i-- > 0;) scratch[--end[(*v)[i] >> shift]] = (*v)[i];
    for (size_t b = 0; b < buckets; ++b) {
      const uint32_t start = end[b], stop = b + 1 < buckets ? end[b + 1] : static_cast<uint32_t>(n);
      if (stop - start > 1) SortBucket(scratch.data() + start, stop - start);
    }
    std::copy(scratch.begin(), scratch.end(), v->begin());
  }
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

}  // namespace neardup::base
