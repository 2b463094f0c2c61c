// SPDX-License-Identifier: Apache-2.0
//
// Seeded random text for tests and benchmarks: n Han characters drawn from
// the 8,000 after U+4E00. Two seeds share almost no character 3-gram, so a
// text made of such pieces has exactly the overlaps it is built with.
//
// Thread safety: a free function. Complexity: O(n).
#ifndef NEARDUP_BASE_RANDOM_TEXT_H_
#define NEARDUP_BASE_RANDOM_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>

#include "base/utf8.h"

namespace neardup::base {

inline std::string RandomHan(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s;
  s.reserve(3 * n);
  for (size_t i = 0; i < n; ++i) AppendUtf8(0x4E00 + static_cast<int32_t>(rng() % 8000), &s);
  return s;
}

}  // namespace neardup::base

#endif  // NEARDUP_BASE_RANDOM_TEXT_H_
