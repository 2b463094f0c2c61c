// SPDX-License-Identifier: Apache-2.0
#include "normalize/t2s.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <random>
#include <unordered_map>

#include "base/file_util.h"
#include "normalize/normalizer.h"
#include "resources/tables.h"

namespace neardup::normalize {
namespace {

std::string Fold(const TextFolder& f, std::string_view in) {
  std::string out;
  f.Fold(in, &out);
  return out;
}

TEST(T2SFolderTest, LongestMatchOnSyntheticTables) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("nd_t2s_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string phrases = (dir / "p.txt").string(), chars = (dir / "c.txt").string();
  ASSERT_TRUE(base::AtomicWrite(phrases, "# comment\n甲乙丙\t子 丑\n甲乙\t寅\n").ok());
  ASSERT_TRUE(base::AtomicWrite(chars, "甲\t卯\n乙\t辰 巳\n甲乙\t不用\n").ok());
  auto f = T2SFolder::LoadFiles({phrases, chars});
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ((*f)->num_entries(), 4u);  // 甲乙 from the phrase table wins
  // Longest key first; the first value of a multi-valued entry; unmatched copied.
  EXPECT_EQ(Fold(**f, "甲乙丙丁 甲乙丁 甲 乙x"), "子丁 寅丁 卯 辰x");
  EXPECT_EQ(Fold(**f, ""), "");
  EXPECT_EQ(Fold(**f, "ascii only"), "ascii only");
  EXPECT_EQ(Fold(**f, "甲乙\U0001F600"), "寅\U0001F600");

  ASSERT_TRUE(base::AtomicWrite(chars, "甲 no tab\n").ok());
  auto bad = T2SFolder::LoadFiles({chars});
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_NE(bad.status().message().find(":1"), std::string::npos);
  EXPECT_FALSE(T2SFolder::LoadFiles({(dir / "missing").string()}).ok());
  std::filesystem::remove_all(dir);
}

class OpenccDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(DefaultOpenccDir() + "/TSCharacters.txt")) {
      GTEST_SKIP() << "OpenCC data missing: run scripts/setup";
    }
    auto f = T2SFolder::Shared();
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    folder_ = *f;
  }
  std::shared_ptr<const T2SFolder> folder_;
};

TEST_F(OpenccDataTest, TraditionalBecomesSimplified) {
  EXPECT_EQ(Fold(*folder_, "漢字簡化後的發展"), "汉字简化后的发展");
  // A phrase keeps 乾 that the character table alone would turn into 干.
  EXPECT_EQ(Fold(*folder_, "乾卦"), "乾卦");
  EXPECT_EQ(Fold(*folder_, "乾淨"), "干净");
  // Simplified text is left alone.
  EXPECT_EQ(Fold(*folder_, "简体中文不变"), "简体中文不变");
}

TEST_F(OpenccDataTest, TaiwanUsageStage) {
  auto tw = T2SFolder::Shared("", /*taiwan=*/true);
  ASSERT_TRUE(tw.ok()) << tw.status().ToString();
  EXPECT_EQ(Fold(**tw, "執行程式時的命令列引數"), "运行程序时的命令行参数");  // 執行 -> 运行 too
  EXPECT_EQ(Fold(*folder_, "執行程式時的命令列引數"), "执行程式时的命令列引数");
  EXPECT_EQ(Fold(**tw, "简体中文不变"), "简体中文不变");
}

// The definition, by brute force: at each position the longest key of the
// stage's tables (earlier files win a repeated key; the first value) is
// replaced, else one character is copied.
class ReferenceStage {
 public:
  explicit ReferenceStage(const std::vector<std::string>& paths) {
    for (const auto& path : paths) {
      EXPECT_TRUE(resources::ForEachOpenccEntry(path, [&](std::string_view k, std::string_view v) {
                    map_.emplace(std::string(k), std::string(v.substr(0, v.find(' '))));
                    longest_ = std::max(longest_, k.size());
                    return Status::OK();
                  }).ok());
    }
    for (const auto& [k, v] : map_) index_.emplace(k, v);  // views into map_'s nodes
  }
  std::string Fold(std::string_view in) const {
    std::string out;
    for (size_t pos = 0; pos < in.size();) {
      // Every prefix of whole characters up to the longest key.
      size_t best_end = pos;
      std::string_view best;
      for (size_t end = pos; end < in.size() && end - pos < longest_;) {
        end += std::min(Length(in[end]), in.size() - end);
        if (auto it = index_.find(in.substr(pos, end - pos)); it != index_.end()) {
          best = it->second;
          best_end = end;
        }
      }
      if (best_end > pos) {
        out += best;
        pos = best_end;
        continue;
      }
      const size_t n = std::min(Length(in[pos]), in.size() - pos);
      out.append(in.substr(pos, n));
      pos += n;
    }
    return out;
  }
  const std::map<std::string, std::string>& map() const { return map_; }

 private:
  static size_t Length(char lead) {
    const auto c = static_cast<unsigned char>(lead);
    return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  }
  std::map<std::string, std::string> map_;
  std::unordered_map<std::string_view, std::string_view> index_;
  size_t longest_ = 0;
};

// 1,000 random texts over the tables' own keys (whole, and cut to their first
// characters, so that a longer key starts but does not finish), their
// replacements, ASCII, 2- and 4-byte characters: the folder's fast paths
// give the brute-force longest match, for both stages of the Taiwan mode.
TEST_F(OpenccDataTest, EqualsBruteForceLongestMatch) {
  const std::string d = DefaultOpenccDir();
  const ReferenceStage tw({d + "/TWVariantsRevPhrases.txt", d + "/TWPhrasesRev.txt"});
  const ReferenceStage ts({d + "/TSPhrases.txt", d + "/TSCharacters.txt"});
  std::vector<std::string> pieces = {
      "a", "Z ", "\xc3\xa9", "\xce\xa9", "\U0001F600", "\xe3\x80\x82", "\n", "简", "体"};
  for (const ReferenceStage* r : {&tw, &ts}) {
    for (const auto& [k, v] : r->map()) {
      pieces.push_back(k);
      pieces.push_back(v);
      // The key cut after its first character.
      const auto lead = static_cast<unsigned char>(k[0]);
      const size_t n = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
      if (n < k.size()) pieces.push_back(k.substr(0, n));
    }
  }
  auto both = T2SFolder::Shared("", /*taiwan=*/true);
  ASSERT_TRUE(both.ok());
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<size_t> pick(0, pieces.size() - 1), len(0, 40);
  for (int trial = 0; trial < 1000; ++trial) {
    std::string text;
    for (size_t i = len(rng); i > 0; --i) text += pieces[pick(rng)];
    ASSERT_EQ(Fold(*folder_, text), ts.Fold(text)) << text;
    ASSERT_EQ(Fold(**both, text), ts.Fold(tw.Fold(text))) << text;
  }
}

TEST_F(OpenccDataTest, NormalizerAppliesFolderAfterNfkc) {
  NormalizerOptions o;
  o.folder = folder_;
  auto n = Normalizer::Create(o);
  ASSERT_TRUE(n.ok());
  std::string a, b;
  ASSERT_TRUE((*n)->Normalize("經濟發展，ＡＢＣ！", &a).ok());
  ASSERT_TRUE((*n)->Normalize("经济发展，abc！", &b).ok());
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, "经济发展 abc");
}

}  // namespace
}  // namespace neardup::normalize
