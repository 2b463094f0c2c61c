// SPDX-License-Identifier: Apache-2.0
#include "base/hash_sort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace neardup::base {
namespace {

std::vector<uint64_t> Reference(std::vector<uint64_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

void Check(const std::vector<uint64_t>& input) {
  std::vector<uint64_t> got = input;
  SortUniqueHashes(&got);
  EXPECT_EQ(got, Reference(input)) << "n = " << input.size();
}

TEST(HashSortTest, MatchesSortUniqueOnRandomHashes) {
  std::mt19937_64 rng(1);
  for (size_t n : {0u, 1u, 2u, 31u, 32u, 33u, 100u, 700u, 4096u, 50000u}) {
    std::vector<uint64_t> v(n);
    for (auto& x : v) x = rng();
    Check(v);
  }
}

TEST(HashSortTest, RepeatsAndSkewedKeys) {
  std::mt19937_64 rng(2);
  std::vector<uint64_t> repeats;
  for (int i = 0; i < 3000; ++i) repeats.push_back(rng() % 40 * 0x9E3779B97F4A7C15ULL);
  Check(repeats);
  // Every key in one bucket (equal top bits): the crowded-bucket path.
  std::vector<uint64_t> skewed;
  for (int i = 0; i < 5000; ++i) skewed.push_back(rng() >> 40);
  Check(skewed);
  std::vector<uint64_t> extremes = {~0ULL, 0, ~0ULL, 1, 0, ~0ULL - 1};
  for (int i = 0; i < 60; ++i) extremes.push_back(i % 2 ? ~0ULL : 0);
  Check(extremes);
  // Already sorted and reversed.
  std::vector<uint64_t> sorted(1000);
  for (size_t i = 0; i < sorted.size(); ++i) sorted[i] = i * 0x100000000ULL * 4099;
  Check(sorted);
  std::reverse(sorted.begin(), sorted.end());
  Check(sorted);
}

}  // namespace
}  // namespace neardup::base
