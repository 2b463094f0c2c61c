// SPDX-License-Identifier: Apache-2.0
//
// Signal registry and the hash-equality signals (exact, I-Match) plus SimHash.
// The sketch-index signals (MinHash-LSH, super-shingles, SpotSig) are in
// set_signals.cc.
#include "signal/signal.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "index/hamming_index.h"
#include "resources/tables.h"
#include "signal/signal_internal.h"
#include "sketch/exact_hash.h"
#include "sketch/simhash.h"

namespace neardup::signal {
namespace {

using sketch::Hash128;

constexpr std::pair<Algorithm, std::string_view> kNames[] = {
    {Algorithm::kExact, "exact"},     {Algorithm::kSimHash, "simhash"},
    {Algorithm::kMinHash, "minhash"}, {Algorithm::kSuperShingle, "supershingle"},
    {Algorithm::kIMatch, "imatch"},   {Algorithm::kSpotSig, "spotsig"}};

// Slots grouped by 128-bit keys, with the reverse map for removal.
class HashBuckets {
 public:
  void Insert(uint32_t slot, const Hash128& h) { buckets_[h].push_back(slot); }
  void Remove(uint32_t slot, const Hash128& h) {
    auto it = buckets_.find(h);
    if (it == buckets_.end()) return;
    std::erase(it->second, slot);
    if (it->second.empty()) buckets_.erase(it);
  }
  const std::vector<uint32_t>* Find(const Hash128& h) const {
    auto it = buckets_.find(h);
    return it == buckets_.end() ? nullptr : &it->second;
  }

 private:
  std::unordered_map<Hash128, std::vector<uint32_t>, sketch::Hash128Hasher> buckets_;
};

class ExactSignal final : public Signal {
 public:
  Algorithm algorithm() const override { return Algorithm::kExact; }
  Result<SignalSketch> Compute(const SignalInput& doc) const override {
    const Hash128 h = sketch::ExactHash(doc.normalized);
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
  Status Query(const SignalSketch& s, std::vector<Candidate>* out) const override {
    if (s.u64.size() != 2) return Status::InvalidArgument("exact: bad sketch");
    if (const auto* b = buckets_.Find({s.u64[0], s.u64[1]})) {
      for (uint32_t slot : *b) out->push_back({slot, 1.0, 0});
    }
    return Status::OK();
  }

 private:
  SlotSketches slots_;
  HashBuckets buckets_;
};

// Over an owned index, or (view) over one the caller maintains.
class SimHashSignal final : public Signal {
 public:
  SimHashSignal(int k, std::unique_ptr<index::HammingIndex> index)
      : k_(k), owned_(std::move(index)), index_(owned_.get()) {}
  SimHashSignal(int k, const index::HammingIndex* view) : k_(k), index_(view) {}
  Algorithm algorithm() const override { return Algorithm::kSimHash; }
  Result<SignalSketch> Compute(const SignalInput& doc) const override {
    return SignalSketch{{}, {sketch::SimHash(doc.features)}, true};
  }
  Status Insert(uint32_t slot, const SignalSketch& s) override {
    if (s.u64.size() != 1) return Status::InvalidArgument("simhash: bad sketch");
    return owned_ ? owned_->Insert(slot, s.u64[0]) : Status::OK();
  }
  Status Remove(uint32_t slot) override { return owned_ ? owned_->Remove(slot) : Status::OK(); }
  Status Query(const SignalSketch& s, std::vector<Candidate>* out) const override {
    if (s.u64.size() != 1) return Status::InvalidArgument("simhash: bad sketch");
    const int k = s.u32.empty() ? k_ : static_cast<int>(s.u32[0]);
    std::vector<index::HammingHit> hits;
    NEARDUP_RETURN_IF_ERROR(index_->Search(s.u64[0], k, &hits));
    std::sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) {
      return a.distance != b.distance ? a.distance < b.distance : a.doc < b.doc;
    });
    for (const auto& h : hits) {
      out->push_back({h.doc, 1.0 - h.distance / 64.0, static_cast<int>(h.distance)});
    }
    return Status::OK();
  }

 private:
  int k_;
  std::unique_ptr<index::HammingIndex> owned_;  // null for a view
  const index::HammingIndex* index_;
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
    ForEach(s, [&](size_t i, const Hash128& h) { buckets_[i].Insert(slot, h); });
    return Status::OK();
  }
  Status Remove(uint32_t slot) override {
    NEARDUP_ASSIGN_OR_RETURN(SignalSketch s, slots_.Take(slot));
    ForEach(s, [&](size_t i, const Hash128& h) { buckets_[i].Remove(slot, h); });
    return Status::OK();
  }
  Status Query(const SignalSketch& s, std::vector<Candidate>* out) const override {
    if (s.u64.size() != 1 + 2 * buckets_.size())
      return Status::InvalidArgument("imatch: bad sketch");
    std::unordered_map<uint32_t, int> equal;
    ForEach(s, [&](size_t i, const Hash128& h) {
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

 private:
  template <typename F>
  void ForEach(const SignalSketch& s, F f) const {
    for (size_t i = 0; i < buckets_.size(); ++i) {
      if (s.u64[0] >> i & 1) f(i, Hash128{s.u64[1 + 2 * i], s.u64[2 + 2 * i]});
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

Result<Algorithm> ParseAlgorithm(std::string_view name) {
  for (const auto& [alg, n] : kNames)
    if (n == name) return alg;
  return Status::InvalidArgument("unknown algorithm '" + std::string(name) +
                                 "' (simhash, minhash, supershingle, imatch, spotsig, exact)");
}

Result<std::vector<Algorithm>> ParseAlgorithms(std::string_view list) {
  std::vector<Algorithm> out;
  for (size_t start = 0; start <= list.size();) {
    size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    NEARDUP_ASSIGN_OR_RETURN(Algorithm a, ParseAlgorithm(list.substr(start, comma - start)));
    if (std::find(out.begin(), out.end(), a) != out.end()) {
      return Status::InvalidArgument("algorithm '" + std::string(AlgorithmName(a)) + "' repeated");
    }
    out.push_back(a);
    start = comma + 1;
  }
  return out;
}

Result<std::unique_ptr<Signal>> CreateSignal(Algorithm algorithm, const SignalOptions& o) {
  switch (algorithm) {
    case Algorithm::kExact:
      return std::unique_ptr<Signal>(new ExactSignal());
    case Algorithm::kSimHash: {
      NEARDUP_ASSIGN_OR_RETURN(
          auto index, index::HammingIndex::Create({.max_distance = o.simhash_max_distance}));
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

std::unique_ptr<Signal> CreateSimHashView(const index::HammingIndex* index, int k) {
  return std::unique_ptr<Signal>(new SimHashSignal(k, index));
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
