// SPDX-License-Identifier: Apache-2.0
//
// neardup::DurableEngine: an Engine whose documents live in a RocksDB store
// (src/store/doc_store.h), with group commit, restart recovery and
// time-based expiry. This is what `neardup serve` runs.
//
// Writes. Every change (add, remove, expiry step, time refresh) goes through
// one writer thread, in arrival order. The writer takes up to
// `max_group` queued documents, applies them to the in-memory engine one by
// one (so of two identical documents exactly one starts the cluster), puts
// all their records into one RocksDB WriteBatch, writes it with sync (WAL +
// fsync) and only then acknowledges every write of the group. Sketching
// happens in the caller's thread, before queueing. Readers see a document
// from the moment the writer applies it, a few milliseconds before it is
// acknowledged; if the commit fails the group's adds are rolled back and
// every caller gets the error (a full disk is ResourceExhausted).
//
// Recovery. Open() rebuilds the signals' indexes and the forest from the
// store by two sequential scans (nodes in arrival order with their stored
// sketches, then refreshed times and ghost roots): cluster ids, member order,
// tie-breaks and times come back exactly, without re-sketching any text.
//
// Texts. When the pipeline verifies candidates (the default), every text is
// stored and the verifier reads candidates' texts from the store (its block
// cache), so memory does not grow with text size. The store records the
// pipeline's identity (PipelineIdentity) and refuses to open under another.
//
// Expiry. A node's time is its arrival, raised when a member joins its
// cluster (for the root) and when it is looked up (Get, Similar, with a
// granularity of `touch_granularity_ms`). A background thread removes whole
// trees whose root time is older than now - ttl, in steps of at most
// `expire_trees_per_step` trees; Expire() runs the same steps by hand.
//
// Thread safety: every method may be called from any thread.
#ifndef NEARDUP_DURABLE_ENGINE_H_
#define NEARDUP_DURABLE_ENGINE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "neardup/engine.h"
#include "neardup/options.h"
#include "neardup/status.h"

namespace neardup {
class DurableEngine;
struct DurableOptions;
namespace engine {
struct DurableImpl;   // src/engine/durable_impl.h
class DurableAccess;  // src/engine/durable_access.h (the library's own code)
}  // namespace engine

struct DurableOptions {
  std::string dir;  // the store; created when missing
  EngineOptions engine;
  int64_t ttl_ms = 48LL * 3600 * 1000;  // 0 keeps documents forever; negative is an error
  bool store_text = false;   // keep the text in the store (forced on when the pipeline verifies)
  bool sync = true;          // fsync each group commit (off only for tests and bulk loads)
  size_t max_group = 1024;   // documents per group commit
  size_t max_queue = 65536;  // queued documents beyond which writes are Unavailable
  int64_t expire_interval_ms = 1000;
  size_t expire_trees_per_step = 1000;
  size_t expire_documents_per_step = 10000;
  int64_t touch_granularity_ms = 1000;
  bool background_expiry = true;
};

// A document as the service receives it.
struct IncomingDocument {
  std::string id;
  std::string text;
  int64_t time = 0;  // ms since the epoch; 0 = now
  std::string meta;  // compact JSON object text, or empty
};

enum class OnConflict {
  kError,           // an existing id is AlreadyExists
  kReturnExisting,  // an existing id returns its current record, changing nothing
};

struct IngestResult {
  AddResult add;
  bool created = true;  // false: the id existed (kReturnExisting)
};

// The stored record of a live document.
struct DocumentRecord {
  std::string id;
  std::string cluster;
  uint64_t fingerprint = 0;
  int64_t arrival = 0;  // when it arrived
  int64_t time = 0;     // arrival raised by look-ups (the expiry clock)
  uint32_t cluster_size = 0;
  std::string meta;                 // JSON object text, or empty
  std::optional<std::string> text;  // with store_text
};

struct SimilarDocument {
  Match match;
  std::string meta;
  int64_t arrival = 0;              // when it arrived
  std::optional<std::string> text;  // with store_text
};

struct ExpireReport {
  uint64_t trees = 0;
  uint64_t documents = 0;
};

struct DurableStats {
  EngineStats engine;
  uint64_t commits = 0;         // group commits written
  uint64_t committed_docs = 0;  // documents acknowledged through them
  uint64_t commit_errors = 0;
  uint64_t expired_trees = 0;
  uint64_t expired_documents = 0;
  uint64_t queue_depth = 0;  // documents waiting for the writer
  uint64_t disk_bytes = 0;
  uint64_t store_cache_bytes = 0;     // RocksDB's block cache in use (bounded, 64 MiB)
  uint64_t store_memtable_bytes = 0;  // RocksDB's memtables (bounded, about 64 MiB)
  uint64_t restore_ms = 0;            // time Open() took to rebuild memory
  uint64_t restored_documents = 0;
  int64_t ttl_ms = 0;
};

// What a full check of a store found (`neardup store check`).
struct StoreCheck {
  std::vector<std::string> damage;  // one line each; empty: the store is sound
  std::vector<std::string> notes;   // facts that are not damage
  uint64_t documents = 0;           // live documents
  uint64_t files = 0;
  uint64_t bytes = 0;
  bool ok() const { return damage.empty(); }
};

// Reads the whole store in `dir` and changes nothing: RocksDB's strict
// checks, every block of every table file against its checksum, every row,
// the rows against each other, and the record of the last acknowledged
// write. Open() makes the cheaper of these checks (all but the checksums of
// blocks it does not read) and refuses a damaged store with Corruption.
// Errors: FailedPrecondition (the store is open for writing: a running
// service), NotFound (no store in dir), IOError.
Result<StoreCheck> CheckStore(const std::string& dir);

struct StoreRepair {
  StoreCheck before;
  std::vector<std::string> lost;  // what the repair gives up, one line each
  uint64_t documents = 0;         // live documents after the repair
  bool applied = false;
  std::string kept;  // with apply: where the damaged store was moved
};

// Repairs a damaged store on a copy beside it and reports what the repair
// gives up; with `apply`, moves the damaged store to DIR.damaged-<time>
// (kept) and puts the repaired copy in its place. A sound store is left
// alone. Never changes the store in place. Errors: FailedPrecondition (the
// store is open for writing), NotFound, IOError.
Result<StoreRepair> RepairStore(const std::string& dir, bool apply);

class DurableEngine {
 public:
  // Opens the store in options.dir and rebuilds the engine from it. The
  // store is loaded read-only and checked first (CheckStore), and a damaged
  // store is refused as it is, nothing written or deleted.
  // Errors: engine option errors, InvalidArgument for a negative ttl_ms;
  // FailedPrecondition when the store was written with options that give
  // other fingerprints; Corruption naming the damage; IOError;
  // ResourceExhausted when memory or threads run out.
  static Result<std::unique_ptr<DurableEngine>> Open(const DurableOptions& options);
  ~DurableEngine();  // Close()
  DurableEngine(const DurableEngine&) = delete;
  DurableEngine& operator=(const DurableEngine&) = delete;

  // Adds durably; returns once committed. Errors: those of Engine::Add,
  // ResourceExhausted (disk full), IOError, Unavailable (queue full, closed).
  Result<IngestResult> Add(const IncomingDocument& doc, OnConflict on_conflict);
  // Adds in order as one unit of the queue; one result per document. The
  // documents are prepared (normalized, sketched, their candidates verified)
  // on up to options.engine.threads threads, the caller's among them, before
  // the writer applies them in order.
  std::vector<Result<IngestResult>> AddBatch(std::span<const IncomingDocument> docs,
                                             OnConflict on_conflict);

  // Removes durably. Errors: NotFound, store errors.
  Status Remove(const std::string& id);

  // Removes every tree whose root time is < before, in bounded steps.
  Result<ExpireReport> Expire(int64_t before);

  // The record of a live document; refreshes its time. Errors: NotFound.
  Result<DocumentRecord> Get(const std::string& id);
  // Other members of its cluster with their meta; refreshes its time.
  Result<std::vector<SimilarDocument>> Similar(const std::string& id, size_t limit);
  // The record of a live document without refreshing its time (for list
  // and overview pages): one store read. Errors: NotFound.
  Result<DocumentRecord> Peek(const std::string& id) const;
  // Meta of a live or ghost document (empty if none). Errors: NotFound.
  Result<std::string> Meta(const std::string& id) const;

  // Reads with the engine's contract (include/neardup/engine.h); they do not
  // refresh times.
  Result<QueryResult> Query(std::string_view text, const QueryOptions& q = {}) const;
  Result<ClusterInfo> ClusterOf(const std::string& id, size_t limit) const;
  Result<ClusterInfo> GetCluster(const std::string& cluster_id, size_t limit) const;
  std::vector<ClusterSummary> ListClusters(const ListOptions& page) const;
  Result<Explanation> Explain(std::string_view a, std::string_view b) const;
  Status FoldCharacters(std::string_view text, std::string* out) const;

  DurableStats Stats() const;
  const DurableOptions& options() const { return options_; }

  // Stops background expiry, drains queued writes, flushes the store.
  // Later writes are Unavailable. Idempotent.
  Status Close();

 private:
  friend class engine::DurableAccess;
  DurableEngine() = default;
  DurableOptions options_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<engine::DurableImpl> impl_;
};

}  // namespace neardup

#endif  // NEARDUP_DURABLE_ENGINE_H_
