// SPDX-License-Identifier: Apache-2.0
#include "sketch/imatch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace neardup::sketch {
namespace {

// Terms 0..99 with df = term + 1 over 100 documents: idf falls as the term grows.
DocumentFrequencies Collection() {
  DocumentFrequencies df;
  for (uint64_t d = 0; d < 100; ++d) {
    std::vector<uint64_t> terms;
    for (uint64_t t = 0; t < 100; ++t) {
      if (d <= t) terms.push_back(t);
    }
    terms.push_back(terms.empty() ? 0 : terms.front());  // a repeat counts once
    df.AddDocument(terms);
  }
  return df;
}

TEST(IMatchTest, LexiconIsTheMiddleIdfBand) {
  auto m = IMatcher::FromDocumentFrequencies(Collection(), {.drop_low = 0.2, .drop_high = 0.3});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->lexicon_size(), 50u);
  // Lowest idf = most frequent = largest terms (80..99) dropped; highest idf =
  // rarest = smallest terms (0..29) dropped.
  for (uint64_t t = 0; t < 100; ++t) EXPECT_EQ(m->InLexicon(t), t >= 30 && t < 80) << t;
}

TEST(IMatchTest, DeterministicAndOrderIndependent) {
  auto m = IMatcher::FromDocumentFrequencies(Collection(), {.extra_lexicons = 4});
  ASSERT_TRUE(m.ok());
  std::vector<uint64_t> doc = {15, 40, 41, 42, 50, 60, 61, 95, 2, 40};
  const auto sig = m->Signatures(doc);
  ASSERT_EQ(sig.size(), 5u);
  ASSERT_TRUE(sig[0].has_value());
  std::mt19937_64 rng(5);
  for (int i = 0; i < 10; ++i) {
    auto shuffled = doc;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    shuffled.push_back(shuffled[0]);  // repetition does not matter either
    EXPECT_EQ(m->Signatures(shuffled), sig);
  }
  // A rebuilt matcher gives the same signatures (no hidden state, no randomness).
  auto again = IMatcher::FromDocumentFrequencies(Collection(), {.extra_lexicons = 4});
  EXPECT_EQ(again->Signatures(doc), sig);
  // Out-of-lexicon terms do not change the main signature; a lexicon term does.
  auto with_rare = doc;
  with_rare.push_back(3);
  EXPECT_EQ(m->Signatures(with_rare)[0], sig[0]);
  auto with_mid = doc;
  with_mid.push_back(55);
  EXPECT_NE(m->Signatures(with_mid)[0], sig[0]);
}

TEST(IMatchTest, TooFewTermsGiveNoSignature) {
  auto m = IMatcher::FromDocumentFrequencies(Collection(), {.min_terms = 3});
  ASSERT_TRUE(m.ok());
  std::vector<uint64_t> two = {40, 50, 1, 99};
  EXPECT_FALSE(m->Signatures(two)[0].has_value());
  EXPECT_FALSE(IMatchSignaturesMatch(m->Signatures(two), m->Signatures(two)));
}

TEST(IMatchTest, RandomizedLexiconsRecoverOneTermEdits) {
  // Many documents that differ from a base by one lexicon term: the main
  // signature never matches, but with extra lexicons most pairs still match
  // (a lexicon that drops the changed term matches with prob. ~ extra_drop^2).
  std::vector<std::pair<uint64_t, double>> idf;
  for (uint64_t t = 0; t < 1000; ++t) idf.emplace_back(t * 7919, 1.0 + t % 13);
  auto m = IMatcher::FromIdf(
      idf, {.drop_low = 0, .drop_high = 0, .extra_lexicons = 10, .extra_drop = 0.5});
  ASSERT_TRUE(m.ok());
  std::mt19937_64 rng(8);
  int main_match = 0, any_match = 0;
  const int kTrials = 200;
  for (int t = 0; t < kTrials; ++t) {
    std::vector<uint64_t> a;
    for (int i = 0; i < 12; ++i) a.push_back((rng() % 1000) * 7919);
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    auto b = a;
    b[0] = 1000 * 7919 + 1;              // replace one term by an out-of-lexicon term...
    b.push_back((rng() % 1000) * 7919);  // ...and add a lexicon term
    const auto sa = m->Signatures(a), sb = m->Signatures(b);
    main_match += sa[0] == sb[0];
    any_match += IMatchSignaturesMatch(sa, sb);
  }
  EXPECT_LE(main_match, 2);
  EXPECT_GE(any_match, kTrials / 2);
}

TEST(IMatchTest, BadOptions) {
  EXPECT_FALSE(IMatcher::FromDocumentFrequencies(DocumentFrequencies(), {}).ok());
  EXPECT_FALSE(
      IMatcher::FromDocumentFrequencies(Collection(), {.drop_low = 0.6, .drop_high = 0.5}).ok());
  EXPECT_FALSE(IMatcher::FromDocumentFrequencies(Collection(), {.extra_drop = 1.0}).ok());
}

}  // namespace
}  // namespace neardup::sketch
