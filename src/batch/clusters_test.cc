// SPDX-License-Identifier: Apache-2.0
#include "batch/clusters.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "cluster/union_find.h"

namespace neardup::batch {
namespace {

// The definition: a capped union-find over every edge in canonical order.
std::vector<uint32_t> Reference(uint32_t n, uint64_t cap, std::vector<Edge> edges) {
  std::sort(edges.begin(), edges.end(), EdgeCanonicalLess());
  cluster::CappedUnionFind uf(n, cap);
  for (const Edge& e : edges) (void)uf.Union(e.a, e.b);
  std::vector<uint32_t> root(n);
  for (uint32_t d = 0; d < n; ++d) root[d] = static_cast<uint32_t>(uf.Find(d));
  return root;
}

// Same partition (labels may differ).
bool SamePartition(const std::vector<uint32_t>& x, const std::vector<uint32_t>& y) {
  if (x.size() != y.size()) return false;
  std::map<uint32_t, uint32_t> xy, yx;
  for (size_t i = 0; i < x.size(); ++i) {
    if (xy.emplace(x[i], y[i]).first->second != y[i]) return false;
    if (yx.emplace(y[i], x[i]).first->second != x[i]) return false;
  }
  return true;
}

Clustering Build(uint32_t n, uint64_t cap, const std::vector<Edge>& edges, size_t sort_bytes) {
  auto dir = TempDir::Create("");
  EXPECT_TRUE(dir.ok());
  ClusterBuilder b(n, cap, dir->get(), sort_bytes);
  for (const Edge& e : edges) EXPECT_TRUE(b.Add(e).ok());
  auto c = b.Finish();
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return std::move(c).value();
}

std::vector<Edge> RandomEdges(uint32_t n, size_t m, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Edge> edges;
  for (size_t i = 0; i < m; ++i) {
    uint32_t a = rng() % n, b = rng() % n;
    if (a == b) continue;
    if (a > b) std::swap(a, b);
    // Few distinct similarities, so ties are common and (a, b) decides them.
    edges.push_back({a, b, 0.5f + static_cast<float>(rng() % 4) / 8.0f});
  }
  return edges;
}

TEST(ClusterBuilderTest, EqualsCappedUnionFindInCanonicalOrder) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const uint32_t n = 300;
    auto edges = RandomEdges(n, 260, seed);
    for (uint64_t cap : {0ull, 2ull, 3ull, 5ull, 17ull}) {
      const auto expected = Reference(n, cap, edges);
      // Any arrival order, any sort budget (spilled or not): the same clusters.
      std::mt19937_64 rng(seed * 31 + cap);
      auto shuffled = edges;
      std::shuffle(shuffled.begin(), shuffled.end(), rng);
      for (size_t sort_bytes : {size_t{1}, size_t{1} << 20}) {
        const Clustering c = Build(n, cap, shuffled, sort_bytes);
        ASSERT_TRUE(SamePartition(c.root, expected)) << "seed " << seed << " cap " << cap;
        for (uint32_t d = 0; d < n; ++d) {
          const uint32_t r = c.root[d];
          ASSERT_EQ(c.root[r], r);
          const auto size = std::count(c.root.begin(), c.root.end(), r);
          ASSERT_EQ(c.size[r], static_cast<uint32_t>(size));
          if (cap > 0) {
            ASSERT_LE(static_cast<uint64_t>(size), cap);
          }
        }
      }
    }
  }
}

// The containment guard: an ad page (0) lies in two unrelated stories (1,
// 2), a copy of it (3) in a third (4); stories 5 and 6 have excerpts 7 and
// 8, 7 also lying in 6's reprint 9. Stories never join through a page they
// both contain; each excerpt joins its story.
TEST(ClusterBuilderTest, ContainmentEdgesJoinAContainedClusterOnce) {
  const std::vector<Edge> edges = {
      {0, 3, 0.95f},                           // the ad page and its copy
      {0, 1, ContainedSimilarity(0.30, 'a')},  // the ad in story 1
      {0, 2, ContainedSimilarity(0.25, 'a')},  // ... in story 2
      {3, 4, ContainedSimilarity(0.20, 'a')},  // its copy in story 4
      {5, 7, ContainedSimilarity(0.40, 'b')},  // excerpt 7 of story 5
      {6, 8, ContainedSimilarity(0.35, 'b')},  // excerpt 8 of story 6
      {6, 9, 0.90f},                           // 9 reprints 6
      {7, 9, ContainedSimilarity(0.33, 'a')},  // 7 also lies in 9
  };
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    auto shuffled = edges;
    std::mt19937_64 rng(seed);
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    for (uint64_t cap : {0ull, 50ull}) {
      const Clustering c = Build(10, cap, shuffled, 1 << 20);
      auto same = [&](uint32_t x, uint32_t y) { return c.root[x] == c.root[y]; };
      // The ad pages' cluster joins story 1, its best edge, and nothing else.
      EXPECT_TRUE(same(0, 3) && same(0, 1));
      EXPECT_FALSE(same(1, 2) || same(1, 4) || same(2, 4));
      EXPECT_TRUE(same(6, 8) && same(6, 9));
      EXPECT_TRUE(same(5, 7)) << "7's best edge is to 5 (0.40 over 0.33)";
      EXPECT_FALSE(same(5, 6));
      EXPECT_EQ(c.stats.containment_edges, 6u);
      EXPECT_EQ(c.stats.containment_joined, 3u);  // 0 -> 1, 7 -> 5, 8 -> 6
    }
  }
  // Reported similarities: the Jaccard, whichever side is the smaller.
  EXPECT_FLOAT_EQ(ReportedSimilarity({0, 1, ContainedSimilarity(0.3, 'a')}), 0.3f);
  EXPECT_EQ(ContainedOf({0, 1, ContainedSimilarity(0.3, 'b')}), 1u);
  EXPECT_FALSE(IsContained({0, 1, 0.99f}));
}

TEST(ClusterBuilderTest, CapStopsAChainBestFirst) {
  // 0-1-2-3-4 with equal similarities: canonical order joins 0-1, 1-2, then
  // refuses 2-3 at cap 3, and joins 3-4.
  std::vector<Edge> chain = {{3, 4, 0.9f}, {2, 3, 0.9f}, {1, 2, 0.9f}, {0, 1, 0.9f}};
  Clustering c = Build(5, 3, chain, 1 << 20);
  EXPECT_EQ(c.root[0], c.root[1]);
  EXPECT_EQ(c.root[1], c.root[2]);
  EXPECT_NE(c.root[2], c.root[3]);
  EXPECT_EQ(c.root[3], c.root[4]);
  EXPECT_EQ(c.stats.oversized_components, 1u);
  EXPECT_EQ(c.stats.refused_by_cap, 1u);
  // Stronger edges win first: 2-3 and 3-4 at 0.95 make {2,3,4}; 1-2 is refused.
  chain[0].similarity = chain[1].similarity = 0.95f;
  c = Build(5, 3, chain, 1 << 20);
  EXPECT_EQ(c.root[0], c.root[1]);
  EXPECT_NE(c.root[1], c.root[2]);
  EXPECT_EQ(c.root[2], c.root[3]);
  EXPECT_EQ(c.root[3], c.root[4]);
}

TEST(ClusterBuilderTest, ComponentsWithinTheCapAreUntouched) {
  std::vector<Edge> edges = {{0, 1, 0.7f}, {1, 2, 0.7f}, {3, 4, 0.9f}};
  Clustering c = Build(6, 3, edges, 1 << 20);
  EXPECT_EQ(c.stats.oversized_components, 0u);
  EXPECT_EQ(c.root[0], c.root[2]);
  EXPECT_EQ(c.size[c.root[0]], 3u);
  EXPECT_EQ(c.size[c.root[5]], 1u);
}

}  // namespace
}  // namespace neardup::batch
