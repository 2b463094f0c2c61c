// SPDX-License-Identifier: Apache-2.0
//
// spotsig: spot signatures (Theobald, Siddharth and Paepcke, SIGIR 2008):
// chains of words after antecedent stop words, hashed; documents whose sets
// have a Jaccard >= threshold are candidates, found through the SpotSig
// index's partitions by set size. Batch: the 64 smallest signature hashes
// (a bottom-k sample) are the keys, and a pair sharing one is then decided
// by the Jaccard of the whole sets (Compare()).
#include "base/sorted_set.h"
#include "index/spotsig_index.h"
#include "signal/signal_internal.h"
#include "sketch/spotsig.h"

namespace neardup::signal {
namespace {

constexpr size_t kBatchKeys = 64;

class SpotSigSignal final : public Signal {
 public:
  SpotSigSignal(sketch::SpotSigExtractor ex, index::SpotSigIndex index)
      : ex_(std::move(ex)), index_(std::move(index)) {}
  SignalKind kind() const override { return SignalKind::kSpotSig; }
  Result<SignalSketch> Compute(const SignalInput& doc) const override {
    std::vector<uint64_t> sigs = ex_.Extract(doc.normalized);
    const bool indexable = !sigs.empty();
    return SignalSketch{{}, std::move(sigs), indexable};
  }
  Status Insert(uint32_t slot, const SignalSketch& s) override {
    return InsertUnlessSkipped(slot, s, &skipped_, &index_);
  }
  Status Remove(uint32_t slot) override { return RemoveUnlessSkipped(slot, &skipped_, &index_); }
  Status Query(const SignalSketch& s, const QueryParams&,
               std::vector<Candidate>* out) const override {
    for (const auto& m : index_.Query(s.u64)) {
      out->push_back({static_cast<uint32_t>(m.id), m.jaccard, -1});
    }
    return Status::OK();
  }
  size_t MemoryBytes() const override { return index_.size() * 256; }

  KeySpaceSpec key_space() const override { return {.max_keys = kBatchKeys, .decides = false}; }
  void Keys(const SignalInput& doc, KeySink* out) const override {
    const std::vector<uint64_t> sigs = ex_.Extract(doc.normalized);  // sorted, distinct
    for (size_t i = 0; i < sigs.size() && i < kBatchKeys; ++i) out->Add(sigs[i]);
  }
  PairEstimate Compare(const SignalInput& a, const SignalInput& b) const override {
    const std::vector<uint64_t> x = ex_.Extract(a.normalized), y = ex_.Extract(b.normalized);
    if (x.empty() || y.empty()) return {};
    const double j = SortedSetJaccard(std::span<const uint64_t>(x), std::span<const uint64_t>(y));
    return {j >= index_.threshold(), j, -1};
  }

 private:
  sketch::SpotSigExtractor ex_;
  index::SpotSigIndex index_;
  Skipped skipped_;
};

}  // namespace

Result<std::unique_ptr<Signal>> CreateSpotSigSignal(const SignalOptions& o) {
  sketch::SpotSigOptions so = sketch::EnglishSpotSigOptions();
  if (!o.spotsig_stop_words.empty()) {
    NEARDUP_ASSIGN_OR_RETURN(so, sketch::ChineseSpotSigOptions(o.spotsig_stop_words));
  }
  NEARDUP_ASSIGN_OR_RETURN(sketch::SpotSigExtractor ex, sketch::SpotSigExtractor::Create(so));
  NEARDUP_ASSIGN_OR_RETURN(index::SpotSigIndex index,
                           index::SpotSigIndex::Create(o.spotsig_threshold));
  return std::unique_ptr<Signal>(new SpotSigSignal(std::move(ex), std::move(index)));
}

}  // namespace neardup::signal
