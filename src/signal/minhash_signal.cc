// SPDX-License-Identifier: Apache-2.0
//
// minhash: MinHash of the shingle set (Broder, SEQUENCES 1997) cut into b
// bands of r rows (LSH banding; Leskovec, Rajaraman and Ullman, "Mining of
// Massive Datasets", ch. 3.4). Documents sharing at least min_bands band
// keys are candidates; k equal bands of b estimate the similarity s from
// s^r = k/b (sketch::LshBandEstimate). The sketch is the band keys (one per
// band); the signature itself is not kept: candidates are verified on
// texts, and without a verifier any equal band decides (as text-dedup,
// datatrove and NeMo Curator do). Batch keys are the same band keys. The
// online buckets are index::CompactLshIndex (sorted compressed runs), which
// keeps 32 bits of each key; the sketch holds those.
#include <span>
#include <vector>

#include "index/compact_lsh_index.h"
#include "signal/signal_internal.h"
#include "sketch/lsh.h"
#include "sketch/minhash.h"

namespace neardup::signal {
namespace {

class MinHashSignal final : public Signal {
 public:
  MinHashSignal(sketch::MinHasher h, sketch::LshParams p, int min_bands)
      : hasher_(std::move(h)), params_(p), min_bands_(min_bands), index_(p.bands) {}
  SignalKind kind() const override { return SignalKind::kMinHash; }
  // The sketch is the band keys folded to the 32 bits the index keeps
  // (index::CompactLshIndex::Fold): 4 bytes a band in a node row.
  Result<SignalSketch> Compute(const SignalInput& doc) const override {
    SignalSketch s{{}, {}, !doc.shingles.empty()};
    thread_local std::vector<uint64_t> keys;
    BandKeys(doc, &keys);
    s.u32.resize(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) s.u32[i] = index::CompactLshIndex::Fold(keys[i]);
    return s;
  }
  Status Insert(uint32_t slot, const SignalSketch& s) override {
    return InsertUnlessSkipped(slot, s, &skipped_, &index_, IndexKeys(s));
  }
  Status Remove(uint32_t slot) override { return RemoveUnlessSkipped(slot, &skipped_, &index_); }
  bool Indexed(uint32_t slot) const override { return !skipped_.Has(slot); }
  void BeginBulkInsert(size_t expected) override { index_.BeginBulk(expected); }
  void EndBulkInsert() override { index_.EndBulk(); }
  Status Query(const SignalSketch& s, const QueryParams&,
               std::vector<Candidate>* out) const override {
    if (!s.indexable) return Status::OK();
    thread_local Hits hits;
    hits.clear();
    NEARDUP_RETURN_IF_ERROR(index_.Query(IndexKeys(s), &hits));
    Append(hits, out);
    return Status::OK();
  }
  // The memo keeps the index's hits in its runs, a word each (slot, bands).
  Status QueryRemembering(const SignalSketch& s, const QueryParams&, std::vector<Candidate>* out,
                          QueryMemo* memo) const override {
    *memo = {};
    if (!s.indexable) return Status::OK();
    thread_local Hits hits;
    thread_local index::CompactLshIndex::Memo kept;
    hits.clear();
    NEARDUP_RETURN_IF_ERROR(index_.Query(IndexKeys(s), &hits, &kept));
    memo->generation = kept.generation;
    memo->words.reserve(kept.in_runs.size());
    for (const auto& h : kept.in_runs) memo->words.push_back(uint64_t{h.slot} << 32 | h.bands);
    Append(hits, out);
    return Status::OK();
  }
  Status QueryAgain(const SignalSketch& s, const QueryParams& params, const QueryMemo& memo,
                    std::vector<Candidate>* out) const override {
    if (memo.generation == 0) return Query(s, params, out);
    if (!s.indexable) return Status::OK();
    thread_local index::CompactLshIndex::Memo kept;
    kept.generation = memo.generation;
    kept.in_runs.clear();
    for (uint64_t w : memo.words) {
      kept.in_runs.push_back({static_cast<uint32_t>(w >> 32), static_cast<uint32_t>(w)});
    }
    thread_local Hits hits;
    hits.clear();
    NEARDUP_RETURN_IF_ERROR(index_.QueryAgain(IndexKeys(s), kept, &hits));
    Append(hits, out);
    return Status::OK();
  }
  size_t MemoryBytes() const override { return index_.MemoryBytes() + skipped_.MemoryBytes(); }

  KeySpaceSpec key_space() const override {
    // LshBandKey is seeded by the band: one slot per band.
    return {.max_keys = static_cast<size_t>(params_.bands), .slots = params_.bands};
  }
  void Keys(const SignalInput& doc, KeySink* out) const override {
    if (doc.shingles.empty()) return;
    thread_local std::vector<uint32_t> sig;
    sig.resize(static_cast<size_t>(hasher_.num_perm()));
    hasher_.Sketch(doc.shingles, sig);
    for (int b = 0; b < params_.bands; ++b) {
      out->Add(sketch::SaltedBandKey(sketch::LshBandKey(sig, params_, b), doc.key_salt));
    }
  }
  PairEstimate Compare(const SignalInput& a, const SignalInput& b) const override {
    if (a.shingles.empty() || b.shingles.empty()) return {};
    std::vector<uint64_t> ka, kb;
    BandKeys(a, &ka);
    BandKeys(b, &kb);
    int equal = 0;
    for (size_t i = 0; i < ka.size(); ++i) equal += ka[i] == kb[i];
    return {equal >= min_bands_, sketch::LshBandEstimate(equal, params_), -1};
  }

 private:
  using Hits = std::vector<index::CompactLshIndex::Hit>;
  // The candidates of hits sharing at least min_bands bands.
  void Append(const Hits& hits, std::vector<Candidate>* out) const {
    for (const auto& h : hits) {
      const auto bands = static_cast<int>(h.bands);
      if (bands >= min_bands_)
        out->push_back({h.slot, sketch::LshBandEstimate(bands, params_), -1});
    }
  }
  // The keys to give the index: the folded keys widened (each folds to
  // itself), or the whole keys of a sketch stored before they were folded
  // (store format 2), which the index folds the same.
  static std::span<const uint64_t> IndexKeys(const SignalSketch& s) {
    if (s.u32.empty()) return s.u64;
    thread_local std::vector<uint64_t> wide;
    wide.assign(s.u32.begin(), s.u32.end());
    return wide;
  }
  // The salted band keys of a document.
  void BandKeys(const SignalInput& doc, std::vector<uint64_t>* out) const {
    thread_local std::vector<uint32_t> sig;
    sig.resize(static_cast<size_t>(hasher_.num_perm()));
    hasher_.Sketch(doc.shingles, sig);
    sketch::LshBandKeys(sig, params_, out);
    for (uint64_t& key : *out) key = sketch::SaltedBandKey(key, doc.key_salt);
  }

  sketch::MinHasher hasher_;
  sketch::LshParams params_;
  int min_bands_;
  index::CompactLshIndex index_;
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
  NEARDUP_ASSIGN_OR_RETURN(
      sketch::MinHasher h,
      sketch::MinHasher::Create({.num_perm = o.minhash_num_perm, .scheme = o.minhash_scheme}));
  return std::unique_ptr<Signal>(new MinHashSignal(std::move(h), p, o.minhash_min_bands));
}

}  // namespace neardup::signal
