// SPDX-License-Identifier: Apache-2.0
//
// Small helpers over sorted, duplicate-free sequences (sets as vectors).
// Thread safety: pure functions. Complexity: O(|x| + |y|).
#ifndef NEARDUP_BASE_SORTED_SET_H_
#define NEARDUP_BASE_SORTED_SET_H_

#include <cstddef>
#include <span>

namespace neardup {

// |x ∩ y| for ascending, duplicate-free x and y.
template <typename T>
size_t SortedIntersectionSize(std::span<const T> x, std::span<const T> y) {
  size_t i = 0, j = 0, common = 0;
  while (i < x.size() && j < y.size()) {
    if (x[i] < y[j]) {
      ++i;
    } else if (y[j] < x[i]) {
      ++j;
    } else {
      ++common, ++i, ++j;
    }
  }
  return common;
}

}  // namespace neardup

#endif  // NEARDUP_BASE_SORTED_SET_H_
