// SPDX-License-Identifier: Apache-2.0
#include "verify/boilerplate.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace neardup::verify {
namespace {

using features::Anchor;

std::vector<Anchor> Anchors(std::initializer_list<uint64_t> hashes) {
  std::vector<Anchor> v;
  uint32_t pos = 0;
  for (uint64_t h : hashes) v.push_back({h, pos++});
  return v;
}

TEST(BoilerplateCountsTest, CountsDocumentsNotRepeats) {
  BoilerplateCounts c;
  c.Add(Anchors({7, 7, 7, 9}));
  c.Add(Anchors({7}));
  EXPECT_EQ(c.Count(7), 2);
  EXPECT_EQ(c.Count(9), 1);
  EXPECT_EQ(c.documents(), 2u);
}

// Count-min: never below the true count, through growth and (small table)
// without halving; and mostly exact at a light load.
TEST(BoilerplateCountsTest, NeverBelowTheTruthAcrossGrowth) {
  BoilerplateCounts c(1 << 20);
  std::mt19937_64 rng(1);
  std::map<uint64_t, int> truth;
  std::vector<uint64_t> pool(3000);
  for (auto& h : pool) h = rng();
  for (int doc = 0; doc < 2000; ++doc) {
    std::vector<Anchor> a;
    std::map<uint64_t, bool> seen;
    for (int k = 0; k < 20; ++k) {
      const uint64_t h = pool[rng() % (k < 5 ? 30 : pool.size())];  // a few frequent ones
      a.push_back({h, uint32_t(k)});
      if (!seen[h]) seen[h] = true, ++truth[h];
    }
    c.Add(a);
  }
  EXPECT_GT(c.MemoryBytes(), 4096u);  // it grew
  int exact = 0;
  for (const auto& [h, n] : truth) {
    ASSERT_GE(c.Count(h), std::min(n, 255));
    exact += c.Count(h) == std::min(n, 255);
  }
  EXPECT_GT(exact, int(truth.size() * 9 / 10));
}

TEST(BoilerplateCountsTest, FullTablesHalveOldCounts) {
  BoilerplateCounts c(4096);  // 2,048 counters a row: no growth
  c.Add(Anchors({42}));
  for (int i = 0; i < 15; ++i) c.Add(Anchors({42}));
  EXPECT_EQ(c.Count(42), 16);
  std::mt19937_64 rng(2);
  std::vector<Anchor> fill;
  for (uint32_t i = 0; i < 1100; ++i) fill.push_back({rng(), i});
  c.Add(fill);  // past half a row: every counter halves
  EXPECT_LE(c.Count(42), 9);
  EXPECT_GE(c.Count(42), 8);
  EXPECT_EQ(c.MemoryBytes(), 4096u);
}

// The epoch: while it stands, no anchor's count crossed the watched
// threshold, so marks made at it still hold; and it stands through most
// adds, or keeping marks would save nothing.
TEST(BoilerplateCountsTest, EpochStandsWhileNoCountCrossesTheThreshold) {
  constexpr int kThreshold = 8;  // the engine's default
  BoilerplateCounts c(1 << 16);  // small: it grows, then halves
  c.Watch(kThreshold);
  std::mt19937_64 rng(5);
  std::vector<uint64_t> pool(50000);
  for (auto& h : pool) h = rng();
  // Every anchor that recurs (the first 40, boilerplate) and a sample of
  // the rest: whether each is over the threshold.
  auto over = [&] {
    std::vector<bool> v;
    for (size_t k = 0; k < 2000; ++k) v.push_back(c.Count(pool[k < 40 ? k : 25 * k]) >= kThreshold);
    return v;
  };
  std::vector<bool> before = over();
  int stood = 0, changed = 0, crossed_while_standing = 0;
  for (int doc = 0; doc < 4000; ++doc) {
    std::vector<Anchor> a;
    for (int i = 0; i < 12; ++i) {
      const size_t k = rng() % 8 == 0 ? rng() % 40 : rng() % pool.size();
      a.push_back({pool[k], static_cast<uint32_t>(i)});
    }
    const uint64_t epoch = c.epoch();
    c.Add(a);
    std::vector<bool> now = over();
    if (c.epoch() == epoch) {
      ++stood;
      crossed_while_standing += now != before;
    } else {
      ++changed;
    }
    before = std::move(now);
  }
  EXPECT_EQ(crossed_while_standing, 0);
  EXPECT_GT(changed, 40);  // the recurring anchors crossed, and the halvings
  EXPECT_GT(stood, 4 * changed);
}

TEST(BoilerplateCountsTest, Saturates) {
  BoilerplateCounts c;
  for (int i = 0; i < 300; ++i) c.Add(Anchors({5}));
  EXPECT_EQ(c.Count(5), 255);
}

TEST(BoilerplateShinglesTest, MarksTheShinglesUnderFrequentAnchors) {
  BoilerplateCounts c;
  std::vector<uint64_t> set;  // shingle i is 1000 + i
  std::vector<uint32_t> ranks;
  for (uint32_t i = 0; i < 40; ++i) set.push_back(1000 + i), ranks.push_back(i);
  ranks.push_back(0);  // a repeat: marked once
  const std::vector<Anchor> anchors = {{11, 0}, {12, 20}, {13, 30}};
  for (int i = 0; i < 3; ++i) c.Add(std::vector<Anchor>{{11, 0}, {13, 0}});
  std::vector<uint64_t> out;
  BoilerplateShingles(c, 3, anchors, ranks, set, &out);
  std::vector<uint64_t> want;
  for (uint64_t i = 0; i < features::kAnchorShingles; ++i) want.push_back(1000 + i);
  for (uint64_t i = 30; i < 30 + features::kAnchorShingles; ++i) want.push_back(1000 + i);
  EXPECT_EQ(out, want);
  BoilerplateShingles(c, 4, anchors, ranks, set, &out);
  EXPECT_TRUE(out.empty());
  BoilerplateShingles(c, 0, anchors, ranks, set, &out);  // off
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace neardup::verify

namespace neardup::verify {
namespace {

// Fixed tables counted apart add up to the table counted at once.
TEST(BoilerplateCountsTest, FixedTablesMerge) {
  std::mt19937_64 rng(3);
  std::vector<std::vector<Anchor>> docs(300);
  for (auto& d : docs) {
    for (uint32_t k = 0; k < 30; ++k) d.push_back({rng() % 500, k});
  }
  auto whole = BoilerplateCounts::Fixed(1 << 16);
  auto left = BoilerplateCounts::Fixed(1 << 16), right = BoilerplateCounts::Fixed(1 << 16);
  for (size_t i = 0; i < docs.size(); ++i) {
    whole.Add(docs[i]);
    (i % 3 ? left : right).Add(docs[i]);
  }
  left.Merge(right);
  EXPECT_TRUE(std::equal(whole.counters().begin(), whole.counters().end(), left.counters().begin(),
                         left.counters().end()));
  EXPECT_EQ(left.documents(), 300u);
  EXPECT_EQ(whole.MemoryBytes(), size_t{1} << 16);  // fixed: never grew
  auto copy = BoilerplateCounts::Fixed(1 << 16);
  ASSERT_TRUE(copy.Assign(whole.counters()));
  for (uint64_t h = 0; h < 500; ++h) EXPECT_EQ(copy.Count(h), whole.Count(h));
  EXPECT_FALSE(BoilerplateCounts::Fixed(1 << 15).Assign(whole.counters()));
}

}  // namespace
}  // namespace neardup::verify
