// SPDX-License-Identifier: Apache-2.0
#include "verify/set_similarity.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>

namespace neardup::verify {
namespace {

using features::Feature;

double NaiveJaccard(const std::vector<Feature>& a, const std::vector<Feature>& b) {
  std::set<uint64_t> x, y, u;
  for (auto& f : a) x.insert(f.hash), u.insert(f.hash);
  for (auto& f : b) y.insert(f.hash), u.insert(f.hash);
  if (u.empty()) return 1.0;
  size_t inter = 0;
  for (uint64_t h : x) inter += y.count(h);
  return static_cast<double>(inter) / u.size();
}

double NaiveCosine(const std::vector<Feature>& a, const std::vector<Feature>& b) {
  std::map<uint64_t, double> x, y;
  for (auto& f : a) x[f.hash] += f.weight;
  for (auto& f : b) y[f.hash] += f.weight;
  if (x.empty() && y.empty()) return 1.0;
  double dot = 0, nx = 0, ny = 0;
  for (auto& [h, w] : x) {
    nx += w * w;
    if (y.count(h)) dot += w * y[h];
  }
  for (auto& [h, w] : y) ny += w * w;
  if (nx == 0 || ny == 0) return 0.0;
  return dot / std::sqrt(nx * ny);
}

TEST(SetSimilarityTest, MatchesNaiveOnRandomFeatureMultisets) {
  std::mt19937_64 rng(3);
  for (int t = 0; t < 300; ++t) {
    std::vector<Feature> a, b;
    const uint64_t universe = 1 + rng() % 40;
    for (int i = rng() % 60; i > 0; --i) a.push_back({rng() % universe, 1.0f + (rng() % 3)});
    for (int i = rng() % 60; i > 0; --i) b.push_back({rng() % universe, 1.0f});
    EXPECT_DOUBLE_EQ(ShingleJaccard(a, b), NaiveJaccard(a, b)) << t;
    EXPECT_NEAR(TfCosine(a, b), NaiveCosine(a, b), 1e-12) << t;
  }
}

TEST(SetSimilarityTest, EdgeCases) {
  std::vector<Feature> e, one = {{5, 1.0f}, {5, 1.0f}};
  EXPECT_DOUBLE_EQ(ShingleJaccard(e, e), 1.0);
  EXPECT_DOUBLE_EQ(ShingleJaccard(e, one), 0.0);
  EXPECT_DOUBLE_EQ(TfCosine(e, e), 1.0);
  EXPECT_DOUBLE_EQ(TfCosine(one, e), 0.0);
  EXPECT_DOUBLE_EQ(TfCosine(one, one), 1.0);
  EXPECT_EQ(TermFrequencies(one).size(), 1u);
  EXPECT_DOUBLE_EQ(TermFrequencies(one)[0].second, 2.0);
}

}  // namespace
}  // namespace neardup::verify
