// SPDX-License-Identifier: Apache-2.0
//
// Small helpers over sorted, duplicate-free sequences (sets as vectors).
// Thread safety: pure functions. Complexity: O(|x| + |y|).
// This is the one Jaccard of the code base.
#ifndef NEARDUP_BASE_SORTED_SET_H_
#define NEARDUP_BASE_SORTED_SET_H_

#include <algorithm>
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

// Jaccard similarity from the sizes of two sets and of their intersection
// (common <= min(nx, ny)). Two empty sets are identical: 1. One empty set: 0.
inline double JaccardOfSizes(size_t common, size_t nx, size_t ny) {
  if (nx == 0 && ny == 0) return 1.0;
  return static_cast<double>(common) / static_cast<double>(nx + ny - common);
}

// Containment common / min(nx, ny); 1 for two empty sets, 0 for one.
inline double ContainmentOfSizes(size_t common, size_t nx, size_t ny) {
  if (nx == 0 && ny == 0) return 1.0;
  if (nx == 0 || ny == 0) return 0.0;
  return static_cast<double>(common) / static_cast<double>(std::min(nx, ny));
}

// Jaccard similarity |x ∩ y| / |x ∪ y| of ascending, duplicate-free sets.
template <typename T>
double SortedSetJaccard(std::span<const T> x, std::span<const T> y) {
  return JaccardOfSizes(SortedIntersectionSize(x, y), x.size(), y.size());
}

// Containment |x ∩ y| / min(|x|, |y|).
template <typename T>
double SortedSetContainment(std::span<const T> x, std::span<const T> y) {
  return ContainmentOfSizes(SortedIntersectionSize(x, y), x.size(), y.size());
}

}  // namespace neardup

#endif  // NEARDUP_BASE_SORTED_SET_H_
