// SPDX-License-Identifier: Apache-2.0
#include "distributed/components.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "distributed/in_process_comm.h"

namespace neardup::distributed {
namespace {

constexpr uint32_t kDocs = 600;

// Near-duplicate-like clusters (a star around an original, some chains of
// single links, some larger dense groups), similarities from a few values
// so the canonical order has ties.
std::vector<batch::Edge> Graph(uint64_t seed) {
  std::mt19937 rng(seed);
  auto below = [&](uint32_t m) { return static_cast<uint32_t>(rng() % m); };
  std::vector<batch::Edge> edges;
  auto sim = [&] { return 0.7f + 0.05f * static_cast<float>(below(6)); };
  for (uint32_t d = 0; d + 1 < kDocs; ++d) {
    const uint32_t kind = below(10);
    if (kind < 3) edges.push_back({d, std::min(kDocs - 1, d + 1 + below(4)), sim()});
    if (kind == 3) edges.push_back({d, d + 1, sim()});  // chains
    if (kind == 4 && d + 40 < kDocs) {
      for (int k = 0; k < 6; ++k) edges.push_back({d, d + 1 + below(39), sim()});
    }
  }
  for (int k = 0; k < 40; ++k) {  // long links
    const uint32_t a = below(kDocs), b = below(kDocs);
    if (a < b) edges.push_back({a, b, sim()});
  }
  // Each pair once, as verification gives them.
  std::sort(edges.begin(), edges.end(), [](const batch::Edge& x, const batch::Edge& y) {
    return x.a != y.a ? x.a < y.a : x.b < y.b;
  });
  edges.erase(std::unique(edges.begin(), edges.end(),
                          [](const batch::Edge& x, const batch::Edge& y) {
                            return x.a == y.a && x.b == y.b;
                          }),
              edges.end());
  return edges;
}

// Uneven line ranges, one of them empty when there are ranks enough.
LineRanges Ranges(int n) {
  std::vector<uint32_t> bounds = {0};
  for (int r = 1; r < n; ++r) bounds.push_back(r == 2 ? bounds.back() : kDocs * r / n - 17);
  bounds.push_back(kDocs);
  return LineRanges(bounds);
}

// The single process's clusters: the batch ClusterBuilder over every edge.
batch::Clustering Reference(const std::vector<batch::Edge>& edges, uint64_t cap,
                            batch::TempDir* tmp) {
  batch::ClusterBuilder b(kDocs, cap, tmp, 1 << 20);
  for (const batch::Edge& e : edges) EXPECT_TRUE(b.Add(e).ok());
  auto c = b.Finish();
  EXPECT_TRUE(c.ok());
  return std::move(c).value();
}

// Per document: the smallest member of its cluster (a canonical name).
std::vector<uint32_t> Canonical(const std::vector<uint32_t>& root) {
  std::map<uint32_t, uint32_t> smallest;
  for (uint32_t d = 0; d < root.size(); ++d) smallest.emplace(root[d], d);
  std::vector<uint32_t> out(root.size());
  for (uint32_t d = 0; d < root.size(); ++d) out[d] = smallest[root[d]];
  return out;
}

struct Global {
  std::vector<uint32_t> root, size;
  uint64_t rounds = 0, oversized = 0, refused = 0;
};

// Runs Components (and Cap) on n in-process ranks, each holding the edges
// of its documents as b (as the runner does) and some others.
Global RunDistributed(int n, const std::vector<batch::Edge>& edges, uint64_t cap) {
  const LineRanges ranges = Ranges(n);
  Global g;
  g.root.resize(kDocs);
  g.size.resize(kDocs);
  std::vector<uint64_t> rounds(n), oversized(n), refused(n);
  RunInProcess(n, [&](Comm& c) {
    auto tmp = batch::TempDir::Create("");
    ASSERT_TRUE(tmp.ok());
    std::vector<batch::Edge> mine;
    for (size_t i = 0; i < edges.size(); ++i) {
      const int holder = i % 5 == 0 ? static_cast<int>(i % n) : ranges.Owner(edges[i].b);
      if (holder == c.rank()) mine.push_back(edges[i]);
    }
    Labels l = Components(c, ranges, mine, &rounds[c.rank()]);
    if (cap > 0) {
      CapStats st;
      EXPECT_TRUE(Cap(c, ranges, mine, cap, tmp->get(), 1 << 16, &l, &st).ok());
      oversized[c.rank()] = st.oversized_components;
      refused[c.rank()] = st.refused_by_cap;
    }
    const uint32_t lo = ranges.begin(c.rank());
    ASSERT_EQ(l.root.size(), ranges.end(c.rank()) - lo);
    for (uint32_t i = 0; i < l.root.size(); ++i) {
      g.root[lo + i] = l.root[i];
      g.size[lo + i] = l.size[i];
    }
  });
  for (int r = 0; r < n; ++r) {
    g.rounds = std::max(g.rounds, rounds[r]);
    g.oversized += oversized[r];
    g.refused += refused[r];
  }
  return g;
}

class ComponentsTest : public ::testing::TestWithParam<int> {};

TEST_P(ComponentsTest, SameComponentsAsOneProcess) {
  auto tmp = batch::TempDir::Create("");
  ASSERT_TRUE(tmp.ok());
  for (uint64_t seed : {1, 2, 3}) {
    const std::vector<batch::Edge> edges = Graph(seed);
    const batch::Clustering want = Reference(edges, 0, tmp->get());
    const Global got = RunDistributed(GetParam(), edges, 0);
    const std::vector<uint32_t> canonical = Canonical(want.root);
    EXPECT_EQ(Canonical(got.root), canonical) << "seed " << seed;
    for (uint32_t d = 0; d < kDocs; ++d) {
      EXPECT_EQ(got.root[d], canonical[d]) << d;  // rooted at the smallest member
      EXPECT_EQ(got.size[d], want.size[want.root[d]]) << d;
    }
    EXPECT_GT(got.rounds, 0u);
  }
}

// Components over the cap are replayed canonically: exactly the single
// process's clusters, joins refused included.
TEST_P(ComponentsTest, TheCapGivesTheCanonicalClusters) {
  auto tmp = batch::TempDir::Create("");
  ASSERT_TRUE(tmp.ok());
  for (uint64_t cap : {2, 3, 7}) {
    const std::vector<batch::Edge> edges = Graph(11);
    const batch::Clustering want = Reference(edges, cap, tmp->get());
    const Global got = RunDistributed(GetParam(), edges, cap);
    EXPECT_EQ(Canonical(got.root), Canonical(want.root)) << "cap " << cap;
    for (uint32_t d = 0; d < kDocs; ++d) {
      EXPECT_EQ(got.size[d], want.size[want.root[d]]) << d;
      EXPECT_LE(got.size[d], cap);
    }
    EXPECT_EQ(got.oversized, want.stats.oversized_components);
    EXPECT_EQ(got.refused, want.stats.refused_by_cap);
    EXPECT_GT(got.refused, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, ComponentsTest, ::testing::Values(1, 2, 3, 4));

}  // namespace
}  // namespace neardup::distributed
