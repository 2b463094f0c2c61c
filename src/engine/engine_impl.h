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
#include "engine/pipeline.h"
#include "index/hamming_index.h"
#include "neardup/engine.h"

namespace neardup {
namespace engine {

int64_t NowMs();  // wall clock, ms since the epoch

inline Match MakeMatch(std::string id, int distance) {
  return Match{std::move(id), distance, 1.0 - distance / 64.0, "simhash"};
}

}  // namespace engine

using cluster::kNoSlot;
using cluster::Slot;
using engine::MakeMatch;
using engine::NowMs;

struct Engine::Impl {
  EngineOptions options;
  std::unique_ptr<engine::Pipeline> pipeline;
  int k = 3;

  mutable std::shared_mutex mu;  // guards everything below
  std::unique_ptr<index::HammingIndex> index;
  cluster::Forest forest;
  std::unordered_map<std::string, Slot> ids;  // live and ghost documents
  std::vector<std::string> slot_ids;
  std::vector<Slot> free_slots;
  EngineStats counters;

  Slot Lookup(std::string_view id) const {
    auto it = ids.find(std::string(id));
    return it == ids.end() ? kNoSlot : it->second;
  }
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
    NEARDUP_CHECK(slot_ids.size() < kNoSlot);
    slot_ids.emplace_back();
    return static_cast<Slot>(slot_ids.size() - 1);
  }

  // Searches the index and turns hits into matches, nearest first.
  Status Near(uint64_t fp, int dist, std::vector<index::HammingHit>* hits,
              std::vector<Match>* matches) const {
    NEARDUP_RETURN_IF_ERROR(index->Search(fp, dist, hits));
    std::sort(hits->begin(), hits->end(), [&](const auto& a, const auto& b) {
      if (a.distance != b.distance) return a.distance < b.distance;
      return slot_ids[a.doc] < slot_ids[b.doc];
    });
    const size_t n = std::min(hits->size(), options.max_matches);
    for (size_t i = 0; i < n; ++i)
      matches->push_back(MakeMatch(slot_ids[(*hits)[i].doc], (*hits)[i].distance));
    return Status::OK();
  }

  Result<AddResult> AddLocked(const Document& doc, uint64_t fp) {
    if (Lookup(doc.id) != kNoSlot) {
      return Status::AlreadyExists("document '" + doc.id + "' already exists");
    }
    AddResult r;
    r.id = doc.id;
    r.fingerprint = fp;
    std::vector<index::HammingHit> hits;
    NEARDUP_RETURN_IF_ERROR(Near(fp, k, &hits, &r.matches));
    std::vector<Slot> near;
    near.reserve(hits.size());
    for (const auto& h : hits) near.push_back(h.doc);
    const Slot root = forest.ChooseCluster(near);
    const Slot slot = AllocateSlot();
    NEARDUP_CHECK(index->Insert(slot, fp).ok());
    const int64_t time = doc.time != 0 ? doc.time : NowMs();
    if (root == kNoSlot) {
      forest.AddRoot(slot, fp, time);
    } else {
      forest.AddMember(slot, root, time);
      r.duplicate = true;
      ++counters.duplicates;
    }
    slot_ids[slot] = doc.id;
    ids.emplace(doc.id, slot);
    const Slot cluster_root = forest.RootOf(slot);
    r.cluster = slot_ids[cluster_root];
    r.cluster_size = forest.Size(cluster_root);
    ++counters.added;
    return r;
  }

  // Removes live `s` from index and forest and records what changed
  // (used by the persistence and expiry files; counters are the caller's).
  void EraseLocked(Slot s, RemovalChanges* changes) {
    NEARDUP_CHECK(index->Remove(s).ok());
    const Slot root = forest.RootOf(s);
    std::vector<Slot> released;
    forest.Remove(s, &released);
    bool root_released = false;
    for (Slot r : released) {
      root_released |= (r == root);
      changes->released.push_back(slot_ids[r]);
      ids.erase(slot_ids[r]);
      slot_ids[r].clear();
      free_slots.push_back(r);
    }
    if (s == root && !root_released) changes->ghosted.push_back(slot_ids[root]);
    ++changes->documents;
  }

  ClusterInfo Describe(Slot root, size_t limit) const {
    ClusterInfo c;
    c.id = slot_ids[root];
    c.size = forest.Size(root);
    c.root_removed = !forest.IsLive(root);
    std::vector<Slot> members;
    forest.Members(root, &members, limit);
    for (Slot s : members) c.members.push_back(slot_ids[s]);
    return c;
  }
};

}  // namespace neardup

#endif  // NEARDUP_ENGINE_ENGINE_IMPL_H_
