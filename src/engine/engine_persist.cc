// SPDX-License-Identifier: Apache-2.0
// Engine methods for persistence and expiry (contract in
// include/neardup/engine.h): add with a known fingerprint, read and restore
// forest records, refresh times, removal with change reports, time-based
// expiry of whole trees, and the cluster list page.
#include <algorithm>
#include <mutex>
#include <shared_mutex>

#include "engine/engine_impl.h"

namespace neardup {
Result<AddResult> Engine::AddFingerprinted(const Document& doc, uint64_t fingerprint) {
  if (doc.id.empty()) return Status::InvalidArgument("document id must not be empty");
  std::unique_lock lock(impl_->mu);
  return impl_->AddLocked(doc, fingerprint);
}

Result<NodeRecord> Engine::Record(std::string_view id) const {
  std::shared_lock lock(impl_->mu);
  const Slot s = impl_->Lookup(id);
  if (s == kNoSlot) return Status::NotFound("no document '" + std::string(id) + "'");
  const auto& f = impl_->forest;
  const bool ghost = !f.IsLive(s);
  // A ghost root is no longer in the index; its fingerprint is not needed
  // by stores (they keep the one written on arrival).
  return NodeRecord{std::string(id), impl_->IdOf(f.RootOf(s)),
                    ghost ? 0 : impl_->FingerprintOf(s), f.TimeOf(s), ghost};
}

Status Engine::Restore(const NodeRecord& r) {
  if (r.id.empty()) return Status::InvalidArgument("restored id must not be empty");
  std::unique_lock lock(impl_->mu);
  Impl& impl = *impl_;
  if (impl.signals) {
    return Status::FailedPrecondition(
        "restoring from fingerprints needs an engine with SimHash only and no verifier");
  }
  if (impl.Lookup(r.id) != kNoSlot) {
    return Status::AlreadyExists("restored document '" + r.id + "' already exists");
  }
  Slot root = kNoSlot;
  if (r.cluster != r.id) {
    root = impl.Lookup(r.cluster);
    if (root == kNoSlot || impl.forest.RootOf(root) != root) {
      return Status::NotFound("root '" + r.cluster + "' of '" + r.id + "' is not restored");
    }
  }
  const Slot slot = impl.AllocateSlot();
  NEARDUP_CHECK(impl.index->Insert(slot, r.fingerprint).ok());
  if (root == kNoSlot) {
    impl.forest.AddRoot(slot, r.fingerprint, r.time);
  } else {
    impl.forest.AddMember(slot, root, r.time);
  }
  impl.ids.Insert(slot, r.id);
  return Status::OK();
}

Status Engine::MarkGhost(std::string_view id) {
  std::unique_lock lock(impl_->mu);
  const Slot s = impl_->LiveSlot(id);
  if (s == kNoSlot || impl_->forest.RootOf(s) != s) {
    return Status::NotFound("no live root '" + std::string(id) + "'");
  }
  RemovalChanges ignored;
  impl_->EraseLocked(s, &ignored);
  return Status::OK();
}

void Engine::RestoreCounters(uint64_t added, uint64_t duplicates, uint64_t removed) {
  std::unique_lock lock(impl_->mu);
  impl_->counters.added = added;
  impl_->counters.duplicates = duplicates;
  impl_->counters.removed = removed;
}

Status Engine::Touch(std::string_view id, int64_t time) {
  std::unique_lock lock(impl_->mu);
  const Slot s = impl_->LiveSlot(id);
  if (s == kNoSlot) return Status::NotFound("no document '" + std::string(id) + "'");
  impl_->forest.Touch(s, time);
  return Status::OK();
}

Status Engine::Erase(std::string_view id, RemovalChanges* changes) {
  std::unique_lock lock(impl_->mu);
  const Slot s = impl_->LiveSlot(id);
  if (s == kNoSlot) return Status::NotFound("no document '" + std::string(id) + "'");
  impl_->EraseLocked(s, changes);
  ++impl_->counters.removed;
  return Status::OK();
}

size_t Engine::Expire(int64_t before, size_t max_trees, size_t max_documents,
                      RemovalChanges* changes) {
  std::unique_lock lock(impl_->mu);
  Impl& impl = *impl_;
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
  std::erase_if(changes->ghosted, [&](const std::string& id) { return impl.ids.Find(id) == kNoSlot; });
  changes->trees += trees;
  return trees;
}

std::vector<ClusterSummary> Engine::ListClusters(
    ClusterSort sort, bool descending, size_t limit,
    const std::optional<std::pair<int64_t, std::string>>& after) const {
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
