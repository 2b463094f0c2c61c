// SPDX-License-Identifier: Apache-2.0
//
// exact: XXH3-128 of the normalized text; documents with equal hashes are
// candidates (and, without a verifier, duplicates). Batch: one key, the
// hash's low half.
#include <vector>

#include "index/exact_index.h"
#include "signal/signal_internal.h"
#include "sketch/exact_hash.h"

namespace neardup::signal {
namespace {

class ExactSignal final : public Signal {
 public:
  SignalKind kind() const override { return SignalKind::kExact; }
  Result<SignalSketch> Compute(const SignalInput& doc) const override {
    const sketch::Hash128 h = sketch::ExactHash(doc.normalized);
    return SignalSketch{{}, {h.lo, h.hi}, true};
  }
  Status Insert(uint32_t slot, const SignalSketch& s) override {
    if (s.u64.size() != 2) return Status::InvalidArgument("exact: bad sketch");
    if (!index_.Insert(slot, {s.u64[0], s.u64[1]})) return Status::AlreadyExists("exact: slot");
    return Status::OK();
  }
  Status Remove(uint32_t slot) override {
    if (!index_.Remove(slot)) return Status::NotFound("exact: slot");
    return Status::OK();
  }
  Status Query(const SignalSketch& s, const QueryParams&,
               std::vector<Candidate>* out) const override {
    if (s.u64.size() != 2) return Status::InvalidArgument("exact: bad sketch");
    thread_local std::vector<uint32_t> slots;
    slots.clear();
    index_.Find({s.u64[0], s.u64[1]}, &slots);
    for (uint32_t slot : slots) out->push_back({slot, 1.0, 0});
    return Status::OK();
  }
  void BeginBulkInsert(size_t expected) override { index_.Reserve(expected); }
  void PrefetchInsert(const SignalSketch& s, int stage) const override {
    if (s.u64.size() == 2) index_.Prefetch({s.u64[0], s.u64[1]}, stage);
  }
  size_t MemoryBytes() const override { return index_.MemoryBytes(); }

  KeySpaceSpec key_space() const override { return {.max_keys = 1, .slots = 1}; }
  void Keys(const SignalInput& doc, KeySink* out) const override {
    out->Add(sketch::ExactHash(doc.normalized).lo);
  }
  PairEstimate Compare(const SignalInput& a, const SignalInput& b) const override {
    if (sketch::ExactHash(a.normalized) != sketch::ExactHash(b.normalized)) return {};
    return {true, 1.0, 0};
  }

 private:
  index::ExactIndex index_;
};

}  // namespace

Result<std::unique_ptr<Signal>> CreateExactSignal(const SignalOptions&) {
  return std::unique_ptr<Signal>(new ExactSignal());
}

}  // namespace neardup::signal
