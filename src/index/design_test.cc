// SPDX-License-Identifier: Apache-2.0
// The layouts' completeness (the adversary argument in design.h), checked
// exhaustively over how k differing bits can fall into blocks, and the cost
// model's choices.
#include "index/design.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "index/scan.h"

namespace neardup::index {
namespace {

std::vector<int> BlockOf(const Design& d, int m) {
  std::vector<int> widths(m);
  for (int i = 0; i < m; ++i) widths[i] = 64 / m + (i < 64 % m ? 1 : 0);
  return widths;
}

// Every way to put at most k differing bits into the blocks must be caught by
// some table: the sum of the errors in its key blocks is within its radius.
void ExpectComplete(int m, int g, int t, int k) {
  const Design d = Design::Make(m, g, t);
  ASSERT_FALSE(d.linear());
  const std::vector<int> radii = d.Radii(k);
  const std::vector<int> widths = BlockOf(d, m);
  std::vector<int> e(m, 0);
  // Key blocks per table, recovered from the masks.
  std::vector<std::vector<int>> keys;
  for (const TableSpec& spec : d.tables()) {
    std::vector<int> blocks;
    int lo = 0;
    for (int b = 0; b < m; ++b) {
      if ((spec.key_mask >> lo) & 1) blocks.push_back(b);
      lo += widths[b];
    }
    keys.push_back(blocks);
  }
  std::function<void(int, int)> rec = [&](int b, int left) {
    if (b == m) {
      bool caught = false;
      for (size_t i = 0; i < keys.size() && !caught; ++i) {
        const int r = radii[d.tables()[i].group];
        int sum = 0;
        for (int blk : keys[i]) sum += e[blk];
        caught = r >= 0 && sum <= r;
      }
      ASSERT_TRUE(caught) << d.ToString() << " k=" << k;
      return;
    }
    for (int x = 0; x <= std::min(left, widths[b]) && !testing::Test::HasFatalFailure(); ++x) {
      e[b] = x;
      rec(b + 1, left - x);
    }
    e[b] = 0;
  };
  rec(0, k);
}

TEST(DesignTest, EveryFamilyIsCompleteForEveryK) {
  for (int k = 0; k <= 12; ++k) {
    ExpectComplete(4, 1, 1, k);
    ExpectComplete(3, 3, 1, k);
    ExpectComplete(5, 1, 2, k);
    ExpectComplete(6, 2, 2, k);
    ExpectComplete(8, 2, 3, k);
    ExpectComplete(7, 2, 2, k);
    ExpectComplete(12, 2, 3, k);
    if (k <= 8) ExpectComplete(16, 16, 1, k);
  }
}

TEST(DesignTest, PermutationsPutTheKeyOnTopAndInvert) {
  std::mt19937_64 rng(1);
  for (const Design& d : {Design::Make(6, 2, 2), Design::Make(5, 1, 2), Design::Make(7, 3, 1)}) {
    for (const TableSpec& spec : d.tables()) {
      EXPECT_EQ(std::popcount(spec.key_mask), spec.key_bits);
      const uint64_t top = ~0ULL << (64 - spec.key_bits);
      EXPECT_EQ(spec.permute.Apply(spec.key_mask), top);
      for (int i = 0; i < 100; ++i) {
        const uint64_t x = rng();
        EXPECT_EQ(spec.unpermute.Apply(spec.permute.Apply(x)), x);
        EXPECT_EQ(std::popcount(spec.permute.Apply(x)), std::popcount(x));
      }
    }
  }
}

TEST(DesignTest, CostModelRespectsBudgetAndPrefersIndexesAtScale) {
  const HammingLayout none;
  for (size_t n : {size_t{1000}, size_t{1} << 20, size_t{50} << 20}) {
    for (int k : {3, 7, 12}) {
      for (double budget : {40.0, 64.0}) {
        const Design d = ChooseDesign(n, k, budget, none);
        const CostEstimate e = Estimate(d, n, k);
        EXPECT_LE(e.bytes_per_doc + kSlotBytes, budget + 1e-9) << d.ToString();
        if (n >= (size_t{1} << 20)) {
          EXPECT_FALSE(d.linear()) << "n=" << n << " k=" << k;
          EXPECT_LT(e.ns_per_query, Estimate(Design::Linear(), n, k).ns_per_query);
        }
      }
    }
  }
  EXPECT_TRUE(ChooseDesign(1000, 3, 64, {.linear = true}).linear());
  EXPECT_EQ(ChooseDesign(1000, 3, 64, {.blocks = 4}).tables().size(), 4u);
}

TEST(DesignTest, RadiiShrinkWithK) {
  const Design d = Design::Make(4, 4, 1);  // multi-index hashing
  EXPECT_EQ(d.Radii(3), (std::vector<int>{0, 0, 0, 0}));
  EXPECT_EQ(d.Radii(1), (std::vector<int>{0, 0, -1, -1}));
  EXPECT_EQ(d.Radii(7), (std::vector<int>{1, 1, 1, 1}));
}

TEST(ScanTest, LinearScanMatchesScalar) {
  std::mt19937_64 rng(3);
  std::vector<uint64_t> fps(1000);
  // Two draws ANDed: fingerprints with fewer set bits.
  auto sparse = [&rng] {
    const uint64_t a = rng();
    return a & rng();
  };
  for (auto& f : fps) f = sparse();
  std::vector<uint32_t> idx(fps.size());
  for (int k : {0, 5, 20, 40, 64}) {
    const uint64_t q = sparse();
    const size_t c = ScanLinear(fps.data(), 997, q, k, idx.data());
    std::vector<uint32_t> want;
    for (uint32_t i = 0; i < 997; ++i)
      if (__builtin_popcountll(fps[i] ^ q) <= k) want.push_back(i);
    EXPECT_EQ(std::vector<uint32_t>(idx.begin(), idx.begin() + c), want)
        << ScanLinearImplementation();
  }
}

}  // namespace
}  // namespace neardup::index
