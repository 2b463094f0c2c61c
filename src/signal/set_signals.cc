// SPDX-License-Identifier: Apache-2.0
//
// Signals over shingle sets: MinHash with LSH, super-shingles, SpotSig.
#include <unordered_set>

#include "features/char_ngram.h"
#include "signal/signal_internal.h"
#include "sketch/lsh.h"
#include "sketch/minhash.h"
#include "sketch/spotsig.h"
#include "sketch/supershingle.h"

namespace neardup::signal {
namespace {

// Shingles: the signal's own char n-grams, or the engine's features.
class Shingler {
 public:
  static Result<Shingler> Create(int ngram) {
    Shingler s;
    if (ngram > 0) {
      NEARDUP_ASSIGN_OR_RETURN(s.extractor_,
                               features::CharNgramExtractor::Create({.ngram = ngram}));
    }
    return s;
  }
  Status Shingles(const SignalInput& doc, std::vector<uint64_t>* out) const {
    out->clear();
    if (!extractor_) {
      for (const auto& f : doc.features) out->push_back(f.hash);
      return Status::OK();
    }
    std::vector<features::Feature> f;
    NEARDUP_RETURN_IF_ERROR(extractor_->Extract(doc.normalized, &f));
    for (const auto& x : f) out->push_back(x.hash);
    return Status::OK();
  }

 private:
  std::shared_ptr<features::CharNgramExtractor> extractor_;
};

// Tracks slots whose sketch was not indexable, so Remove() knows to skip them.
class Skipped {
 public:
  Status Add(uint32_t slot, bool indexable) {
    if (!indexable && !slots_.insert(slot).second) return Status::AlreadyExists("slot");
    return Status::OK();
  }
  bool Take(uint32_t slot) { return slots_.erase(slot) > 0; }

 private:
  std::unordered_set<uint32_t> slots_;
};

class MinHashSignal final : public Signal {
 public:
  MinHashSignal(Shingler sh, sketch::MinHasher h, sketch::LshIndex index, double threshold)
      : shingler_(std::move(sh)),
        hasher_(std::move(h)),
        index_(std::move(index)),
        threshold_(threshold) {}
  Algorithm algorithm() const override { return Algorithm::kMinHash; }
  Result<SignalSketch> Compute(const SignalInput& doc) const override {
    std::vector<uint64_t> shingles;
    NEARDUP_RETURN_IF_ERROR(shingler_.Shingles(doc, &shingles));
    return SignalSketch{hasher_.Sketch(shingles), {}, !shingles.empty()};
  }
  Status Insert(uint32_t slot, const SignalSketch& s) override {
    NEARDUP_RETURN_IF_ERROR(skipped_.Add(slot, s.indexable));
    return s.indexable ? index_.Insert(slot, s.u32) : Status::OK();
  }
  Status Remove(uint32_t slot) override {
    return skipped_.Take(slot) ? Status::OK() : index_.Remove(slot);
  }
  Status Query(const SignalSketch& s, std::vector<Candidate>* out) const override {
    if (!s.indexable) return Status::OK();
    NEARDUP_ASSIGN_OR_RETURN(auto cands, index_.Query(s.u32));
    for (const auto& c : cands) {
      if (c.estimated_jaccard >= threshold_) {
        out->push_back({static_cast<uint32_t>(c.id), c.estimated_jaccard, -1});
      }
    }
    return Status::OK();
  }

 private:
  Shingler shingler_;
  sketch::MinHasher hasher_;
  sketch::LshIndex index_;
  double threshold_;
  Skipped skipped_;
};

class SuperShingleSignal final : public Signal {
 public:
  SuperShingleSignal(Shingler sh, sketch::SuperShingler ss)
      : shingler_(std::move(sh)),
        ss_(std::move(ss)),
        index_(ss_.options().groups, ss_.options().min_equal) {}
  Algorithm algorithm() const override { return Algorithm::kSuperShingle; }
  Result<SignalSketch> Compute(const SignalInput& doc) const override {
    std::vector<uint64_t> shingles;
    NEARDUP_RETURN_IF_ERROR(shingler_.Shingles(doc, &shingles));
    return SignalSketch{{}, ss_.Sketch(shingles), !shingles.empty()};
  }
  Status Insert(uint32_t slot, const SignalSketch& s) override {
    NEARDUP_RETURN_IF_ERROR(skipped_.Add(slot, s.indexable));
    return s.indexable ? index_.Insert(slot, s.u64) : Status::OK();
  }
  Status Remove(uint32_t slot) override {
    return skipped_.Take(slot) ? Status::OK() : index_.Remove(slot);
  }
  Status Query(const SignalSketch& s, std::vector<Candidate>* out) const override {
    if (!s.indexable) return Status::OK();
    NEARDUP_ASSIGN_OR_RETURN(auto cands, index_.Query(s.u64));
    const int groups = ss_.options().groups;
    for (const auto& c : cands) {
      out->push_back(
          {static_cast<uint32_t>(c.id), static_cast<double>(c.equal) / groups, groups - c.equal});
    }
    return Status::OK();
  }

 private:
  Shingler shingler_;
  sketch::SuperShingler ss_;
  sketch::SuperShingleIndex index_;
  Skipped skipped_;
};

class SpotSigSignal final : public Signal {
 public:
  SpotSigSignal(sketch::SpotSigExtractor ex, sketch::SpotSigIndex index)
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
  Status Query(const SignalSketch& s, std::vector<Candidate>* out) const override {
    for (const auto& m : index_.Query(s.u64)) {
      out->push_back({static_cast<uint32_t>(m.id), m.jaccard, -1});
    }
    return Status::OK();
  }

 private:
  sketch::SpotSigExtractor ex_;
  sketch::SpotSigIndex index_;
  Skipped skipped_;
};

}  // namespace

Result<std::unique_ptr<Signal>> CreateMinHashSignal(const SignalOptions& o) {
  NEARDUP_ASSIGN_OR_RETURN(Shingler sh, Shingler::Create(o.minhash_ngram));
  NEARDUP_ASSIGN_OR_RETURN(sketch::MinHasher h,
                           sketch::MinHasher::Create({.num_perm = o.minhash_num_perm}));
  NEARDUP_ASSIGN_OR_RETURN(sketch::LshParams p,
                           sketch::OptimalLshParams(o.minhash_threshold, o.minhash_num_perm));
  NEARDUP_ASSIGN_OR_RETURN(sketch::LshIndex index, sketch::LshIndex::Create(p, o.minhash_num_perm));
  return std::unique_ptr<Signal>(
      new MinHashSignal(std::move(sh), std::move(h), std::move(index), o.minhash_threshold));
}

Result<std::unique_ptr<Signal>> CreateSuperShingleSignal(const SignalOptions& o) {
  NEARDUP_ASSIGN_OR_RETURN(Shingler sh, Shingler::Create(o.minhash_ngram));
  NEARDUP_ASSIGN_OR_RETURN(sketch::SuperShingler ss,
                           sketch::SuperShingler::Create({.min_equal = o.supershingle_min_equal}));
  return std::unique_ptr<Signal>(new SuperShingleSignal(std::move(sh), std::move(ss)));
}

Result<std::unique_ptr<Signal>> CreateSpotSigSignal(const SignalOptions& o) {
  sketch::SpotSigOptions so = sketch::EnglishSpotSigOptions();
  if (!o.spotsig_stop_words.empty()) {
    NEARDUP_ASSIGN_OR_RETURN(so, sketch::ChineseSpotSigOptions(o.spotsig_stop_words));
  }
  NEARDUP_ASSIGN_OR_RETURN(sketch::SpotSigExtractor ex, sketch::SpotSigExtractor::Create(so));
  NEARDUP_ASSIGN_OR_RETURN(sketch::SpotSigIndex index,
                           sketch::SpotSigIndex::Create(o.spotsig_threshold));
  return std::unique_ptr<Signal>(new SpotSigSignal(std::move(ex), std::move(index)));
}

}  // namespace neardup::signal
