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

TEST(LshTest, SaltedBandKeys) {
  EXPECT_EQ(SaltedBandKey(12345, 0), 12345u);  // no salt: the key itself
  EXPECT_NE(SaltedBandKey(12345, 7), 12345u);
  EXPECT_NE(SaltedBandKey(12345, 7), SaltedBandKey(12345, 8));
  EXPECT_EQ(SaltedBandKey(12345, 7), SaltedBandKey(12345, 7));
  EXPECT_NE(SaltedBandKey(12345, 7), SaltedBandKey(12346, 7));
}

}  // namespace
}  // namespace neardup::sketch

namespace neardup::sketch {
namespace {

// 1 - (1 - 0.7^4)^b >= 0.995 first at b = 20 (19: 0.9947); never more bands
// than given, and all of them when even those miss the target.
TEST(LshTest, TrimBandsKeepsTheFewestThatReachTheTarget) {
  EXPECT_EQ(TrimBands({30, 4}, 0.7, 0.995), (LshParams{20, 4}));
  EXPECT_LT(LshCollisionProbability(0.7, {19, 4}), 0.995);
  EXPECT_EQ(TrimBands({12, 4}, 0.7, 0.995), (LshParams{12, 4}));
  EXPECT_EQ(TrimBands({30, 4}, 0.99, 0.5), (LshParams{1, 4}));
}

}  // namespace
}  // namespace neardup::sketch
