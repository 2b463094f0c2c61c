// SPDX-License-Identifier: Apache-2.0
//
// Components on the inputs that are hard for hooking (chains, a star, a
// grid) and on random graphs, on 1, 2 and 4 in-process ranks: the labels of
// a union-find, the same on every number of ranks, and rounds within the
// bound of components.h. The unit tests use 2^16 documents;
// NEARDUP_COMPONENTS_DOCS sets another number (the slow test
// components_rounds_1m runs a million, tests/components_rounds.cmake).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>

#include "base/sanitizers.h"
#include "distributed/components.h"
#include "distributed/in_process_comm.h"

namespace neardup::distributed {
namespace {

uint32_t Docs() {
  const char* env = std::getenv("NEARDUP_COMPONENTS_DOCS");
  if (env != nullptr) return static_cast<uint32_t>(std::strtoul(env, nullptr, 10));
  return base::kSanitized ? 1u << 12 : 1u << 16;  // the same shapes, smaller, under sanitizers
}

uint64_t CeilLog2(uint64_t n) {
  uint64_t k = 0;
  while ((uint64_t{1} << k) < n) ++k;
  return k;
}

// components.h: at most floor(log_{3/2} s) + 2 rounds, s the largest
// component.
uint64_t Bound(uint64_t largest) {
  return static_cast<uint64_t>(std::floor(std::log(static_cast<double>(largest)) / std::log(1.5))) +
         2;
}

struct Labelling {
  std::vector<uint32_t> root, size;
  uint64_t rounds = 0;
};

// A Comm that counts the collectives it passes on.
class CountingComm : public Comm {
 public:
  explicit CountingComm(Comm& c) : c_(c) {}
  int rank() const override { return c_.rank(); }
  int size() const override { return c_.size(); }
  int LocalSize() override { return c_.LocalSize(); }
  uint64_t AllReduce(uint64_t v, ReduceOp op) override {
    ++reduces;
    return c_.AllReduce(v, op);
  }
  std::vector<uint8_t> AllGather(std::span<const uint8_t> mine) override {
    ++others;
    return c_.AllGather(mine);
  }
  std::vector<uint8_t> Gather(std::span<const uint8_t> mine) override {
    ++others;
    return c_.Gather(mine);
  }
  std::vector<uint8_t> Exchange(const std::vector<std::vector<uint8_t>>& out,
                                std::vector<size_t>* from) override {
    ++exchanges;
    return c_.Exchange(out, from);
  }
  void Broadcast(std::string* bytes, int root) override {
    ++others;
    c_.Broadcast(bytes, root);
  }

  uint64_t exchanges = 0, reduces = 0, others = 0;

 private:
  Comm& c_;
};

// The single process's answer: union-find, every document labelled with the
// smallest member of its component.
Labelling UnionFind(uint32_t docs, const std::vector<batch::Edge>& edges) {
  std::vector<uint32_t> up(docs);
  std::iota(up.begin(), up.end(), 0);
  auto find = [&](uint32_t x) {
    while (up[x] != x) x = up[x] = up[up[x]];
    return x;
  };
  for (const batch::Edge& e : edges) {
    const uint32_t x = find(e.a), y = find(e.b);
    up[std::max(x, y)] = std::min(x, y);  // the smaller root stays: roots are the minima
  }
  Labelling r;
  r.root.resize(docs);
  r.size.assign(docs, 0);
  for (uint32_t d = 0; d < docs; ++d) ++r.size[r.root[d] = find(d)];
  for (uint32_t d = 0; d < docs; ++d) r.size[d] = r.size[r.root[d]];
  return r;
}

// Components on `ranks` in-process ranks with even line ranges, `slice`
// edges at a time; the owner of b holds an edge, except every 7th, held by
// some other rank.
Labelling RunComponents(int ranks, uint32_t docs, const std::vector<batch::Edge>& edges,
                        size_t slice = SIZE_MAX) {
  std::vector<uint32_t> bounds;
  for (int r = 0; r <= ranks; ++r)
    bounds.push_back(static_cast<uint32_t>(uint64_t{docs} * r / ranks));
  const LineRanges lines(bounds);
  Labelling g;
  g.root.resize(docs);
  g.size.resize(docs);
  std::vector<uint64_t> rounds(ranks);
  RunInProcess(ranks, [&](Comm& c) {
    std::vector<batch::Edge> mine;
    for (size_t i = 0; i < edges.size(); ++i) {
      const int holder = i % 7 == 3 ? static_cast<int>(i / 7 % ranks) : lines.Owner(edges[i].b);
      if (holder == c.rank()) mine.push_back(edges[i]);
    }
    CountingComm counted(c);
    uint64_t& n = rounds[c.rank()];
    const size_t held = MaxAll(c, mine.size());
    const Labels l = Components(counted, lines, mine, &n, slice);
    // Each round is 5 exchanges, 8 per slice (of at most `held` edges, in
    // steps 1 and 2), and 3 all-reduces; the labels 3 exchanges.
    const uint64_t slices = held == 0 ? 0 : (held - 1) / slice + 1;
    EXPECT_GE(counted.exchanges, 5 * n + 3) << n << " rounds";
    EXPECT_LE(counted.exchanges, (5 + 16 * slices) * n + 3) << n << " rounds";
    EXPECT_EQ(counted.reduces, 3 * n);
    EXPECT_EQ(counted.others, 0u);
    std::copy(l.root.begin(), l.root.end(), g.root.begin() + lines.begin(c.rank()));
    std::copy(l.size.begin(), l.size.end(), g.size.begin() + lines.begin(c.rank()));
  });
  g.rounds = rounds[0];
  for (uint64_t r : rounds) EXPECT_EQ(r, g.rounds) << "every rank counts the same rounds";
  return g;
}

// The first document whose label differs, or -1.
int64_t FirstDifference(const Labelling& got, const Labelling& want) {
  for (size_t d = 0; d < want.root.size(); ++d) {
    if (got.root[d] != want.root[d] || got.size[d] != want.size[d]) return static_cast<int64_t>(d);
  }
  return -1;
}

// Runs on 1, 2 and 4 ranks, checks the labels against union-find and the
// rounds against the bound; returns the rounds (the same on every run).
uint64_t CheckAllRanks(const std::string& name, uint32_t docs,
                       const std::vector<batch::Edge>& edges) {
  const Labelling want = UnionFind(docs, edges);
  const uint64_t largest = *std::max_element(want.size.begin(), want.size.end());
  uint64_t rounds = 0;
  for (int ranks : {1, 2, 4}) {
    const Labelling got = RunComponents(ranks, docs, edges);
    EXPECT_EQ(FirstDifference(got, want), -1) << name << " on " << ranks << " ranks";
    EXPECT_LE(got.rounds, Bound(largest)) << name << " on " << ranks << " ranks";
    if (ranks > 1) {
      EXPECT_EQ(got.rounds, rounds) << name << ": rounds depend on the ranks";
    }
    rounds = got.rounds;
    if (ranks == 2) {  // a few slices of edges a step: the same labels and rounds
      const Labelling sliced = RunComponents(ranks, docs, edges, edges.size() / 6 + 1);
      EXPECT_EQ(FirstDifference(sliced, want), -1) << name << " in slices";
      EXPECT_EQ(sliced.rounds, rounds) << name << " in slices";
    }
    std::printf("%s: %u documents, %d ranks: %llu rounds (bound %llu)\n", name.c_str(), docs, ranks,
                static_cast<unsigned long long>(got.rounds),
                static_cast<unsigned long long>(Bound(largest)));
  }
  return rounds;
}

std::vector<batch::Edge> Path(const std::vector<uint32_t>& order) {
  std::vector<batch::Edge> edges;
  for (size_t i = 0; i + 1 < order.size(); ++i) {
    edges.push_back({std::min(order[i], order[i + 1]), std::max(order[i], order[i + 1]), 0.9f});
  }
  return edges;
}

// A chain, a star and a grid are one component: at most 2 ceil(log2 n)
// rounds (the goal) and the bound.
void CheckAdversarial(const std::string& name, uint32_t docs,
                      const std::vector<batch::Edge>& edges) {
  EXPECT_LE(CheckAllRanks(name, docs, edges), 2 * CeilLog2(docs)) << name;
}

// Each hook of a chain in id order hangs a document under its neighbour:
// one tree as deep as the chain after the first round.
TEST(ComponentsRoundsTest, ChainInIdOrder) {
  std::vector<uint32_t> order(Docs());
  std::iota(order.begin(), order.end(), 0);
  CheckAdversarial("chain in id order", Docs(), Path(order));
  std::reverse(order.begin(), order.end());
  CheckAdversarial("chain in reverse id order", Docs(), Path(order));
}

// Ids bit-reversed along the chain: hooking to the smallest root merges
// only pairs of trees per round (log2 n rounds of hooking before this
// algorithm, each followed by pointer jumping).
TEST(ComponentsRoundsTest, ChainBitReversed) {
  const uint64_t bits = CeilLog2(Docs());
  std::vector<uint32_t> order;
  for (uint64_t i = 0; i < (uint64_t{1} << bits); ++i) {
    uint64_t r = 0;
    for (uint64_t k = 0; k < bits; ++k) r |= (i >> k & 1) << (bits - 1 - k);
    if (r < Docs()) order.push_back(static_cast<uint32_t>(r));
  }
  CheckAdversarial("chain bit-reversed", Docs(), Path(order));
}

TEST(ComponentsRoundsTest, ChainShuffled) {
  std::vector<uint32_t> order(Docs());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(7));
  CheckAdversarial("chain shuffled", Docs(), Path(order));
}

TEST(ComponentsRoundsTest, Stars) {
  std::vector<batch::Edge> first, last;
  for (uint32_t d = 1; d < Docs(); ++d) first.push_back({0, d, 0.9f});
  for (uint32_t d = 0; d + 1 < Docs(); ++d) last.push_back({d, Docs() - 1, 0.9f});
  CheckAdversarial("star around the first document", Docs(), first);
  CheckAdversarial("star around the last document", Docs(), last);
}

// A side x side grid, ids row by row, then shuffled.
TEST(ComponentsRoundsTest, Grids) {
  const auto side = static_cast<uint32_t>(std::sqrt(static_cast<double>(Docs())));
  const uint32_t docs = side * side;
  std::vector<uint32_t> id(docs);
  std::iota(id.begin(), id.end(), 0);
  for (bool shuffled : {false, true}) {
    if (shuffled) std::shuffle(id.begin(), id.end(), std::mt19937(11));
    std::vector<batch::Edge> edges;
    auto link = [&](uint32_t x, uint32_t y) {
      edges.push_back({std::min(id[x], id[y]), std::max(id[x], id[y]), 0.9f});
    };
    for (uint32_t x = 0; x < docs; ++x) {
      if (x % side + 1 < side) link(x, x + 1);
      if (x + side < docs) link(x, x + side);
    }
    CheckAdversarial(shuffled ? "grid shuffled" : "grid", docs, edges);
  }
}

// Random graphs from a few scattered edges to well past the giant
// component, and random trees: labels of union-find, rounds within the
// bound.
TEST(ComponentsRoundsTest, RandomGraphsMatchUnionFind) {
  const uint32_t docs = std::min<uint32_t>(Docs(), 1u << 15);
  std::mt19937 rng(5);
  for (double per_doc : {0.05, 0.3, 0.5, 0.7, 2.0}) {
    std::vector<batch::Edge> edges;
    for (uint32_t k = 0; k < per_doc * docs; ++k) {
      const uint32_t a = rng() % docs, b = rng() % docs;
      if (a != b) edges.push_back({std::min(a, b), std::max(a, b), 0.9f});
    }
    CheckAllRanks("random, " + std::to_string(per_doc) + " edges per document", docs, edges);
  }
  std::vector<batch::Edge> tree;
  for (uint32_t d = 1; d < docs; ++d) tree.push_back({static_cast<uint32_t>(rng() % d), d, 0.9f});
  CheckAllRanks("random tree", docs, tree);
}

// Many small graphs (paths, trees, sparse random graphs, ids permuted),
// where the bound is tight: labels of union-find, rounds within the bound.
TEST(ComponentsRoundsTest, SmallGraphsWithinTheBound) {
  std::mt19937 rng(13);
  const int graphs = base::kSanitized ? 50 : 150;
  for (int g = 0; g < graphs; ++g) {
    const uint32_t docs = 2 + rng() % 60;
    std::vector<uint32_t> id(docs);
    std::iota(id.begin(), id.end(), 0);
    std::shuffle(id.begin(), id.end(), rng);
    std::vector<batch::Edge> edges;
    auto link = [&](uint32_t x, uint32_t y) {
      if (x != y) edges.push_back({std::min(id[x], id[y]), std::max(id[x], id[y]), 0.9f});
    };
    const int kind = g % 3;
    for (uint32_t d = 1; d < docs; ++d) {
      if (kind == 0) link(d - 1, d);
      if (kind == 1) link(static_cast<uint32_t>(rng() % d), d);
      if (kind == 2) link(static_cast<uint32_t>(rng() % docs), static_cast<uint32_t>(rng() % docs));
    }
    const Labelling want = UnionFind(docs, edges);
    const uint64_t largest = *std::max_element(want.size.begin(), want.size.end());
    const Labelling got = RunComponents(1 + g % 3, docs, edges);
    ASSERT_EQ(FirstDifference(got, want), -1) << "graph " << g;
    ASSERT_LE(got.rounds, Bound(largest)) << "graph " << g;
  }
}

}  // namespace
}  // namespace neardup::distributed
