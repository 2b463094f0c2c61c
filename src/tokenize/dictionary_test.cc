// SPDX-License-Identifier: Apache-2.0
#include "tokenize/dictionary.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "base/file_util.h"

namespace neardup::tokenize {
namespace {

class DictionaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("nd_dict_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    dict_ = (dir_ / "dict.utf8").string();
    ASSERT_TRUE(base::AtomicWrite(dict_, "中国 10 ns\n中国人 5\n人 20 n\n国 0\n中国 12 ns\n").ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  DictionaryOptions Options() const {
    DictionaryOptions o;
    o.dict_path = dict_;
    o.cache_dir = (dir_ / "cache").string();
    return o;
  }
  static uint64_t FreqOf(const Dictionary& d, std::u32string_view w) {
    const int32_t id = d.trie().Find(w);
    return id < 0 ? 0 : d.Freq(id);
  }

  std::filesystem::path dir_;
  std::string dict_;
};

TEST_F(DictionaryTest, FollowsJiebaPrefixDictRules) {
  auto d = Dictionary::Load(Options());
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ((*d)->total(), 47u);         // every line counts, repeats included
  EXPECT_EQ(FreqOf(**d, U"中国"), 12u);  // the last line wins
  EXPECT_EQ(FreqOf(**d, U"中国人"), 5u);
  EXPECT_EQ((*d)->trie().Find(U"国"), base::CodeTrie::kNone);  // frequency 0 = absent
  EXPECT_EQ((*d)->trie().Find(U"中"), base::CodeTrie::kNone);  // a prefix, not a word
  EXPECT_EQ((*d)->num_words(), 3u);
  const int32_t id = (*d)->trie().Find(U"人");
  EXPECT_DOUBLE_EQ((*d)->LogProb(id), std::log(20.0) - std::log(47.0));
}

TEST_F(DictionaryTest, CacheRoundTripAndRecovery) {
  auto first = Dictionary::Load(Options());
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE((*first)->loaded_from_cache());
  ASSERT_TRUE(std::filesystem::exists((*first)->cache_path()));
  auto second = Dictionary::Load(Options());
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE((*second)->loaded_from_cache());
  EXPECT_EQ((*second)->total(), 47u);
  EXPECT_EQ(FreqOf(**second, U"中国人"), 5u);

  // A damaged cache is detected and rebuilt.
  std::string image;
  ASSERT_TRUE(base::ReadWholeFile((*first)->cache_path(), &image).ok());
  image[image.size() / 2] ^= 0x55;
  ASSERT_TRUE(base::AtomicWrite((*first)->cache_path(), image).ok());
  auto third = Dictionary::Load(Options());
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE((*third)->loaded_from_cache());
  EXPECT_EQ(FreqOf(**third, U"中国"), 12u);

  // Without the cache nothing is written.
  DictionaryOptions none = Options();
  none.use_cache = false;
  none.cache_dir = (dir_ / "nocache").string();
  ASSERT_TRUE(Dictionary::Load(none).ok());
  EXPECT_FALSE(std::filesystem::exists(dir_ / "nocache"));
}

TEST_F(DictionaryTest, UserDictionaries) {
  const std::string user = (dir_ / "user.utf8").string();
  ASSERT_TRUE(base::AtomicWrite(user, "\xEF\xBB\xBF云计算 100 n\n中国人民\n蓝翔 nz\n").ok());
  DictionaryOptions o = Options();
  o.user_dict_paths = {user};
  auto d = Dictionary::Load(o);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(FreqOf(**d, U"云计算"), 100u);
  const uint64_t suggested = FreqOf(**d, U"中国人民");
  EXPECT_GE(suggested, 1u);
  EXPECT_GE(FreqOf(**d, U"蓝翔"), 1u);
  EXPECT_EQ((*d)->total(), 47u + 100u + suggested + FreqOf(**d, U"蓝翔"));
  // The user dictionary is part of the cache key.
  auto plain = Dictionary::Load(Options());
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ((*plain)->trie().Find(U"云计算"), base::CodeTrie::kNone);
}

TEST_F(DictionaryTest, Errors) {
  DictionaryOptions o = Options();
  o.dict_path = (dir_ / "missing").string();
  EXPECT_FALSE(Dictionary::Load(o).ok());
  ASSERT_TRUE(base::AtomicWrite(dict_, "好 1\n坏\n").ok());
  auto bad = Dictionary::Load(Options());
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_NE(bad.status().message().find(":2"), std::string::npos) << bad.status().message();
  ASSERT_TRUE(base::AtomicWrite(dict_, "好 x1\n").ok());
  EXPECT_TRUE(Dictionary::Load(Options()).status().IsInvalidArgument());
}

}  // namespace
}  // namespace neardup::tokenize
