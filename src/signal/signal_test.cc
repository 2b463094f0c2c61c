// SPDX-License-Identifier: Apache-2.0
#include "signal/signal.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "features/anchors.h"
#include "features/char_ngram.h"
#include "features/shingles.h"
#include "normalize/normalizer.h"
#include "signal/registry.h"

namespace neardup::signal {
namespace {

// An English story written for this test, a light edit of it, and an
// unrelated text.
constexpr std::string_view kSignalStory =
    "The city council said on Tuesday that the old river bridge will close for repairs next "
    "month. Engineers found that the steel beams under the east lane were badly corroded, and "
    "the council has decided to replace them before winter. Buses will take a detour through "
    "the market district, and the ferry will run every twenty minutes during the morning rush. "
    "The mayor said the work is expected to take about eleven weeks and that the bridge will "
    "reopen to cyclists first. Shop owners near the bridge are worried that there will be fewer "
    "customers while it is closed.";
constexpr std::string_view kUnrelated =
    "A new species of frog was described by biologists working in the cloud forests of the "
    "southern mountains. The tiny animal is the size of a fingernail and has bright orange "
    "spots on its back. The researchers said that the frog is found only on a single ridge and "
    "that its habitat is threatened by farming. They have asked the government to protect the "
    "area, which is also home to rare orchids and several birds that live nowhere else.";

std::string EditedStory() {
  std::string s(kSignalStory);
  s.replace(s.find("eleven"), 6, "twelve");
  return s + " Reporting by the local desk.";
}

struct PreparedText {
  std::string normalized;
  std::vector<features::Feature> features;
  std::vector<uint64_t> shingles;  // words (script:5,1)
  std::vector<uint32_t> ranks;
  std::vector<features::Anchor> anchors;  // for containment
  SignalInput input() const {
    SignalInput in{normalized, features, shingles};
    in.anchors = anchors;
    return in;
  }
};

PreparedText PrepareText(std::string_view text) {
  auto n = normalize::Normalizer::Create({}).value();
  auto ex = features::CharNgramExtractor::Create({}).value();
  auto sh = features::Shingler::Create({.char_n = 5, .word_n = 1}).value();
  PreparedText p;
  EXPECT_TRUE(n->Normalize(text, &p.normalized).ok());
  EXPECT_TRUE(ex->Extract(p.normalized, &p.features).ok());
  features::ShingleInOrder(*sh, p.normalized, &p.shingles, &p.ranks, &p.anchors);
  return p;
}

std::shared_ptr<const sketch::IMatcher> Lexicon() {
  // Every word of the three texts with an idf by word length, so the band
  // keeps the middle lengths.
  // Per process: ctest runs the parameterized cases in parallel processes.
  const std::string path =
      ::testing::TempDir() + "/neardup_idf_" + std::to_string(getpid()) + ".txt";
  std::ofstream out(path);
  for (const auto& text : {std::string(kSignalStory), std::string(kUnrelated), EditedStory()}) {
    const PreparedText p = PrepareText(text);
    size_t start = 0;
    while (start < p.normalized.size()) {
      size_t end = p.normalized.find(' ', start);
      if (end == std::string::npos) end = p.normalized.size();
      out << p.normalized.substr(start, end - start) << ' ' << (end - start) << ".0\n";
      start = end + 1;
    }
  }
  out.close();
  auto m = LoadIMatchLexicon(path, {.drop_low = 0.2, .drop_high = 0.05, .extra_lexicons = 3});
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return *m;
}

class SignalTest : public ::testing::TestWithParam<SignalKind> {};

SignalOptions TestOptions() {
  SignalOptions o;
  o.imatch = Lexicon();
  o.spotsig_threshold = 0.4;
  // The edit is at distance 4; the unrelated story, full of the same function
  // words, is only 11 away (SimHash's weakness on short texts).
  o.simhash_max_distance = o.simhash_index_max_distance = 6;
  o.containment_min_shingles = 20;  // the stories have about 90 words
  return o;
}

TEST_P(SignalTest, FindsTheEditNotTheUnrelatedAndForgetsRemoved) {
  auto sig = CreateSignal(GetParam(), TestOptions());
  ASSERT_TRUE(sig.ok()) << sig.status().ToString();
  Signal& s = **sig;
  EXPECT_EQ(s.kind(), GetParam());
  EXPECT_EQ(s.name(), SignalName(GetParam()));
  const auto story = s.Compute(PrepareText(kSignalStory).input());
  const auto other = s.Compute(PrepareText(kUnrelated).input());
  const auto empty = s.Compute(PrepareText("").input());
  ASSERT_TRUE(story.ok() && other.ok() && empty.ok());
  ASSERT_TRUE(s.Insert(1, *story).ok());
  ASSERT_TRUE(s.Insert(2, *other).ok());
  ASSERT_TRUE(s.Insert(3, *empty).ok());
  EXPECT_FALSE(s.Insert(1, *story).ok());

  const std::string query_text =
      GetParam() == SignalKind::kExact ? std::string(kSignalStory) + "!!" : EditedStory();
  auto q = s.Compute(PrepareText(query_text).input());
  ASSERT_TRUE(q.ok());
  std::vector<Candidate> cands;
  ASSERT_TRUE(s.Query(*q, {}, &cands).ok());
  ASSERT_EQ(cands.size(), 1u) << SignalName(GetParam());
  EXPECT_EQ(cands[0].slot, 1u);
  EXPECT_GT(cands[0].similarity, 0.0);  // I-Match: 1 of 4 lexicons agrees
  EXPECT_LE(cands[0].similarity, 1.0);

  ASSERT_TRUE(s.Remove(1).ok());
  ASSERT_TRUE(s.Remove(3).ok());
  EXPECT_FALSE(s.Remove(1).ok());
  cands.clear();
  ASSERT_TRUE(s.Query(*q, {}, &cands).ok());
  EXPECT_TRUE(cands.empty());
}

// Both sides of every signal agree: Compare() proposes exactly the pairs
// Query() returns, with the same estimate, and the batch keys (Keys())
// pair the edit with the story and not the unrelated text.
TEST_P(SignalTest, BatchKeysAndCompareAgreeWithTheIndex) {
  auto sig = CreateSignal(GetParam(), TestOptions());
  ASSERT_TRUE(sig.ok()) << sig.status().ToString();
  const Signal& s = **sig;
  const KeySpaceSpec spec = s.key_space();
  ASSERT_GT(spec.max_keys, 0u);
  const PreparedText story = PrepareText(kSignalStory);
  const std::string dup_text =
      GetParam() == SignalKind::kExact ? std::string(kSignalStory) + "!!" : EditedStory();
  for (const auto& [text, expect] :
       {std::pair<std::string, bool>{dup_text, true},
        std::pair<std::string, bool>{std::string(kUnrelated), false}}) {
    const PreparedText other = PrepareText(text);
    // Online: insert the story, query the other.
    auto online = CreateSignal(GetParam(), TestOptions());
    ASSERT_TRUE(online.ok());
    ASSERT_TRUE((*online)->Insert(1, (*online)->Compute(story.input()).value()).ok());
    std::vector<Candidate> found;
    ASSERT_TRUE((*online)->Query((*online)->Compute(other.input()).value(), {}, &found).ok());
    const PairEstimate e = s.Compare(story.input(), other.input());
    EXPECT_EQ(e.proposed, expect) << s.name();
    ASSERT_EQ(found.size(), expect ? 1u : 0u) << s.name();
    if (expect) {
      EXPECT_DOUBLE_EQ(e.similarity, found[0].similarity) << s.name();
      EXPECT_EQ(e.distance, found[0].distance) << s.name();
    }
    // Batch: the keys of both, within max_keys, and whether they pair.
    std::vector<uint64_t> ka(spec.max_keys), kb(spec.max_keys);
    KeySink sa(ka.data(), ka.size()), sb(kb.data(), kb.size());
    s.Keys(story.input(), &sa);
    s.Keys(other.input(), &sb);
    ka.resize(sa.size());
    kb.resize(sb.size());
    if (spec.slots > 0) {
      EXPECT_LE(ka.size(), static_cast<size_t>(spec.slots));
    }
    bool shared = false;
    for (uint64_t k : ka) shared |= std::find(kb.begin(), kb.end(), k) != kb.end();
    if (spec.max_distance >= 0) {
      ASSERT_TRUE(sa.has_payload() && sb.has_payload());
      shared &= __builtin_popcountll(sa.payload() ^ sb.payload()) <= spec.max_distance;
    }
    const bool paired = shared && (spec.decides || e.proposed);
    EXPECT_EQ(paired, expect) << s.name();
  }
}

INSTANTIATE_TEST_SUITE_P(AllSignals, SignalTest, ::testing::ValuesIn([] {
                           std::vector<SignalKind> kinds;
                           for (const auto& r : RegisteredSignals()) kinds.push_back(r.kind);
                           return kinds;
                         }()),
                         [](const auto& info) { return std::string(SignalName(info.param)); });

TEST(SignalRegistryTest, NamesRoundTripAndUnknownNamesListTheKnown) {
  ASSERT_EQ(RegisteredSignals().size(), 7u);
  for (const auto& r : RegisteredSignals()) {
    EXPECT_EQ(SignalName(r.kind), r.name);
    auto k = ParseSignalName(r.name);
    ASSERT_TRUE(k.ok());
    EXPECT_EQ(*k, r.kind);
  }
  auto bad = ParseSignalName("minhsah");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("minhash, supershingle"), std::string::npos);
}

TEST(SignalTest, EvidenceCarriesDistances) {
  SignalOptions o;
  o.simhash_max_distance = o.simhash_index_max_distance = 6;
  auto sim = CreateSignal(SignalKind::kSimHash, o);
  ASSERT_TRUE(sim.ok());
  const auto a = (*sim)->Compute(PrepareText(kSignalStory).input());
  const auto b = (*sim)->Compute(PrepareText(EditedStory()).input());
  ASSERT_TRUE((*sim)->Insert(7, *a).ok());
  std::vector<Candidate> c;
  ASSERT_TRUE((*sim)->Query(*b, {}, &c).ok());
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].distance, __builtin_popcountll(a->u64[0] ^ b->u64[0]));
  EXPECT_DOUBLE_EQ(c[0].similarity, 1.0 - c[0].distance / 64.0);
}

// MinHash sketches hold the band keys folded to the index's 32 bits; a
// sketch stored before (store format 2: whole 64-bit keys) indexes and
// queries the same.
TEST(SignalTest, MinHashFoldedAndWholeKeysIndexAlike) {
  SignalOptions o;
  o.minhash_lsh = {20, 4};
  auto sig = CreateSignal(SignalKind::kMinHash, o);
  ASSERT_TRUE(sig.ok());
  const auto story = PrepareText(kSignalStory);
  auto folded = (*sig)->Compute(story.input());
  ASSERT_TRUE(folded.ok());
  ASSERT_EQ(folded->u32.size(), 20u);
  EXPECT_TRUE(folded->u64.empty());
  SignalSketch whole{{}, {}, true};  // keys that fold to the same 32 bits
  for (size_t i = 0; i < folded->u32.size(); ++i) {
    const uint64_t high = static_cast<uint32_t>(0x9E3779B9u * (i + 1));
    whole.u64.push_back(high << 32 | (folded->u32[i] ^ high));
  }
  ASSERT_TRUE((*sig)->Insert(1, whole).ok());
  ASSERT_TRUE((*sig)->Insert(2, *folded).ok());
  for (const SignalSketch* q : {&*folded, &whole}) {
    std::vector<Candidate> found;
    ASSERT_TRUE((*sig)->Query(*q, {}, &found).ok());
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].similarity, 1.0);
    EXPECT_EQ(found[1].similarity, 1.0);
  }
  const auto other = PrepareText(kUnrelated);
  std::vector<Candidate> found;
  ASSERT_TRUE((*sig)->Query((*sig)->Compute(other.input()).value(), {}, &found).ok());
  EXPECT_TRUE(found.empty());
}

TEST(SignalTest, BadOptions) {
  EXPECT_FALSE(CreateSignal(SignalKind::kIMatch, {}).ok());  // no lexicon
  SignalOptions o;
  o.spotsig_stop_words = "/nonexistent/stop_words.utf8";
  EXPECT_FALSE(CreateSignal(SignalKind::kSpotSig, o).ok());
  EXPECT_FALSE(LoadIMatchLexicon("/nonexistent", {}).ok());
}

}  // namespace
}  // namespace neardup::signal
