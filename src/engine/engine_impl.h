// SPDX-License-Identifier: Apache-2.0
//
// Engine::Impl, shared by the files that implement Engine (engine.cc and the
// persistence and expiry parts). Not a public header.
//
// One candidate path: every configuration is a SignalSet (SimHash is one of
// its signals) plus an optional verifier that reads stored texts through a
// TextSource: the in-memory TextStore below, or the durable engine's store.
//
// Locking: `mu` guards every mutable member. Writers hold it exclusively,
// readers shared. Methods here assume the caller holds it as needed.
#ifndef NEARDUP_ENGINE_ENGINE_IMPL_H_
#define NEARDUP_ENGINE_ENGINE_IMPL_H_

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/status_macros.h"
#include "base/thread_annotations.h"
#include "cluster/forest.h"
#include "engine/engine_internal.h"
#include "engine/id_table.h"
#include "neardup/engine.h"
#include "pipeline/pipeline.h"
#include "pipeline/signals.h"
#include "signal/signal_set.h"
#include "verify/boilerplate.h"

namespace neardup {

using cluster::kNoSlot;
using cluster::Slot;

namespace engine {

// Normalized texts by slot, for the verifier (in-memory engines), and
// their compact verification forms (verify/form.h) when the engine makes
// them, so that a candidate is verified without shingling its text again
// (the text decides a verdict the form's narrow shingles leave unsure).
// A short text's expressions (pipeline::Processed) follow it in the same
// string: `split_` holds where (kNone: none known).
class TextStore final : public signal::TextSource {
 public:
  void Put(Slot s, std::string_view text, std::optional<std::string_view> expressions,
           std::string_view form = {}) {
    if (texts_.size() <= s) {
      const size_t n = std::max<size_t>(s + 1, texts_.size() * 3 / 2);
      texts_.resize(n);
      split_.resize(n, kNone);
    }
    if (!form.empty() || s < forms_.size()) {
      if (forms_.size() <= s) forms_.resize(texts_.size());
      forms_[s].assign(form);
    }
    texts_[s].assign(text);
    split_[s] = kNone;
    if (expressions && text.size() < kNone) {
      split_[s] = static_cast<uint32_t>(text.size());
      texts_[s].append(*expressions);
    }
  }
  void Erase(Slot s) {
    if (s < texts_.size()) std::string().swap(texts_[s]), split_[s] = kNone;
    if (s < forms_.size()) std::string().swap(forms_[s]);
  }
  Status GetForm(uint32_t slot, std::string* form) const override {
    if (slot >= forms_.size() || forms_[slot].empty()) return Status::NotFound("no form");
    *form = forms_[slot];
    return Status::OK();
  }
  Status Get(uint32_t slot, std::string* normalized) const override {
    if (slot >= texts_.size()) return Status::NotFound("no text");
    *normalized = std::string_view(texts_[slot]).substr(0, split_[slot]);
    return Status::OK();
  }
  bool GetExpressions(uint32_t slot, std::string* out) const override {
    if (slot >= texts_.size() || split_[slot] == kNone) return false;
    *out = std::string_view(texts_[slot]).substr(split_[slot]);
    return true;
  }
  size_t MemoryBytes() const {
    size_t n = texts_.capacity() * sizeof(std::string) + split_.capacity() * sizeof(uint32_t) +
               forms_.capacity() * sizeof(std::string);
    for (const auto& t : texts_) n += t.capacity() > 15 ? t.capacity() + 1 : 0;
    for (const auto& f : forms_) n += f.capacity() > 15 ? f.capacity() + 1 : 0;
    return n;
  }
  void ShrinkToFit() {
    texts_.shrink_to_fit();
    split_.shrink_to_fit();
    forms_.shrink_to_fit();
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  std::vector<std::string> texts_;
  std::vector<uint32_t> split_;
  std::vector<std::string> forms_;  // by slot; empty: none (sized on the first)
};

// The texts of an external store, by id, normalized on the way in, and
// their verification forms where the store has them.
class LookupTextSource final : public signal::TextSource {
 public:
  LookupTextSource(const IdTable* ids, const pipeline::Pipeline* pipeline, TextLookup lookup,
                   FormLookup forms)
      : ids_(ids), pipeline_(pipeline), lookup_(std::move(lookup)), forms_(std::move(forms)) {}
  Status Get(uint32_t slot, std::string* normalized) const override {
    if (!ids_->Bound(slot)) return Status::NotFound("no such slot");
    thread_local std::string raw;
    known_ = false;
    NEARDUP_RETURN_IF_ERROR(lookup_(ids_->Get(slot), &raw));
    NEARDUP_RETURN_IF_ERROR(pipeline_->Normalize(raw, normalized));
    known_ = pipeline_->Expressions(raw, *normalized, &expressions_);  // with the one normalizing
    return Status::OK();
  }
  // Those of the text the last Get() on this thread read.
  bool GetExpressions(uint32_t slot, std::string* out) const override {
    (void)slot;
    if (known_) *out = expressions_;
    return known_;
  }
  Status GetForm(uint32_t slot, std::string* form) const override {
    if (!forms_ || !ids_->Bound(slot)) return Status::NotFound("no verification form");
    return forms_(ids_->Get(slot), form);
  }

 private:
  const IdTable* ids_;
  const pipeline::Pipeline* pipeline_;
  TextLookup lookup_;
  FormLookup forms_;
  static thread_local std::string expressions_;
  static thread_local bool known_;
};

}  // namespace engine

struct Engine::Impl {
  EngineOptions options;
  const Clock* clock = nullptr;
  std::unique_ptr<pipeline::Pipeline> pipeline;
  int simhash_pos = -1;      // position of simhash in the signal set, -1 if absent
  int containment_pos = -1;  // and of containment
  int k = 0;                 // SimHash k in effect

  // Guards everything below. Writers (Add, Remove, Expire, Load, ...) hold
  // it exclusively, readers (Query, Get, ListClusters, ...) shared; the
  // pipeline and signal sketches are computed outside it.
  mutable base::SharedMutex mu;
  // Set at creation, never reassigned. Its sketching (Compute, Compare) is
  // pure and needs no lock; its indexes (Insert, Remove, Candidates) are
  // used under `mu`, which the analysis cannot see through the pointer.
  std::unique_ptr<signal::SignalSet> signals;
  engine::IdTable ids GUARDED_BY(mu);  // live and ghost documents, by slot
  // Names the forest's roots by id, for its cluster orders.
  struct RootNames final : cluster::RootNames {
    explicit RootNames(const engine::IdTable* t) : table(t) {}
    std::string_view Name(Slot root) const override { return table->Get(root); }
    const engine::IdTable* table;
  } root_names{&ids};
  cluster::Forest forest GUARDED_BY(mu);
  std::vector<uint64_t> fingerprints GUARDED_BY(mu);  // by slot
  Slot next_slot GUARDED_BY(mu) = 0;                  // slots below it have been handed out
  std::vector<Slot> free_slots GUARDED_BY(mu);
  uint64_t released_slots GUARDED_BY(mu) = 0;  // ever: a slot may hold another document
  EngineStats counters GUARDED_BY(mu);
  engine::TextStore texts GUARDED_BY(mu);  // with a verifier and no external source
  // The boilerplate guard's counts (verify/boilerplate.h): documents that
  // started a cluster, by anchor. Null when the guard is off.
  std::unique_ptr<verify::BoilerplateCounts> boilerplate PT_GUARDED_BY(mu);
  std::unique_ptr<signal::TextSource> external_texts;  // set at creation
  // Whether texts come from external_texts (read by PrepareForm outside
  // the lock).
  std::atomic<bool> texts_external{false};

  bool keeps_texts() const REQUIRES_SHARED(mu) {
    return signals->verifier() != nullptr && !external_texts;
  }
  const signal::TextSource* text_source() const REQUIRES_SHARED(mu) {
    return external_texts ? external_texts.get() : &texts;
  }
  Slot Lookup(std::string_view id) const REQUIRES_SHARED(mu) { return ids.Find(id); }
  std::string IdOf(Slot s) const REQUIRES_SHARED(mu) { return std::string(ids.Get(s)); }
  Slot LiveSlot(std::string_view id) const REQUIRES_SHARED(mu) {
    Slot s = Lookup(id);
    return s != kNoSlot && forest.IsLive(s) ? s : kNoSlot;
  }
  int64_t Now() const { return clock->NowMs(); }

  Slot AllocateSlot() REQUIRES(mu);

  // Pure, outside the lock (the signal set's sketching is). Errors: those
  // of the pipeline and signals.
  Status Prepare(std::string_view text, engine::PreparedDocument* out) const;
  // The compact verification form of a prepared document (verify/form.h),
  // with its narrow shingles. No lock.
  std::string MakeForm(engine::PreparedDocument* p) const;
  // For an engine that keeps its texts and verifies shingles: p->form, which
  // Index keeps beside the text (TextStore). No lock.
  void PrepareForm(engine::PreparedDocument* p) const;
  signal::SignalInput InputOf(const engine::PreparedDocument& p) const {
    signal::SignalInput in = pipeline::SignalInputOf(p.processed);
    in.narrow = p.narrow;
    in.narrow_width = p.narrow_width;
    in.boilerplate = p.boilerplate;
    return in;
  }
  // The shingles of `p` the guard marks as boilerplate now, into *out
  // (empty when the guard is off).
  void MarkBoilerplate(const pipeline::Processed& p, std::vector<uint64_t>* out) const
      REQUIRES_SHARED(mu);

  // `q` with verification limited to options.verify_per_cluster passes per
  // cluster. Call under the shared lock (the limit reads the forest).
  signal::QueryParams PerCluster(signal::QueryParams q) const REQUIRES_SHARED(mu);

  // A verified similarity at which a new text counts as a copy of the one it
  // matched: at most a tenth of its shingles lie outside that one, so a
  // passage of it is found through that one's keys.
  static constexpr double kCopySimilarity = 0.9;

  // The verified candidates of `p`: every slot (for the forest) and the
  // matches, best first, at most max_matches. `covering` (may be null) gets
  // the slots among `near` that hold nearly all of `p`'s text: `p` lies in
  // them (Evidence::contained 'q'), is identical (exact) or verified at
  // least kCopySimilarity. A copy of those needs no passage keys of its own.
  // `gatherable` (may be null) gets the slots among `near` that do not hold
  // `p` (Evidence::contained other than 'q'), for Gather.
  // `verdicts` as for SignalSet::Candidates.
  // `again`: the signals' memos of an earlier query of p (SignalSet::Candidates).
  // `input`: InputOf(p) with the boilerplate marks of the moment.
  Status Candidates(const signal::SignalInput& input, const signal::SignalSet::Sketches& sketches,
                    const signal::QueryParams& q, std::vector<Slot>* near,
                    std::vector<Match>* matches, signal::SignalSet::Verdicts* verdicts = nullptr,
                    const signal::SignalSet::QueryMemos* again = nullptr,
                    std::vector<Slot>* covering = nullptr,
                    std::vector<Slot>* gatherable = nullptr) const REQUIRES_SHARED(mu);

  // Adds a prepared document. It joins a cluster as the forest chooses
  // (cluster::Forest::ChooseCluster), then gathers the documents alone in
  // their clusters that it is near (Gather). A document that joins a cluster
  // as a copy of a member (`covering`, above) loses the sketches of the
  // signals that do not index copies (SignalSet::DropCopyKeys) in *p, so
  // that a store keeps them as indexed.
  Result<AddResult> AddLocked(const Document& doc, engine::PreparedDocument* p) REQUIRES(mu);
  // Whether a text whose verified evidence is the slots `sorted_slots` is
  // near every live member of the cluster rooted at `root`, holding as near
  // a member without containment keys (a copy of another member, or a text
  // too short to be contained), which the text could not have been found
  // near. Clusters over kMaxHeldCluster members are held only when every
  // member is in the evidence. O(found + members log found).
  static constexpr size_t kMaxHeldCluster = 64;
  bool HoldsWholeCluster(std::span<const Slot> sorted_slots, Slot root) const REQUIRES_SHARED(mu);

  // Moves each slot of `near` that is alone in its cluster (a live root of
  // size 1, not `root`) under `root` (cluster::Forest::Adopt), appending its
  // id to *ids. `near`: the new document's evidence that it is near or that
  // it holds, not the texts it lies in: an ad page that arrives after two
  // stories that run the ad lies in both, joins one, and does not bring the
  // other with it. O(near).
  void Gather(std::span<const Slot> near, Slot root, std::vector<std::string>* ids) REQUIRES(mu);

  // Files `slot` under its sketches, text and fingerprint.
  void Index(Slot slot, const engine::PreparedDocument& p) REQUIRES(mu);
  // A restored row whose id is bound to `slot`: indexes its stored
  // sketches (borrowed: *sketches is as it was on return) and fingerprint,
  // and adds it to the forest as a root (`root` kNoSlot) or under `root`.
  void FileRestored(Slot slot, Slot root, uint64_t fingerprint, int64_t time,
                    signal::SignalSet::Sketches* sketches) REQUIRES(mu);
  // Removes live `s` from the signals, the forest and the id table, and
  // records what changed (counters are the caller's).
  void EraseLocked(Slot s, RemovalChanges* changes) REQUIRES(mu);

  ClusterInfo Describe(Slot root, size_t limit) const REQUIRES_SHARED(mu);
};

}  // namespace neardup

#endif  // NEARDUP_ENGINE_ENGINE_IMPL_H_
