// SPDX-License-Identifier: Apache-2.0
//
// Seeded random text for tests and benchmarks: n Han characters drawn from
// the 8,000 after U+4E00. Two seeds share almost no character 3-gram, so a
// text made of such pieces has exactly the overlaps it is built with.
//
// Thread safety: a free function. Complexity: O(n).
#ifndef NEARDUP_BASE_RANDOM_TEXT_H_
#define NEARDUP_BASE_RANDOM_TEXT_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "base/utf8.h"

namespace neardup::base {

inline std::string RandomHan(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s;
  s.reserve(3 * n);
  for (size_t i = 0; i < n; ++i) AppendUtf8(0x4E00 + static_cast<int32_t>(rng() % 8000), &s);
  return s;
}

// Pages of `sites` sites, shuffled: under each site's footer 40 stories (one
// in four short, 70 characters, the others 400), a copy of every second story
// with its last 3 characters cut, and every tenth story followed by a page of
// the footer alone. The boilerplate guard's trap for tests.
inline std::vector<std::string> FooterSitePages(uint32_t sites, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::string> texts;
  for (uint32_t site = 0; site < sites; ++site) {
    const std::string footer = "。" + RandomHan(150 + 60 * site, seed * 1000 + site);
    for (uint32_t i = 0; i < 40; ++i) {
      const std::string story = RandomHan(i % 4 == 0 ? 70 : 400, seed * 100000 + 100 * site + i);
      texts.push_back(story + footer);
      if (i % 2 == 0) texts.push_back(story.substr(0, story.size() - 9) + footer);
      if (i % 10 == 9) texts.push_back(footer);
    }
  }
  std::shuffle(texts.begin(), texts.end(), rng);
  return texts;
}

}  // namespace neardup::base

#endif  // NEARDUP_BASE_RANDOM_TEXT_H_
