// SPDX-License-Identifier: Apache-2.0
// The engine's second tier (src/engine/engine_internal.h): prepared adds,
// forest records, restore, time refresh, removal with change reports and
// time-based expiry of whole trees; and the cluster list page.
#include <algorithm>
#include <mutex>
#include <shared_mutex>

#include "engine/engine_impl.h"

namespace neardup {
namespace engine {

Status EngineInternal::Prepare(const Engine& e, std::string_view text, PreparedDocument* out) {
  return e.impl_->Prepare(text, out);
}

std::string EngineInternal::EncodeSketches(const Engine&, const PreparedDocument& p) {
  return signal::SignalSet::Encode(p.sketches);
}

Result<AddResult> EngineInternal::AddPrepared(Engine& e, const Document& doc,
                                              const PreparedDocument& p) {
  if (doc.id.empty()) return Status::InvalidArgument("document id must not be empty");
  std::unique_lock lock(e.impl_->mu);
  return e.impl_->AddLocked(doc, p);
}

void EngineInternal::UseTextLookup(Engine& e, TextLookup lookup) {
  std::unique_lock lock(e.impl_->mu);
  Engine::Impl& m = *e.impl_;
  m.external_texts =
      std::make_unique<LookupTextSource>(&m.ids, m.pipeline.get(), std::move(lookup));
}

Result<NodeRecord> EngineInternal::Record(const Engine& e, std::string_view id) {
  std::shared_lock lock(e.impl_->mu);
  const Engine::Impl& m = *e.impl_;
  const Slot s = m.Lookup(id);
  if (s == kNoSlot) return Status::NotFound("no document '" + std::string(id) + "'");
  const bool ghost = !m.forest.IsLive(s);
  return NodeRecord{std::string(id), m.IdOf(m.forest.RootOf(s)), m.fingerprints[s],
                    m.forest.TimeOf(s), ghost};
}

Status EngineInternal::Restore(Engine& e, const NodeRecord& r, std::string_view sketch_bytes) {
  if (r.id.empty()) return Status::InvalidArgument("restored id must not be empty");
  std::unique_lock lock(e.impl_->mu);
  Engine::Impl& m = *e.impl_;
  if (m.Lookup(r.id) != kNoSlot) {
    return Status::AlreadyExists("restored document '" + r.id + "' already exists");
  }
  Slot root = kNoSlot;
  if (r.cluster != r.id) {
    root = m.Lookup(r.cluster);
    if (root == kNoSlot || m.forest.RootOf(root) != root) {
      return Status::NotFound("root '" + r.cluster + "' of '" + r.id + "' is not restored");
    }
  }
  PreparedDocument p;
  NEARDUP_ASSIGN_OR_RETURN(p.sketches, m.signals->Decode(sketch_bytes));
  p.processed.fingerprint = r.fingerprint;
  const Slot slot = m.AllocateSlot();
  m.Index(slot, p);
  if (root == kNoSlot) {
    m.forest.AddRoot(slot, r.fingerprint, r.time);
  } else {
    m.forest.AddMember(slot, root, r.time);
  }
  m.ids.Insert(slot, r.id);
  return Status::OK();
}

Status EngineInternal::MarkGhost(Engine& e, std::string_view id) {
  std::unique_lock lock(e.impl_->mu);
  const Slot s = e.impl_->LiveSlot(id);
  if (s == kNoSlot || e.impl_->forest.RootOf(s) != s) {
    return Status::NotFound("no live root '" + std::string(id) + "'");
  }
  RemovalChanges ignored;
  e.impl_->EraseLocked(s, &ignored);
  return Status::OK();
}

void EngineInternal::RestoreCounters(Engine& e, uint64_t added, uint64_t duplicates,
                                     uint64_t removed) {
  std::unique_lock lock(e.impl_->mu);
  e.impl_->counters.added = added;
  e.impl_->counters.duplicates = duplicates;
  e.impl_->counters.removed = removed;
}

void EngineInternal::ShrinkToFit(Engine& e) {
  std::unique_lock lock(e.impl_->mu);
  e.impl_->forest.ShrinkToFit();
  e.impl_->ids.ShrinkToFit();
  e.impl_->free_slots.shrink_to_fit();
  e.impl_->fingerprints.shrink_to_fit();
  e.impl_->texts.ShrinkToFit();
}

Status EngineInternal::Touch(Engine& e, std::string_view id, int64_t time) {
  std::unique_lock lock(e.impl_->mu);
  const Slot s = e.impl_->LiveSlot(id);
  if (s == kNoSlot) return Status::NotFound("no document '" + std::string(id) + "'");
  e.impl_->forest.Touch(s, time);
  return Status::OK();
}

Status EngineInternal::Erase(Engine& e, std::string_view id, RemovalChanges* changes) {
  std::unique_lock lock(e.impl_->mu);
  const Slot s = e.impl_->LiveSlot(id);
  if (s == kNoSlot) return Status::NotFound("no document '" + std::string(id) + "'");
  e.impl_->EraseLocked(s, changes);
  ++e.impl_->counters.removed;
  return Status::OK();
}

size_t EngineInternal::Expire(Engine& e, int64_t before, size_t max_trees, size_t max_documents,
                              RemovalChanges* changes) {
  std::unique_lock lock(e.impl_->mu);
  Engine::Impl& impl = *e.impl_;
  std::vector<Slot> roots;
  impl.forest.ExpiredRoots(before, max_trees, &roots);
  size_t trees = 0;
  const uint64_t start_docs = changes->documents;
  std::vector<Slot> members;
  for (Slot root : roots) {
    if (trees > 0 && changes->documents - start_docs >= max_documents) break;
    members.clear();
    impl.forest.Members(root, &members);
    // Every live member goes; the last removal releases the (ghost) root.
    NEARDUP_CHECK(!members.empty());  // every indexed root has a live member
    for (Slot m : members) impl.EraseLocked(m, changes);
    ++trees;
  }
  // Whole trees went: no root of an expired tree remains a ghost.
  std::erase_if(changes->ghosted,
                [&](const std::string& id) { return impl.ids.Find(id) == kNoSlot; });
  changes->trees += trees;
  return trees;
}

}  // namespace engine

std::vector<ClusterSummary> Engine::ListClusters(const ListOptions& o) const {
  const ClusterSort sort = o.sort;
  const bool descending = o.descending;
  const size_t limit = o.limit;
  const auto& after = o.after;
  std::shared_lock lock(impl_->mu);
  const Impl& impl = *impl_;
  std::vector<Slot> roots;
  impl.forest.Roots(&roots);
  using Key = std::pair<int64_t, std::string_view>;
  auto key_of = [&](Slot r) {
    const int64_t k =
        sort == ClusterSort::kSize ? int64_t{impl.forest.Size(r)} : impl.forest.TimeOf(r);
    return Key{k, impl.ids.Get(r)};
  };
  // `before(a, b)`: a comes first on the page.
  auto before = [&](const Key& a, const Key& b) {
    if (a.first != b.first) return descending ? a.first > b.first : a.first < b.first;
    return descending ? a.second > b.second : a.second < b.second;
  };
  std::vector<std::pair<Key, Slot>> page;  // a max-heap under `before`
  auto heap_less = [&](const auto& a, const auto& b) { return before(a.first, b.first); };
  for (Slot r : roots) {
    const Key k = key_of(r);
    if (after && !before(Key{after->first, after->second}, k)) continue;
    if (page.size() < limit) {
      page.emplace_back(k, r);
      std::push_heap(page.begin(), page.end(), heap_less);
    } else if (limit > 0 && before(k, page.front().first)) {
      std::pop_heap(page.begin(), page.end(), heap_less);
      page.back() = {k, r};
      std::push_heap(page.begin(), page.end(), heap_less);
    }
  }
  std::sort_heap(page.begin(), page.end(), heap_less);
  std::vector<ClusterSummary> out;
  out.reserve(page.size());
  std::vector<Slot> first;
  for (const auto& [k, r] : page) {
    first.clear();
    impl.forest.Members(r, &first, 1);
    out.push_back(ClusterSummary{impl.IdOf(r), first.empty() ? "" : impl.IdOf(first[0]),
                                 impl.forest.Size(r), impl.forest.TimeOf(r)});
  }
  return out;
}

}  // namespace neardup
