// SPDX-License-Identifier: Apache-2.0
//
// supershingle: 6 super-shingles, each the hash of a group of 14 min-hashes
// of the shingle set (Broder, Glassman, Manasse and Zweig, WWW 1997; the
// grouping of Fetterly, Manasse and Najork, WebDB 2003). Documents with at
// least min_equal equal super-shingles are candidates; the estimate is the
// share of equal ones. Batch: one key per set of min_equal positions (the
// hash of those super-shingles), so documents agreeing on min_equal
// positions share a key.
#include "index/supershingle_index.h"
#include "signal/signal_internal.h"
#include "sketch/supershingle.h"

namespace neardup::signal {
namespace {

class SuperShingleSignal final : public Signal {
 public:
  explicit SuperShingleSignal(sketch::SuperShingler ss)
      : ss_(std::move(ss)),
        index_(ss_.options().groups, ss_.options().min_equal),
        sets_(Subsets(ss_.options().groups, ss_.options().min_equal)) {}
  SignalKind kind() const override { return SignalKind::kSuperShingle; }
  Result<SignalSketch> Compute(const SignalInput& doc) const override {
    return SignalSketch{{}, ss_.Sketch(doc.shingles), !doc.shingles.empty()};
  }
  Status Insert(uint32_t slot, const SignalSketch& s) override {
    return InsertUnlessSkipped(slot, s, &skipped_, &index_);
  }
  Status Remove(uint32_t slot) override { return RemoveUnlessSkipped(slot, &skipped_, &index_); }
  Status Query(const SignalSketch& s, const QueryParams&,
               std::vector<Candidate>* out) const override {
    if (!s.indexable) return Status::OK();
    NEARDUP_ASSIGN_OR_RETURN(auto cands, index_.Query(s.u64));
    for (const auto& c : cands) {
      out->push_back({static_cast<uint32_t>(c.id), Estimate(c.equal), groups() - c.equal});
    }
    return Status::OK();
  }
  size_t MemoryBytes() const override { return index_.size() * 6 * 2 * 48; }

  KeySpaceSpec key_space() const override {
    // Each key's hash starts from its set: one slot per set.
    const auto n = static_cast<int>(sets_.size());
    return {.max_keys = sets_.size(), .slots = n};
  }
  void Keys(const SignalInput& doc, KeySink* out) const override {
    if (doc.shingles.empty()) return;
    const std::vector<uint64_t> ss = ss_.Sketch(doc.shingles);
    for (uint32_t set : sets_) {
      uint64_t h = set;
      for (size_t g = 0; g < ss.size(); ++g) {
        if (set >> g & 1) h = Mix(h, ss[g]);
      }
      out->Add(h);
    }
  }
  PairEstimate Compare(const SignalInput& a, const SignalInput& b) const override {
    if (a.shingles.empty() || b.shingles.empty()) return {};
    const int eq = sketch::CountEqualSuperShingles(ss_.Sketch(a.shingles), ss_.Sketch(b.shingles));
    return {eq >= ss_.options().min_equal, Estimate(eq), groups() - eq};
  }

 private:
  int groups() const { return ss_.options().groups; }
  double Estimate(int equal) const { return static_cast<double>(equal) / groups(); }

  sketch::SuperShingler ss_;
  index::SuperShingleIndex index_;
  std::vector<uint32_t> sets_;  // sets of min_equal positions, as bit masks
  Skipped skipped_;
};

}  // namespace

Result<std::unique_ptr<Signal>> CreateSuperShingleSignal(const SignalOptions& o) {
  NEARDUP_ASSIGN_OR_RETURN(sketch::SuperShingler ss,
                           sketch::SuperShingler::Create({.min_equal = o.supershingle_min_equal}));
  return std::unique_ptr<Signal>(new SuperShingleSignal(std::move(ss)));
}

}  // namespace neardup::signal
