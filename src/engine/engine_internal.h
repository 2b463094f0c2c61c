// SPDX-License-Identifier: Apache-2.0
//
// The engine's second API tier (as leveldb keeps db/db_impl.h apart from
// include/leveldb/db.h): the hooks a durable layer needs to mirror every
// change into a store and rebuild the engine from it. Only DurableEngine and
// tests use it; users see include/neardup/engine.h.
//
// Thread safety: as Engine (every call takes the engine's lock as needed).
#ifndef NEARDUP_ENGINE_ENGINE_INTERNAL_H_
#define NEARDUP_ENGINE_ENGINE_INTERNAL_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/id_table.h"
#include "neardup/engine.h"
#include "pipeline/pipeline.h"
#include "signal/signal_set.h"

namespace neardup {

// A document's place in the forest, as a store persists and restores it.
struct NodeRecord {
  std::string id;
  std::string cluster;  // the root's id; equal to id for a root
  uint64_t fingerprint = 0;
  int64_t time = 0;    // node time: arrival, raised by joins and look-ups
  bool ghost = false;  // a removed root kept because members remain
};

// What a removal or an expiry changed, so that a store can mirror it.
struct RemovalChanges {
  std::vector<std::string> released;  // ids gone entirely (documents and ghost roots)
  std::vector<std::string> ghosted;   // roots that became ghosts
  uint64_t documents = 0;             // live documents removed
  uint64_t trees = 0;                 // whole clusters removed (expiry)
};

namespace engine {

// A document prepared outside the engine's lock: what the pipeline made of
// it and every signal's sketch.
struct PreparedDocument {
  pipeline::Processed processed;
  signal::SignalSet::Sketches sketches;
  // verify::Narrow(processed.shingles, narrow_width, kHigh), made by MakeForm;
  // empty until then.
  std::vector<uint64_t> narrow;
  int narrow_width = 32;
  // The compact verification form an in-memory engine keeps beside the
  // text (Engine::Impl::PrepareForm); empty when it keeps none.
  std::string form;
  // PreVerify's verdicts on the candidates, valid while no slot has been
  // released since (`epoch`, the engine's count of released slots).
  signal::SignalSet::Verdicts verdicts;
  std::optional<uint64_t> verdicts_epoch;
  // PreVerify's index answers, which the writer brings up to date
  // (SignalSet::Candidates' `again`) under the same condition.
  signal::SignalSet::QueryMemos memos;
  // The shingles the boilerplate guard marked (Impl::MarkBoilerplate) when
  // the candidates were verified: PreVerify's, then the writer's. They hold
  // while the guard's counts are at the same epoch (BoilerplateCounts::
  // epoch()), which PreVerify keeps.
  std::vector<uint64_t> boilerplate;
  std::optional<uint64_t> boilerplate_epoch;
};

// Reads the raw text of a stored document by id (the durable engine's
// store). Errors: NotFound, IOError.
using TextLookup = std::function<Status(std::string_view id, std::string* text)>;
// Reads the verification form of a stored document by id (MakeForm).
// Errors: NotFound (none: a document stored before forms), IOError.
using FormLookup = std::function<Status(std::string_view id, std::string* form)>;

class EngineInternal {
 public:
  // The boilerplate guard's counts as bytes (empty: the guard is off), and
  // back; false for bytes of another kind or size of table (kept as is),
  // true with the guard off (nothing to load).
  static std::string SaveBoilerplate(const Engine& e);
  static bool LoadBoilerplate(Engine& e, std::string_view bytes);
  // Pure: the pipeline's output and the sketches. Errors: as Engine::Add.
  static Status Prepare(const Engine& e, std::string_view text, PreparedDocument* out);
  // Verifies the candidates `p` has now, under the reader lock, so that
  // AddPrepared (under the writer lock) verifies only those added since:
  // the verification moves off the single writer to the callers' threads.
  // AddPrepared decides as without it. Errors: as Query (p is unchanged).
  static Status PreVerify(const Engine& e, PreparedDocument* p);
  // The sketches as bytes for a store, and back.
  static std::string EncodeSketches(const Engine& e, const PreparedDocument& p);

  // Add() with a prepared document. Same errors. A copy's sketches of the
  // signals that do not index copies are dropped in *p
  // (SignalSet::DropCopyKeys): encode them after, for the store.
  static Result<AddResult> AddPrepared(Engine& e, const Document& doc, PreparedDocument* p);

  // Makes the verifier read stored texts through `lookup` instead of keeping
  // them in memory, and stored verification forms through `forms` (may be
  // null) where a document has one. Call before the first Add or Restore.
  static void UseTextLookup(Engine& e, TextLookup lookup, FormLookup forms = nullptr);
  // The compact verification form of a prepared document for a store
  // (verify/form.h); empty when the engine has no verifier. Keeps the
  // narrowed shingles in p->narrow for the verifications that follow.
  static std::string MakeForm(const Engine& e, PreparedDocument* p);

  // The forest record of a live document or a ghost root. Errors: NotFound.
  static Result<NodeRecord> Record(const Engine& e, std::string_view id);

  // Rebuilds state: call with every live document and ghost root (ghost
  // false) in original arrival order with its stored sketches, then
  // MarkGhost() for each ghost root, then RestoreCounters(). Times are
  // arrival times; raise them afterwards with Touch(). A member's root must
  // have been restored before it. Errors: AlreadyExists, NotFound (unknown
  // root), InvalidArgument, Corruption (sketches of another shape).
  static Status Restore(Engine& e, const NodeRecord& record, std::string_view sketches);
  // The same with the sketches already decoded by DecodeSketches(). They
  // are borrowed: *sketches is as it was on return, its memory kept for
  // the caller's next row.
  static Status Restore(Engine& e, const NodeRecord& record, signal::SignalSet::Sketches* sketches);
  // Decodes stored sketches into *out (SignalSet::DecodeInto, reusing its
  // memory). Takes no lock and touches no state, so a reader thread may
  // decode while Restore() runs. Errors: Corruption.
  static Status DecodeSketches(const Engine& e, std::string_view sketches,
                               signal::SignalSet::Sketches* out);
  // A restore whose reader thread binds the ids (RestoreNodes) while the
  // calling thread indexes the rows bound before. LendIds moves the
  // engine's id table (empty, sized by BeginRestore) into *ids when the
  // engine holds nothing and keeps no cluster orders (BeginRestore paused
  // them), and returns false, changing nothing, otherwise. While it is
  // lent, call only RestoreBound() on the engine, then ReturnIds(), which
  // unbinds slots [restored, bound) (rows bound but never restored) and
  // gives the table back.
  static bool LendIds(Engine& e, IdTable* ids);
  static void ReturnIds(Engine& e, IdTable* ids, uint64_t restored, uint64_t bound);
  // A row the lent table bound: `slot` is the engine's next slot (the
  // number of rows restored before it), `root` the slot of its root,
  // restored before it and still a root, or kNoSlot for a root.
  struct BoundNode {
    uint32_t slot;
    uint32_t root;
    uint64_t fingerprint;
    int64_t time;
    signal::SignalSet::Sketches* sketches;  // borrowed as by Restore()
  };
  // Restore() of bound rows, in order, under one lock. Cannot fail.
  static void RestoreBound(Engine& e, std::span<const BoundNode> rows);
  // Around a run of Restore() calls: the indexes build at the end, at once
  // (SignalSet::BeginBulkInsert). Call EndRestore before anything else. The
  // cluster orders (list pages) stay paused until ShrinkToFit builds them:
  // call it before the engine serves. `expected`, a hint (0: none), sizes
  // the per-document arrays and tables for that many documents up front.
  static void BeginRestore(Engine& e, size_t expected = 0);
  static void EndRestore(Engine& e);
  static Status MarkGhost(Engine& e, std::string_view id);  // Remove() that does not count
  static void RestoreCounters(Engine& e, uint64_t added, uint64_t duplicates, uint64_t removed);
  // The engine's counters alone (added, duplicates, removed), without the
  // memory figures Engine::Stats() walks the indexes and the cluster orders
  // for: O(1), where Stats() is O(clusters). The durable writer reads them
  // around every group it commits.
  static EngineStats Counters(const Engine& e);
  // Returns unused capacity to the allocator and builds the cluster orders a
  // restore paused. O(documents + clusters log clusters).
  static void ShrinkToFit(Engine& e);

  // Raises the time of `id` and of its root to at least `time` (the expiry
  // rule: a root is never older than its members). Errors: NotFound.
  static Status Touch(Engine& e, std::string_view id, int64_t time);

  // Remove() that reports which records changed.
  static Status Erase(Engine& e, std::string_view id, RemovalChanges* changes);

  // Removes whole trees whose root time is < `before`, oldest first, at most
  // `max_trees` trees and (after the first tree) about `max_documents`
  // documents: bounded work under the writer lock. Returns trees removed.
  static size_t Expire(Engine& e, int64_t before, size_t max_trees, size_t max_documents,
                       RemovalChanges* changes);
};

}  // namespace engine
}  // namespace neardup

#endif  // NEARDUP_ENGINE_ENGINE_INTERNAL_H_
