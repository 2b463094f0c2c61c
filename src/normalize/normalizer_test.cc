// SPDX-License-Identifier: Apache-2.0
#include "normalize/normalizer.h"

#include <gtest/gtest.h>
#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>

#include <random>

#include "base/utf8.h"
#include "normalize/char_class.h"

namespace neardup::normalize {
namespace {

std::string Norm(std::string_view in, NormalizerOptions o = {}) {
  auto n = Normalizer::Create(o);
  EXPECT_TRUE(n.ok());
  std::string out;
  Status s = (*n)->Normalize(in, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

TEST(NormalizerTest, FullWidthAndCaseFold) {
  EXPECT_EQ(Norm("ＡＢＣ１２３ Hello"), "abc123 hello");
  EXPECT_EQ(Norm("Straße"), "strasse");
}

TEST(NormalizerTest, PunctuationBecomesSeparator) {
  EXPECT_EQ(Norm("你好，世界！"), "你好 世界");
  EXPECT_EQ(Norm("hello,world...  again"), "hello world again");
  NormalizerOptions keep;
  keep.drop_punctuation = false;
  EXPECT_EQ(Norm("你好，世界！", keep), "你好,世界!");
}

TEST(NormalizerTest, WhitespaceCollapsesAndTrims) {
  EXPECT_EQ(Norm("  a \t\n b\u3000c  "), "a b c");
  EXPECT_EQ(Norm(""), "");
  EXPECT_EQ(Norm(" ，。 "), "");
}

TEST(NormalizerTest, SentenceBreaksKept) {
  NormalizerOptions o;
  o.keep_sentence_breaks = true;
  EXPECT_EQ(Norm("第一句。第二句，还有！\n第三", o), "第一句\n第二句 还有\n第三");
}

TEST(NormalizerTest, InvalidUtf8IsAnErrorOrReplaced) {
  auto n = Normalizer::Create({});
  ASSERT_TRUE(n.ok());
  std::string out;
  Status s = (*n)->Normalize(
      "ab\xFF"
      "cd",
      &out);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("byte 2"), std::string::npos);
  NormalizerOptions o;
  o.replace_invalid_utf8 = true;
  o.drop_punctuation = false;
  EXPECT_EQ(Norm("ab\xFF"
                 "cd",
                 o),
            "ab\uFFFDcd");
}

TEST(NormalizerTest, ControlCharactersVanish) {
  EXPECT_EQ(Norm(std::string("a\0b\x01"
                             "c",
                             5)),
            "abc");
}

TEST(Utf8Test, RejectsOverlongsSurrogatesAndTruncation) {
  EXPECT_TRUE(ValidateUtf8("plain ascii text that is long enough").ok());
  EXPECT_TRUE(ValidateUtf8("中文\U0001F600").ok());
  EXPECT_FALSE(ValidateUtf8("\xC0\xAF").ok());          // overlong '/'
  EXPECT_FALSE(ValidateUtf8("\xED\xA0\x80").ok());      // surrogate
  EXPECT_FALSE(ValidateUtf8("\xE4\xB8").ok());          // truncated
  EXPECT_FALSE(ValidateUtf8("\xF4\x90\x80\x80").ok());  // > U+10FFFF
  // Maximal subparts: one U+FFFD per subpart.
  EXPECT_EQ(ReplaceInvalidUtf8("\xE4\xB8x"), "\uFFFDx");
  EXPECT_EQ(ReplaceInvalidUtf8("\xC0\xAF"), "\uFFFD\uFFFD");
}

TEST(Utf8Test, DecodeRoundTrip) {
  std::string s;
  for (int32_t cp : {0x41, 0xE9, 0x4E2D, 0x1F600}) base::AppendUtf8(cp, &s);
  size_t pos = 0;
  EXPECT_EQ(base::DecodeUtf8(s, &pos), 0x41);
  EXPECT_EQ(base::DecodeUtf8(s, &pos), 0xE9);
  EXPECT_EQ(base::DecodeUtf8(s, &pos), 0x4E2D);
  EXPECT_EQ(base::DecodeUtf8(s, &pos), 0x1F600);
  EXPECT_EQ(pos, s.size());
}

TEST(CharClassTest, Classes) {
  EXPECT_EQ(Classify(U'中'), CharClass::kNoSpace);
  EXPECT_EQ(Classify(U'あ'), CharClass::kNoSpace);
  EXPECT_EQ(Classify(U'a'), CharClass::kWord);
  EXPECT_EQ(Classify(U'é'), CharClass::kWord);
  EXPECT_EQ(Classify(U'，'), CharClass::kPunct);
  EXPECT_EQ(Classify(U'€'), CharClass::kPunct);
  EXPECT_EQ(Classify(0x3000), CharClass::kSpace);
}

}  // namespace
}  // namespace neardup::normalize

namespace neardup::normalize {
namespace {

// The fast path (ASCII and CJK copied, the rest through ICU in spans) must
// equal ICU's NFKC_Casefold of the whole string, including marks that
// compose with a preceding ASCII or CJK base.
TEST(NormalizerTest, FastPathEqualsWholeStringIcu) {
  UErrorCode err = U_ZERO_ERROR;
  const icu::Normalizer2* icu_nfkc_cf = icu::Normalizer2::getNFKCCasefoldInstance(err);
  ASSERT_TRUE(U_SUCCESS(err));
  const std::vector<std::string> pool = {
      "a",  "Z",      "e",  "中", "文",     "\u0301", "\u0308", "\u0323", "Ａ", "ｂ",
      "ﬁ",  "ß",      "Σ",  "①",  "\u212A", "\u1100", "\u1161", "\u11A8", "가", "ｶ",
      "ﾞ",  "\uF900", "é",  "Å",  "\u3099", "か",     "7",      "x",      "，", "。",
      "、", "《",     "」", "　", "“",      "”",      "—",      "…",      "！", "Ｚ",
      "〃", "々",     "’",  "～", "｟",     "｡",      "〒"};
  NormalizerOptions o;
  o.drop_punctuation = false;
  auto n = Normalizer::Create(o);
  ASSERT_TRUE(n.ok());
  std::mt19937 rng(3);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string s;
    const int len = rng() % 12;
    for (int i = 0; i < len; ++i) s += pool[rng() % pool.size()];
    std::string want;
    icu::StringByteSink<std::string> sink(&want);
    err = U_ZERO_ERROR;
    icu_nfkc_cf->normalizeUTF8(0, icu::StringPiece(s.data(), s.size()), sink, nullptr, err);
    ASSERT_TRUE(U_SUCCESS(err));
    // Clean-up collapses and trims the spaces NFKC makes (U+3000 -> ' ').
    std::string collapsed;
    for (char c : want) {
      if (c == ' ' && (collapsed.empty() || collapsed.back() == ' ')) continue;
      collapsed += c;
    }
    if (!collapsed.empty() && collapsed.back() == ' ') collapsed.pop_back();
    want = collapsed;
    std::string got;
    ASSERT_TRUE((*n)->Normalize(s, &got).ok());
    ASSERT_EQ(got, want) << "input: " << s;
  }
}

}  // namespace
}  // namespace neardup::normalize

namespace neardup::normalize {
namespace {

// Maps 國 to 国 and ！ (after NFKC: !) to a space-separated marker.
class TestFolder : public TextFolder {
 public:
  void Fold(std::string_view in, std::string* out) const override {
    std::string s(in);
    for (size_t p; (p = s.find("國")) != std::string::npos;) s.replace(p, 3, "国");
    *out += s;
  }
};

TEST(NormalizerTest, FolderRunsAfterNfkcAndBeforeCleanUp) {
  NormalizerOptions o;
  o.folder = std::make_shared<TestFolder>();
  EXPECT_EQ(Norm("中國ＡＢ，中國", o), "中国ab 中国");
}

// Found by fuzz/normalize: a held-back U+0000 was copied as three bytes on
// the folder's path, reading past the end of the input and duplicating the
// next bytes ("a\0b" gave "abb").
TEST(NormalizerTest, NulBeforeAFolderIsOneByte) {
  NormalizerOptions o;
  o.folder = std::make_shared<TestFolder>();
  EXPECT_EQ(Norm(std::string("a\0b", 3), o), "ab");
  EXPECT_EQ(Norm(std::string("中\0", 4), o), "中");
  const std::string tail(std::string(60, '\0') + "x");
  EXPECT_EQ(Norm(tail.substr(0, 60), o), "");
}

}  // namespace
}  // namespace neardup::normalize
