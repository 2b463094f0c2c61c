// SPDX-License-Identifier: Apache-2.0
// The engine's second tier (src/engine/engine_internal.h): prepared adds,
// forest records, restore, time refresh, removal with change reports and
// time-based expiry of whole trees; and the cluster list page.
#include <algorithm>
#include <mutex>
#include <shared_mutex>
#include <utility>

#include "base/headroom.h"
#include "engine/engine_impl.h"
#include "verify/form.h"

namespace neardup {
namespace engine {

std::string EngineInternal::SaveBoilerplate(const Engine& e) {
  const Engine::Impl& m = *e.impl_;
  base::ReaderLock lock(m.mu);
  return m.boilerplate ? m.boilerplate->Serialize() : std::string();
}

bool EngineInternal::LoadBoilerplate(Engine& e, std::string_view bytes) {
  Engine::Impl& m = *e.impl_;
  base::WriterLock lock(m.mu);
  return !m.boilerplate || m.boilerplate->Deserialize(bytes);
}

Status EngineInternal::Prepare(const Engine& e, std::string_view text, PreparedDocument* out) {
  return e.impl_->Prepare(text, out);
}

Status EngineInternal::PreVerify(const Engine& e, PreparedDocument* p) {
  const Engine::Impl& m = *e.impl_;
  if (m.signals->verifier() == nullptr) return Status::OK();
  base::ReaderLock lock(m.mu);
  signal::SignalSet::Verdicts verdicts;
  std::vector<signal::Evidence> found;
  m.MarkBoilerplate(p->processed, &p->boilerplate);
  if (m.boilerplate) p->boilerplate_epoch = m.boilerplate->epoch();
  NEARDUP_RETURN_IF_ERROR(m.signals->Candidates(m.InputOf(*p), p->sketches, m.PerCluster({}),
                                                m.text_source(), &found, &verdicts, &p->memos));
  p->verdicts = std::move(verdicts);
  p->verdicts_epoch = m.released_slots;
  return Status::OK();
}

std::string EngineInternal::EncodeSketches(const Engine&, const PreparedDocument& p) {
  return signal::SignalSet::Encode(p.sketches);
}

Result<AddResult> EngineInternal::AddPrepared(Engine& e, const Document& doc, PreparedDocument* p) {
  if (doc.id.empty()) return Status::InvalidArgument("document id must not be empty");
  base::WriterLock lock(e.impl_->mu);
  return e.impl_->AddLocked(doc, p);
}

void EngineInternal::UseTextLookup(Engine& e, TextLookup lookup, FormLookup forms) {
  Engine::Impl& m = *e.impl_;
  base::WriterLock lock(m.mu);
  m.external_texts = std::make_unique<LookupTextSource>(&m.ids, m.pipeline.get(), std::move(lookup),
                                                        std::move(forms));
  m.texts_external = true;
}

std::string EngineInternal::MakeForm(const Engine& e, PreparedDocument* p) {
  return e.impl_->MakeForm(p);
}

Result<NodeRecord> EngineInternal::Record(const Engine& e, std::string_view id) {
  const Engine::Impl& m = *e.impl_;
  base::ReaderLock lock(m.mu);
  const Slot s = m.Lookup(id);
  if (s == kNoSlot) return Status::NotFound("no document '" + std::string(id) + "'");
  const bool ghost = !m.forest.IsLive(s);
  return NodeRecord{std::string(id), m.IdOf(m.forest.RootOf(s)), m.fingerprints[s],
                    m.forest.TimeOf(s), ghost};
}

Status EngineInternal::Restore(Engine& e, const NodeRecord& r, std::string_view sketch_bytes) {
  signal::SignalSet::Sketches sketches;
  NEARDUP_RETURN_IF_ERROR(DecodeSketches(e, sketch_bytes, &sketches));
  return Restore(e, r, &sketches);
}

Status EngineInternal::DecodeSketches(const Engine& e, std::string_view sketches,
                                      signal::SignalSet::Sketches* out) {
  return e.impl_->signals->DecodeInto(sketches, out);
}

Status EngineInternal::Restore(Engine& e, const NodeRecord& r,
                               signal::SignalSet::Sketches* sketches) {
  if (r.id.empty()) return Status::InvalidArgument("restored id must not be empty");
  Engine::Impl& m = *e.impl_;
  base::WriterLock lock(m.mu);
  Slot root = kNoSlot;
  if (r.cluster != r.id) {
    root = m.Lookup(r.cluster);
    if (root == kNoSlot || m.forest.RootOf(root) != root) {
      return Status::NotFound("root '" + r.cluster + "' of '" + r.id + "' is not restored");
    }
  }
  const Slot slot = m.AllocateSlot();
  // One probe finds an id restored twice and binds a new one; first: the
  // forest's orders name their roots.
  if (!m.ids.TryInsert(slot, r.id)) {
    m.free_slots.push_back(slot);
    return Status::AlreadyExists("restored document '" + r.id + "' already exists");
  }
  m.FileRestored(slot, root, r.fingerprint, r.time, sketches);
  return Status::OK();
}

bool EngineInternal::LendIds(Engine& e, IdTable* ids) {
  Engine::Impl& m = *e.impl_;
  base::WriterLock lock(m.mu);
  if (m.next_slot != 0 || !m.free_slots.empty() || m.ids.size() != 0 ||
      m.forest.by_size() != nullptr) {
    return false;  // not empty, or its orders would read names meanwhile
  }
  std::swap(m.ids, *ids);
  return true;
}

void EngineInternal::ReturnIds(Engine& e, IdTable* ids, uint64_t restored, uint64_t bound) {
  Engine::Impl& m = *e.impl_;
  base::WriterLock lock(m.mu);
  std::swap(m.ids, *ids);  // first: back even if an erase below throws
  for (uint64_t s = restored; s < bound; ++s) m.ids.Erase(static_cast<Slot>(s));
}

namespace {
// RestoreBound's prefetch distances, in rows: the forest's three dependent
// lines and the exact index's two are asked for this many rows before the
// row that reads them, so that a restore's misses overlap.
constexpr size_t kAhead[3] = {12, 8, 4};
}  // namespace

void EngineInternal::RestoreBound(Engine& e, std::span<const BoundNode> rows) {
  Engine::Impl& m = *e.impl_;
  base::WriterLock lock(m.mu);
  auto ahead = [&](size_t i, int stage) REQUIRES(m.mu) {
    if (i >= rows.size()) return;
    if (rows[i].root != kNoSlot) m.forest.Prefetch(rows[i].root, stage);
    if (stage < 2) m.signals->PrefetchInsert(*rows[i].sketches, stage);
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    for (int stage = 0; stage < 3; ++stage) ahead(i + kAhead[stage], stage);
    const BoundNode& r = rows[i];
    NEARDUP_CHECK(m.AllocateSlot() == r.slot);  // rows bound in order, none refused
    m.FileRestored(r.slot, r.root, r.fingerprint, r.time, r.sketches);
  }
}

void EngineInternal::BeginRestore(Engine& e, size_t expected) {
  Engine::Impl& m = *e.impl_;
  base::WriterLock lock(m.mu);
  m.signals->BeginBulkInsert(expected);
  m.forest.Reserve(expected);
  m.ids.Reserve(expected);
  m.fingerprints.reserve(base::WithHeadroom(expected));
  m.forest.PauseOrders();  // ShrinkToFit, at the end of the restore, builds them
}

void EngineInternal::EndRestore(Engine& e) {
  base::WriterLock lock(e.impl_->mu);
  e.impl_->signals->EndBulkInsert();
}

Status EngineInternal::MarkGhost(Engine& e, std::string_view id) {
  base::WriterLock lock(e.impl_->mu);
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
  base::WriterLock lock(e.impl_->mu);
  e.impl_->counters.added = added;
  e.impl_->counters.duplicates = duplicates;
  e.impl_->counters.removed = removed;
}

EngineStats EngineInternal::Counters(const Engine& e) {
  base::ReaderLock lock(e.impl_->mu);
  return e.impl_->counters;
}

void EngineInternal::ShrinkToFit(Engine& e) {
  base::WriterLock lock(e.impl_->mu);
  e.impl_->forest.ShrinkToFit();
  e.impl_->ids.ShrinkToFit();
  base::TrimWithHeadroom(&e.impl_->free_slots);
  base::TrimWithHeadroom(&e.impl_->fingerprints);
  e.impl_->texts.ShrinkToFit();
}

Status EngineInternal::Touch(Engine& e, std::string_view id, int64_t time) {
  base::WriterLock lock(e.impl_->mu);
  const Slot s = e.impl_->LiveSlot(id);
  if (s == kNoSlot) return Status::NotFound("no document '" + std::string(id) + "'");
  e.impl_->forest.Touch(s, time);
  return Status::OK();
}

Status EngineInternal::Erase(Engine& e, std::string_view id, RemovalChanges* changes) {
  base::WriterLock lock(e.impl_->mu);
  const Slot s = e.impl_->LiveSlot(id);
  if (s == kNoSlot) return Status::NotFound("no document '" + std::string(id) + "'");
  e.impl_->EraseLocked(s, changes);
  ++e.impl_->counters.removed;
  return Status::OK();
}

size_t EngineInternal::Expire(Engine& e, int64_t before, size_t max_trees, size_t max_documents,
                              RemovalChanges* changes) {
  Engine::Impl& impl = *e.impl_;
  base::WriterLock lock(impl.mu);
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
  std::erase_if(changes->ghosted, [&](const std::string& id)
                                      REQUIRES(impl.mu) { return impl.ids.Find(id) == kNoSlot; });
  changes->trees += trees;
  return trees;
}

}  // namespace engine

std::vector<ClusterSummary> Engine::ListClusters(const ListOptions& o) const {
  const Impl& impl = *impl_;
  base::ReaderLock lock(impl.mu);
  std::vector<ClusterSummary> out;
  if (o.limit == 0) return out;
  // The forest keeps both orders (size and root time, then root id): a page
  // is a seek and `limit` steps, O(log clusters + limit).
  const cluster::RootOrder* order =
      o.sort == ClusterSort::kSize ? impl.forest.by_size() : impl.forest.by_time();
  std::optional<std::pair<int64_t, std::string_view>> after;
  if (o.after) after.emplace(o.after->first, o.after->second);
  std::vector<Slot> first;
  order->Scan(o.descending, after, [&](int64_t, Slot r) REQUIRES_SHARED(impl.mu) {
    first.clear();
    impl.forest.Members(r, &first, 1);
    out.push_back(ClusterSummary{impl.IdOf(r), first.empty() ? "" : impl.IdOf(first[0]),
                                 impl.forest.Size(r), impl.forest.TimeOf(r)});
    return out.size() < o.limit;
  });
  return out;
}

}  // namespace neardup
