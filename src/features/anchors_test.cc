// SPDX-License-Identifier: Apache-2.0
#include "features/anchors.h"

#include <gtest/gtest.h>

#include <algorithm>
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

// Ranks into the sorted set give back the sequence, and the anchors of the
// ranks are the anchors of the hashes.
TEST(AnchorsTest, RanksStandForTheSequence) {
  auto seq = Random(3000, 8);
  for (size_t i = 0; i < 1000; ++i) seq.push_back(seq[i * 2]);  // repeats
  std::vector<uint64_t> set = seq;
  std::sort(set.begin(), set.end());
  set.erase(std::unique(set.begin(), set.end()), set.end());
  std::vector<uint32_t> ranks;
  SequenceRanks(set, seq, &ranks);
  ASSERT_EQ(ranks.size(), seq.size());
  for (size_t i = 0; i < seq.size(); ++i) ASSERT_EQ(set[ranks[i]], seq[i]);
  std::vector<Anchor> a, b;
  SampleAnchors(seq, &a);
  SampleAnchors(ranks, set, &b);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(a[i].hash == b[i].hash && a[i].pos == b[i].pos);
}

}  // namespace
}  // namespace neardup::features
