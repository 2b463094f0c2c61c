// SPDX-License-Identifier: Apache-2.0
#include "tokenize/segmenter.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <random>

#include "base/file_util.h"
#include "resources/data_dir.h"

namespace neardup::tokenize {
namespace {

std::string Utf8(char32_t c) {
  std::string s;
  // Han characters only: three bytes.
  s.push_back(static_cast<char>(0xE0 | (c >> 12)));
  s.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
  s.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  return s;
}

// Brute force over every route through jieba's DAG, summed right to left as
// jieba's DP does; the no-HMM cut of a Han string is exactly the best route.
std::vector<uint32_t> BruteForceRoute(const std::u32string& s,
                                      const std::map<std::u32string, uint64_t>& dict,
                                      uint64_t total) {
  const size_t n = s.size();
  const double log_total = std::log(static_cast<double>(total));
  std::vector<std::vector<std::pair<size_t, double>>> dag(n);
  for (size_t k = 0; k < n; ++k) {
    for (size_t e = k + 1; e <= n; ++e) {
      auto it = dict.find(s.substr(k, e - k));
      if (it != dict.end() && it->second > 0) {
        dag[k].emplace_back(e, std::log(static_cast<double>(it->second)) - log_total);
      }
    }
    if (dag[k].empty()) dag[k].emplace_back(k + 1, -log_total);
  }
  double best = -INFINITY;
  std::vector<uint32_t> best_ends, ends;
  std::function<void(size_t)> walk = [&](size_t k) {
    if (k == n) {
      double p = 0.0;
      size_t start = n;
      for (size_t i = ends.size(); i-- > 0;) {
        start = i == 0 ? 0 : ends[i - 1];
        const auto& cands = dag[start];
        for (auto& [e, lp] : cands) {
          if (e == ends[i]) p = lp + p;
        }
      }
      (void)start;
      // jieba's DP breaks ties toward the later end at the earliest position:
      // the lexicographically largest of the best routes.
      if (p > best || (p == best && ends > best_ends)) best = p, best_ends = ends;
      return;
    }
    for (auto& [e, lp] : dag[k]) {
      ends.push_back(static_cast<uint32_t>(e));
      walk(e);
      ends.pop_back();
    }
  };
  walk(0);
  return best_ends;
}

TEST(SegmenterTest, RouteMatchesBruteForce) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("nd_seg_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const char32_t alphabet[] = {U'一', U'二', U'三', U'四'};
  std::mt19937 rng(3);
  for (int round = 0; round < 20; ++round) {
    std::map<std::u32string, uint64_t> dict;
    std::string text;
    uint64_t total = 0;
    for (int i = 0; i < 25; ++i) {
      std::u32string w;
      const int len = 1 + rng() % 4;
      for (int j = 0; j < len; ++j) w.push_back(alphabet[rng() % 4]);
      const uint64_t f = 1 + rng() % 100000;
      dict[w] = f;  // the last line wins, like the loader
      total += f;
      for (char32_t c : w) text += Utf8(c);
      text += " " + std::to_string(f) + "\n";
    }
    ASSERT_TRUE(base::AtomicWrite((dir / "d.utf8").string(), text).ok());
    SegmenterOptions o;
    o.dict_path = (dir / "d.utf8").string();
    o.hmm_path = resources::JiebaDir() + "/hmm_model.utf8";
    o.hmm = false;
    o.use_cache = false;
    if (!std::filesystem::exists(o.hmm_path)) GTEST_SKIP() << "run scripts/setup for the HMM model";
    auto seg = Segmenter::Create(o);
    ASSERT_TRUE(seg.ok()) << seg.status().ToString();
    ASSERT_EQ((*seg)->dictionary().total(), total);
    for (int q = 0; q < 30; ++q) {
      std::u32string s;
      const int len = 1 + rng() % 9;
      for (int j = 0; j < len; ++j) s.push_back(alphabet[rng() % 4]);
      std::vector<uint32_t> got;
      (*seg)->CutBlock(s.data(), s.size(), &got);
      EXPECT_EQ(got, BruteForceRoute(s, dict, total)) << "round " << round;
    }
  }
  std::filesystem::remove_all(dir);
}

class JiebaDataTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!std::filesystem::exists(resources::JiebaDir() + "/jieba.dict.utf8")) return;
    SegmenterOptions o;
    o.cache_dir = std::filesystem::temp_directory_path() / "neardup_test_cache";
    auto s = Segmenter::Shared(o);
    if (s.ok()) seg_ = *s;
  }
  void SetUp() override {
    if (!seg_) GTEST_SKIP() << "jieba data missing: run scripts/setup";
  }
  std::vector<std::string> Cut(std::string_view text) {
    std::vector<std::string_view> t;
    Status s = seg_->Cut(text, &t);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return {t.begin(), t.end()};
  }
  static std::shared_ptr<const Segmenter> seg_;
};
std::shared_ptr<const Segmenter> JiebaDataTest::seg_;

using V = std::vector<std::string>;

// Expected values are jieba 0.42.1's output with the same dictionary.
TEST_F(JiebaDataTest, DictionaryWordsAndHmmNewWords) {
  EXPECT_EQ(Cut("我来到北京清华大学"), (V{"我", "来到", "北京", "清华大学"}));
  EXPECT_EQ(Cut("他来到了网易杭研大厦"), (V{"他", "来到", "了", "网易", "杭研", "大厦"}));
}

TEST_F(JiebaDataTest, NonBlockCharactersAreSingleTokens) {
  EXPECT_EQ(Cut("我们  去 了"), (V{"我们", " ", " ", "去", " ", "了"}));
  EXPECT_EQ(Cut("你好，世界！\r\n"), (V{"你好", "，", "世界", "！", "\r\n"}));
  EXPECT_EQ(Cut("ＡＢＣ全角"), (V{"Ａ", "Ｂ", "Ｃ", "全角"}));
  EXPECT_EQ(Cut("😀表情"), (V{"😀", "表情"}));
  EXPECT_EQ(Cut("α粒子"), (V{"α", "粒子"}));
}

TEST_F(JiebaDataTest, LatinAndNumbers) {
  EXPECT_EQ(Cut("v1.2a版本"), (V{"v1.2", "a", "版本"}));
  EXPECT_EQ(Cut("3.14%的人"), (V{"3.14%", "的", "人"}));
  EXPECT_EQ(Cut("c++和c#编程"), (V{"c++", "和", "c#", "编程"}));
}

TEST_F(JiebaDataTest, TokensConcatenateToInputAndBadUtf8Fails) {
  const std::string text = "混合 text，含 123 与\t制表符。";
  std::string joined;
  for (const auto& t : Cut(text)) joined += t;
  EXPECT_EQ(joined, text);
  EXPECT_TRUE(Cut("").empty());
  std::vector<std::string_view> t;
  EXPECT_TRUE(seg_->Cut("abc\xC3", &t).IsInvalidArgument());
}

}  // namespace
}  // namespace neardup::tokenize
