// SPDX-License-Identifier: Apache-2.0
#include "sketch/lsh.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <unordered_set>

#include "sketch/minhash.h"

namespace neardup::sketch {
namespace {

std::pair<std::vector<uint64_t>, std::vector<uint64_t>> PairWithJaccard(std::mt19937_64& rng,
                                                                        size_t uni, double s) {
  const size_t inter = static_cast<size_t>(std::lround(s * uni));
  std::vector<uint64_t> a, b;
  for (size_t i = 0; i < uni; ++i) {
    const uint64_t v = rng();
    if (i < inter) {
      a.push_back(v);
      b.push_back(v);
    } else {
      ((i - inter) % 2 ? a : b).push_back(v);
    }
  }
  return {a, b};
}

TEST(LshTest, CollisionProbabilityFollowsSCurve) {
  const LshParams params{16, 8};
  auto hasher = MinHasher::Create({.num_perm = 128, .seed = 21});
  ASSERT_TRUE(hasher.ok());
  std::mt19937_64 rng(4);
  const int kTrials = 300;
  for (double s : {0.3, 0.5, 0.6, 0.7, 0.8, 0.9}) {
    int collide = 0;
    for (int t = 0; t < kTrials; ++t) {
      auto [a, b] = PairWithJaccard(rng, 400, s);
      const auto sa = hasher->Sketch(a), sb = hasher->Sketch(b);
      bool any = false;
      for (int band = 0; band < params.bands && !any; ++band)
        any = LshBandKey(sa, params, band) == LshBandKey(sb, params, band);
      collide += any;
    }
    const double expected = LshCollisionProbability(s, params);
    const double sd = std::sqrt(expected * (1 - expected) / kTrials);
    EXPECT_NEAR(static_cast<double>(collide) / kTrials, expected, 4 * sd + 0.02) << "s=" << s;
  }
}

TEST(LshTest, OptimalParamsPutTheSCurveStepNearTheThreshold) {
  for (double t : {0.5, 0.7, 0.8, 0.9}) {
    auto p = OptimalLshParams(t, 128);
    ASSERT_TRUE(p.ok());
    EXPECT_LE(p->bands * p->rows, 128);
    const double step = std::pow(1.0 / p->bands, 1.0 / p->rows);
    EXPECT_NEAR(step, t, 0.12) << "threshold " << t << " got " << p->bands << "x" << p->rows;
    EXPECT_GT(LshCollisionProbability(std::min(1.0, t + 0.1), *p), 0.5);
  }
  // Weighting false negatives heavily lowers the curve's step (more candidates).
  auto fn = OptimalLshParams(0.8, 128, 0.1, 0.9);
  auto fp = OptimalLshParams(0.8, 128, 0.9, 0.1);
  ASSERT_TRUE(fn.ok() && fp.ok());
  EXPECT_GT(LshCollisionProbability(0.7, *fn), LshCollisionProbability(0.7, *fp));
  EXPECT_FALSE(OptimalLshParams(1.0, 128).ok());
  EXPECT_FALSE(OptimalLshParams(0.5, 128, 0, 0).ok());
}

TEST(LshTest, IndexInsertQueryRemove) {
  auto hasher = MinHasher::Create({.num_perm = 128});
  ASSERT_TRUE(hasher.ok());
  auto index = LshIndex::Create({16, 8}, 128);
  ASSERT_TRUE(index.ok());
  index->Reserve(10);
  std::mt19937_64 rng(9);
  auto [a, b] = PairWithJaccard(rng, 500, 0.95);
  std::vector<uint64_t> unrelated(250);
  for (auto& v : unrelated) v = rng();
  const auto sa = hasher->Sketch(a), sb = hasher->Sketch(b), su = hasher->Sketch(unrelated);
  ASSERT_TRUE(index->Insert(1, sa).ok());
  ASSERT_TRUE(index->Insert(2, su).ok());
  EXPECT_TRUE(index->Insert(1, sa).IsAlreadyExists());
  EXPECT_TRUE(index->Insert(3, std::vector<uint32_t>(5)).IsInvalidArgument());

  auto cands = index->Query(sb);
  ASSERT_TRUE(cands.ok());
  ASSERT_EQ(cands->size(), 1u);
  EXPECT_EQ((*cands)[0].id, 1u);
  EXPECT_NEAR((*cands)[0].estimated_jaccard, 0.95, 0.1);
  EXPECT_EQ((*cands)[0].estimated_jaccard, EstimateJaccard(sa, sb));

  ASSERT_TRUE(index->Remove(1).ok());
  EXPECT_TRUE(index->Remove(1).IsNotFound());
  EXPECT_TRUE(index->Query(sb)->empty());
  EXPECT_EQ(index->size(), 1u);
  ASSERT_TRUE(index->Insert(7, sb).ok());  // reuses the freed slot
  EXPECT_EQ(index->Query(sa)->at(0).id, 7u);
  EXPECT_EQ(std::vector<uint32_t>(index->Signature(7).begin(), index->Signature(7).end()), sb);
  EXPECT_TRUE(index->Signature(1).empty());
  EXPECT_FALSE(LshIndex::Create({17, 8}, 128).ok());
}

TEST(LshTest, IndexMatchesBruteForceBandComparison) {
  auto hasher = MinHasher::Create({.num_perm = 32});
  ASSERT_TRUE(hasher.ok());
  const LshParams params{8, 4};
  auto index = LshIndex::Create(params, 32);
  ASSERT_TRUE(index.ok());
  std::mt19937_64 rng(12);
  // Sets over a small universe so that many pairs share bands.
  std::vector<std::vector<uint32_t>> sigs;
  for (int i = 0; i < 200; ++i) {
    std::vector<uint64_t> set;
    for (int k = 0; k < 6; ++k) set.push_back(rng() % 20);
    sigs.push_back(hasher->Sketch(set));
    ASSERT_TRUE(index->Insert(i, sigs.back()).ok());
  }
  for (int i = 0; i < 200; i += 3) ASSERT_TRUE(index->Remove(i).ok());
  for (int q = 0; q < 200; q += 7) {
    std::unordered_set<uint64_t> expected;
    for (int i = 0; i < 200; ++i) {
      if (i % 3 == 0) continue;
      for (int band = 0; band < params.bands; ++band) {
        if (std::equal(sigs[q].begin() + band * 4, sigs[q].begin() + band * 4 + 4,
                       sigs[i].begin() + band * 4)) {
          expected.insert(i);
          break;
        }
      }
    }
    auto got = index->Query(sigs[q]);
    ASSERT_TRUE(got.ok());
    std::unordered_set<uint64_t> got_ids;
    for (const auto& c : *got) got_ids.insert(c.id);
    EXPECT_EQ(got_ids, expected) << "query " << q;
  }
}

}  // namespace
}  // namespace neardup::sketch
