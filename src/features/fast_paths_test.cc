// SPDX-License-Identifier: Apache-2.0
// The default pipeline's fast paths against slow references, down to the
// shingle hashes: the normalizer handles ASCII, CJK ideographs and full-width
// forms without ICU (normalize/normalizer.cc), and T2S skips characters that
// start no key by a bitmap and matches the rest in a double-array trie. The
// reference normalizes the whole string with ICU, folds Traditional to
// Simplified by a naive longest match over OpenCC's tables (earlier tables
// win, Taiwan stage first), then cleans up without NFKC.
#include <gtest/gtest.h>
#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>

#include <map>
#include <random>

#include "base/utf8.h"
#include "features/shingles.h"
#include "normalize/normalizer.h"
#include "normalize/t2s.h"
#include "resources/tables.h"

namespace neardup::features {
namespace {

using Table = std::map<std::string, std::string>;  // UTF-8 key -> first value

Table LoadTable(const std::vector<std::string>& files) {
  Table t;
  for (const auto& f : files) {
    EXPECT_TRUE(resources::ForEachOpenccEntry(normalize::DefaultOpenccDir() + "/" + f,
                                              [&](std::string_view k, std::string_view v) {
                                                t.emplace(std::string(k),
                                                          std::string(v));  // earlier tables win
                                                return Status::OK();
                                              })
                    .ok());
  }
  return t;
}

// Longest key at each character boundary, else the character.
std::string NaiveFold(const Table& t, const std::string& in) {
  std::string out;
  size_t pos = 0;
  while (pos < in.size()) {
    size_t best = 0, end = pos;
    for (int chars = 0; end < in.size() && chars < 16; ++chars) {
      base::DecodeUtf8(in, &end);
      if (t.count(in.substr(pos, end - pos))) best = end;
    }
    if (best > 0) {
      out += t.at(in.substr(pos, best - pos));
      pos = best;
    } else {
      const size_t start = pos;
      base::DecodeUtf8(in, &pos);
      out += in.substr(start, pos - start);
    }
  }
  return out;
}

TEST(FastPathsTest, MixedChineseEnglishFullWidthGiveTheSlowPathsFeatures) {
  auto folder = normalize::T2SFolder::Shared("", true);
  ASSERT_TRUE(folder.ok()) << folder.status().ToString();
  normalize::NormalizerOptions with_t2s, without_nfkc;
  with_t2s.folder = *folder;
  without_nfkc.nfkc_casefold = false;
  auto fast = normalize::Normalizer::Create(with_t2s);
  auto plain = normalize::Normalizer::Create(without_nfkc);
  auto shingler = Shingler::Create({});
  ASSERT_TRUE(fast.ok() && plain.ok() && shingler.ok());
  UErrorCode err = U_ZERO_ERROR;
  const icu::Normalizer2* icu_nfkc_cf = icu::Normalizer2::getNFKCCasefoldInstance(err);
  ASSERT_TRUE(U_SUCCESS(err));
  const Table tw = LoadTable({"TWVariantsRevPhrases.txt", "TWPhrasesRev.txt"});
  const Table ts = LoadTable({"TSPhrases.txt", "TSCharacters.txt"});
  // Traditional characters and phrases (single-character keys, keys that
  // longer ones extend, Taiwan phrases), Simplified, English, full-width
  // forms, punctuation, combining marks and compatibility characters.
  const std::vector<std::string> pool = {
      "國",   "語",     "說",    "們",  "會",      "軟體",   "程式", "命令列", "資訊", "發", "頭髮",
      "乾",   "乾隆",   "著",    "裡",  "為",      "這",     "中",   "文",     "的",   "学", "习",
      "你好", "Hello",  "world", "the", "NeAr",    "dup",    "2024", " ",      "  ",   "\n", "Ａ",
      "ｂ",   "１",     "，",    "。",  "！",      "、",     "《",   "》",     "「",   "」", "“",
      "”",    "—",      "…",     "　",  "e\u0301", "\u0308", "ﬁ",    "ß",      "①",    "ｶ",  "ﾞ",
      "가",   "\uF900", "臺灣",  "台",  "麵",      "後",     "裏",   "著名",   "鐘錶"};
  std::mt19937 rng(26);
  int with_shingles = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    std::string s;
    const int len = 1 + static_cast<int>(rng() % 24);
    for (int i = 0; i < len; ++i) s += pool[rng() % pool.size()];
    std::string nfkc;
    icu::StringByteSink<std::string> sink(&nfkc);
    err = U_ZERO_ERROR;
    icu_nfkc_cf->normalizeUTF8(0, icu::StringPiece(s.data(), s.size()), sink, nullptr, err);
    ASSERT_TRUE(U_SUCCESS(err));
    std::string want, got;
    ASSERT_TRUE((*plain)->Normalize(NaiveFold(ts, NaiveFold(tw, nfkc)), &want).ok());
    ASSERT_TRUE((*fast)->Normalize(s, &got).ok());
    ASSERT_EQ(got, want) << "input: " << s;
    std::vector<uint64_t> a, b;
    (*shingler)->Shingle(got, &a);
    (*shingler)->Shingle(want, &b);
    ASSERT_EQ(a, b);
    with_shingles += !a.empty();
  }
  EXPECT_GT(with_shingles, 3000);  // the comparison is not between empty sets
}

}  // namespace
}  // namespace neardup::features
