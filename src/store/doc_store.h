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
//   docs    id -> seq, arrival, meta (JSON text), text (only with store_text).
//           Maps an id back to its nodes key.
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
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/status.h"

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
  size_t block_cache_bytes = 64u << 20;
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
    void DeleteDocument(std::string_view id, uint64_t seq);  // all three rows
    void PutMeta(std::string_view key, std::string_view value);
    size_t count() const;
    void Clear();

   private:
    friend class DocStore;
    DocStore* store_ = nullptr;
    std::unique_ptr<rocksdb::WriteBatch> wb_;
  };

  // Opens or creates the store in `dir`. Errors: IOError, Corruption.
  static Result<std::unique_ptr<DocStore>> Open(const std::string& dir,
                                                const StoreOptions& options);
  ~DocStore();  // flushes memtables and closes

  // Binds a batch to this store (column family handles).
  void Prepare(Batch* batch);
  // Applies a prepared batch; with `sync`, durable on return.
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
  Result<NodeRow> GetNode(uint64_t seq) const;
  Result<TimeRow> GetTime(std::string_view id) const;
  Result<std::string> GetMeta(std::string_view key) const;

  // Calls `fn` for every row in key order (nodes: arrival order); stops at
  // the first error `fn` returns. Errors: Corruption on undecodable rows.
  // For recovery: must not run while a Write may repair (reopen) the store.
  Status ScanNodes(const std::function<Status(const NodeRow&)>& fn) const;
  Status ScanTimes(const std::function<Status(const TimeRow&)>& fn) const;

  // One past the largest seq in the nodes family (0 when empty).
  Result<uint64_t> NextSeq() const;

  // Approximate bytes on disk (SST + WAL live files) and live keys in nodes.
  uint64_t DiskBytes() const;
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
  Status OpenDb();
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
  std::vector<Undo> undo_;  // writer thread only
  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::ColumnFamilyHandle* cf_default_ = nullptr;
  rocksdb::ColumnFamilyHandle* cf_nodes_ = nullptr;
  rocksdb::ColumnFamilyHandle* cf_times_ = nullptr;
  rocksdb::ColumnFamilyHandle* cf_docs_ = nullptr;
};

}  // namespace neardup::store

#endif  // NEARDUP_STORE_DOC_STORE_H_
