// SPDX-License-Identifier: Apache-2.0
#include "neardup/group_cluster.h"

#include <gtest/gtest.h>

#include <map>

#include "neardup/ids.h"

namespace neardup {
namespace {

using Groups = std::vector<std::vector<std::string>>;

GroupClustering Cluster(const GroupClusterOptions& o,
                        const std::map<std::string, std::string>& texts, const Groups& groups,
                        bool want = true) {
  auto gc = GroupClusterer::Create(o);
  EXPECT_TRUE(gc.ok()) << gc.status().ToString();
  if (want)
    for (const auto& g : groups) (*gc)->Want(g);
  for (const auto& [id, t] : texts) EXPECT_TRUE((*gc)->AddText(id, t).ok());
  EXPECT_TRUE((*gc)->AddGroups(groups).ok());
  return (*gc)->Finish();
}

size_t IndexOf(const GroupClustering& r, const std::string& id) {
  return std::find(r.ids.begin(), r.ids.end(), id) - r.ids.begin();
}

// A chain: each text differs from the next by one character, so neighbours
// pass levenshtein:0.9 while the ends are far apart.
std::map<std::string, std::string> ChainTexts(int n) {
  std::map<std::string, std::string> t;
  std::string s = "abcdefghijklmnopqrstuvwxyz0123456789";
  for (int i = 0; i < n; ++i) {
    t["c" + std::to_string(i)] = s;
    s[i % s.size()] = 'Z';
  }
  return t;
}

TEST(GroupClusterTest, VerifiesPairsAndCapsChains) {
  const auto texts = ChainTexts(12);
  Groups groups;
  for (int i = 0; i + 1 < 12; ++i)
    groups.push_back({"c" + std::to_string(i), "c" + std::to_string(i + 1)});
  auto uncapped = Cluster(
      {.verify = VerifyKind::kLevenshtein, .threshold = 0.9, .max_cluster_size = 0}, texts, groups);
  EXPECT_EQ(uncapped.cluster_size[IndexOf(uncapped, "c0")], 12u);
  for (size_t cap : {2u, 3u, 5u}) {
    auto r =
        Cluster({.verify = VerifyKind::kLevenshtein, .threshold = 0.9, .max_cluster_size = cap},
                texts, groups);
    for (uint32_t s : r.cluster_size) EXPECT_LE(s, cap);
    EXPECT_GT(r.stats.refused_by_cap, 0u);
    EXPECT_EQ(r.stats.pairs_passed, 11u);
  }
}

TEST(GroupClusterTest, FailingPairsAndMissingTextsAreNotJoined) {
  std::map<std::string, std::string> texts = {
      {"1", "已知函数f(x)=2x+3,求f(1)的值"},
      {"2", "已知函数f(x)=2x+3,求f(1)的值。"},
      {"3", "已知函数f(x)=2x+5,求f(1)的值"},  // another number: a different question
      {"4", "unrelated"}};
  Groups groups = {{"1", "2", "3", "99"}, {"4"}};
  auto r = Cluster({.verify = VerifyKind::kQbank}, texts, groups);
  EXPECT_EQ(r.ids.size(), 4u);
  EXPECT_EQ(r.cluster[IndexOf(r, "2")], IndexOf(r, "1"));
  EXPECT_EQ(r.cluster_size[IndexOf(r, "3")], 1u);
  EXPECT_EQ(r.stats.pairs_verified, 3u);
  EXPECT_EQ(r.stats.pairs_passed, 1u);
  EXPECT_EQ(r.stats.pairs_missing_text, 3u);  // 99 with each of 1, 2, 3
  ASSERT_EQ(r.pairs.size(), 1u);
  EXPECT_EQ(r.pairs[0].outcome, PairOutcome::kJoined);
}

TEST(GroupClusterTest, KeepPoliciesAndWantedTexts) {
  std::map<std::string, std::string> texts = {{"10", "the same question text"},
                                              {"9", "the same question text!!"},
                                              {"abc", "the same question text, with more words"},
                                              {"x", "never in a group"}};
  Groups groups = {{"10", "9", "abc"}};
  const GroupClusterOptions base{.verify = VerifyKind::kNone};
  auto first = Cluster(base, texts, groups);
  EXPECT_EQ(first.ids.size(), 3u);  // "x" was not wanted
  auto o = base;
  o.keep = KeepPolicy::kSmallestId;
  auto smallest = Cluster(o, texts, groups);
  EXPECT_EQ(smallest.ids[smallest.kept[0]], "9");  // 9 < 10 numerically, numbers before "abc"
  o.keep = KeepPolicy::kLongest;
  auto longest = Cluster(o, texts, groups);
  EXPECT_EQ(longest.ids[longest.kept[0]], "abc");
  o.keep = KeepPolicy::kFirst;
  auto all = Cluster(o, texts, groups, /*want=*/false);
  EXPECT_EQ(all.ids.size(), 4u);
  EXPECT_EQ(all.ids[all.kept[IndexOf(all, "9")]], "10");  // std::map order: "10" added first
}

// A Traditional reprint of a Simplified text is the same text after T2S, as
// in dedup; without folding most characters differ.
TEST(GroupClusterTest, FoldsTraditionalToSimplifiedAsDedup) {
  const std::map<std::string, std::string> texts = {
      {"s", "国务院总理在北京会见了来访的外国代表团成员"},
      {"t", "國務院總理在北京會見了來訪的外國代表團成員"}};
  const Groups groups = {{"s", "t"}};
  auto folded = Cluster({.verify = VerifyKind::kLevenshtein, .threshold = 0.9}, texts, groups);
  EXPECT_EQ(folded.cluster_size[IndexOf(folded, "t")], 2u);
  ASSERT_EQ(folded.pairs.size(), 1u);
  EXPECT_DOUBLE_EQ(folded.pairs[0].similarity, 1.0);
  auto raw = Cluster({.verify = VerifyKind::kLevenshtein, .threshold = 0.9, .t2s = T2S::kOff},
                     texts, groups);
  EXPECT_EQ(raw.cluster_size[IndexOf(raw, "t")], 1u);
}

TEST(GroupClusterTest, ErrorsAndIdOrder) {
  EXPECT_FALSE(GroupClusterer::Create({.threshold = 1.5}).ok());
  EXPECT_FALSE(GroupClusterer::Create({.max_group_size = 1}).ok());
  EXPECT_TRUE(GroupClusterer::Create({.threads = 100000}).status().IsInvalidArgument());
  auto gc = GroupClusterer::Create({});
  ASSERT_TRUE(gc.ok());
  EXPECT_TRUE((*gc)->AddText("a", "x").ok());
  EXPECT_TRUE((*gc)->AddText("a", "y").IsAlreadyExists());
  EXPECT_TRUE((*gc)->AddText("", "y").IsInvalidArgument());
  EXPECT_TRUE((*gc)->AddText("b", "\xFF").IsInvalidArgument());
  EXPECT_TRUE(IdLess("9", "10"));
  EXPECT_TRUE(IdLess("-5", "3"));
  EXPECT_TRUE(IdLess("-10", "-9"));
  EXPECT_TRUE(IdLess("99999999999999999999999", "\"a\""));
  EXPECT_FALSE(IdLess("007", "7"));
  EXPECT_TRUE(IdLess("\"a\"", "\"b\""));
}

}  // namespace
}  // namespace neardup
