// SPDX-License-Identifier: Apache-2.0
#include "verify/form.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "features/anchors.h"
#include "verify/rice.h"

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

size_t ShingleCount(const Verifier& v, const std::string& text) {
  std::vector<uint64_t> sh;
  v.shingler().Shingle(text, &sh);
  return sh.size();
}

// The online store's compact forms, as signal_set.cc verifies from them: the
// query side's shingles cut as wide as the stored side's, and a verdict
// NarrowVerdictIsSure() doubts reached again from the texts. The decisions
// are the texts'; a value from cut shingles is within `tolerance` of theirs.
// `width` > 0 cuts every form to that many bits (coincidences common);
// returns how many pairs were decided from the texts.
int ExpectSameDecisionsCompact(const VerifierSpec& spec, int width = 0, double tolerance = 0,
                               Cut cut = Cut::kHigh) {
  auto v = Verifier::Create(spec);
  EXPECT_TRUE(v.ok());
  if (!v.ok()) return 0;
  std::mt19937 rng(11);
  const auto texts = Texts(&rng, spec.short_chars);
  std::vector<std::string> forms(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    if (width > 0) {
      MakeCompactFormForTest(v->get(), texts[i], width, &forms[i], cut);
    } else {
      MakeCompactForm(v->get(), texts[i], &forms[i]);
    }
  }
  std::vector<uint64_t> sb, full, mine;
  int from_texts = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    (*v)->shingler().Shingle(texts[i], &full);
    for (size_t j = 0; j < texts.size(); ++j) {
      auto fb = ReadForm(forms[j], &sb);
      EXPECT_TRUE(fb.ok());
      if (!fb.ok()) return from_texts;
      const Verdict exact = (*v)->Verify(texts[i], texts[j]);
      Side query{texts[i], std::span<const uint64_t>(full)};
      if (fb->narrow) {
        EXPECT_EQ(fb->width, width > 0 ? width : NarrowWidth(full.size()));
        EXPECT_EQ(fb->cut, cut);
        Narrow(full, &mine, fb->width, fb->cut);
        query.shingles = std::span<const uint64_t>(mine);
        query.shingle_count = full.size();
        EXPECT_EQ(fb->side.shingle_count, ShingleCount(**v, texts[j]));
      }
      Verdict got = (*v)->Verify(query, fb->side);
      if (fb->narrow) {
        EXPECT_NEAR(got.similarity, exact.similarity, tolerance) << i << " " << j;
        if (!NarrowVerdictIsSure(spec, got, full.size(), *fb->side.shingle_count, fb->width,
                                 true)) {
          ++from_texts;
          got = exact;  // the caller verifies from the texts
        }
      } else {
        EXPECT_EQ(got.similarity, exact.similarity) << i << " " << j;
      }
      EXPECT_EQ(exact.passed, got.passed) << i << " " << j;
    }
  }
  return from_texts;
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
    // Texts of up to 60 characters: one coincidence of cut hashes moves a
    // value by up to about 1 / n of the smaller set (0.07 seen); the
    // decisions never move.
    ExpectSameDecisionsCompact({.kind = k, .threshold = 0.7, .short_chars = 30}, 0, 0.08);
  }
}

// Cut to 9 bits, the ~40 shingles of a text coincide often: the values move,
// the decisions do not, because the doubtful ones are left to the texts.
TEST(FormTest, NarrowVerdictsThatCoincidencesCouldTurnAreLeftToTheTexts) {
  for (Kind k : {Kind::kSimilarity, Kind::kJaccard, Kind::kContainment, Kind::kCosine}) {
    SCOPED_TRACE(static_cast<int>(k));
    for (Cut cut : {Cut::kHigh, Cut::kLow}) {
      const int from_texts =
          ExpectSameDecisionsCompact({.kind = k, .threshold = 0.7, .short_chars = 5}, 9, 1.0, cut);
      EXPECT_GT(from_texts, 0);
    }
  }
}

// Stores written before Cut::kHigh hold forms of the low bits: read back as
// such, they decide as the texts against a query cut the same way.
TEST(FormTest, FormsOfTheLowBitsStillDecideAsTheTexts) {
  for (Kind k : {Kind::kSimilarity, Kind::kJaccard, Kind::kContainment, Kind::kCosine}) {
    SCOPED_TRACE(static_cast<int>(k));
    ExpectSameDecisionsCompact({.kind = k, .threshold = 0.7, .short_chars = 30}, 16, 0.05,
                               Cut::kLow);
  }
}

TEST(FormTest, NarrowVerdictIsSureOnlyFarFromTheThreshold) {
  const VerifierSpec spec{.kind = Kind::kJaccard, .threshold = 0.6};
  auto sure = [&](double s, size_t n, int width) {
    return NarrowVerdictIsSure(spec, {s, s >= 0.6}, n, n, width, true);
  };
  EXPECT_TRUE(sure(0.9, 700, 17));
  EXPECT_TRUE(sure(0.1, 700, 17));
  EXPECT_FALSE(sure(0.6, 700, 17));
  EXPECT_FALSE(sure(0.61, 700, 17));  // ~1.7 coincidences expected, ~0.002 each
  EXPECT_TRUE(sure(0.65, 700, 17));
  EXPECT_TRUE(sure(0.61, 700, 32));  // 2^-14 expected
  EXPECT_TRUE(sure(0.6001, 700, 64));
  EXPECT_FALSE(sure(0.75, 30, 9));  // 30 shingles in 512 values
  // Without the whole sizes, coincidences within a side count too.
  EXPECT_TRUE(sure(0.63, 700, 17));
  EXPECT_FALSE(NarrowVerdictIsSure(spec, {0.63, true}, 700, 700, 17, false));
  EXPECT_EQ(NarrowWidth(700), 17);
  EXPECT_EQ(NarrowWidth(10), 16);
  EXPECT_EQ(NarrowWidth(size_t{1} << 30), 32);
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

TEST(FormTest, CompactFormOfAnArticleIsAboutTenBitsAShingle) {
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
  EXPECT_EQ(f->width, 17);
  EXPECT_FALSE(f->has_text);
  ASSERT_GT(sh.size(), 600u);
  EXPECT_LT(compact.size(), 10.0 / 8 * static_cast<double>(sh.size()));
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
  EXPECT_FALSE(ReadForm(std::string("\x25\x01", 2), &sh).ok());          // high cut, no width
  EXPECT_FALSE(ReadForm(std::string("\x41\x01\x00", 3), &sh).ok());      // unknown flag 64
  EXPECT_FALSE(ReadForm(std::string("\x05\x01\x03\x00", 4), &sh).ok());  // 3 values, no bits
  const std::string form = std::string("\x02\x01", 2) + "x";             // the form's text views it
  auto f = ReadForm(form, &sh);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->side.normalized, "x");
}

// Both cuts, of shingle sets (ascending) and of hashes in any order.
TEST(NarrowTest, CutsSortsAndDedupsAsTheObviousWay) {
  std::mt19937_64 rng(5);
  for (int width : {32, 17, 9}) {
    const uint64_t mask = (uint64_t{1} << width) - 1;
    const int shift = 64 - width;
    for (size_t n : {0, 1, 31, 32, 33, 1000, 70000}) {
      for (bool ascending : {false, true}) {
        std::vector<uint64_t> in(n);
        for (uint64_t& h : in) h = rng();
        // Hashes equal in their cut bits (and one repeated whole) must fold.
        if (n > 2) in[1] = (in[0] & mask) | (rng() << width);
        if (n > 5) in[5] = (in[4] & ~(~uint64_t{0} >> width)) | (rng() >> width);
        if (n > 3) in[3] = in[2];
        if (ascending) std::sort(in.begin(), in.end());
        for (Cut cut : {Cut::kLow, Cut::kHigh}) {
          std::vector<uint64_t> want;
          for (uint64_t h : in) want.push_back(cut == Cut::kLow ? h & mask : h >> shift);
          std::sort(want.begin(), want.end());
          want.erase(std::unique(want.begin(), want.end()), want.end());
          std::vector<uint64_t> got;
          Narrow(in, &got, width, cut);
          EXPECT_EQ(got, want) << n << " " << width << " " << ascending;
        }
      }
    }
  }
}

TEST(FormTest, RejectsBadWidths) {
  auto v = Verifier::Create({.kind = Kind::kJaccard});
  ASSERT_TRUE(v.ok());
  std::string form;
  MakeCompactFormForTest(v->get(), "春风花月夜山水", 12, &form);
  std::vector<uint64_t> sh;
  auto f = ReadForm(form, &sh);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->width, 12);
  for (uint64_t h : sh) EXPECT_LT(h, 1u << 12);
  // The width byte follows the flags and the code points (one byte here).
  for (const char bad : {char{0}, char{33}, char{11}}) {
    std::string broken = form;
    broken[2] = bad;  // 11: the coded values do not fit
    if (bad == 11) {
      std::vector<uint64_t> big = {4000};
      broken = form.substr(0, 2) + '\x0b';
      RiceEncode(big, &broken, 12);
    }
    EXPECT_FALSE(ReadForm(broken, &sh).ok()) << static_cast<int>(bad);
  }
  EXPECT_FALSE(ReadForm(std::string("\x11\x01", 2), &sh).ok());  // width flag, not narrow
}

}  // namespace
}  // namespace neardup::verify

namespace neardup::verify {
namespace {

// A form with the shingles in text order gives them back, and reads as the
// same side as the form without them, text included.
TEST(FormTest, KeepsTheSequence) {
  auto v = Verifier::Create(VerifierSpec{}).value();
  std::string text;
  for (int i = 0; i < 40; ++i)
    text += "版权所有，未经授权不得转载。今天的新闻" + std::to_string(i % 7);
  std::vector<uint64_t> shingles, in_order;
  std::vector<uint32_t> sequence;
  std::vector<features::Anchor> anchors;
  v->shingler().Shingle(text, &shingles);
  v->shingler().Sequence(text, &in_order);
  features::SequenceRanks(shingles, in_order, &sequence);
  features::SampleAnchors(in_order, &anchors);
  ASSERT_GT(sequence.size(), shingles.size());  // repeats
  ASSERT_GT(anchors.size(), 10u);
  std::string with, without;
  MakeForm(v.get(), text, &with, &shingles, std::nullopt, {&sequence, &anchors});
  MakeForm(v.get(), text, &without, &shingles);
  EXPECT_GT(with.size(), without.size());
  std::vector<uint64_t> s1, s2;
  std::vector<features::Anchor> back = {{42, 0}};
  auto a = ReadForm(with, &s1, &back);
  auto b = ReadForm(without, &s2, &back);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(a->has_sequence);
  EXPECT_FALSE(b->has_sequence);
  EXPECT_EQ(s1, s2);
  EXPECT_EQ(a->side.normalized, b->side.normalized);
  ASSERT_TRUE(ReadForm(with, &s1, &back).ok());
  ASSERT_EQ(a->sequence.size(), sequence.size());
  for (size_t i = 0; i < sequence.size(); ++i) ASSERT_EQ(a->sequence[i], sequence[i]);
  ASSERT_EQ(back.size(), anchors.size());
  for (size_t i = 0; i < anchors.size(); ++i) {
    EXPECT_EQ(back[i].hash, anchors[i].hash & 0xFFFFFFFFu);  // the low 32 bits are kept
    EXPECT_EQ(back[i].pos, anchors[i].pos);
  }
  std::vector<features::Anchor> only;
  ASSERT_EQ(ReadFormAnchors(with, &only).value(), true);
  EXPECT_TRUE(std::equal(only.begin(), only.end(), back.begin(), back.end(),
                         [](auto& x, auto& y) { return x.hash == y.hash && x.pos == y.pos; }));
  EXPECT_EQ(ReadFormAnchors(without, &only).value(), false);
  EXPECT_FALSE(ReadFormAnchors(with.substr(0, 12), &only).ok());
  // A rank past the set is damage (the ranks start after the shingles, the
  // sequence's length and the rank width byte).
  std::string bad = with;
  size_t at = 1;              // flags
  while (bad[at++] & 0x80) {  // code points
  }
  while (bad[at++] & 0x80) {  // n
  }
  at += 8 * shingles.size();
  while (bad[at++] & 0x80) {  // the sequence's length
  }
  ASSERT_EQ(bad[at], 2);  // the rank width
  bad[at + 1] = bad[at + 2] = static_cast<char>(0xFF);
  EXPECT_FALSE(ReadForm(bad, &s1, &back).ok());
}

}  // namespace
}  // namespace neardup::verify
