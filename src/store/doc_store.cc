// SPDX-License-Identifier: Apache-2.0
// DocStore on RocksDB (layout in doc_store.h; row encodings in rows.h).
#include "store/doc_store.h"

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/options.h>
#include <rocksdb/slice.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <vector>

#include "base/status_macros.h"
#include "store/fault_injection.h"
#include "store/rocks_status.h"
#include "store/rows.h"

namespace neardup::store {

DocStore::Batch::Batch() : wb_(std::make_unique<rocksdb::WriteBatch>()) {}
DocStore::Batch::~Batch() = default;
size_t DocStore::Batch::count() const { return wb_->Count(); }
void DocStore::Batch::Clear() {
  wb_->Clear();
  node_delta_ = 0;
  next_node_ = 0;
}

// Node rows are written once (a new seq) and deleted once: the count of
// node rows changes by one with each.
void DocStore::Batch::PutNode(const NodeRow& row) {
  NEARDUP_CHECK(wb_->Put(store_->cf_nodes_, SeqKey(row.seq), EncodeNode(row)).ok());
  ++node_delta_;
  next_node_ = std::max(next_node_, row.seq + 1);
}
void DocStore::Batch::PutTime(const TimeRow& row) {
  NEARDUP_CHECK(wb_->Put(store_->cf_times_, row.id, EncodeTime(row)).ok());
}
void DocStore::Batch::PutDoc(std::string_view id, const DocRow& row) {
  NEARDUP_CHECK(
      wb_->Put(store_->cf_docs_, rocksdb::Slice(id.data(), id.size()), EncodeDoc(row)).ok());
}
void DocStore::Batch::PutForm(std::string_view id, std::string_view form) {
  NEARDUP_CHECK(wb_->Put(store_->cf_forms_, rocksdb::Slice(id.data(), id.size()),
                         rocksdb::Slice(form.data(), form.size()))
                    .ok());
}
void DocStore::Batch::DeleteDocument(std::string_view id, uint64_t seq) {
  const rocksdb::Slice k(id.data(), id.size());
  NEARDUP_CHECK(wb_->Delete(store_->cf_forms_, k).ok());
  NEARDUP_CHECK(wb_->Delete(store_->cf_nodes_, SeqKey(seq)).ok());
  --node_delta_;
  NEARDUP_CHECK(wb_->Delete(store_->cf_times_, k).ok());
  NEARDUP_CHECK(wb_->Delete(store_->cf_docs_, k).ok());
}
void DocStore::Batch::DeleteNodeRow(uint64_t seq) {
  NEARDUP_CHECK(wb_->Delete(store_->cf_nodes_, SeqKey(seq)).ok());
  --node_delta_;
}
void DocStore::Batch::DeleteDocRow(std::string_view id) {
  NEARDUP_CHECK(wb_->Delete(store_->cf_docs_, rocksdb::Slice(id.data(), id.size())).ok());
}
void DocStore::Batch::DeleteFormRow(std::string_view id) {
  NEARDUP_CHECK(wb_->Delete(store_->cf_forms_, rocksdb::Slice(id.data(), id.size())).ok());
}
void DocStore::Batch::DeleteTimeRow(std::string_view id) {
  NEARDUP_CHECK(wb_->Delete(store_->cf_times_, rocksdb::Slice(id.data(), id.size())).ok());
}
void DocStore::Batch::PutMeta(std::string_view key, std::string_view value) {
  NEARDUP_CHECK(wb_->Put(store_->cf_default_, rocksdb::Slice(key.data(), key.size()),
                         rocksdb::Slice(value.data(), value.size()))
                    .ok());
}

void DocStore::CloseDb() {
  if (!db_) return;
  for (auto* h : {cf_nodes_, cf_times_, cf_docs_, cf_forms_, cf_default_}) {
    if (h != nullptr) (void)db_->DestroyColumnFamilyHandle(h);
  }
  cf_nodes_ = cf_times_ = cf_docs_ = cf_forms_ = cf_default_ = nullptr;
  (void)db_->Close();
  db_.reset();
}

DocStore::~DocStore() {
  if (!db_) return;
  if (!broken_) (void)Flush();
  CloseDb();
  commit_record_.Close();
}

void DocStore::Prepare(Batch* batch) { batch->store_ = this; }

Status DocStore::Write(Batch* batch, bool sync) {
  std::lock_guard write_lock(write_mu_);
  if (!writable_) return Status::FailedPrecondition("store " + dir_ + " is open read-only");
  if (broken_) NEARDUP_RETURN_IF_ERROR(Repair());
  rocksdb::WriteOptions wo;
  wo.sync = sync;
  // The node count that results goes into the same batch, so the store
  // always holds the count of its own rows (checked at open).
  rocksdb::WriteBatch* wb = batch->wb_.get();
  std::optional<uint64_t> nodes;
  wb->SetSavePoint();
  if (batch->node_delta_ != 0) {
    rocksdb::Status c;
    if (node_rows_) {
      nodes = static_cast<uint64_t>(static_cast<int64_t>(*node_rows_) + batch->node_delta_);
      c = wb->Put(cf_default_, kNodeCountKey, std::to_string(*nodes));
    } else {
      c = wb->Delete(cf_default_, kNodeCountKey);  // unknown: adopted at the next open
    }
    NEARDUP_CHECK(c.ok());
  }
  Status s;
  uint64_t sequence = 0;
  {
    std::shared_lock lock(mu_);
    s = FromRocks(db_->Write(wo, wb), "writing batch");
    if (s.ok()) sequence = db_->GetLatestSequenceNumber();
  }
  if (s.ok()) {
    NEARDUP_CHECK(wb->RollbackToSavePoint().ok());
    if (nodes) node_rows_ = nodes;
    next_node_ = std::max(next_node_, batch->next_node_);
    if (Status r = commit_record_.Update({sequence, next_node_}); !r.ok() && options_.log) {
      options_.log(r.message());
    }
    return s;
  }
  // The batch may still reach the log: remember how to undo it, and try to
  // get the store writable again now (a transient fault) or at the next write.
  RecordUndo(*wb);  // with the node count
  NEARDUP_CHECK(wb->RollbackToSavePoint().ok());
  broken_ = true;
  (void)Repair();
  return s;
}

Result<DocRow> DocStore::GetDoc(std::string_view id) const {
  std::shared_lock lock(mu_);
  NEARDUP_RETURN_IF_ERROR(Available());
  std::string v;
  auto s = db_->Get(rocksdb::ReadOptions(), cf_docs_, rocksdb::Slice(id.data(), id.size()), &v);
  if (s.IsNotFound()) return Status::NotFound("no stored document '" + std::string(id) + "'");
  NEARDUP_RETURN_IF_ERROR(FromRocks(s, "reading document"));
  DocRow row;
  if (!DecodeDoc(v, &row))
    return Status::Corruption("bad document row for '" + std::string(id) + "'");
  return row;
}

Result<std::string> DocStore::GetForm(std::string_view id) const {
  std::shared_lock lock(mu_);
  NEARDUP_RETURN_IF_ERROR(Available());
  if (cf_forms_ == nullptr) return Status::NotFound("no verification forms in this store");
  std::string v;
  auto s = db_->Get(rocksdb::ReadOptions(), cf_forms_, rocksdb::Slice(id.data(), id.size()), &v);
  if (s.IsNotFound()) return Status::NotFound("no verification form of '" + std::string(id) + "'");
  NEARDUP_RETURN_IF_ERROR(FromRocks(s, "reading a verification form"));
  return v;
}

Result<NodeRow> DocStore::GetNode(uint64_t seq) const {
  std::shared_lock lock(mu_);
  NEARDUP_RETURN_IF_ERROR(Available());
  std::string v;
  const std::string key = SeqKey(seq);
  auto s = db_->Get(rocksdb::ReadOptions(), cf_nodes_, key, &v);
  if (s.IsNotFound()) return Status::NotFound("no node row " + std::to_string(seq));
  NEARDUP_RETURN_IF_ERROR(FromRocks(s, "reading node"));
  NodeRow row;
  if (!DecodeNode(key, v, &row)) return Status::Corruption("bad node row");
  return row;
}

Result<TimeRow> DocStore::GetTime(std::string_view id) const {
  std::shared_lock lock(mu_);
  NEARDUP_RETURN_IF_ERROR(Available());
  std::string v;
  auto s = db_->Get(rocksdb::ReadOptions(), cf_times_, rocksdb::Slice(id.data(), id.size()), &v);
  if (s.IsNotFound()) return Status::NotFound("no time row for '" + std::string(id) + "'");
  NEARDUP_RETURN_IF_ERROR(FromRocks(s, "reading time"));
  TimeRow row;
  if (!DecodeTime(id, v, &row)) return Status::Corruption("bad time row");
  return row;
}

Result<std::string> DocStore::GetMeta(std::string_view key) const {
  std::shared_lock lock(mu_);
  NEARDUP_RETURN_IF_ERROR(Available());
  std::string v;
  auto s =
      db_->Get(rocksdb::ReadOptions(), cf_default_, rocksdb::Slice(key.data(), key.size()), &v);
  if (s.IsNotFound()) return Status::NotFound("no metadata '" + std::string(key) + "'");
  NEARDUP_RETURN_IF_ERROR(FromRocks(s, "reading metadata"));
  return v;
}

Status DocStore::ScanFamily(
    rocksdb::ColumnFamilyHandle* cf, const char* what,
    const std::function<Status(std::string_view key, std::string_view value)>& fn) const {
  // No lock: `fn` may take the caller's locks (see the header).
  NEARDUP_RETURN_IF_ERROR(Available());
  rocksdb::ReadOptions ro;
  ro.fill_cache = false;
  ro.readahead_size = 4u << 20;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cf));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    NEARDUP_RETURN_IF_ERROR(fn(it->key().ToStringView(), it->value().ToStringView()));
  }
  return FromRocks(it->status(), std::string("scanning ") + what);
}

Status DocStore::ScanNodes(const std::function<Status(const NodeRow&)>& fn) const {
  NodeRow row;
  return ScanFamily(cf_nodes_, "nodes", [&](std::string_view key, std::string_view value) {
    if (!DecodeNode(key, value, &row)) return Status::Corruption("bad node row");
    return fn(row);
  });
}

Status DocStore::ScanTimes(const std::function<Status(const TimeRow&)>& fn) const {
  TimeRow row;
  return ScanFamily(cf_times_, "times", [&](std::string_view key, std::string_view value) {
    if (!DecodeTime(key, value, &row)) return Status::Corruption("bad time row");
    return fn(row);
  });
}

Status DocStore::ScanDocs(
    const std::function<Status(std::string_view id, const DocRow&)>& fn) const {
  DocRow row;
  return ScanFamily(cf_docs_, "documents", [&](std::string_view key, std::string_view value) {
    if (!DecodeDoc(value, &row)) {
      return Status::Corruption("bad document row for '" + std::string(key) + "'");
    }
    return fn(key, row);
  });
}

Status DocStore::ScanForms(
    const std::function<Status(std::string_view id, std::string_view form)>& fn) const {
  if (cf_forms_ == nullptr) return Status::OK();
  return ScanFamily(cf_forms_, "verification forms", fn);
}

Result<uint64_t> DocStore::NextSeq() const {
  std::shared_lock lock(mu_);
  NEARDUP_RETURN_IF_ERROR(Available());
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), cf_nodes_));
  it->SeekToLast();
  NEARDUP_RETURN_IF_ERROR(FromRocks(it->status(), "seeking last node"));
  if (!it->Valid()) return uint64_t{0};
  return DecodeSeqKey(it->key().ToStringView()) + 1;
}

uint64_t DocStore::EstimatedDocuments() const {
  std::shared_lock lock(mu_);
  if (!db_) return 0;
  uint64_t v = 0;
  db_->GetIntProperty(cf_nodes_, "rocksdb.estimate-num-keys", &v);
  return v;
}

Status DocStore::Flush() {
  std::shared_lock lock(mu_);
  NEARDUP_RETURN_IF_ERROR(Available());
  if (!writable_) return Status::OK();  // read-only: nothing to flush
  rocksdb::FlushOptions fo;
  fo.wait = true;
  std::vector<rocksdb::ColumnFamilyHandle*> families = {cf_default_, cf_nodes_, cf_times_,
                                                        cf_docs_};
  if (cf_forms_ != nullptr) families.push_back(cf_forms_);
  NEARDUP_RETURN_IF_ERROR(FromRocks(db_->Flush(fo, families), "flushing"));
  return FromRocks(db_->SyncWAL(), "syncing WAL");
}

Status DocStore::Available() const {
  return db_ ? Status::OK() : Status::Unavailable("store " + dir_ + " is being reopened");
}

}  // namespace neardup::store
