// SPDX-License-Identifier: Apache-2.0
#include "verify/verifier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <set>

#include "base/random_text.h"
#include "base/sorted_set.h"
#include "base/utf8.h"
#include "features/char_ngram.h"
#include "verify/edit_distance.h"
#include "verify/numbers.h"
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
  using K = VerifierSpec::Kind;
  auto lev = Verifier::Create({.kind = K::kLevenshtein, .threshold = 0.7});
  auto lcs = Verifier::Create({.kind = K::kLcs, .threshold = 0.7});
  auto jac = Verifier::Create(
      {.kind = K::kJaccard, .threshold = 0.5, .shingles = {.char_n = 3, .word_n = 1}});
  ASSERT_TRUE(lev.ok() && lcs.ok() && jac.ok());
  std::mt19937_64 rng(99);
  for (int t = 0; t < 150; ++t) {
    const std::string a = RandomText(rng, rng() % 150);
    std::string b = t % 3 ? a : RandomText(rng, rng() % 150);
    if (t % 3 && !b.empty()) b.insert(rng() % 2 ? 0 : b.size(), "数学题");
    const Verdict v = (*lev)->Verify(a, b);
    EXPECT_DOUBLE_EQ(v.similarity, NaiveLevenshteinSimilarity(a, b));
    EXPECT_EQ(v.passed, v.similarity >= 0.7);
    EXPECT_DOUBLE_EQ((*lcs)->Verify(a, b).similarity, NaiveLcsRatio(a, b));
    EXPECT_DOUBLE_EQ((*jac)->Verify(a, b).similarity, NaiveJaccard(a, b, 3));
  }
}

TEST(VerifierTest, QuestionBankRule) {
  auto qb = Verifier::Create({.kind = VerifierSpec::Kind::kQbank, .threshold = 0.8});
  ASSERT_TRUE(qb.ok());
  // Same numbers and operators, Han wording changed by 1 of 10 characters.
  const std::string a = "已知函数f(x)=2x+3,求f(1)的值是多少";
  const std::string b = "已知函数f(x)=2x+3,求f(1)的数值多少";
  const Verdict v = (*qb)->Verify(a, b);
  EXPECT_TRUE(v.passed) << v.similarity;
  // A changed digit is a different question however similar the Han part.
  auto d = (*qb)->Verify(a, "已知函数f(x)=2x+5,求f(1)的值是多少");
  EXPECT_FALSE(d.passed);
  // White space does not count in the other part.
  EXPECT_TRUE((*qb)->Verify(a, "已知函数 f(x) = 2x + 3, 求f(1)的值是多少").passed);
  const HanSplit s = SplitHan(U"求f(1)+x-2.5 的值。A.1");
  EXPECT_EQ(s.han, U"求的值");
  // Brackets, 。 and spaces are ignored; minus and the decimal point are kept.
  EXPECT_EQ(s.other, U"f1+x-2.5A1");
  // A sign change is a different question.
  EXPECT_FALSE((*qb)->Verify("最小的数是 A. -3 D. -1", "最小的数是 A. -3 D. 1").passed);
  auto loose = Verifier::Create(
      {.kind = VerifierSpec::Kind::kQbank, .threshold = 0.5, .qbank_other_min = 0.5});
  ASSERT_TRUE(loose.ok());
  EXPECT_TRUE((*loose)->Verify(a, "已知函数f(x)=2x+5,求f(1)的值是多少").passed);
}

// The other-part key is equal exactly when the other parts are equal as
// multisets: it may salt candidate keys without losing a pair the rule
// (other_min = 1) accepts, in the written or the option-sorted order.
TEST(VerifierTest, OtherPartKeyFollowsTheRule) {
  const std::string a = "已知函数f(x)=2x+3,求f(1)的值是多少";
  EXPECT_EQ(OtherPartKey(a), OtherPartKey("已知函数f(x)=2x+3,求f(1)的数值多少"));
  EXPECT_EQ(OtherPartKey(a), OtherPartKey("已知函数 f(x) = 2x + 3, 求f(1)的值是多少"));
  EXPECT_NE(OtherPartKey(a), OtherPartKey("已知函数f(x)=2x+5,求f(1)的值是多少"));
  EXPECT_NE(OtherPartKey("最小的数是 A. -3 D. -1"), OtherPartKey("最小的数是 A. -3 D. 1"));
  EXPECT_EQ(OtherPartKey("只有汉字"), OtherPartKey("全是汉字了"));  // both empty
  EXPECT_NE(OtherPartKey(""), 0u);
  // Over random pairs: equal keys <=> equal other parts up to order.
  const char* parts[] = {"1", "2", "+", "x", "。", " ", "的", "值", "-", "A"};
  std::mt19937 rng(5);
  for (int i = 0; i < 2000; ++i) {
    std::string x, y;
    for (int j = 0; j < 6; ++j) x += parts[rng() % 10], y += parts[rng() % 10];
    std::u32string ox = SplitHan(DecodeCodePoints(x)).other;
    std::u32string oy = SplitHan(DecodeCodePoints(y)).other;
    std::sort(ox.begin(), ox.end());
    std::sort(oy.begin(), oy.end());
    const bool same = ox == oy;
    EXPECT_EQ(OtherPartKey(x) == OtherPartKey(y), same) << x << " / " << y;
  }
}

// A multiple-choice question with its options in another order is the same
// question; a changed option is not.
TEST(VerifierTest, QuestionBankIgnoresTheOrderOfOptions) {
  auto qb = Verifier::Create({.kind = VerifierSpec::Kind::kQbank, .threshold = 0.8});
  ASSERT_TRUE(qb.ok());
  const std::string a =
      "下列诗句中，第 3 个字是“浮”的一项是（ ）。a.叠浪浮元气，中流没太阳 "
      "b.秦城连凤阙，汉寝疏龙殿 c.燕息云满门，出游花隐房 d.今宵冬律尽，来朝丽景新";
  const std::string b =
      "下列诗句中，第 3 个字是“浮”的一项是（ ）。a.燕息云满门，出游花隐房 "
      "b.今宵冬律尽，来朝丽景新 c.叠浪浮元气，中流没太阳 d.秦城连凤阙，汉寝疏龙殿";
  EXPECT_TRUE((*qb)->Verify(a, b).passed);
  EXPECT_EQ(OtherPartKey(a), OtherPartKey(b));
  // Options with numbers, reordered: the same question, the same key.
  const std::string n1 = "最小的数是（ ）A、-3 B、7 C、0 D、12";
  const std::string n2 = "最小的数是（ ）A、12 B、-3 C、7 D、0";
  EXPECT_TRUE((*qb)->Verify(n1, n2).passed);
  EXPECT_EQ(OtherPartKey(n1), OtherPartKey(n2));
  EXPECT_FALSE((*qb)->Verify(n1, "最小的数是（ ）A、12 B、-3 C、7 D、1").passed);
  // Another option is another question, in any order.
  const std::string c =
      "下列诗句中，第 3 个字是“浮”的一项是（ ）。a.燕息云满门，出游花隐房 "
      "b.春风又绿江南岸，明月何时照我还 c.叠浪浮元气，中流没太阳 d.秦城连凤阙，汉寝疏龙殿";
  EXPECT_FALSE((*qb)->Verify(a, c).passed);
  // Markers must run A, B, ... and stand apart from words: no options here.
  EXPECT_EQ(CanonicalOptions(U"求f(1)+x-2.5 的值。A.1"), U"求f(1)+x-2.5 的值。A.1");
  EXPECT_EQ(CanonicalOptions(U"选 A.乙 B.丁"), U"选 A.丁 B.乙 ");
  EXPECT_EQ(CanonicalOptions(U"data.b.c"), U"data.b.c");
}

TEST(VerifierTest, SimilarityTakesEditDistanceForShortTexts) {
  auto v = Verifier::Create({.kind = VerifierSpec::Kind::kSimilarity,
                             .threshold = 0.8,
                             .shingles = {.char_n = 3},
                             .short_chars = 20});
  ASSERT_TRUE(v.ok());
  // One changed character in twelve: 3-gram Jaccard 7/13, edit similarity 11/12.
  const Verdict s = (*v)->Verify("已知函数的最大值是多少呢", "已知函数的最小值是多少呢");
  EXPECT_NEAR(s.similarity, 11.0 / 12.0, 1e-12);
  EXPECT_TRUE(s.passed);
  // Past short_chars only the Jaccard counts.
  const std::string a =
      std::string("已知函数的最大值是多少呢") + "已知函数的最大值是多少呢" + "已知函数";
  const std::string b =
      std::string("已知函数的最小值是多少呢") + "已知函数的最大值是多少呢" + "已知函数";
  const Verdict l = (*v)->Verify(a, b);
  EXPECT_LT(l.similarity, 0.9);
  EXPECT_FALSE(Verifier::Create({.threshold = 1.5}).ok());
  EXPECT_FALSE(Verifier::Create({.shingles = {.char_n = 0}}).ok());
  EXPECT_FALSE(Verifier::Create({.kind = VerifierSpec::Kind::kQbank, .qbank_other_min = 2}).ok());
}

// The digit rule: short texts whose numbers differ are different facts,
// however similar; long texts and the rule switched off keep the similarity.
TEST(VerifierTest, ShortTextsWhoseNumbersDifferAreNotDuplicates) {
  VerifierSpec spec{.kind = VerifierSpec::Kind::kSimilarity,
                    .threshold = 0.6,
                    .shingles = {.char_n = 3},
                    .short_chars = 40,
                    .edit_weight = 3.0,
                    .short_numbers = true};
  auto on = Verifier::Create(spec);
  spec.short_numbers = false;
  auto off = Verifier::Create(spec);
  ASSERT_TRUE(on.ok() && off.ok());
  const std::string a = "已知函数的最大值是多少呢请计算3+5",
                    b = "已知函数的最大值是多少呢请计算3+6";
  EXPECT_TRUE((*off)->Verify(a, b).passed);
  const Verdict d = (*on)->Verify(a, b);
  EXPECT_FALSE(d.passed);
  EXPECT_EQ(d.similarity, 0.0);
  // Same numbers, spaced or reordered: the similarity decides as before.
  EXPECT_TRUE((*on)->Verify(a, "已知函数的最大值是多少呢请计算 3 + 5").passed);
  EXPECT_EQ((*on)->Verify(a, "已知函数的最小值是多少呢请计算3+5").similarity,
            (*off)->Verify(a, "已知函数的最小值是多少呢请计算3+5").similarity);
  // Past short_chars (either side) the numbers do not matter: a reprint with
  // a corrected figure is still a reprint.
  const std::string pad = "这是一段很长的新闻报道正文内容用来超过短文本的长度限制";
  const Verdict l = (*on)->Verify(a + pad, b + pad);
  EXPECT_TRUE(l.passed);
  EXPECT_EQ(l.similarity, (*off)->Verify(a + pad, b + pad).similarity);
  // Explain names the rule, and its last step is Verify's verdict.
  const VerdictSteps x = (*on)->Explain(Side{a}, Side{b});
  EXPECT_NE(x.reason.find("a number differs ([3, 5] vs [3, 6])"), std::string::npos) << x.reason;
  EXPECT_EQ(x.rule, VerdictSteps::Rule::kParts);
  EXPECT_EQ(x.steps.back(), "similarity 0.000 < threshold 0.600: fails");
  std::mt19937_64 rng(11);
  for (int t = 0; t < 200; ++t) {
    const std::string p = RandomText(rng, rng() % 30);
    const std::string q = t % 2 ? p + (t % 4 == 1 ? "1" : "数") : RandomText(rng, rng() % 30);
    const Verdict verdict = (*on)->Verify(p, q);
    const VerdictSteps steps = (*on)->Explain(Side{p}, Side{q});
    char want[32];
    std::snprintf(want, sizeof want, "similarity %.3f", verdict.similarity);
    EXPECT_EQ(steps.steps.back().rfind(want, 0), 0u) << steps.steps.back();
    EXPECT_EQ(steps.reason.empty(), !ChangedNumbers(p, q) || DecodeCodePoints(p).size() > 40 ||
                                        DecodeCodePoints(q).size() > 40);
  }
}

// The word rule: in short, mostly-Han texts a replaced Latin word (a
// variable, a unit, a command) makes another text; English keeps its typos.
TEST(VerifierTest, ShortMostlyHanTextsWhoseLatinWordsDifferAreNotDuplicates) {
  VerifierSpec spec{.kind = VerifierSpec::Kind::kSimilarity,
                    .threshold = 0.6,
                    .shingles = {.char_n = 3},
                    .short_chars = 60,
                    .edit_weight = 3.0,
                    .short_numbers = true,
                    .short_words = true};
  auto on = Verifier::Create(spec);
  spec.short_words = false;
  auto off = Verifier::Create(spec);
  ASSERT_TRUE(on.ok() && off.ok());
  const std::string a = "小明骑车的速度是 27 km/h，他骑了 7 小时，一共骑了多远？",
                    b = "小明骑车的速度是 27 m/s，他骑了 7 小时，一共骑了多远？";
  EXPECT_TRUE((*off)->Verify(a, b).passed);
  EXPECT_EQ((*on)->Verify(a, b).similarity, 0.0);
  EXPECT_TRUE((*on)->Verify(a, "小明骑车的速度是27KM/H,他骑了7小时,一共骑了多远?").passed);
  const VerdictSteps x = (*on)->Explain(Side{a}, Side{b});
  EXPECT_NE(x.reason.find("a Latin word differs ([km, h] vs [m, s])"), std::string::npos)
      << x.reason;
  // English: a replaced word is left to the similarity.
  const std::string e = "the quick brown fox jumps over the lazy dog again",
                    f = "the quick brown fox jumps over the lazy dig again";
  EXPECT_EQ((*on)->Verify(e, f).similarity, (*off)->Verify(e, f).similarity);
  EXPECT_TRUE((*on)->Verify(e, f).passed);
}

TEST(VerifierTest, SetKindsOnShingles) {
  using K = VerifierSpec::Kind;
  const features::ShingleSpec words{.kind = features::ShingleSpec::Kind::kWord, .word_n = 1};
  auto j = Verifier::Create({.kind = K::kJaccard, .threshold = 0.5, .shingles = words});
  auto c = Verifier::Create({.kind = K::kContainment, .threshold = 0.5, .shingles = words});
  auto o = Verifier::Create({.kind = K::kCosine, .threshold = 0.5, .shingles = words});
  ASSERT_TRUE(j.ok() && c.ok() && o.ok());
  // {a b c d} vs {a b}: Jaccard 2/4, containment 2/2, cosine 2/sqrt(8).
  EXPECT_DOUBLE_EQ((*j)->Verify("a b c d", "a b").similarity, 0.5);
  EXPECT_DOUBLE_EQ((*c)->Verify("a b c d", "a b").similarity, 1.0);
  EXPECT_DOUBLE_EQ((*o)->Verify("a b c d", "a b").similarity, 2.0 / std::sqrt(8.0));
  EXPECT_DOUBLE_EQ((*j)->Verify("", "").similarity, 1.0);  // two empty sets are identical
  EXPECT_DOUBLE_EQ((*j)->Verify("", "a").similarity, 0.0);
}

// Explain shows the arithmetic of Verify: its last step is Verify's verdict,
// and the default's combination of Jaccard and edit similarity is spelled
// out with the numbers that make the decided value.
TEST(VerifierTest, ExplainShowsTheArithmeticOfTheVerdict) {
  using K = VerifierSpec::Kind;
  auto sim = Verifier::Create(
      {.kind = K::kSimilarity, .threshold = 0.6, .shingles = {.char_n = 3}, .edit_weight = 3.0});
  ASSERT_TRUE(sim.ok());
  // One changed character in twelve: Jaccard 7/13, edit similarity 11/12,
  // weighted 1 - 3/12 = 0.75.
  const std::string a = "已知函数的最大值是多少呢", b = "已知函数的最小值是多少呢";
  const VerdictSteps x = (*sim)->Explain(Side{a}, Side{b});
  ASSERT_GE(x.steps.size(), 4u);
  EXPECT_EQ(x.steps[0], "jaccard = shared / union = 7 / 13 = 0.538 (shingle sets of 10 and 10)");
  EXPECT_EQ(x.steps[1],
            "edit similarity = 1 - 1 edit / 12 characters = 0.917 (texts up to short_chars 200)");
  EXPECT_EQ(x.steps[2],
            "weighted edit similarity = max(0, 1 - edit_weight 3.000 x (1 - 0.917)) = 0.750");
  EXPECT_EQ(x.steps[3], "similarity = max(jaccard, weighted edit similarity) = 0.750");
  EXPECT_EQ(x.steps.back(), "similarity 0.750 >= threshold 0.600: passes");
  EXPECT_NEAR((*sim)->Verify(a, b).similarity, 0.75, 1e-12);
  EXPECT_TRUE(x.reason.empty());
  EXPECT_EQ(x.rule, VerdictSteps::Rule::kThreshold);
  // Every kind: the last step states Verify's similarity and verdict.
  std::mt19937_64 rng(7);
  for (K kind : {K::kSimilarity, K::kJaccard, K::kContainment, K::kCosine, K::kLevenshtein, K::kLcs,
                 K::kQbank}) {
    auto v = Verifier::Create({.kind = kind, .threshold = 0.5, .shingles = {.char_n = 2}});
    ASSERT_TRUE(v.ok());
    for (int t = 0; t < 40; ++t) {
      const std::string p = RandomText(rng, rng() % 30);
      const std::string q = t % 2 ? p + "数" : RandomText(rng, rng() % 30);
      const Verdict verdict = (*v)->Verify(p, q);
      const VerdictSteps steps = (*v)->Explain(Side{p}, Side{q});
      ASSERT_FALSE(steps.steps.empty());
      const std::string& last = steps.steps.back();
      EXPECT_EQ(last.find(verdict.passed ? "passes" : "fails") != std::string::npos, true)
          << static_cast<int>(kind) << ": " << last;
      if (kind == K::kQbank) continue;
      char want[32];
      std::snprintf(want, sizeof want, "similarity %.3f", verdict.similarity);
      EXPECT_EQ(last.rfind(want, 0), 0u) << last;
    }
  }
}

// For the question bank, explain names the part that decided: a changed
// digit is a different question, whatever the Han edit similarity.
TEST(VerifierTest, ExplainNamesWhatDiffersInAQuestion) {
  auto qb = Verifier::Create({.kind = VerifierSpec::Kind::kQbank, .threshold = 0.8});
  ASSERT_TRUE(qb.ok());
  const VerdictSteps d = (*qb)->Explain(Side{"计算3+5的值"}, Side{"计算3+6的值"});
  EXPECT_EQ(d.reason.rfind("the digits differ ('3+5' vs '3+6')", 0), 0u) << d.reason;
  EXPECT_EQ(d.steps.back().rfind("fails: the digits differ", 0), 0u) << d.steps.back();
  auto has = [](const VerdictSteps& v, const std::string& text) {
    return std::any_of(v.steps.begin(), v.steps.end(),
                       [&](const std::string& s) { return s.find(text) != std::string::npos; });
  };
  EXPECT_TRUE(has(d, "other part (digits, letters, operators): '3+5' vs '3+6'"));
  EXPECT_TRUE(has(d, "other similarity = 1 - 1 edit / 3 characters = 0.667, needs >= 1.000"));
  EXPECT_TRUE(has(d, "Han edit similarity = 1 - 0 edits / 4 characters = 1.000, needs >= 0.800"));
  const VerdictSteps o = (*qb)->Explain(Side{"计算3+5的值"}, Side{"计算3-5的值"});
  EXPECT_EQ(o.reason.rfind("the operators and symbols differ", 0), 0u) << o.reason;
  const VerdictSteps l = (*qb)->Explain(Side{"求x+1的值"}, Side{"求y+1的值"});
  EXPECT_EQ(l.reason.rfind("the letters differ", 0), 0u) << l.reason;
  const VerdictSteps h =
      (*qb)->Explain(Side{"已知三角形的面积求底边"}, Side{"今天天气很好适合出门"});
  EXPECT_EQ(h.reason.rfind("the Han text differs", 0), 0u) << h.reason;
  const VerdictSteps same = (*qb)->Explain(Side{"计算3+5的值"}, Side{"计算3+5的数值"});
  EXPECT_EQ(same.steps.back().rfind("passes: ", 0), 0u) << same.steps.back();
  // Reordered options are compared sorted, and explain says so.
  const VerdictSteps opts = (*qb)->Explain(Side{"最小的数是（ ）A、-3 B、7 C、0 D、12"},
                                           Side{"最小的数是（ ）A、12 B、-3 C、7 D、0"});
  EXPECT_EQ(opts.steps[0].rfind("the options are in another order", 0), 0u) << opts.steps[0];
  EXPECT_EQ(opts.steps.back().rfind("passes: ", 0), 0u) << opts.steps.back();
}

// The containment rule: an excerpt passes against its whole, with its
// Jaccard (about its length share) kept as the similarity; the rule needs a
// smaller text of 100 shingles of its own, not two short texts, and the
// share of it that lies in the larger.
struct ContainmentCase {
  std::unique_ptr<Verifier> v = Verifier::Create([] {
                                  VerifierSpec s;
                                  s.containment = 0.8;
                                  return s;
                                }())
                                    .value();
  Verdict Verify(const std::string& a, const std::string& b,
                 std::span<const uint64_t> bp = {}) const {
    Side sa{a}, sb{b};
    sa.boilerplate = bp;
    const Verdict got = v->Verify(sa, sb);
    const VerdictSteps steps = v->Explain(sa, sb);
    EXPECT_NE(steps.steps.back().find(got.passed ? "passes" : "fails"), std::string::npos)
        << steps.steps.back();
    EXPECT_EQ(steps.rule == VerdictSteps::Rule::kContainment, got.contained) << steps.reason;
    return got;
  }
};

TEST(VerifierTest, ContainmentPassesAnExcerptEitherWay) {
  ContainmentCase c;
  const std::string whole = base::RandomHan(800, 11);
  const std::string excerpt = whole.substr(3 * 300, 3 * 250);  // 250 characters from the middle
  const Verdict a = c.Verify(excerpt, whole);
  EXPECT_TRUE(a.passed);
  EXPECT_TRUE(a.contained);
  EXPECT_EQ(a.smaller, 'a');
  EXPECT_LT(a.similarity, 0.35);
  const Verdict b = c.Verify(whole, excerpt + base::RandomHan(20, 12));  // with a line added
  EXPECT_TRUE(b.passed && b.contained);
  EXPECT_EQ(b.smaller, 'b');
  EXPECT_NEAR(b.similarity, a.similarity, 0.05);
  // Off: the similarity alone decides.
  const Verdict off = Verifier::Create(VerifierSpec{}).value()->Verify(excerpt, whole);
  EXPECT_FALSE(off.passed);
  EXPECT_EQ(off.similarity, a.similarity);
}

TEST(VerifierTest, ContainmentNeedsSizeAndShare) {
  ContainmentCase c;
  const std::string whole = base::RandomHan(800, 13);
  // 90 characters (88 shingles) under the floor of 100, though wholly
  // inside; 105 (103) over it.
  EXPECT_FALSE(c.Verify(whole.substr(0, 3 * 90), whole).passed);
  EXPECT_TRUE(c.Verify(whole.substr(0, 3 * 105), whole).contained);
  // 300 characters of which 40% are elsewhere: under 0.8.
  EXPECT_FALSE(c.Verify(whole.substr(0, 3 * 180) + base::RandomHan(120, 15), whole).passed);
  // 300 characters of which 10% are elsewhere: contained.
  EXPECT_TRUE(c.Verify(whole.substr(0, 3 * 270) + base::RandomHan(30, 16), whole).contained);
  // Two short texts keep their own rules.
  const std::string poem = base::RandomHan(190, 17);
  EXPECT_FALSE(c.Verify(poem.substr(0, 3 * 120), poem).contained);
}

TEST(VerifierTest, ContainmentLeavesBoilerplateOut) {
  ContainmentCase c;
  // A page of an ad alone (300 characters) lies wholly in a story that runs
  // the ad: contained by the plain sets, not once the ad is boilerplate.
  const std::string ad = base::RandomHan(300, 18), story = base::RandomHan(600, 19) + "。" + ad;
  EXPECT_TRUE(c.Verify(ad, story).contained);
  std::vector<uint64_t> marks;
  c.v->shingler().Shingle(ad, &marks);
  EXPECT_FALSE(c.Verify(ad, story, marks).passed);
}

}  // namespace
}  // namespace neardup::verify

namespace neardup::verify {
namespace {

using base::RandomHan;  // no shingle in common with another seed's

struct GuardCase {
  std::unique_ptr<Verifier> v = Verifier::Create(VerifierSpec{}).value();
  std::vector<uint64_t> Shingles(const std::string& s) const {
    std::vector<uint64_t> out;
    v->shingler().Shingle(s, &out);
    return out;
  }
  Verdict Verify(const std::string& a, const std::string& b, std::span<const uint64_t> bp) const {
    Side sa{a}, sb{b};
    sa.boilerplate = bp;
    const Verdict got = v->Verify(sa, sb);
    const VerdictSteps steps = v->Explain(sa, sb);
    EXPECT_NE(steps.steps.back().find(got.passed ? "passes" : "fails"), std::string::npos);
    return got;
  }
};

// A page of footer alone against a short story under it: the plain Jaccard
// passes, the guard does not, and neither do two stories under one footer.
TEST(VerifierTest, BoilerplateGuardParts) {
  GuardCase g;
  const std::string footer = RandomHan(300, 1), s1 = RandomHan(70, 2), s2 = RandomHan(70, 3);
  const std::vector<uint64_t> marks = g.Shingles(footer);
  const std::string bare = footer, page1 = s1 + footer, page2 = s2 + footer;
  EXPECT_TRUE(g.Verify(bare, page1, {}).passed);
  EXPECT_TRUE(g.Verify(page1, page2, {}).passed);
  EXPECT_FALSE(g.Verify(page1, bare, marks).passed);
  EXPECT_FALSE(g.Verify(bare, page1, marks).passed);
  EXPECT_FALSE(g.Verify(page1, page2, marks).passed);
  // The marks of either side count: the other side's here.
  Side a{page1}, b{page2};
  b.boilerplate = marks;
  EXPECT_FALSE(g.v->Verify(a, b).passed);
  const VerdictSteps steps = g.v->Explain(a, b);
  EXPECT_EQ(steps.reason.rfind("boilerplate", 0), 0u) << steps.reason;
  EXPECT_EQ(steps.rule, VerdictSteps::Rule::kBoilerplate);
}

TEST(VerifierTest, BoilerplateGuardFindsAStoryUnderAnotherFooter) {
  GuardCase g;
  const std::string story = RandomHan(400, 4), f1 = RandomHan(300, 5), f2 = RandomHan(300, 6);
  std::vector<uint64_t> marks = g.Shingles(f1), more = g.Shingles(f2);
  marks.insert(marks.end(), more.begin(), more.end());
  std::sort(marks.begin(), marks.end());
  EXPECT_FALSE(g.Verify(story + f1, story + f2, {}).passed);
  const Verdict v = g.Verify(story + f1, story + f2, marks);
  EXPECT_TRUE(v.passed);
  EXPECT_GT(v.similarity, 0.95);
}

TEST(VerifierTest, BoilerplateGuardLeavesNearlyEmptyPagesAndShortTexts) {
  GuardCase g;
  const std::string footer = RandomHan(300, 7);
  const std::vector<uint64_t> marks = g.Shingles(footer);
  // Two copies of the footer alone: nothing else to compare, the Jaccard decides.
  const Verdict bare = g.Verify(footer, footer + RandomHan(3, 8), marks);
  EXPECT_TRUE(bare.passed);
  EXPECT_NEAR(bare.similarity,
              SortedSetJaccard<uint64_t>(g.Shingles(footer), g.Shingles(footer + RandomHan(3, 8))),
              1e-12);
  // Texts up to short_chars keep their rules: the marks change nothing.
  const std::string shorter = RandomHan(150, 9);
  const std::vector<uint64_t> all = g.Shingles(shorter);
  EXPECT_EQ(g.Verify(shorter, shorter, all).similarity, 1.0);
}

}  // namespace
}  // namespace neardup::verify
