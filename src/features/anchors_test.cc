// SPDX-License-Identifier: Apache-2.0
#include "features/anchors.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace neardup::features {
namespace {

std::vector<uint64_t> Random(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = rng();
  return v;
}

TEST(AnchorsTest, ShorterThanAWindowHasNone) {
  std::vector<Anchor> out = {{1, 2}};
  SampleAnchors(Random(kAnchorShingles - 1, 1), &out);
  EXPECT_TRUE(out.empty());
}

TEST(AnchorsTest, AboutOneWindowInP) {
  const auto seq = Random(40000, 2);
  std::vector<Anchor> out;
  SampleAnchors(seq, &out);
  const double expected = double(seq.size() - kAnchorShingles + 1) / kAnchorSampling;
  EXPECT_NEAR(out.size(), expected, 5 * std::sqrt(expected));
  for (size_t i = 1; i < out.size(); ++i) EXPECT_LT(out[i - 1].pos, out[i].pos);
  EXPECT_LE(out.back().pos + kAnchorShingles, seq.size());
}

// A window's anchor depends on its shingles alone: the same block inside two
// different documents gives the same anchors, at positions shifted alike.
TEST(AnchorsTest, ABlockGivesTheSameAnchorsAnywhere) {
  const auto block = Random(300, 3), head_a = Random(57, 4), head_b = Random(5, 5);
  std::vector<uint64_t> a = head_a, b = head_b;
  a.insert(a.end(), block.begin(), block.end());
  b.insert(b.end(), block.begin(), block.end());
  const auto tail = Random(80, 6);
  b.insert(b.end(), tail.begin(), tail.end());
  std::vector<Anchor> in_a, in_b, alone;
  SampleAnchors(a, &in_a);
  SampleAnchors(b, &in_b);
  SampleAnchors(block, &alone);
  ASSERT_GT(alone.size(), 30u);
  std::set<std::pair<uint64_t, uint32_t>> sa, sb;
  for (const Anchor& x : in_a)
    if (x.pos >= head_a.size()) sa.insert({x.hash, x.pos - uint32_t(head_a.size())});
  for (const Anchor& x : in_b)
    if (x.pos >= head_b.size() && x.pos + kAnchorShingles <= head_b.size() + block.size())
      sb.insert({x.hash, x.pos - uint32_t(head_b.size())});
  std::set<std::pair<uint64_t, uint32_t>> want;
  for (const Anchor& x : alone) want.insert({x.hash, x.pos});
  EXPECT_EQ(sa, want);
  EXPECT_EQ(sb, want);
}

TEST(AnchorsTest, AChangedShingleChangesOnlyItsWindows) {
  auto seq = Random(500, 7);
  std::vector<Anchor> before, after;
  SampleAnchors(seq, &before);
  seq[250] ^= 1;
  SampleAnchors(seq, &after);
  auto outside = [](const std::vector<Anchor>& v) {
    std::set<std::pair<uint64_t, uint32_t>> s;
    for (const Anchor& x : v)
      if (x.pos + kAnchorShingles <= 250 || x.pos > 250) s.insert({x.hash, x.pos});
    return s;
  };
  EXPECT_EQ(outside(before), outside(after));
}

}  // namespace
}  // namespace neardup::features
