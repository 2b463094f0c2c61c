// SPDX-License-Identifier: Apache-2.0
//
// simhash: SimHash-64 of the weighted features (Charikar, STOC 2002);
// candidates are documents within Hamming distance k. Online it runs over
// its own exact multi-table Hamming index (the fast path: microsecond
// lookups). Batch keys use the pigeonhole principle (Manku, Jain and Das
// Sarma, WWW 2007): cut the fingerprint into k+2 blocks; two fingerprints
// within k bits differ in at most k blocks, so they agree on at least two,
// hence share the key of some pair of blocks. The fingerprint is the
// payload, and a pair also needs distance <= k.
#include <algorithm>

#include "index/hamming_index.h"
#include "signal/signal_internal.h"
#include "sketch/simhash.h"

namespace neardup::signal {
namespace {

class SimHashSignal final : public Signal {
 public:
  SimHashSignal(int k, std::unique_ptr<index::HammingIndex> index)
      : k_(k), index_(std::move(index)) {
    const int blocks = k + 2;
    for (int b = 0; b < blocks; ++b) {
      const int lo = 64 * b / blocks, hi = 64 * (b + 1) / blocks;
      block_masks_.push_back(hi - lo == 64 ? ~0ULL : ((1ULL << (hi - lo)) - 1) << lo);
    }
    block_pairs_ = blocks <= 2 ? std::vector<uint32_t>{(1u << blocks) - 1} : Subsets(blocks, 2);
  }
  SignalKind kind() const override { return SignalKind::kSimHash; }
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
      out->push_back({h.doc, Estimate(static_cast<int>(h.distance)), static_cast<int>(h.distance)});
    }
    return Status::OK();
  }
  size_t MemoryBytes() const override { return index_->MemoryBytes(); }

  KeySpaceSpec key_space() const override {
    const auto n = static_cast<int>(block_pairs_.size());
    return {.max_keys = block_pairs_.size(), .slots = n, .max_distance = k_};
  }
  void Keys(const SignalInput& doc, KeySink* out) const override {
    const uint64_t fp = sketch::SimHash(doc.features);
    out->SetPayload(fp);
    for (uint32_t pair : block_pairs_) {
      uint64_t mask = 0;
      for (size_t b = 0; b < block_masks_.size(); ++b) {
        if (pair >> b & 1) mask |= block_masks_[b];
      }
      out->Add(Mix(pair, fp & mask));  // seeded by the pair: one slot each
    }
  }
  PairEstimate Compare(const SignalInput& a, const SignalInput& b) const override {
    const int d = __builtin_popcountll(sketch::SimHash(a.features) ^ sketch::SimHash(b.features));
    return {d <= k_, Estimate(d), d};
  }

 private:
  static double Estimate(int distance) { return 1.0 - distance / 64.0; }

  int k_;
  std::unique_ptr<index::HammingIndex> index_;
  std::vector<uint64_t> block_masks_;  // k+2 blocks of the fingerprint
  std::vector<uint32_t> block_pairs_;  // pairs of blocks, as masks over blocks
};

}  // namespace

Result<std::unique_ptr<Signal>> CreateSimHashSignal(const SignalOptions& o) {
  if (o.simhash_max_distance < 0 || o.simhash_max_distance > o.simhash_index_max_distance) {
    return Status::InvalidArgument("simhash k must be in [0, index k]");
  }
  NEARDUP_ASSIGN_OR_RETURN(
      auto index, index::HammingIndex::Create({.max_distance = o.simhash_index_max_distance}));
  return std::unique_ptr<Signal>(new SimHashSignal(o.simhash_max_distance, std::move(index)));
}

}  // namespace neardup::signal
