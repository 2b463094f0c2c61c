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

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "neardup/status.h"

namespace rocksdb {
class DB;
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

struct StoreOptions {
  bool create_if_missing = true;
  size_t block_cache_bytes = 64u << 20;
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
  Status Write(Batch* batch, bool sync);

  // Errors: NotFound.
  Result<DocRow> GetDoc(std::string_view id) const;
  Result<std::string> GetMeta(std::string_view key) const;

  // Calls `fn` for every row in key order (nodes: arrival order); stops at
  // the first error `fn` returns. Errors: Corruption on undecodable rows.
  Status ScanNodes(const std::function<Status(const NodeRow&)>& fn) const;
  Status ScanTimes(const std::function<Status(const TimeRow&)>& fn) const;

  // One past the largest seq in the nodes family (0 when empty).
  Result<uint64_t> NextSeq() const;

  // Approximate bytes on disk (SST + WAL live files) and live keys in nodes.
  uint64_t DiskBytes() const;
  uint64_t EstimatedDocuments() const;

  // Flushes memtables to SST files and syncs the WAL.
  Status Flush();
  // Clears a background error (e.g. after a full disk was freed).
  Status Resume();

 private:
  DocStore() = default;
  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::ColumnFamilyHandle* cf_default_ = nullptr;
  rocksdb::ColumnFamilyHandle* cf_nodes_ = nullptr;
  rocksdb::ColumnFamilyHandle* cf_times_ = nullptr;
  rocksdb::ColumnFamilyHandle* cf_docs_ = nullptr;
};

}  // namespace neardup::store

#endif  // NEARDUP_STORE_DOC_STORE_H_
