// SPDX-License-Identifier: Apache-2.0
//
// Signal registry and the hash-equality signals (exact, I-Match) plus SimHash
// over its Hamming index. The shingle-set signals (MinHash-LSH,
// super-shingles, SpotSig) are in set_signals.cc.
#include "signal/signal.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "base/status_macros.h"
#include "index/hamming_index.h"
#include "index/hash_buckets.h"
#include "resources/tables.h"
#include "signal/signal_internal.h"
#include "sketch/exact_hash.h"
#include "sketch/simhash.h"

namespace neardup::signal {
namespace {

using index::HashBuckets;
using index::Key128;

constexpr std::pair<Algorithm, std::string_view> kNames[] = {
    {Algorithm::kExact, "exact"},     {Algorithm::kSimHash, "simhash"},
    {Algorithm::kMinHash, "minhash"}, {Algorithm::kSuperShingle, "supershingle"},
    {Algorithm::kIMatch, "imatch"},   {Algorithm::kSpotSig, "spotsig"}};

class ExactSignal final : public Signal {
 public:
  Algorithm algorithm() const override { return Algorithm::kExact; }
  Result<SignalSketch> Compute(const SignalInput& doc) const override {
    const sketch::Hash128 h = sketch::ExactHash(doc.normalized);
    return SignalSketch{{}, {h.lo, h.hi}, true};
  }
  Status Insert(uint32_t slot, const SignalSketch& s) override {
    if (s.u64.size() != 2) return Status::InvalidArgument("exact: bad sketch");
    NEARDUP_RETURN_IF_ERROR(slots_.Add(slot, s));
    buckets_.Insert(slot, {s.u64[0], s.u64[1]});
    return Status::OK();
  }
  Status Remove(uint32_t slot) override {
    NEARDUP_ASSIGN_OR_RETURN(SignalSketch s, slots_.Take(slot));
    buckets_.Remove(slot, {s.u64[0], s.u64[1]});
    return Status::OK();
  }
  Status Query(const SignalSketch& s, const QueryParams&,
               std::vector<Candidate>* out) const override {
    if (s.u64.size() != 2) return Status::InvalidArgument("exact: bad sketch");
    if (const auto* b = buckets_.Find({s.u64[0], s.u64[1]})) {
      for (uint32_t slot : *b) out->push_back({slot, 1.0, 0});
    }
    return Status::OK();
  }
  size_t MemoryBytes() const override { return slots_.MemoryBytes() + buckets_.MemoryBytes(); }

 private:
  SlotSketches slots_;
  HashBuckets buckets_;
};

// Over its own exact Hamming index (the fast path: microsecond lookups).
class SimHashSignal final : public Signal {
 public:
  SimHashSignal(int k, std::unique_ptr<index::HammingIndex> index)
      : k_(k), index_(std::move(index)) {}
  Algorithm algorithm() const override { return Algorithm::kSimHash; }
  Result<SignalSketch> Compute(const SignalInput& doc) const override {
    return SignalSketch{{}, {sketch::SimHash(doc.features)}, true};
  }
  Status Insert(uint32_t slot, const SignalSketch& s) override {
    if (s.u64.size() != 1) return Status::InvalidArgument("simhash: bad sketch");
    return index_->Insert(slot, s.u64[0]);
  }
  Status Remove(uint32_t slot) override { return index_->Remove(slot); }
  Status Query(const SignalSketch& s, const QueryParams& params,
               std::vector<Candidate>* out) const override {
    if (s.u64.size() != 1) return Status::InvalidArgument("simhash: bad sketch");
    const int k = params.max_distance < 0 ? k_ : params.max_distance;
    thread_local std::vector<index::HammingHit> hits;
    hits.clear();
    NEARDUP_RETURN_IF_ERROR(index_->Search(s.u64[0], k, &hits));
    std::sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) {
      return a.distance != b.distance ? a.distance < b.distance : a.doc < b.doc;
    });
    for (const auto& h : hits) {
      out->push_back({h.doc, 1.0 - h.distance / 64.0, static_cast<int>(h.distance)});
    }
    return Status::OK();
  }
  size_t MemoryBytes() const override { return index_->MemoryBytes(); }

 private:
  int k_;
  std::unique_ptr<index::HammingIndex> index_;
};

// u64 layout: [mask of present signatures, lo_0, hi_0, lo_1, hi_1, ...].
class IMatchSignal final : public Signal {
 public:
  explicit IMatchSignal(std::shared_ptr<const sketch::IMatcher> m)
      : matcher_(std::move(m)), buckets_(1 + matcher_->options().extra_lexicons) {}
  Algorithm algorithm() const override { return Algorithm::kIMatch; }
  Result<SignalSketch> Compute(const SignalInput& doc) const override {
    std::vector<uint64_t> terms;
    terms.reserve(doc.features.size());
    for (const auto& f : doc.features) terms.push_back(f.hash);
    const auto sigs = matcher_->Signatures(terms);
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
    if (s.u64.size() != 1 + 2 * buckets_.size())
      return Status::InvalidArgument("imatch: bad sketch");
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
    if (s.u64.size() != 1 + 2 * buckets_.size())
      return Status::InvalidArgument("imatch: bad sketch");
    std::unordered_map<uint32_t, int> equal;
    ForEach(s, [&](size_t i, const Key128& h) {
      if (const auto* b = buckets_[i].Find(h))
        for (uint32_t slot : *b) ++equal[slot];
    });
    const size_t first = out->size();
    for (const auto& [slot, n] : equal) {
      out->push_back({slot, static_cast<double>(n) / buckets_.size(), -1});
    }
    SortBestFirst(out, first);
    return Status::OK();
  }
  size_t MemoryBytes() const override {
    size_t n = slots_.MemoryBytes();
    for (const auto& b : buckets_) n += b.MemoryBytes();
    return n;
  }

 private:
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

Status SlotSketches::Add(uint32_t slot, const SignalSketch& s) {
  if (!sketches_.try_emplace(slot, s).second) {
    return Status::AlreadyExists("slot " + std::to_string(slot));
  }
  return Status::OK();
}

Result<SignalSketch> SlotSketches::Take(uint32_t slot) {
  auto it = sketches_.find(slot);
  if (it == sketches_.end()) return Status::NotFound("slot " + std::to_string(slot));
  SignalSketch s = std::move(it->second);
  sketches_.erase(it);
  return s;
}

size_t SlotSketches::MemoryBytes() const {
  size_t n = sketches_.size() * (sizeof(SignalSketch) + 40);
  for (const auto& [slot, s] : sketches_) n += 4 * s.u32.capacity() + 8 * s.u64.capacity();
  return n;
}

void SortBestFirst(std::vector<Candidate>* out, size_t first) {
  std::sort(out->begin() + static_cast<ptrdiff_t>(first), out->end(),
            [](const Candidate& a, const Candidate& b) {
              return a.similarity != b.similarity ? a.similarity > b.similarity : a.slot < b.slot;
            });
}

std::string_view AlgorithmName(Algorithm a) {
  for (const auto& [alg, name] : kNames)
    if (alg == a) return name;
  return "?";
}

Result<std::unique_ptr<Signal>> CreateSignal(Algorithm algorithm, const SignalOptions& o) {
  switch (algorithm) {
    case Algorithm::kExact:
      return std::unique_ptr<Signal>(new ExactSignal());
    case Algorithm::kSimHash: {
      if (o.simhash_max_distance < 0 || o.simhash_max_distance > o.simhash_index_max_distance) {
        return Status::InvalidArgument("simhash k must be in [0, index k]");
      }
      NEARDUP_ASSIGN_OR_RETURN(
          auto index, index::HammingIndex::Create({.max_distance = o.simhash_index_max_distance}));
      return std::unique_ptr<Signal>(new SimHashSignal(o.simhash_max_distance, std::move(index)));
    }
    case Algorithm::kIMatch:
      if (!o.imatch) return Status::InvalidArgument("imatch needs a lexicon (an IDF table)");
      if (o.imatch->options().extra_lexicons > 62) {
        return Status::InvalidArgument("imatch supports at most 62 extra lexicons");
      }
      return std::unique_ptr<Signal>(new IMatchSignal(o.imatch));
    case Algorithm::kMinHash:
      return CreateMinHashSignal(o);
    case Algorithm::kSuperShingle:
      return CreateSuperShingleSignal(o);
    case Algorithm::kSpotSig:
      return CreateSpotSigSignal(o);
  }
  return Status::InvalidArgument("unknown algorithm");
}

Result<std::shared_ptr<const sketch::IMatcher>> LoadIMatchLexicon(
    const std::string& idf_path, const sketch::IMatchOptions& options) {
  std::vector<std::pair<uint64_t, double>> idf;
  NEARDUP_RETURN_IF_ERROR(
      resources::ForEachIdfEntry(idf_path, [&](std::string_view term, double v) {
        idf.emplace_back(features::HashFeature(term), v);
        return Status::OK();
      }));
  NEARDUP_ASSIGN_OR_RETURN(sketch::IMatcher m, sketch::IMatcher::FromIdf(std::move(idf), options));
  return std::shared_ptr<const sketch::IMatcher>(std::make_shared<sketch::IMatcher>(std::move(m)));
}

}  // namespace neardup::signal
