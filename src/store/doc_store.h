// SPDX-License-Identifier: Apache-2.0
//
// DocStore: the durable home of documents, a RocksDB database with four
// column families, designed so that a restart rebuilds the engine exactly
// with sequential scans and no sort:
//
//   nodes   BE64(seq) -> fingerprint, arrival time, id, root id ("" = self),
//           the signals' sketches (opaque bytes, signal::SignalSet::Encode).
//           seq is the arrival order, so a scan replays cluster creation and
//           member order. Written once per document, deleted on release.
//   times   id -> time, flags (ghost). The refreshed node time, written
//           when a document is looked up or (for a root) a member joins, and
//           the ghost mark of a removed root that still has members.
//   docs    id -> seq, arrival, meta (JSON text), text (only with store_text),
//           Maps an id back to its nodes key. zstd-compressed.
//   forms   id -> the verifier's compact form of the text (verify/form.h),
//           so candidates are verified without their texts. Stores made
//           before it lack the family until opened for writing, and their
//           documents lack forms (their texts are verified instead).
//   default "format", "options", "counters": small metadata.
//
// Durability: Write(batch, sync=true) returns once the batch is in the
// write-ahead log and fsync'ed. Group commit is the caller's (one batch per
// group). A full disk is ResourceExhausted; other RocksDB failures IOError or
// Corruption. Values are little-endian; see EncodeNode() for the layout.
//
// Thread safety: all methods may be called concurrently (RocksDB is);
// Batch objects are not shared.
#ifndef NEARDUP_STORE_DOC_STORE_H_
#define NEARDUP_STORE_DOC_STORE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/status.h"
#include "store/commit_record.h"

namespace rocksdb {
class DB;
class Env;
class ColumnFamilyHandle;
class WriteBatch;
}  // namespace rocksdb

namespace neardup::store {

struct NodeRow {
  uint64_t seq = 0;
  std::string id;
  std::string root;  // empty when the document is its own root
  uint64_t fingerprint = 0;
  int64_t time = 0;        // arrival time
  std::string sketches{};  // the signals' sketches, restored without recomputing
  // The id of the document's cluster: its root, or itself.
  const std::string& cluster() const { return root.empty() ? id : root; }
};

struct TimeRow {
  std::string id;
  int64_t time = 0;
  bool ghost = false;
};

struct DocRow {
  uint64_t seq = 0;
  int64_t arrival = 0;  // arrival time, as in the node row
  std::string meta;     // compact JSON object, or empty
  std::string text;     // empty unless stored
};

class FaultInjection;  // store/fault_injection.h

struct StoreOptions {
  bool create_if_missing = true;
  // Open an existing store without writing to it: it is checked (see Open)
  // and can be read, and Write fails until OpenForWriting(). DurableEngine
  // loads and verifies a store this way, so that a damaged store is never
  // written to.
  bool read_only = false;
  // Repair only (store_check.h): open a store whose content checks fail.
  bool skip_checks = false;
  size_t block_cache_bytes = 64u << 20;
  // All column families' memtables together (a RocksDB WriteBufferManager):
  // past it, the largest is flushed.
  size_t memtable_bytes = 64u << 20;
  // Tests only: every file of the store goes through these faults.
  std::shared_ptr<FaultInjection> faults = nullptr;
  // RocksDB's warnings and errors go here (may be null: dropped). RocksDB
  // writes no LOG file of its own: on a full disk that file is the first to
  // fail, and RocksDB aborts when it logs to it again.
  std::function<void(std::string_view)> log = nullptr;
};

class DocStore {
 public:
  // A group of changes applied atomically by Write().
  class Batch {
   public:
    Batch();
    ~Batch();
    void PutNode(const NodeRow& row);
    void PutTime(const TimeRow& row);
    void PutDoc(std::string_view id, const DocRow& row);
    void PutForm(std::string_view id, std::string_view form);
    void DeleteDocument(std::string_view id, uint64_t seq);  // all its rows
    // One row only (repair).
    void DeleteNodeRow(uint64_t seq);
    void DeleteDocRow(std::string_view id);
    void DeleteTimeRow(std::string_view id);
    void DeleteFormRow(std::string_view id);
    void PutMeta(std::string_view key, std::string_view value);
    size_t count() const;
    void Clear();

   private:
    friend class DocStore;
    DocStore* store_ = nullptr;
    std::unique_ptr<rocksdb::WriteBatch> wb_;
    int64_t node_delta_ = 0;  // node rows added minus deleted
    uint64_t next_node_ = 0;  // one past the largest node seq put
  };

  // Opens the store in `dir`, or creates it when `dir` is missing or empty.
  // An existing store is first opened read-only and checked; nothing is
  // written or deleted before every check passes:
  //  - a directory with files but no CURRENT file is refused (RocksDB would
  //    start an empty store over them);
  //  - RocksDB's checks, strict: every table file the MANIFEST lists is
  //    there with its size and readable metadata, and every write-ahead log
  //    record is intact (only an incomplete last record, a write cut short
  //    by a crash and never acknowledged, is dropped);
  //  - the commit record (commit_record.h): the store recovers every
  //    acknowledged write;
  //  - unless read_only: the node count (VerifyNodeCount), by a key scan.
  // Errors: Corruption naming the damage (nothing changed); NotFound (no
  // store, !create_if_missing); FailedPrecondition (another format); IOError.
  static Result<std::unique_ptr<DocStore>> Open(const std::string& dir,
                                                const StoreOptions& options);
  ~DocStore();  // flushes memtables and closes

  // Reopens a read-only store for writing (no-op when writable). Call after
  // VerifyNodeCount, or the count is dropped and adopted at the next open.
  // Errors: those of Open.
  Status OpenForWriting();
  bool writable() const { return writable_; }

  // Compares `scanned`, the node rows a full scan found, with the count the
  // last write recorded (every write records it), and keeps it for the
  // writes to come. A store without a recorded count adopts `scanned`.
  // Errors: Corruption (rows lost: the MANIFEST lost track of table files).
  Status VerifyNodeCount(uint64_t scanned);
  // Records `count` as the node count (repair).
  Status SetNodeCount(uint64_t count);

  // Binds a batch to this store (column family handles).
  void Prepare(Batch* batch);
  // Applies a prepared batch; with `sync`, durable on return. Each write
  // also records the node count in the batch and, once applied, updates the
  // commit record. Errors: FailedPrecondition while read-only.
  //
  // After a failure (a full disk, an I/O error) the batch is not applied,
  // but its record may have reached the write-ahead log, where a reopen
  // would replay it. So the store keeps an undo batch (the prior values of
  // the batch's keys) and repairs itself before the next write: it clears
  // the error (RocksDB's Resume), or, when RocksDB cannot resume (a failed
  // log write is fatal to the instance), reopens the database once a 1 MiB
  // probe file can be written and synced; then it writes the undo batch.
  // Until the repair succeeds every Write fails with the repair's error
  // (ResourceExhausted while the disk is full) and writes nothing; reads go
  // on (Unavailable only while a reopen runs). Residual risk: if the
  // process dies before the repair, a failed batch that reached the log
  // appears after restart.
  Status Write(Batch* batch, bool sync);

  // Errors: NotFound.
  Result<DocRow> GetDoc(std::string_view id) const;
  // The verification form of a document. Errors: NotFound (none stored).
  Result<std::string> GetForm(std::string_view id) const;
  Result<NodeRow> GetNode(uint64_t seq) const;
  Result<TimeRow> GetTime(std::string_view id) const;
  Result<std::string> GetMeta(std::string_view key) const;

  // Calls `fn` for every row in key order (nodes: arrival order); stops at
  // the first error `fn` returns. Errors: Corruption on undecodable rows.
  // For recovery: must not run while a Write may repair (reopen) the store.
  Status ScanNodes(const std::function<Status(const NodeRow&)>& fn) const;
  Status ScanTimes(const std::function<Status(const TimeRow&)>& fn) const;
  Status ScanDocs(const std::function<Status(std::string_view id, const DocRow&)>& fn) const;
  // Every verification form, by id (none in a store without the family);
  // the form's bytes as stored, not parsed.
  Status ScanForms(
      const std::function<Status(std::string_view id, std::string_view form)>& fn) const;

  // One past the largest seq in the nodes family (0 when empty).
  Result<uint64_t> NextSeq() const;

  // The table files the store lives in, and RocksDB's last sequence number.
  struct TableFile {
    std::string name;  // "000012.sst"
    std::string family;
    uint64_t bytes = 0;
  };
  std::vector<TableFile> Tables() const;
  uint64_t LatestSequence() const;
  // The commit record as read at open (nullopt: none, or skip_checks).
  const std::optional<Committed>& committed() const { return committed_; }

  // Bytes of every file in the store's directory (tables, logs, MANIFEST,
  // and whatever else is there): what the store takes on disk. Approximate
  // live keys in nodes.
  uint64_t DiskBytes() const;

  // What RocksDB holds in memory: the block cache (data, index and filter
  // blocks; at most StoreOptions::block_cache_bytes) and the memtables (at
  // most about memtable_bytes). Zero while the store is being reopened.
  struct Memory {
    uint64_t block_cache = 0, memtables = 0;
  };
  Memory MemoryUsage() const;
  uint64_t EstimatedDocuments() const;

  // Flushes memtables to SST files and syncs the WAL.
  Status Flush();
  // False between a failed Write and the repair that makes the store
  // writable again (see Write).
  bool healthy() const { return !broken_; }

 private:
  // Prior values of the keys of failed batches (value absent: the key did
  // not exist), by column family index (0 default, 1 nodes, 2 times, 3 docs).
  struct Undo {
    int cf;
    std::string key;
    std::optional<std::string> value;
  };

  DocStore() = default;
  Status Create();        // a new store in an empty or missing dir_
  Status OpenExisting();  // the checks of Open
  Status OpenDb(bool read_only, bool create = false);
  Status CheckCommitted();  // the recovered store against the commit record
  Status CountNodes(uint64_t* n) const;
  // Every row of a family in key order; stops at the first error of `fn`.
  Status ScanFamily(
      rocksdb::ColumnFamilyHandle* cf, const char* what,
      const std::function<Status(std::string_view key, std::string_view value)>& fn) const;
  void CloseDb();
  Status Available() const;                            // Unavailable while db_ is closed
  void RecordUndo(const rocksdb::WriteBatch& failed);  // doc_store_repair.cc
  Status Repair();
  Status ProbeSpace() const;
  rocksdb::ColumnFamilyHandle* Handle(int cf) const;

  std::string dir_;
  StoreOptions options_;
  std::unique_ptr<rocksdb::Env> env_;  // with faults only; outlives db_
  // Shared by every use of db_; exclusive while a repair reopens it.
  mutable std::shared_mutex mu_;
  std::atomic<bool> broken_{false};
  bool writable_ = false;
  // Writes are serialized: each records the node count that results.
  std::mutex write_mu_;
  std::optional<uint64_t> node_rows_;  // unknown until verified
  uint64_t next_node_ = 0;
  std::optional<Committed> committed_;  // the record as read at open
  CommitRecord commit_record_;
  std::vector<Undo> undo_;  // writer thread only
  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::ColumnFamilyHandle* cf_default_ = nullptr;
  rocksdb::ColumnFamilyHandle* cf_nodes_ = nullptr;
  rocksdb::ColumnFamilyHandle* cf_times_ = nullptr;
  rocksdb::ColumnFamilyHandle* cf_docs_ = nullptr;
  rocksdb::ColumnFamilyHandle* cf_forms_ = nullptr;  // null: an older store, read-only
};

}  // namespace neardup::store

#endif  // NEARDUP_STORE_DOC_STORE_H_
