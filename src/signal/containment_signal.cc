// SPDX-License-Identifier: Apache-2.0
//
// containment: candidates for the verifier's containment rule (an excerpt
// of a story, or a story with a paragraph added; verify/verifier.h), whose
// Jaccard similarity with the whole (about the excerpt's length share,
// 0.25-0.6) MinHash bands tuned for near-duplicates never reach.
//
// Method: the set a document is sketched from is its runs of three
// consecutive anchors (features/anchors.h: windows of 8 consecutive
// shingles chosen by their own hash), so a passage gives the same runs in
// every text that holds it, and a phrase shorter than a run gives none.
// The sketch is a one-permutation MinHash of that set with k = 8 bins (Li,
// Owen and Zhang, NIPS 2012, densified as Shrivastava, ICML 2017), each bin
// a key of its own (k bands of one row). If S lies in L, a bin's minimum
// over L is a run of S with probability about rho = |S| / |L| and is then
// S's minimum of that bin too, so the two share a key unless every bin
// misses: about (1 - rho)^k, 0.75^8 = 10% for a 25% excerpt, 0.6^8 = 1.7%
// for a 40% one, 0.4^8 = 0.07% for a 60% one. (The bound of the bottom-k
// "min-hash containment" estimate of Broder, "On the resemblance and
// containment of documents", 1997, with one bin a key.) 16 bins halve the
// misses at twice the memory (~5 bytes a key a document online) and more
// false candidates; docs/quality.md has both. Only documents with at least
// `min_shingles` shingles are sketched: shorter ones cannot be the smaller
// side of a containment, nor contain one.
//
// Keys, index and batch spaces are the MinHash signal's (minhash_signal.cc:
// index::CompactLshIndex online, ~5 bytes a key). Shared keys are shared
// passages, which footers and ads are too, so this space's pairs do not
// decide without the verifier, do not mark records for the boilerplate
// guard's founders (batch::KeySpace::marks_later), and a bucket pairs each
// member with its first two only (star_width).
#include <algorithm>  // std::max
#include <memory>
#include <span>
#include <vector>

#include "signal/signal_internal.h"

namespace neardup::signal {
namespace {

// Anchors a unit: a passage of this many consecutive anchors (about 16
// shingles: 8, then 4 a further anchor) is one element of the set. A single
// anchor (10 characters) is as often a phrase that unrelated texts share (a
// line of verse, "新华社北京11月29日电") as a piece of one passage; three in a
// row rarely are, and an excerpt holds nearly all of its own.
constexpr size_t kAnchorRun = 3;
constexpr uint64_t kMul = 0x9E3779B97F4A7C15ULL;

class ContainmentSignal final : public Signal {
 public:
  ContainmentSignal(std::unique_ptr<Signal> bins, size_t min_shingles)
      : bins_(std::move(bins)), min_shingles_(min_shingles) {}
  SignalKind kind() const override { return SignalKind::kContainment; }
  Result<SignalSketch> Compute(const SignalInput& doc) const override {
    thread_local std::vector<uint64_t> set;
    return bins_->Compute(AnchorInput(doc, &set));
  }
  Status Insert(uint32_t slot, const SignalSketch& s) override { return bins_->Insert(slot, s); }
  Status Remove(uint32_t slot) override { return bins_->Remove(slot); }
  void BeginBulkInsert(size_t expected) override { bins_->BeginBulkInsert(expected); }
  void EndBulkInsert() override { bins_->EndBulkInsert(); }
  Status Query(const SignalSketch& s, const QueryParams& p,
               std::vector<Candidate>* out) const override {
    return bins_->Query(s, p, out);
  }
  Status QueryRemembering(const SignalSketch& s, const QueryParams& p, std::vector<Candidate>* out,
                          QueryMemo* memo) const override {
    return bins_->QueryRemembering(s, p, out, memo);
  }
  Status QueryAgain(const SignalSketch& s, const QueryParams& p, const QueryMemo& memo,
                    std::vector<Candidate>* out) const override {
    return bins_->QueryAgain(s, p, memo, out);
  }
  size_t MemoryBytes() const override { return bins_->MemoryBytes(); }
  // A copy's passages are its cluster's: the cluster is found by its
  // founder's keys (or its containing text's) all the same.
  bool IndexesCopies() const override { return false; }
  bool Indexed(uint32_t slot) const override { return bins_->Indexed(slot); }

  KeySpaceSpec key_space() const override {
    KeySpaceSpec k = bins_->key_space();
    k.decides = false;
    k.marks_later = false;
    // A passage many texts share is paired with its first two holders only:
    // the excerpts of a story reach the story (or a copy) all the same.
    k.star_width = 2;
    return k;
  }
  void Keys(const SignalInput& doc, KeySink* out) const override {
    thread_local std::vector<uint64_t> set;
    bins_->Keys(AnchorInput(doc, &set), out);
  }
  PairEstimate Compare(const SignalInput& a, const SignalInput& b) const override {
    std::vector<uint64_t> sa, sb;
    return bins_->Compare(AnchorInput(a, &sa), AnchorInput(b, &sb));
  }

 private:
  // The document as the bins see it: the hashes of its runs of kAnchorRun
  // anchors as the set, or none when it is too short. In text order, with
  // any repeats: the bins take minima, which neither changes.
  SignalInput AnchorInput(const SignalInput& doc, std::vector<uint64_t>* set) const {
    set->clear();
    if (doc.shingles.size() >= min_shingles_) {
      const std::span<const features::Anchor> a = doc.anchors;
      for (size_t i = 0; i + kAnchorRun <= a.size(); ++i) {
        uint64_t h = 0;
        for (size_t j = i; j < i + kAnchorRun; ++j) h = (h ^ a[j].hash) * kMul + (h >> 31);
        set->push_back(h);
      }
    }
    SignalInput in;
    in.normalized = doc.normalized;
    in.shingles = *set;
    return in;
  }

  std::unique_ptr<Signal> bins_;
  size_t min_shingles_;
};

}  // namespace

Result<std::unique_ptr<Signal>> CreateContainmentSignal(const SignalOptions& o) {
  if (o.containment_bins < 1 || o.containment_bins > 64) {
    return Status::InvalidArgument("containment needs 1 to 64 bins, got " +
                                   std::to_string(o.containment_bins));
  }
  SignalOptions bins = o;
  bins.minhash_num_perm = o.containment_bins;
  bins.minhash_scheme = sketch::MinHashScheme::kOnePermutation;
  bins.minhash_lsh = {o.containment_bins, 1};
  bins.minhash_min_bands = 1;
  NEARDUP_ASSIGN_OR_RETURN(auto inner, CreateMinHashSignal(bins));
  return std::unique_ptr<Signal>(new ContainmentSignal(
      std::move(inner), static_cast<size_t>(std::max(0, o.containment_min_shingles))));
}

}  // namespace neardup::signal
