// SPDX-License-Identifier: Apache-2.0
//
// Signals over shingle sets: MinHash with LSH banding, super-shingles, SpotSig.
// Their sketches come from sketch/, their indexes from index/.
#include <cmath>

#include "base/status_macros.h"
#include "index/lsh_index.h"
#include "index/spotsig_index.h"
#include "index/supershingle_index.h"
#include "signal/signal_internal.h"
#include "sketch/minhash.h"
#include "sketch/spotsig.h"
#include "sketch/supershingle.h"

namespace neardup::signal {
namespace {

// The sketch is the band keys (u64, one per band); the signature itself is
// not kept: candidates are verified on texts, and without a verifier any
// equal band decides (as text-dedup, datatrove and NeMo Curator do).
class MinHashSignal final : public Signal {
 public:
  MinHashSignal(sketch::MinHasher h, sketch::LshParams p, int min_bands)
      : hasher_(std::move(h)), params_(p), min_bands_(min_bands), index_(p.bands) {}
  Algorithm algorithm() const override { return Algorithm::kMinHash; }
  Result<SignalSketch> Compute(const SignalInput& doc) const override {
    thread_local std::vector<uint32_t> sig;
    sig.resize(static_cast<size_t>(hasher_.num_perm()));
    hasher_.Sketch(doc.shingles, sig);
    SignalSketch s{{}, {}, !doc.shingles.empty()};
    sketch::LshBandKeys(sig, params_, &s.u64);
    for (uint64_t& key : s.u64) key = sketch::SaltedBandKey(key, doc.key_salt);
    return s;
  }
  Status Insert(uint32_t slot, const SignalSketch& s) override {
    NEARDUP_RETURN_IF_ERROR(skipped_.Add(slot, s.indexable));
    return s.indexable ? index_.Insert(slot, s.u64) : Status::OK();
  }
  Status Remove(uint32_t slot) override {
    return skipped_.Take(slot) ? Status::OK() : index_.Remove(slot);
  }
  Status Query(const SignalSketch& s, const QueryParams&,
               std::vector<Candidate>* out) const override {
    if (!s.indexable) return Status::OK();
    thread_local std::vector<index::LshIndex::Hit> hits;
    hits.clear();
    NEARDUP_RETURN_IF_ERROR(index_.Query(s.u64, &hits));
    for (const auto& h : hits) {
      if (static_cast<int>(h.bands) < min_bands_) continue;
      // k of b bands equal estimates s^r = k/b.
      const double est = std::pow(static_cast<double>(h.bands) / params_.bands, 1.0 / params_.rows);
      out->push_back({h.slot, est, -1});
    }
    return Status::OK();
  }
  size_t MemoryBytes() const override { return index_.MemoryBytes(); }

 private:
  sketch::MinHasher hasher_;
  sketch::LshParams params_;
  int min_bands_;
  index::LshIndex index_;
  Skipped skipped_;
};

class SuperShingleSignal final : public Signal {
 public:
  explicit SuperShingleSignal(sketch::SuperShingler ss)
      : ss_(std::move(ss)), index_(ss_.options().groups, ss_.options().min_equal) {}
  Algorithm algorithm() const override { return Algorithm::kSuperShingle; }
  Result<SignalSketch> Compute(const SignalInput& doc) const override {
    return SignalSketch{{}, ss_.Sketch(doc.shingles), !doc.shingles.empty()};
  }
  Status Insert(uint32_t slot, const SignalSketch& s) override {
    NEARDUP_RETURN_IF_ERROR(skipped_.Add(slot, s.indexable));
    return s.indexable ? index_.Insert(slot, s.u64) : Status::OK();
  }
  Status Remove(uint32_t slot) override {
    return skipped_.Take(slot) ? Status::OK() : index_.Remove(slot);
  }
  Status Query(const SignalSketch& s, const QueryParams&,
               std::vector<Candidate>* out) const override {
    if (!s.indexable) return Status::OK();
    NEARDUP_ASSIGN_OR_RETURN(auto cands, index_.Query(s.u64));
    const int groups = ss_.options().groups;
    for (const auto& c : cands) {
      out->push_back(
          {static_cast<uint32_t>(c.id), static_cast<double>(c.equal) / groups, groups - c.equal});
    }
    return Status::OK();
  }
  size_t MemoryBytes() const override { return index_.size() * 6 * 2 * 48; }

 private:
  sketch::SuperShingler ss_;
  index::SuperShingleIndex index_;
  Skipped skipped_;
};

class SpotSigSignal final : public Signal {
 public:
  SpotSigSignal(sketch::SpotSigExtractor ex, index::SpotSigIndex index)
      : ex_(std::move(ex)), index_(std::move(index)) {}
  Algorithm algorithm() const override { return Algorithm::kSpotSig; }
  Result<SignalSketch> Compute(const SignalInput& doc) const override {
    std::vector<uint64_t> sigs = ex_.Extract(doc.normalized);
    const bool indexable = !sigs.empty();
    return SignalSketch{{}, std::move(sigs), indexable};
  }
  Status Insert(uint32_t slot, const SignalSketch& s) override {
    NEARDUP_RETURN_IF_ERROR(skipped_.Add(slot, s.indexable));
    return s.indexable ? index_.Insert(slot, s.u64) : Status::OK();
  }
  Status Remove(uint32_t slot) override {
    return skipped_.Take(slot) ? Status::OK() : index_.Remove(slot);
  }
  Status Query(const SignalSketch& s, const QueryParams&,
               std::vector<Candidate>* out) const override {
    for (const auto& m : index_.Query(s.u64)) {
      out->push_back({static_cast<uint32_t>(m.id), m.jaccard, -1});
    }
    return Status::OK();
  }
  size_t MemoryBytes() const override { return index_.size() * 256; }

 private:
  sketch::SpotSigExtractor ex_;
  index::SpotSigIndex index_;
  Skipped skipped_;
};

}  // namespace

Result<std::unique_ptr<Signal>> CreateMinHashSignal(const SignalOptions& o) {
  const sketch::LshParams p = o.minhash_lsh;
  if (p.bands < 1 || p.rows < 1 || p.bands * p.rows > o.minhash_num_perm) {
    return Status::InvalidArgument("minhash needs bands x rows <= permutations, got " +
                                   std::to_string(p.bands) + " x " + std::to_string(p.rows) +
                                   " for " + std::to_string(o.minhash_num_perm));
  }
  NEARDUP_ASSIGN_OR_RETURN(sketch::MinHasher h,
                           sketch::MinHasher::Create({.num_perm = o.minhash_num_perm}));
  return std::unique_ptr<Signal>(new MinHashSignal(std::move(h), p, o.minhash_min_bands));
}

Result<std::unique_ptr<Signal>> CreateSuperShingleSignal(const SignalOptions& o) {
  NEARDUP_ASSIGN_OR_RETURN(sketch::SuperShingler ss,
                           sketch::SuperShingler::Create({.min_equal = o.supershingle_min_equal}));
  return std::unique_ptr<Signal>(new SuperShingleSignal(std::move(ss)));
}

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
