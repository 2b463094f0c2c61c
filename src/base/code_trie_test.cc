// SPDX-License-Identifier: Apache-2.0
#include "base/code_trie.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace neardup::base {
namespace {

std::u32string RandomKey(std::mt19937* rng, int alphabet) {
  std::uniform_int_distribution<int> len(1, 6), ch(0, alphabet - 1);
  std::u32string k;
  const int n = len(*rng);
  for (int i = 0; i < n; ++i) {
    const int c = ch(*rng);
    // Mix ASCII, Han and a non-BMP block so both code tables are exercised.
    k.push_back(c % 3 == 0 ? U'a' + c % 26 : c % 3 == 1 ? 0x4E00 + c : 0x20000 + c);
  }
  return k;
}

TEST(CodeTrieTest, MatchesStdMapOnRandomKeys) {
  std::mt19937 rng(42);
  std::map<std::u32string, int32_t> truth;
  while (truth.size() < 5000)
    truth.emplace(RandomKey(&rng, 60), static_cast<int32_t>(truth.size()));
  std::vector<std::u32string> keys;
  std::vector<int32_t> values;
  for (auto& [k, v] : truth) keys.push_back(k), values.push_back(v);
  auto trie = CodeTrie::Build(keys, values);
  ASSERT_TRUE(trie.ok()) << trie.status().ToString();
  for (auto& [k, v] : truth) EXPECT_EQ(trie->Find(k), v);
  // Random probes, and every proper prefix: present iff it is a key.
  for (int i = 0; i < 20000; ++i) {
    std::u32string q = RandomKey(&rng, 80);
    auto it = truth.find(q);
    EXPECT_EQ(trie->Find(q), it == truth.end() ? CodeTrie::kNone : it->second);
  }
  // Walking state by state reaches a node exactly for prefixes of some key.
  for (int i = 0; i < 2000; ++i) {
    std::u32string q = RandomKey(&rng, 60);
    int32_t s = CodeTrie::kRoot;
    for (size_t j = 0; j < q.size(); ++j) {
      s = trie->Child(s, q[j]);
      const std::u32string prefix = q.substr(0, j + 1);
      auto lb = truth.lower_bound(prefix);
      const bool is_prefix = lb != truth.end() && lb->first.compare(0, prefix.size(), prefix) == 0;
      ASSERT_EQ(s != CodeTrie::kNone, is_prefix);
      if (s == CodeTrie::kNone) break;
    }
  }
  EXPECT_EQ(trie->Find(U""), CodeTrie::kNone);
  EXPECT_EQ(trie->Child(CodeTrie::kRoot, U'\U0010FFFF'), CodeTrie::kNone);
}

TEST(CodeTrieTest, SerializeRoundTripAndCorruption) {
  auto trie = CodeTrie::Build({U"中国", U"中国人", U"人", U"\U00020000x"}, {5, 6, 7, 8});
  ASSERT_TRUE(trie.ok());
  std::string image;
  trie->Serialize(&image);
  std::string_view in(image);
  auto back = CodeTrie::Deserialize(&in);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(in.empty());
  for (auto [k, v] : std::vector<std::pair<std::u32string, int>>{
           {U"中国", 5}, {U"中国人", 6}, {U"人", 7}, {U"\U00020000x", 8}, {U"中", -1}}) {
    EXPECT_EQ(back->Find(k), v);
  }
  std::string_view truncated(image.data(), image.size() - 3);
  EXPECT_FALSE(CodeTrie::Deserialize(&truncated).ok());
}

TEST(CodeTrieTest, RejectsBadInput) {
  EXPECT_TRUE(CodeTrie::Build({U"a", U"a"}, {1, 2}).status().IsInvalidArgument());
  EXPECT_TRUE(CodeTrie::Build({U""}, {1}).status().IsInvalidArgument());
  EXPECT_TRUE(CodeTrie::Build({U"a"}, {}).status().IsInvalidArgument());
  auto empty = CodeTrie::Build({}, {});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->Find(U"a"), CodeTrie::kNone);
}

TEST(CodeTrieTest, DecodeToCodePoints) {
  auto cps = DecodeToCodePoints("a中\U0001F600");
  ASSERT_TRUE(cps.ok());
  EXPECT_EQ(*cps, U"a中\U0001F600");
  EXPECT_TRUE(DecodeToCodePoints("a\xFF").status().IsInvalidArgument());
}

}  // namespace
}  // namespace neardup::base
