// SPDX-License-Identifier: Apache-2.0
//
// EngineOptions::verify_per_cluster: verification of a cluster's candidates
// stops after that many passes. The clusters documents join must be those of
// an engine that verifies every candidate; only the matches listed shrink.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "base/utf8.h"
#include "neardup/engine.h"

namespace neardup {
namespace {

// Random Chinese text of `n` characters from a pool of common ones.
std::u32string RandomText(std::mt19937* rng, size_t n) {
  std::uniform_int_distribution<char32_t> ch(0x4E00, 0x4E00 + 1500);
  std::u32string s;
  for (size_t i = 0; i < n; ++i) s.push_back(ch(*rng));
  return s;
}

std::string Utf8(const std::u32string& s) {
  std::string out;
  for (char32_t c : s) base::AppendUtf8(static_cast<int32_t>(c), &out);
  return out;
}

// Copies of `bases` with `edit_rate` of their characters replaced.
std::vector<Document> Workload(size_t docs, size_t bases, double edit_rate, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::u32string> base;
  for (size_t i = 0; i < bases; ++i) base.push_back(RandomText(&rng, 150 + rng() % 300));
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<Document> out;
  for (size_t i = 0; i < docs; ++i) {
    std::u32string t = base[rng() % bases];
    for (char32_t& c : t) {
      if (u(rng) < edit_rate) c = RandomText(&rng, 1)[0];
    }
    out.push_back({"d" + std::to_string(i), Utf8(t)});
  }
  return out;
}

std::unique_ptr<Engine> WithLimit(size_t per_cluster) {
  EngineOptions o;
  o.verify_per_cluster = per_cluster;
  auto e = Engine::Create(o);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return std::move(e).value();
}

// Matches per cluster of the engine that answered `r`.
std::map<std::string, size_t> PerCluster(const Engine& e, const std::vector<Match>& matches) {
  std::map<std::string, size_t> n;
  for (const Match& m : matches) ++n[e.ClusterOf(m.id, 0).value().id];
  return n;
}

TEST(VerifyLimitTest, ClustersAreThoseOfFullVerificationAndMatchesAreCapped) {
  // Copies of 40 bases with 3% and 15% edits: most copies pass, some fail.
  std::vector<Document> docs = Workload(600, 40, 0.03, 7);
  std::vector<Document> far = Workload(200, 40, 0.15, 7);
  docs.insert(docs.end(), far.begin(), far.end());
  for (size_t i = 600; i < docs.size(); ++i) docs[i].id = "f" + std::to_string(i);
  auto full = WithLimit(0);
  auto one = WithLimit(1);
  auto four = WithLimit(4);
  size_t capped = 0, duplicates = 0;
  for (const Document& d : docs) {
    auto a = full->Add(d);
    ASSERT_TRUE(a.ok());
    for (auto* e : {one.get(), four.get()}) {
      const size_t limit = e == one.get() ? 1 : 4;
      auto b = e->Add(d);
      ASSERT_TRUE(b.ok());
      EXPECT_EQ(b->cluster, a->cluster) << d.id;
      EXPECT_EQ(b->duplicate, a->duplicate) << d.id;
      EXPECT_EQ(b->cluster_size, a->cluster_size) << d.id;
      for (const auto& [cluster, n] : PerCluster(*e, b->matches)) EXPECT_LE(n, limit) << d.id;
      // Every match listed is one the full engine verified, with its score.
      for (const Match& m : b->matches) {
        auto it = std::find_if(a->matches.begin(), a->matches.end(),
                               [&](const Match& x) { return x.id == m.id; });
        ASSERT_NE(it, a->matches.end()) << d.id << " " << m.id;
        EXPECT_EQ(it->verified, m.verified);
      }
      if (limit == 4 && a->matches.size() > b->matches.size()) ++capped;
    }
    duplicates += a->duplicate;
  }
  // The workload exercises the limit: clusters grow far past four.
  EXPECT_GT(duplicates, 500u);
  EXPECT_GT(capped, 300u);
  // Queries decide the same way too.
  for (size_t i = 0; i < 40; ++i) {
    const std::string text = Workload(1, 40, 0.05, 100 + i)[0].text;
    auto a = full->Query(text);
    auto b = one->Query(text);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->cluster, b->cluster);
    EXPECT_EQ(a->cluster_size, b->cluster_size);
    EXPECT_LE(b->matches.size(), a->matches.size());
  }
}

TEST(VerifyLimitTest, TheDefaultListsAFewMatchesAndZeroListsAll) {
  std::vector<Document> docs = Workload(30, 1, 0.02, 11);
  auto def = Engine::Create(EngineOptions{}).value();
  auto all = WithLimit(0);
  for (const Document& d : docs) {
    ASSERT_TRUE(def->Add(d).ok());
    ASSERT_TRUE(all->Add(d).ok());
  }
  const std::string text = Workload(31, 1, 0.02, 11).back().text;
  auto a = all->Query(text);
  auto d = def->Query(text);
  ASSERT_TRUE(a.ok() && d.ok());
  EXPECT_EQ(a->cluster_size, 30u);
  EXPECT_EQ(a->matches.size(), 30u);
  EXPECT_EQ(d->matches.size(), EngineOptions{}.verify_per_cluster);
  EXPECT_EQ(d->cluster, a->cluster);
  // Similar still lists the whole cluster.
  EXPECT_EQ(def->Similar("d0").value().size(), 29u);
}

}  // namespace
}  // namespace neardup
