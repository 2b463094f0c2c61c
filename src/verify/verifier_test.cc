// SPDX-License-Identifier: Apache-2.0
#include "verify/verifier.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "base/utf8.h"
#include "features/char_ngram.h"
#include "verify/question_bank.h"

namespace neardup::verify {
namespace {

// Naive references, independent of the bit-parallel code.
std::vector<std::string> CodePointStrings(std::string_view s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t start = pos;
    base::DecodeUtf8(s, &pos);
    out.emplace_back(s.substr(start, pos - start));
  }
  return out;
}

double NaiveLevenshteinSimilarity(std::string_view sa, std::string_view sb) {
  const auto a = CodePointStrings(sa), b = CodePointStrings(sb);
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j)
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
  const size_t longest = std::max(a.size(), b.size());
  return longest == 0 ? 1.0 : 1.0 - static_cast<double>(d[a.size()][b.size()]) / longest;
}

double NaiveLcsRatio(std::string_view sa, std::string_view sb) {
  const auto a = CodePointStrings(sa), b = CodePointStrings(sb);
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1, 0));
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j)
      d[i][j] = a[i - 1] == b[j - 1] ? d[i - 1][j - 1] + 1 : std::max(d[i - 1][j], d[i][j - 1]);
  if (a.empty() && b.empty()) return 1.0;
  return 2.0 * d[a.size()][b.size()] / static_cast<double>(a.size() + b.size());
}

double NaiveJaccard(std::string_view a, std::string_view b, int ngram) {
  auto ex = features::CharNgramExtractor::Create({.ngram = ngram});
  std::vector<features::Feature> fa, fb;
  EXPECT_TRUE((*ex)->Extract(a, &fa).ok() && (*ex)->Extract(b, &fb).ok());
  std::set<uint64_t> x, y, u;
  for (auto& f : fa) x.insert(f.hash), u.insert(f.hash);
  for (auto& f : fb) y.insert(f.hash), u.insert(f.hash);
  if (u.empty()) return 1.0;
  size_t inter = 0;
  for (uint64_t h : x) inter += y.count(h);
  return static_cast<double>(inter) / u.size();
}

// Random normalized-looking text: Han, Latin words, digits and spaces.
std::string RandomText(std::mt19937_64& rng, size_t len) {
  static const char* kPieces[] = {"的", "是", "题", "数", "学", "a",  "b", "x",
                                  "1",  "2",  " ",  "é",  "😀",  "函", "值"};
  std::string s;
  for (size_t i = 0; i < len; ++i) s += kPieces[rng() % std::size(kPieces)];
  return s;
}

TEST(VerifierTest, EachVerifierMatchesNaiveReference) {
  auto lev = CreateVerifier("levenshtein:0.7");
  auto lcs = CreateVerifier("lcs:0.7");
  auto jac = CreateVerifier("jaccard:0.5,ngram=3");
  ASSERT_TRUE(lev.ok() && lcs.ok() && jac.ok());
  std::mt19937_64 rng(99);
  for (int t = 0; t < 150; ++t) {
    const std::string a = RandomText(rng, rng() % 150);
    std::string b = t % 3 ? a : RandomText(rng, rng() % 150);
    if (t % 3 && !b.empty()) b.insert(rng() % 2 ? 0 : b.size(), "数学题");
    auto v = (*lev)->Verify(a, b);
    ASSERT_TRUE(v.ok());
    EXPECT_DOUBLE_EQ(v->similarity, NaiveLevenshteinSimilarity(a, b));
    EXPECT_EQ(v->passed, v->similarity >= 0.7);
    EXPECT_DOUBLE_EQ((*lcs)->Verify(a, b)->similarity, NaiveLcsRatio(a, b));
    EXPECT_DOUBLE_EQ((*jac)->Verify(a, b)->similarity, NaiveJaccard(a, b, 3));
  }
}

TEST(VerifierTest, QuestionBankRule) {
  auto qb = CreateVerifier("qbank");
  ASSERT_TRUE(qb.ok());
  EXPECT_EQ((*qb)->name(), "qbank:0.8,other=1");
  // Same numbers and operators, Han wording changed by 1 of 10 characters.
  const std::string a = "已知函数f(x)=2x+3,求f(1)的值是多少";
  const std::string b = "已知函数f(x)=2x+3,求f(1)的数值多少";
  auto v = (*qb)->Verify(a, b);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->passed) << v->similarity;
  // A changed digit is a different question however similar the Han part.
  auto d = (*qb)->Verify(a, "已知函数f(x)=2x+5,求f(1)的值是多少");
  EXPECT_FALSE(d->passed);
  // White space does not count in the other part.
  EXPECT_TRUE((*qb)->Verify(a, "已知函数 f(x) = 2x + 3, 求f(1)的值是多少")->passed);
  const HanSplit s = SplitHan(U"求f(1)+x-2.5 的值。A.1");
  EXPECT_EQ(s.han, U"求的值");
  // Brackets, 。 and spaces are ignored; minus and the decimal point are kept.
  EXPECT_EQ(s.other, U"f1+x-2.5A1");
  // A sign change is a different question.
  EXPECT_FALSE((*qb)->Verify("最小的数是 A. -3 D. -1", "最小的数是 A. -3 D. 1")->passed);
  auto loose = CreateVerifier("qbank:0.5,other=0.5");
  ASSERT_TRUE(loose.ok());
  EXPECT_TRUE((*loose)->Verify(a, "已知函数f(x)=2x+5,求f(1)的值是多少")->passed);
}

TEST(VerifierTest, SpecParsing) {
  auto j = CreateVerifier("jaccard");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ((*j)->name(), "jaccard:0.8,ngram=5,word_ngram=1");
  EXPECT_DOUBLE_EQ((*j)->threshold(), 0.8);
  auto c = CreateVerifier("cosine:0.95,word_ngram=2");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->name(), "cosine:0.95,ngram=3,word_ngram=2");
  EXPECT_TRUE((*c)->Verify("the same text here", "the same text here")->passed);
  EXPECT_FALSE(CreateVerifier("nope").ok());
  EXPECT_FALSE(CreateVerifier("lcs:1.5").ok());
  EXPECT_FALSE(CreateVerifier("lcs:abc").ok());
  EXPECT_FALSE(CreateVerifier("lcs:0.5,ngram=3").ok());
  EXPECT_FALSE(CreateVerifier("jaccard:0.5,ngram=0").ok());
  EXPECT_FALSE(CreateVerifier("qbank:0.8,other=2").ok());
}

}  // namespace
}  // namespace neardup::verify
