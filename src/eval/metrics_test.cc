// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <random>

#include "neardup/eval.h"

namespace neardup::eval {
namespace {

// ARI from the four pair counts (Steinley 2004 form), by enumerating pairs.
double BruteForceAri(const Labels& x, const Labels& y) {
  double a = 0, b = 0, c = 0, d = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    for (size_t j = i + 1; j < x.size(); ++j) {
      const bool sx = x[i] == x[j], sy = y[i] == y[j];
      a += sx && sy, b += sx && !sy, c += !sx && sy, d += !sx && !sy;
    }
  }
  const double den = (a + b) * (b + d) + (a + c) * (c + d);
  return den == 0 ? 1.0 : 2 * (a * d - b * c) / den;
}

TEST(Metrics, PairCountsOnAHandExample) {
  // truth {0,1,2} {3,4}; predicted {0,1} {2,3,4}
  const Labels truth = {0, 0, 0, 3, 3}, pred = {7, 7, 9, 9, 9};
  const Quality q = Evaluate(pred, GroundTruth::FromLabels(truth));
  EXPECT_EQ(q.truth_pairs, 4u);      // 01 02 12 34
  EXPECT_EQ(q.predicted_pairs, 4u);  // 01 23 24 34
  EXPECT_EQ(q.true_positives, 2u);   // 01 34
  EXPECT_DOUBLE_EQ(q.precision, 0.5);
  EXPECT_DOUBLE_EQ(q.recall, 0.5);
  EXPECT_DOUBLE_EQ(q.f1, 0.5);
  EXPECT_NEAR(q.ari, BruteForceAri(pred, truth), 1e-12);
}

TEST(Metrics, PairTruthIsNotMadeTransitive) {
  // Truth pairs 0-1 and 1-2 but not 0-2; predicting {0,1,2} claims 0-2 too.
  const GroundTruth t = GroundTruth::FromPairs(4, {{1, 0}, {1, 2}, {2, 1}});
  ASSERT_EQ(t.pairs.size(), 2u);
  const Quality q = Evaluate({0, 0, 0, 3}, t);
  EXPECT_EQ(q.true_positives, 2u);
  EXPECT_EQ(q.predicted_pairs, 3u);
  EXPECT_DOUBLE_EQ(q.precision, 2.0 / 3);
  EXPECT_DOUBLE_EQ(q.recall, 1.0);
  EXPECT_EQ(t.labels, (Labels{0, 0, 0, 3}));  // components for ARI
  EXPECT_DOUBLE_EQ(q.ari, 1.0);
}

TEST(Metrics, EmptyClaimsAndPerfectPrediction) {
  const Labels truth = {0, 0, 2, 3};
  const Quality none = Evaluate({0, 1, 2, 3}, GroundTruth::FromLabels(truth));
  EXPECT_DOUBLE_EQ(none.precision, 1.0);
  EXPECT_DOUBLE_EQ(none.recall, 0.0);
  EXPECT_DOUBLE_EQ(none.f1, 0.0);
  const Quality all = Evaluate({5, 5, 6, 7}, GroundTruth::FromLabels(truth));
  EXPECT_DOUBLE_EQ(all.f1, 1.0);
  EXPECT_DOUBLE_EQ(all.ari, 1.0);
}

TEST(Metrics, AriMatchesPairCountingFormOnRandomPartitions) {
  std::mt19937 rng(42);
  for (int round = 0; round < 50; ++round) {
    const int n = 2 + rng() % 60;
    Labels x(n), y(n);
    const int kx = 1 + rng() % 10, ky = 1 + rng() % 10;
    for (int i = 0; i < n; ++i) x[i] = rng() % kx, y[i] = rng() % ky;
    EXPECT_NEAR(AdjustedRandIndex(x, y), BruteForceAri(x, y), 1e-9) << "round " << round;
  }
}

TEST(Metrics, ComponentsUseSmallestMember) {
  EXPECT_EQ(Components(6, {{4, 2}, {2, 5}, {0, 1}}), (Labels{0, 0, 2, 3, 2, 2}));
}

TEST(Metrics, PeakRssIsPositive) { EXPECT_GT(PeakRssBytes(), 1u << 20); }

}  // namespace
}  // namespace neardup::eval
