// SPDX-License-Identifier: Apache-2.0
#include "features/shingles.h"

#include <gtest/gtest.h>

#include <set>

namespace neardup::features {
namespace {

using Kind = ShingleSpec::Kind;

std::set<std::string> Texts(const Shingler& s, std::string_view text) {
  std::vector<std::pair<uint64_t, std::string>> out;
  s.ShingleWithText(text, &out);
  std::set<std::string> texts;
  for (auto& [h, t] : out) {
    EXPECT_EQ(h, HashFeature(t));
    texts.insert(t);
  }
  return texts;
}

TEST(ShinglerTest, ScriptKindTakesCharactersOfHanAndWordsElsewhere) {
  auto s = Shingler::Create({Kind::kScript, 2, 2});
  ASSERT_TRUE(s.ok());
  // The Han run continues across the space; words pair up.
  EXPECT_EQ(Texts(**s, "中文 字 apt get install"),
            (std::set<std::string>{"中文", "文字", "apt get", "get install"}));
  std::vector<uint64_t> h;
  (*s)->Shingle("中文 字 apt get install", &h);
  EXPECT_EQ(h.size(), 4u);
  EXPECT_TRUE(std::is_sorted(h.begin(), h.end()));
}

TEST(ShinglerTest, CharKindCountsSpaces) {
  auto s = Shingler::Create({Kind::kChar, 3, 1});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(Texts(**s, "ab cd"), (std::set<std::string>{"ab ", "b c", " cd"}));
  EXPECT_EQ(Texts(**s, "ab"), (std::set<std::string>{"ab"}));  // shorter than n: one shingle
}

TEST(ShinglerTest, WordKindTreatsEachHanCharacterAsAWord) {
  auto s = Shingler::Create({Kind::kWord, 3, 2});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(Texts(**s, "the cat 喝水"), (std::set<std::string>{"the cat", "cat 喝", "喝 水"}));
  std::vector<uint64_t> h;
  (*s)->Shingle("", &h);
  EXPECT_TRUE(h.empty());
}

TEST(ShinglerTest, RejectsSizesOutOfRange) {
  EXPECT_FALSE(Shingler::Create({Kind::kChar, 0, 1}).ok());
  EXPECT_FALSE(Shingler::Create({Kind::kWord, 3, 9}).ok());
  EXPECT_FALSE(Shingler::Create({Kind::kScript, 17, 1}).ok());
  EXPECT_TRUE(Shingler::Create({Kind::kChar, 24, 1}).ok());
}

}  // namespace
}  // namespace neardup::features
