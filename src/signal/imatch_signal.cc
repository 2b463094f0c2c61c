// SPDX-License-Identifier: Apache-2.0
//
// imatch: I-Match signatures (Chowdhury et al., ACM TOIS 2002; several
// lexicons as in Kolcz et al., SIGIR 2004): the hash of the document's terms
// that fall in a lexicon of mid-IDF terms, one signature per lexicon.
// Documents with an equal signature are candidates; the estimate is the
// share of the lexicons that agree. Batch: one key per signature present.
#include <unordered_map>

#include "index/hash_buckets.h"
#include "signal/signal_internal.h"

namespace neardup::signal {
namespace {

using index::HashBuckets;
using index::Key128;

// u64 layout: [mask of present signatures, lo_0, hi_0, lo_1, hi_1, ...].
class IMatchSignal final : public Signal {
 public:
  explicit IMatchSignal(std::shared_ptr<const sketch::IMatcher> m)
      : matcher_(std::move(m)), buckets_(1 + matcher_->options().extra_lexicons) {}
  SignalKind kind() const override { return SignalKind::kIMatch; }
  Result<SignalSketch> Compute(const SignalInput& doc) const override {
    const auto sigs = Signatures(doc);
    SignalSketch s{{}, {0}, false};
    for (size_t i = 0; i < sigs.size(); ++i) {
      if (sigs[i]) s.u64[0] |= 1ULL << i;
      s.u64.push_back(sigs[i] ? sigs[i]->lo : 0);
      s.u64.push_back(sigs[i] ? sigs[i]->hi : 0);
    }
    s.indexable = s.u64[0] != 0;
    return s;
  }
  Status Insert(uint32_t slot, const SignalSketch& s) override {
    NEARDUP_RETURN_IF_ERROR(CheckShape(s));
    NEARDUP_RETURN_IF_ERROR(slots_.Add(slot, s));
    ForEach(s, [&](size_t i, const Key128& h) { buckets_[i].Insert(slot, h); });
    return Status::OK();
  }
  Status Remove(uint32_t slot) override {
    NEARDUP_ASSIGN_OR_RETURN(SignalSketch s, slots_.Take(slot));
    ForEach(s, [&](size_t i, const Key128& h) { buckets_[i].Remove(slot, h); });
    return Status::OK();
  }
  Status Query(const SignalSketch& s, const QueryParams&,
               std::vector<Candidate>* out) const override {
    NEARDUP_RETURN_IF_ERROR(CheckShape(s));
    std::unordered_map<uint32_t, int> equal;
    ForEach(s, [&](size_t i, const Key128& h) {
      if (const auto* b = buckets_[i].Find(h))
        for (uint32_t slot : *b) ++equal[slot];
    });
    const size_t first = out->size();
    for (const auto& [slot, n] : equal) out->push_back({slot, Estimate(n), -1});
    SortBestFirst(out, first);
    return Status::OK();
  }
  size_t MemoryBytes() const override {
    size_t n = slots_.MemoryBytes();
    for (const auto& b : buckets_) n += b.MemoryBytes();
    return n;
  }

  KeySpaceSpec key_space() const override { return {.max_keys = buckets_.size()}; }
  void Keys(const SignalInput& doc, KeySink* out) const override {
    const auto sigs = Signatures(doc);
    for (size_t i = 0; i < sigs.size(); ++i) {
      if (sigs[i]) out->Add(Mix(i, sigs[i]->lo ^ sigs[i]->hi));
    }
  }
  PairEstimate Compare(const SignalInput& a, const SignalInput& b) const override {
    const auto sa = Signatures(a), sb = Signatures(b);
    int n = 0;
    for (size_t i = 0; i < sa.size() && i < sb.size(); ++i) n += sa[i] && sb[i] && *sa[i] == *sb[i];
    return {n > 0, Estimate(n), -1};
  }

 private:
  std::vector<std::optional<sketch::Hash128>> Signatures(const SignalInput& doc) const {
    std::vector<uint64_t> terms;
    terms.reserve(doc.features.size());
    for (const auto& f : doc.features) terms.push_back(f.hash);
    return matcher_->Signatures(terms);
  }
  double Estimate(int equal) const { return static_cast<double>(equal) / buckets_.size(); }
  Status CheckShape(const SignalSketch& s) const {
    if (s.u64.size() != 1 + 2 * buckets_.size())
      return Status::InvalidArgument("imatch: bad sketch");
    return Status::OK();
  }
  template <typename F>
  void ForEach(const SignalSketch& s, F f) const {
    for (size_t i = 0; i < buckets_.size(); ++i) {
      if (s.u64[0] >> i & 1) f(i, Key128{s.u64[1 + 2 * i], s.u64[2 + 2 * i]});
    }
  }
  std::shared_ptr<const sketch::IMatcher> matcher_;
  std::vector<HashBuckets> buckets_;
  SlotSketches slots_;
};

}  // namespace

Result<std::unique_ptr<Signal>> CreateIMatchSignal(const SignalOptions& o) {
  if (!o.imatch) return Status::InvalidArgument("imatch needs a lexicon (an IDF table)");
  if (o.imatch->options().extra_lexicons > 62) {
    return Status::InvalidArgument("imatch supports at most 62 extra lexicons");
  }
  return std::unique_ptr<Signal>(new IMatchSignal(o.imatch));
}

}  // namespace neardup::signal
