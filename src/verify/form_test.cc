// SPDX-License-Identifier: Apache-2.0
#include "verify/form.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace neardup::verify {
namespace {

using Kind = VerifierSpec::Kind;

// Texts of a few Han and ASCII characters, some near copies of others, of
// lengths on both sides of short_chars.
std::vector<std::string> Texts(std::mt19937* rng, int short_chars) {
  static const char* kChars[] = {"春", "风", "花", "月", "夜", "山", "水", "a", "b", "1", " "};
  std::vector<std::string> out;
  for (int i = 0; i < 40; ++i) {
    const int len = std::uniform_int_distribution<int>(0, 2 * short_chars)(*rng);
    std::string t;
    for (int k = 0; k < len; ++k) t += kChars[(*rng)() % 11];
    out.push_back(t);
    std::string copy = t;  // a near copy: a few characters appended or cut
    if (copy.size() > 6 && (*rng)() % 2) copy.resize(copy.size() - 3);
    copy += kChars[(*rng)() % 11];
    out.push_back(copy);
  }
  return out;
}

void ExpectSameDecisions(const VerifierSpec& spec) {
  auto v = Verifier::Create(spec);
  ASSERT_TRUE(v.ok());
  std::mt19937 rng(7);
  const auto texts = Texts(&rng, spec.short_chars);
  std::vector<std::string> forms(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) MakeForm(v->get(), texts[i], &forms[i]);
  std::vector<uint64_t> sa, sb;
  for (size_t i = 0; i < texts.size(); ++i) {
    for (size_t j = 0; j < texts.size(); ++j) {
      auto fa = ReadForm(forms[i], &sa);
      auto fb = ReadForm(forms[j], &sb);
      ASSERT_TRUE(fa.ok() && fb.ok());
      const Verdict exact = (*v)->Verify(texts[i], texts[j]);
      const Verdict from_forms = (*v)->Verify(fa->side, fb->side);
      ASSERT_EQ(exact.similarity, from_forms.similarity) << i << " " << j;
      ASSERT_EQ(exact.passed, from_forms.passed);
    }
  }
}

// The online store's compact forms: a stored side is narrow, the query side
// a text whose shingles are narrowed; both narrow for two stored sides.
void ExpectSameDecisionsCompact(const VerifierSpec& spec) {
  auto v = Verifier::Create(spec);
  ASSERT_TRUE(v.ok());
  std::mt19937 rng(11);
  const auto texts = Texts(&rng, spec.short_chars);
  std::vector<std::string> forms(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) MakeCompactForm(v->get(), texts[i], &forms[i]);
  std::vector<uint64_t> sa, sb, full, cut;
  for (size_t i = 0; i < texts.size(); ++i) {
    for (size_t j = 0; j < texts.size(); ++j) {
      auto fa = ReadForm(forms[i], &sa);
      auto fb = ReadForm(forms[j], &sb);
      ASSERT_TRUE(fa.ok() && fb.ok());
      const Verdict exact = (*v)->Verify(texts[i], texts[j]);
      ASSERT_EQ(exact.similarity, (*v)->Verify(fa->side, fb->side).similarity) << i << " " << j;
      Side query{texts[i]};
      if (fb->narrow) {
        (*v)->shingler().Shingle(texts[i], &full);
        Narrow(full, &cut);
        query.shingles = std::span<const uint64_t>(cut);
      }
      const Verdict mixed = (*v)->Verify(query, fb->side);
      ASSERT_EQ(exact.similarity, mixed.similarity) << i << " " << j;
      ASSERT_EQ(exact.passed, mixed.passed);
    }
  }
}

TEST(FormTest, EveryKindDecidesAsOnTheTexts) {
  for (Kind k : {Kind::kSimilarity, Kind::kJaccard, Kind::kContainment, Kind::kCosine,
                 Kind::kLevenshtein, Kind::kLcs, Kind::kQbank}) {
    SCOPED_TRACE(static_cast<int>(k));
    ExpectSameDecisions({.kind = k, .threshold = 0.7, .short_chars = 30, .edit_weight = 2.0});
  }
}

TEST(FormTest, CompactFormsDecideAsTheTexts) {
  for (Kind k : {Kind::kSimilarity, Kind::kJaccard, Kind::kContainment, Kind::kCosine,
                 Kind::kLevenshtein, Kind::kLcs, Kind::kQbank}) {
    SCOPED_TRACE(static_cast<int>(k));
    ExpectSameDecisionsCompact({.kind = k, .threshold = 0.7, .short_chars = 30});
  }
}

// A short text's form carries the expressions of its original text (the
// fact rule reads them), in both layouts; a form made without them (as
// stores written before kept them) reads as unknown.
TEST(FormTest, CarriesExpressionsOfShortTexts) {
  auto v = Verifier::Create(
      {.kind = Kind::kSimilarity, .threshold = 0.6, .short_chars = 50, .short_numbers = true});
  ASSERT_TRUE(v.ok());
  const std::string norm = "已知 x y 60 x y 31 求 y 的值", plus = "x+y=60\nx-y=31\n",
                    minus = "x+y=60\nx+y=31\n";
  std::vector<uint64_t> sa, sb;
  for (const bool compact : {false, true}) {
    std::string fa, fb, legacy;
    auto make = [&](std::optional<std::string_view> e, std::string* out) {
      if (compact) {
        MakeCompactForm(v->get(), norm, out, nullptr, nullptr, e);
      } else {
        MakeForm(v->get(), norm, out, nullptr, e);
      }
    };
    make(plus, &fa);
    make(minus, &fb);
    make(std::nullopt, &legacy);
    auto a = ReadForm(fa, &sa), b = ReadForm(fb, &sb);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_TRUE(a->side.expressions.has_value());
    EXPECT_EQ(*a->side.expressions, plus);
    EXPECT_EQ(*b->side.expressions, minus);
    EXPECT_EQ(a->side.normalized, norm);
    const Side text_a{norm, std::nullopt, std::nullopt, std::string_view(plus)};
    const Side text_b{norm, std::nullopt, std::nullopt, std::string_view(minus)};
    EXPECT_EQ((*v)->Verify(a->side, b->side).similarity, 0.0);  // another expression
    EXPECT_EQ((*v)->Verify(text_a, text_b).similarity, 0.0);
    EXPECT_FALSE((*v)->Verify(a->side, b->side).passed);
    auto old = ReadForm(legacy, &sb);
    ASSERT_TRUE(old.ok());
    EXPECT_FALSE(old->side.expressions.has_value());
    EXPECT_TRUE((*v)->Verify(a->side, old->side).passed);  // unknown: the rule skips them
    // A long text keeps no text, so no expressions either.
    const std::string long_text(200, 'a');
    std::string f;
    MakeForm(v->get(), long_text, &f, nullptr, std::string_view("1+1\n"));
    auto l = ReadForm(f, &sa);
    ASSERT_TRUE(l.ok());
    EXPECT_FALSE(l->has_text);
    EXPECT_FALSE(l->side.expressions.has_value());
  }
  // Flag 8 without the text is malformed.
  EXPECT_FALSE(ReadForm(std::string("\x08\x01\x00", 3), &sa).ok());
}

TEST(FormTest, CompactFormOfAnArticleIsAboutThreeBytesAShingle) {
  auto v = Verifier::Create({.kind = Kind::kSimilarity});
  ASSERT_TRUE(v.ok());
  std::mt19937 rng(3);
  std::string text;  // 700 random common Han characters (U+4E00..U+5DAC), 3 bytes each
  for (int i = 0; i < 700; ++i) {
    const uint32_t c = 0x4E00 + rng() % 4000;
    text += static_cast<char>(0xE0 | (c >> 12));
    text += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    text += static_cast<char>(0x80 | (c & 0x3F));
  }
  std::string wide, compact;
  MakeForm(v->get(), text, &wide);
  MakeCompactForm(v->get(), text, &compact);
  std::vector<uint64_t> sh;
  auto f = ReadForm(compact, &sh);
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->narrow);
  EXPECT_FALSE(f->has_text);
  ASSERT_GT(sh.size(), 600u);
  EXPECT_LT(compact.size(), 3.3 * static_cast<double>(sh.size()));
  EXPECT_GT(wide.size(), 8 * sh.size());
}

TEST(FormTest, KeepsTheTextOnlyWhereTheVerifierReadsIt) {
  auto v = Verifier::Create({.kind = Kind::kSimilarity, .short_chars = 4});
  ASSERT_TRUE(v.ok());
  std::string form;
  std::vector<uint64_t> sh;
  MakeForm(v->get(), "春风花月", &form);
  auto f = ReadForm(form, &sh);
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->has_text);
  EXPECT_EQ(f->side.normalized, "春风花月");
  EXPECT_EQ(*f->side.code_points, 4u);
  MakeForm(v->get(), "春风花月夜", &form);
  f = ReadForm(form, &sh);
  ASSERT_TRUE(f.ok());
  EXPECT_FALSE(f->has_text);
  EXPECT_EQ(*f->side.code_points, 5u);
  std::vector<uint64_t> direct;
  (*v)->shingler().Shingle("春风花月夜", &direct);
  EXPECT_EQ(sh, direct);
}

TEST(FormTest, RejectsMalformedForms) {
  std::vector<uint64_t> sh;
  EXPECT_FALSE(ReadForm("", &sh).ok());
  EXPECT_FALSE(ReadForm(std::string("\x08\x01", 2), &sh).ok());          // unknown flag
  EXPECT_FALSE(ReadForm(std::string("\x01\x01\x05", 3), &sh).ok());      // 5 hashes, no bytes
  EXPECT_FALSE(ReadForm(std::string("\x01\x80", 2), &sh).ok());          // cut varint
  EXPECT_FALSE(ReadForm(std::string("\x04\x01", 2), &sh).ok());          // narrow, no shingles
  EXPECT_FALSE(ReadForm(std::string("\x05\x01\x03\x00", 4), &sh).ok());  // 3 values, no bits
  const std::string form = std::string("\x02\x01", 2) + "x";             // the form's text views it
  auto f = ReadForm(form, &sh);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->side.normalized, "x");
}

TEST(NarrowTest, CutsSortsAndDedupsAsTheObviousWay) {
  std::mt19937_64 rng(5);
  for (size_t n : {0, 1, 31, 32, 33, 1000, 70000}) {
    std::vector<uint64_t> in(n);
    for (uint64_t& h : in) h = rng();
    // Hashes equal in their low half (and one repeated whole) must fold.
    if (n > 2) in[1] = (in[0] & 0xFFFFFFFFull) | (rng() << 32);
    if (n > 3) in[3] = in[2];
    std::vector<uint64_t> want;
    for (uint64_t h : in) want.push_back(h & 0xFFFFFFFFull);
    std::sort(want.begin(), want.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
    std::vector<uint64_t> got;
    Narrow(in, &got);
    EXPECT_EQ(got, want) << n;
  }
}

}  // namespace
}  // namespace neardup::verify
