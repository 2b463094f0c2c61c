// SPDX-License-Identifier: Apache-2.0
//
// Engine::Impl, shared by the files that implement Engine (engine.cc and the
// persistence and expiry parts). Not a public header.
//
// Locking: `mu` guards every mutable member. Writers hold it exclusively,
// readers shared. Methods here assume the caller holds it as needed.
#ifndef NEARDUP_ENGINE_ENGINE_IMPL_H_
#define NEARDUP_ENGINE_ENGINE_IMPL_H_

#include <algorithm>
#include <memory>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cluster/forest.h"
#include "engine/id_table.h"
#include "engine/pipeline.h"
#include "index/hamming_index.h"
#include "neardup/engine.h"
#include "signal/signal_set.h"
#include "sketch/simhash.h"

namespace neardup {
namespace engine {

int64_t NowMs();  // wall clock, ms since the epoch

inline Match MakeMatch(std::string id, int distance) {
  return Match{std::move(id), distance, 1.0 - distance / 64.0, "simhash", std::nullopt};
}

// A document prepared outside the lock for an engine with a SignalSet: its
// normalized text (for verification), every signal's sketch and the SimHash.
struct Prepared {
  uint64_t fp = 0;
  std::string normalized;
  signal::SignalSet::Sketches sketches;
  signal::SignalInput input() const { return {normalized, {}}; }
};

// Builds the SignalSet of `options` (null for SimHash alone without a
// verifier, the default) over the engine's Hamming index, and the position
// of simhash in it (-1 when not selected). Errors: InvalidArgument for an
// unknown algorithm or a bad verifier spec; IOError for missing data.
Status BuildSignals(const EngineOptions& options, const index::HammingIndex* index, int k,
                    std::unique_ptr<signal::SignalSet>* signals, int* simhash_pos);

}  // namespace engine

using cluster::kNoSlot;
using cluster::Slot;
using engine::MakeMatch;
using engine::NowMs;
using engine::Prepared;

struct Engine::Impl {
  EngineOptions options;
  std::unique_ptr<engine::Pipeline> pipeline;
  int k = 3;

  mutable std::shared_mutex mu;  // guards everything below
  std::unique_ptr<index::HammingIndex> index;
  // Null by default (SimHash alone, unverified: the index above is the only
  // signal). Otherwise every selected signal and the verifier; its simhash,
  // if any, is a view of `index` (declared after it, so destroyed first).
  std::unique_ptr<signal::SignalSet> signals;
  int simhash_pos = -1;
  cluster::Forest forest;
  engine::IdTable ids;  // live and ghost documents, by slot
  Slot next_slot = 0;   // slots below it have been handed out
  std::vector<Slot> free_slots;
  EngineStats counters;

  Slot Lookup(std::string_view id) const { return ids.Find(id); }
  std::string IdOf(Slot s) const { return std::string(ids.Get(s)); }
  Slot LiveSlot(std::string_view id) const {
    Slot s = Lookup(id);
    return s != kNoSlot && forest.IsLive(s) ? s : kNoSlot;
  }
  uint64_t FingerprintOf(Slot s) const { return index->Get(s).value(); }

  Slot AllocateSlot() {
    if (!free_slots.empty()) {
      Slot s = free_slots.back();
      free_slots.pop_back();
      return s;
    }
    NEARDUP_CHECK(next_slot < kNoSlot - 1);
    return next_slot++;
  }

  // Searches the index and turns hits into matches, nearest first.
  Status Near(uint64_t fp, int dist, std::vector<index::HammingHit>* hits,
              std::vector<Match>* matches) const {
    NEARDUP_RETURN_IF_ERROR(index->Search(fp, dist, hits));
    std::sort(hits->begin(), hits->end(), [&](const auto& a, const auto& b) {
      if (a.distance != b.distance) return a.distance < b.distance;
      return ids.Get(a.doc) < ids.Get(b.doc);
    });
    const size_t n = std::min(hits->size(), options.max_matches);
    for (size_t i = 0; i < n; ++i)
      matches->push_back(MakeMatch(IdOf((*hits)[i].doc), (*hits)[i].distance));
    return Status::OK();
  }

  // Pure, outside the lock; only with `signals`. Errors: those of Fingerprint.
  Result<Prepared> Prepare(std::string_view text) const {
    thread_local std::vector<features::Feature> feats;
    Prepared p;
    NEARDUP_RETURN_IF_ERROR(pipeline->Features(text, &p.normalized, &feats));
    NEARDUP_ASSIGN_OR_RETURN(p.sketches, signals->Compute({p.normalized, feats}));
    p.fp = simhash_pos >= 0 ? p.sketches[simhash_pos].u64[0] : sketch::SimHash(feats);
    return p;
  }

  // The live documents near a new one: every slot (for the forest) and the
  // matches, best first, at most max_matches. Without `signals`, the Hamming
  // index within `dist`; with them, the SignalSet's verified candidates of
  // `p` (whose simhash sketch carries its own k).
  Status Candidates(uint64_t fp, const Prepared* p, int dist, std::vector<Slot>* near,
                    std::vector<Match>* matches) const {
    if (!signals) {
      std::vector<index::HammingHit> hits;
      NEARDUP_RETURN_IF_ERROR(Near(fp, dist, &hits, matches));
      near->reserve(hits.size());
      for (const auto& h : hits) near->push_back(h.doc);
      return Status::OK();
    }
    std::vector<signal::Evidence> found;
    NEARDUP_RETURN_IF_ERROR(signals->Candidates(p->input(), p->sketches, &found));
    near->reserve(found.size());
    for (const auto& e : found) {
      near->push_back(e.slot);
      if (matches->size() < options.max_matches) {
        matches->push_back(
            Match{IdOf(e.slot), e.distance, e.similarity, std::string(e.signal), e.verified});
      }
    }
    return Status::OK();
  }

  // `p` is required when the engine has signals.
  Result<AddResult> AddLocked(const Document& doc, uint64_t fp, const Prepared* p = nullptr) {
    if (signals && p == nullptr) {
      return Status::FailedPrecondition(
          "adding a fingerprint alone needs an engine with SimHash only and no verifier");
    }
    if (Lookup(doc.id) != kNoSlot) {
      return Status::AlreadyExists("document '" + doc.id + "' already exists");
    }
    AddResult r;
    r.id = doc.id;
    r.fingerprint = fp;
    std::vector<Slot> near;
    NEARDUP_RETURN_IF_ERROR(Candidates(fp, p, k, &near, &r.matches));
    const Slot root = forest.ChooseCluster(near);
    const Slot slot = AllocateSlot();
    NEARDUP_CHECK(index->Insert(slot, fp).ok());
    if (signals) NEARDUP_CHECK(signals->Insert(slot, p->input(), p->sketches).ok());
    const int64_t time = doc.time != 0 ? doc.time : NowMs();
    if (root == kNoSlot) {
      forest.AddRoot(slot, fp, time);
    } else {
      forest.AddMember(slot, root, time);
      r.duplicate = true;
      ++counters.duplicates;
    }
    ids.Insert(slot, doc.id);
    const Slot cluster_root = forest.RootOf(slot);
    r.cluster = IdOf(cluster_root);
    r.cluster_size = forest.Size(cluster_root);
    ++counters.added;
    return r;
  }

  void RemoveFromIndexes(Slot s) {
    NEARDUP_CHECK(index->Remove(s).ok());
    if (signals) NEARDUP_CHECK(signals->Remove(s).ok());
  }

  // Removes live `s` from index and forest and records what changed
  // (used by the persistence and expiry files; counters are the caller's).
  void EraseLocked(Slot s, RemovalChanges* changes) {
    RemoveFromIndexes(s);
    const Slot root = forest.RootOf(s);
    std::vector<Slot> released;
    forest.Remove(s, &released);
    bool root_released = false;
    for (Slot r : released) {
      root_released |= (r == root);
      changes->released.push_back(IdOf(r));
      ids.Erase(r);
      free_slots.push_back(r);
    }
    if (s == root && !root_released) changes->ghosted.push_back(IdOf(root));
    ++changes->documents;
  }

  ClusterInfo Describe(Slot root, size_t limit) const {
    ClusterInfo c;
    c.id = IdOf(root);
    c.size = forest.Size(root);
    c.root_removed = !forest.IsLive(root);
    std::vector<Slot> members;
    forest.Members(root, &members, limit);
    for (Slot s : members) c.members.push_back(IdOf(s));
    return c;
  }
};

}  // namespace neardup

#endif  // NEARDUP_ENGINE_ENGINE_IMPL_H_
