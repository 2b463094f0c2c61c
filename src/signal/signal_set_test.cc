// SPDX-License-Identifier: Apache-2.0
#include "signal/signal_set.h"

#include <gtest/gtest.h>

#include "features/char_ngram.h"
#include "normalize/normalizer.h"

namespace neardup::signal {
namespace {

constexpr std::string_view kStory =
    "The harbour office said on Friday that the north pier will stay closed until the spring "
    "because a storm damaged its wooden deck. Fishing boats will use the south pier, where "
    "the council has added two cranes and a new fuel pump. The harbour master said that the "
    "repairs will cost more than last year and that the work should be finished before the "
    "summer festival, when the ferries from the islands are busiest.";
constexpr std::string_view kOther =
    "The school choir won the regional contest on Sunday with a programme of folk songs. The "
    "conductor said that the children had practised every morning for three months and that "
    "the prize money will pay for a trip to the national final in the capital. Parents who "
    "travelled with the choir said that the hall was full and that the audience asked for two "
    "more songs at the end of the evening.";

struct Doc {
  std::string normalized;
  std::vector<features::Feature> features;
  SignalInput input() const { return {normalized, features}; }
};

Doc Prepare(std::string_view text) {
  auto n = normalize::Normalizer::Create({}).value();
  auto ex = features::CharNgramExtractor::Create({}).value();
  Doc d;
  EXPECT_TRUE(n->Normalize(text, &d.normalized).ok());
  EXPECT_TRUE(ex->Extract(d.normalized, &d.features).ok());
  return d;
}

std::string Edited() {
  std::string s(kStory);
  s.replace(s.find("Friday"), 6, "Monday");
  return s;
}

void Add(SignalSet& set, uint32_t slot, std::string_view text) {
  const Doc d = Prepare(text);
  auto sk = set.Compute(d.input());
  ASSERT_TRUE(sk.ok());
  ASSERT_TRUE(set.Insert(slot, d.input(), *sk).ok());
}

std::vector<Evidence> Find(const SignalSet& set, std::string_view text) {
  const Doc d = Prepare(text);
  auto sk = set.Compute(d.input());
  EXPECT_TRUE(sk.ok());
  std::vector<Evidence> out;
  EXPECT_TRUE(set.Candidates(d.input(), *sk, &out).ok());
  return out;
}

TEST(SignalSetTest, FirstSignalInTheListGivesTheEvidence) {
  SignalOptions o;
  o.minhash_threshold = 0.5;
  auto set =
      SignalSet::Create({Algorithm::kExact, Algorithm::kSimHash, Algorithm::kMinHash}, o, "");
  ASSERT_TRUE(set.ok());
  Add(**set, 1, kStory);
  Add(**set, 2, kOther);
  auto same = Find(**set, std::string(kStory) + "  ");  // equal after normalization
  ASSERT_EQ(same.size(), 1u);
  EXPECT_EQ(same[0].slot, 1u);
  EXPECT_EQ(same[0].signal, "exact");
  EXPECT_EQ(same[0].distance, 0);
  EXPECT_FALSE(same[0].verified.has_value());
  auto edited = Find(**set, Edited());
  ASSERT_EQ(edited.size(), 1u);
  EXPECT_EQ(edited[0].signal, "simhash");
  EXPECT_GE(edited[0].distance, 0);
  ASSERT_TRUE((*set)->Remove(1).ok());
  EXPECT_TRUE(Find(**set, Edited()).empty());
  EXPECT_FALSE((*set)->Remove(1).ok());
}

TEST(SignalSetTest, VerifierDropsCandidatesThatFail) {
  SignalOptions o;
  o.simhash_max_distance = 24;  // loose on purpose: unrelated prose becomes a candidate
  auto loose = SignalSet::Create({Algorithm::kSimHash}, o, "");
  auto checked = SignalSet::Create({Algorithm::kSimHash}, o, "levenshtein:0.9");
  ASSERT_TRUE(loose.ok() && checked.ok());
  EXPECT_TRUE((*checked)->verifies());
  for (auto* set : {loose->get(), checked->get()}) {
    Add(*set, 1, kStory);
    Add(*set, 2, kOther);
  }
  EXPECT_EQ(Find(**loose, Edited()).size(), 2u);
  auto got = Find(**checked, Edited());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].slot, 1u);
  ASSERT_TRUE(got[0].verified.has_value());
  EXPECT_GT(*got[0].verified, 0.95);
  EXPECT_LT(*got[0].verified, 1.0);
}

TEST(SignalSetTest, Errors) {
  EXPECT_FALSE(SignalSet::Create({}, {}, "").ok());
  EXPECT_FALSE(SignalSet::Create({Algorithm::kExact}, {}, "nope").ok());
  EXPECT_FALSE(SignalSet::Create({Algorithm::kIMatch}, {}, "").ok());  // no lexicon
}

}  // namespace
}  // namespace neardup::signal
