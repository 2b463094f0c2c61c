// SPDX-License-Identifier: Apache-2.0
#include "signal/signal_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "features/anchors.h"
#include "features/char_ngram.h"
#include "features/shingles.h"
#include "normalize/normalizer.h"
#include "verify/form.h"

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
  std::vector<uint64_t> shingles;
  SignalInput input() const { return {normalized, features, shingles}; }
};

Doc Prepare(std::string_view text) {
  auto n = normalize::Normalizer::Create({}).value();
  auto ex = features::CharNgramExtractor::Create({}).value();
  auto sh = features::Shingler::Create({}).value();
  Doc d;
  EXPECT_TRUE(n->Normalize(text, &d.normalized).ok());
  EXPECT_TRUE(ex->Extract(d.normalized, &d.features).ok());
  sh->Shingle(d.normalized, &d.shingles);
  return d;
}

// The texts a test has added, by slot.
class Texts final : public TextSource {
 public:
  Status Get(uint32_t slot, std::string* normalized) const override {
    auto it = texts_.find(slot);
    if (it == texts_.end()) return Status::NotFound("no text");
    *normalized = it->second;
    return Status::OK();
  }
  std::map<uint32_t, std::string> texts_;
};

std::unique_ptr<SignalSet> Make(const std::vector<SignalKind>& algs, const SignalOptions& o,
                                std::unique_ptr<verify::Verifier> verifier = nullptr) {
  std::vector<std::unique_ptr<Signal>> list;
  for (SignalKind a : algs) list.push_back(CreateSignal(a, o).value());
  return SignalSet::Create(std::move(list), std::move(verifier)).value();
}

Texts* TextsOf(const SignalSet& set) {
  static std::map<const SignalSet*, Texts> texts;
  return &texts[&set];
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
  ASSERT_TRUE(set.Insert(slot, *sk).ok());
  TextsOf(set)->texts_[slot] = d.normalized;
}

std::vector<Evidence> Find(const SignalSet& set, std::string_view text) {
  const Doc d = Prepare(text);
  auto sk = set.Compute(d.input());
  EXPECT_TRUE(sk.ok());
  std::vector<Evidence> out;
  EXPECT_TRUE(set.Candidates(d.input(), *sk, {}, TextsOf(set), &out).ok());
  return out;
}

TEST(SignalSetTest, FirstSignalInTheListGivesTheEvidence) {
  SignalOptions o;
  o.minhash_lsh = {20, 5};
  auto set = Make({SignalKind::kExact, SignalKind::kSimHash, SignalKind::kMinHash}, o);
  Add(*set, 1, kStory);
  Add(*set, 2, kOther);
  auto same = Find(*set, std::string(kStory) + "  ");  // equal after normalization
  ASSERT_EQ(same.size(), 1u);
  EXPECT_EQ(same[0].slot, 1u);
  EXPECT_EQ(same[0].signal, "exact");
  EXPECT_EQ(same[0].distance, 0);
  EXPECT_FALSE(same[0].verified.has_value());
  auto edited = Find(*set, Edited());
  ASSERT_EQ(edited.size(), 1u);
  EXPECT_EQ(edited[0].signal, "simhash");
  EXPECT_GE(edited[0].distance, 0);
  ASSERT_TRUE(set->Remove(1).ok());
  EXPECT_TRUE(Find(*set, Edited()).empty());
  EXPECT_FALSE(set->Remove(1).ok());
}

TEST(SignalSetTest, VerifierDropsCandidatesThatFail) {
  SignalOptions o;
  o.simhash_max_distance = o.simhash_index_max_distance = 24;  // loose on purpose
  auto loose = Make({SignalKind::kSimHash}, o);
  auto checked = Make(
      {SignalKind::kSimHash}, o,
      verify::Verifier::Create({.kind = verify::VerifierSpec::Kind::kLevenshtein, .threshold = 0.9})
          .value());
  EXPECT_NE(checked->verifier(), nullptr);
  for (auto* set : {loose.get(), checked.get()}) {
    Add(*set, 1, kStory);
    Add(*set, 2, kOther);
  }
  EXPECT_EQ(Find(*loose, Edited()).size(), 2u);
  auto got = Find(*checked, Edited());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].slot, 1u);
  ASSERT_TRUE(got[0].verified.has_value());
  EXPECT_GT(*got[0].verified, 0.95);
  EXPECT_LT(*got[0].verified, 1.0);
}

// Texts with compact verification forms cut to `width` bits; counts the
// texts read.
class FormTexts final : public TextSource {
 public:
  FormTexts(const verify::Verifier* v, int width, verify::Cut cut = verify::Cut::kHigh)
      : verifier_(v), width_(width), cut_(cut) {}
  void Put(uint32_t slot, const std::string& normalized) {
    texts_[slot] = normalized;
    verify::MakeCompactFormForTest(verifier_, normalized, width_, &forms_[slot], cut_);
  }
  Status Get(uint32_t slot, std::string* normalized) const override {
    ++reads;
    *normalized = texts_.at(slot);
    return Status::OK();
  }
  Status GetForm(uint32_t slot, std::string* form) const override {
    *form = forms_.at(slot);
    return Status::OK();
  }
  mutable int reads = 0;

 private:
  const verify::Verifier* verifier_;
  int width_;
  verify::Cut cut_;
  std::map<uint32_t, std::string> texts_, forms_;
};

// Verdicts from narrow forms are the texts' verdicts: cut so narrow that
// every set fills the 64 values, each is doubted and read from the text;
// cut to 32 bits, none is.
TEST(SignalSetTest, NarrowFormsDecideAsTheTexts) {
  SignalOptions o;
  o.simhash_max_distance = o.simhash_index_max_distance = 24;
  auto set = Make(
      {SignalKind::kSimHash}, o,
      verify::Verifier::Create({.kind = verify::VerifierSpec::Kind::kJaccard, .threshold = 0.5})
          .value());
  std::vector<std::string> texts;
  for (int i = 0; i <= 10; ++i) {  // the story with its end replaced, more and more
    const size_t keep = kStory.size() * (10 - i) / 10;
    texts.push_back(std::string(kStory.substr(0, keep)) +
                    std::string(kOther.substr(std::min(keep, kOther.size()))));
  }
  for (size_t i = 0; i < texts.size(); ++i) Add(*set, static_cast<uint32_t>(i), texts[i]);
  const Doc query = Prepare(kStory);
  auto sk = set->Compute(query.input());
  ASSERT_TRUE(sk.ok());
  std::vector<Evidence> exact;
  ASSERT_TRUE(set->Candidates(query.input(), *sk, {}, TextsOf(*set), &exact).ok());
  ASSERT_GE(exact.size(), 3u);
  ASSERT_LT(exact.size(), texts.size());  // some fail
  for (const auto& [width, cut] :
       {std::pair{6, verify::Cut::kHigh}, std::pair{6, verify::Cut::kLow},
        std::pair{32, verify::Cut::kHigh}, std::pair{32, verify::Cut::kLow}}) {
    FormTexts forms(set->verifier(), width, cut);
    for (size_t i = 0; i < texts.size(); ++i) {
      forms.Put(static_cast<uint32_t>(i), TextsOf(*set)->texts_[static_cast<uint32_t>(i)]);
    }
    std::vector<Evidence> got;
    ASSERT_TRUE(set->Candidates(query.input(), *sk, {}, &forms, &got).ok());
    ASSERT_EQ(got.size(), exact.size()) << width;
    for (size_t k = 0; k < got.size(); ++k) {
      EXPECT_EQ(got[k].slot, exact[k].slot);
      ASSERT_TRUE(got[k].verified.has_value());
      if (width == 6) {
        EXPECT_EQ(*got[k].verified, *exact[k].verified);
      }
    }
    if (width == 6) {
      EXPECT_GE(forms.reads, static_cast<int>(exact.size()));
    } else {
      EXPECT_EQ(forms.reads, 0);
    }
  }
}

TEST(SignalSetTest, SketchesRoundTripThroughBytes) {
  SignalOptions o;
  auto set = Make({SignalKind::kExact, SignalKind::kSimHash, SignalKind::kMinHash,
                   SignalKind::kSuperShingle, SignalKind::kSpotSig},
                  o);
  const Doc d = Prepare(kStory);
  auto sk = set->Compute(d.input());
  ASSERT_TRUE(sk.ok());
  const std::string bytes = SignalSet::Encode(*sk);
  auto back = set->Decode(bytes);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, *sk);
  EXPECT_EQ(set->Decode(bytes.substr(0, bytes.size() - 1)).status().code(),
            StatusCode::kCorruption);
  EXPECT_EQ(set->Decode(bytes + "x").status().code(), StatusCode::kCorruption);
  // Into sketches of another document, and into one of the wrong shape:
  // every vector takes the record's size, not what it held.
  const Doc other = Prepare("另一篇完全不同的短文，字数也不一样。");
  SignalSet::Sketches into = *set->Compute(other.input());
  ASSERT_NE(into, *sk);
  ASSERT_TRUE(set->DecodeInto(bytes, &into).ok());
  EXPECT_EQ(into, *sk);
  into.resize(9);
  into[8].u64.assign(3, 1);
  ASSERT_TRUE(set->DecodeInto(bytes, &into).ok());
  EXPECT_EQ(into, *sk);
  // A candidate whose text is gone is skipped, not an error.
  auto checked = Make({SignalKind::kExact}, o, verify::Verifier::Create({}).value());
  ASSERT_TRUE(checked->Insert(7, *checked->Compute(d.input())).ok());
  std::vector<Evidence> out;
  Texts none;
  ASSERT_TRUE(checked->Candidates(d.input(), *checked->Compute(d.input()), {}, &none, &out).ok());
  EXPECT_TRUE(out.empty());
}

// DropCopyKeys empties the sketches of the signals that do not index copies
// (containment) and nothing else; Insert skips them and Remove knows it,
// for slots far apart (the skipped slots are a bitmap).
TEST(SignalSetTest, CopiesDropOnlyThePassageKeys) {
  SignalOptions o;
  o.containment_min_shingles = 40;
  auto set = Make({SignalKind::kMinHash, SignalKind::kContainment}, o);
  auto sh = features::Shingler::Create({}).value();
  const Doc d = Prepare(kStory);
  std::vector<uint64_t> shingles;
  std::vector<uint32_t> ranks;
  std::vector<features::Anchor> anchors;
  features::ShingleInOrder(*sh, d.normalized, &shingles, &ranks, &anchors);
  SignalInput in = d.input();
  in.anchors = anchors;
  ASSERT_GE(d.shingles.size(), 40u);
  const SignalSet::Sketches whole = *set->Compute(in);
  ASSERT_TRUE(whole[1].indexable);
  SignalSet::Sketches copy = whole;
  EXPECT_TRUE(set->DropCopyKeys(&copy));
  EXPECT_EQ(copy[0], whole[0]);
  EXPECT_EQ(copy[1], (SignalSketch{{}, {}, false}));
  EXPECT_FALSE(set->DropCopyKeys(&copy));  // nothing left to drop

  for (uint32_t slot : {3u, 70000u, 5u}) ASSERT_TRUE(set->Insert(slot, copy).ok());
  ASSERT_TRUE(set->Insert(9, whole).ok());
  EXPECT_EQ(set->Insert(70000, copy).code(), StatusCode::kAlreadyExists);
  for (uint32_t slot : {3u, 70000u, 5u}) {
    EXPECT_TRUE(set->signal(0).Indexed(slot));
    EXPECT_FALSE(set->signal(1).Indexed(slot)) << slot;
  }
  EXPECT_TRUE(set->signal(1).Indexed(9));
  // The copies are found by their MinHash keys only.
  std::vector<Evidence> found;
  ASSERT_TRUE(set->Candidates(in, whole, {}, nullptr, &found).ok());
  ASSERT_EQ(found.size(), 4u);
  for (uint32_t slot : {70000u, 3u, 9u, 5u}) EXPECT_TRUE(set->Remove(slot).ok()) << slot;
  EXPECT_EQ(set->Remove(70000).code(), StatusCode::kNotFound);
}

TEST(SignalSetTest, Errors) {
  EXPECT_FALSE(SignalSet::Create({}, nullptr).ok());
  EXPECT_FALSE(CreateSignal(SignalKind::kIMatch, {}).ok());  // no lexicon
  SignalOptions o;
  o.minhash_lsh = {100, 2};  // 200 rows > 128 permutations
  EXPECT_FALSE(CreateSignal(SignalKind::kMinHash, o).ok());
}

}  // namespace
}  // namespace neardup::signal
