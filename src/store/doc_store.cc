// SPDX-License-Identifier: Apache-2.0
// DocStore on RocksDB (layout in doc_store.h). Values are encoded by hand:
// fixed 64-bit little-endian integers and length-prefixed strings (varint32).
#include "store/doc_store.h"

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/options.h>
#include <rocksdb/slice.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <vector>

#include "base/status_macros.h"
#include "store/fault_injection.h"
#include "store/rocks_status.h"

namespace neardup::store {
namespace {

void PutFixed64(std::string* out, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(v >> (8 * i));
  out->append(b, 8);
}
void PutVarString(std::string* out, std::string_view s) {
  uint32_t n = static_cast<uint32_t>(s.size());
  while (n >= 0x80) {
    out->push_back(static_cast<char>(n | 0x80));
    n >>= 7;
  }
  out->push_back(static_cast<char>(n));
  out->append(s);
}

// A cursor over an encoded value; every Get fails cleanly at the end.
struct Reader {
  std::string_view in;
  bool Fixed64(uint64_t* v) {
    if (in.size() < 8) return false;
    *v = 0;
    for (int i = 7; i >= 0; --i) *v = (*v << 8) | static_cast<uint8_t>(in[i]);
    in.remove_prefix(8);
    return true;
  }
  bool VarString(std::string* s) {
    uint32_t n = 0;
    for (int shift = 0;; shift += 7) {
      if (in.empty() || shift > 28) return false;
      const uint8_t c = static_cast<uint8_t>(in[0]);
      in.remove_prefix(1);
      n |= static_cast<uint32_t>(c & 0x7f) << shift;
      if (!(c & 0x80)) break;
    }
    if (in.size() < n) return false;
    s->assign(in.substr(0, n));
    in.remove_prefix(n);
    return true;
  }
};

std::string SeqKey(uint64_t seq) {
  std::string k(8, '\0');
  for (int i = 0; i < 8; ++i) k[i] = static_cast<char>(seq >> (8 * (7 - i)));
  return k;
}
uint64_t DecodeSeqKey(std::string_view k) {
  uint64_t v = 0;
  for (char c : k) v = (v << 8) | static_cast<uint8_t>(c);
  return v;
}

std::string EncodeNode(const NodeRow& r) {
  std::string v;
  PutFixed64(&v, r.fingerprint);
  PutFixed64(&v, static_cast<uint64_t>(r.time));
  PutVarString(&v, r.id);
  PutVarString(&v, r.root);
  PutVarString(&v, r.sketches);
  return v;
}
bool DecodeNode(std::string_view key, std::string_view value, NodeRow* r) {
  if (key.size() != 8) return false;
  r->seq = DecodeSeqKey(key);
  Reader rd{value};
  uint64_t t;
  return rd.Fixed64(&r->fingerprint) && rd.Fixed64(&t) &&
         (r->time = static_cast<int64_t>(t), true) && rd.VarString(&r->id) &&
         rd.VarString(&r->root) && rd.VarString(&r->sketches);
}

std::string EncodeTime(const TimeRow& r) {
  std::string v;
  PutFixed64(&v, static_cast<uint64_t>(r.time));
  v.push_back(r.ghost ? 1 : 0);
  return v;
}

bool DecodeTime(std::string_view key, std::string_view value, TimeRow* r) {
  Reader rd{value};
  uint64_t t;
  if (!rd.Fixed64(&t) || rd.in.size() != 1) return false;
  r->id.assign(key);
  r->time = static_cast<int64_t>(t);
  r->ghost = rd.in[0] != 0;
  return true;
}

std::string EncodeDoc(const DocRow& r) {
  std::string v;
  PutFixed64(&v, r.seq);
  PutFixed64(&v, static_cast<uint64_t>(r.arrival));
  PutVarString(&v, r.meta);
  PutVarString(&v, r.text);
  return v;
}
bool DecodeDoc(std::string_view value, DocRow* r) {
  Reader rd{value};
  uint64_t t = 0;
  const bool ok =
      rd.Fixed64(&r->seq) && rd.Fixed64(&t) && rd.VarString(&r->meta) && rd.VarString(&r->text);
  r->arrival = static_cast<int64_t>(t);
  return ok;
}

// Forwards RocksDB's warnings and errors to StoreOptions::log.
class ForwardingLogger : public rocksdb::Logger {
 public:
  explicit ForwardingLogger(std::function<void(std::string_view)> sink)
      : rocksdb::Logger(rocksdb::InfoLogLevel::WARN_LEVEL), sink_(std::move(sink)) {}
  void Logv(const char*, va_list) override {}  // unleveled: informational
  void Logv(const rocksdb::InfoLogLevel level, const char* format, va_list ap) override {
    if (level < GetInfoLogLevel() || !sink_) return;
    char buf[1024];
    std::vsnprintf(buf, sizeof(buf), format, ap);
    sink_(buf);
  }

 private:
  std::function<void(std::string_view)> sink_;
};

constexpr char kFormat[] = "neardup-store-2";  // 2: node rows carry sketches

}  // namespace

DocStore::Batch::Batch() : wb_(std::make_unique<rocksdb::WriteBatch>()) {}
DocStore::Batch::~Batch() = default;
size_t DocStore::Batch::count() const { return wb_->Count(); }
void DocStore::Batch::Clear() { wb_->Clear(); }

void DocStore::Batch::PutNode(const NodeRow& row) {
  NEARDUP_CHECK(wb_->Put(store_->cf_nodes_, SeqKey(row.seq), EncodeNode(row)).ok());
}
void DocStore::Batch::PutTime(const TimeRow& row) {
  NEARDUP_CHECK(wb_->Put(store_->cf_times_, row.id, EncodeTime(row)).ok());
}
void DocStore::Batch::PutDoc(std::string_view id, const DocRow& row) {
  NEARDUP_CHECK(
      wb_->Put(store_->cf_docs_, rocksdb::Slice(id.data(), id.size()), EncodeDoc(row)).ok());
}
void DocStore::Batch::DeleteDocument(std::string_view id, uint64_t seq) {
  const rocksdb::Slice k(id.data(), id.size());
  NEARDUP_CHECK(wb_->Delete(store_->cf_nodes_, SeqKey(seq)).ok());
  NEARDUP_CHECK(wb_->Delete(store_->cf_times_, k).ok());
  NEARDUP_CHECK(wb_->Delete(store_->cf_docs_, k).ok());
}
void DocStore::Batch::PutMeta(std::string_view key, std::string_view value) {
  NEARDUP_CHECK(wb_->Put(store_->cf_default_, rocksdb::Slice(key.data(), key.size()),
                         rocksdb::Slice(value.data(), value.size()))
                    .ok());
}

Result<std::unique_ptr<DocStore>> DocStore::Open(const std::string& dir,
                                                 const StoreOptions& options) {
  std::unique_ptr<DocStore> store(new DocStore());
  store->dir_ = dir;
  store->options_ = options;
  if (options.faults) {
    store->env_ = rocksdb::NewCompositeEnv(
        FaultInjection::Wrap(options.faults, rocksdb::FileSystem::Default()));
  }
  NEARDUP_RETURN_IF_ERROR(store->OpenDb());
  auto format = store->GetMeta("format");
  if (format.ok()) {
    if (*format != kFormat) {
      return Status::FailedPrecondition("store " + dir + " has format '" + *format +
                                        "', expected '" + kFormat + "'");
    }
  } else if (format.status().IsNotFound()) {
    rocksdb::WriteOptions wo;
    wo.sync = true;
    NEARDUP_RETURN_IF_ERROR(
        FromRocks(store->db_->Put(wo, store->cf_default_, "format", kFormat), "writing format"));
  } else {
    return format.status();
  }
  return store;
}

Status DocStore::OpenDb() {
  rocksdb::Options db_opts;
  if (env_) db_opts.env = env_.get();
  db_opts.info_log = std::make_shared<ForwardingLogger>(options_.log);
  db_opts.create_if_missing = options_.create_if_missing;
  db_opts.create_missing_column_families = true;
  db_opts.IncreaseParallelism(2);
  db_opts.max_background_jobs = 2;
  db_opts.max_total_wal_size = 256u << 20;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(options_.block_cache_bytes);
  table.cache_index_and_filter_blocks = true;
  rocksdb::ColumnFamilyOptions cf_opts(db_opts);
  cf_opts.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  cf_opts.write_buffer_size = 32u << 20;
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs = {{rocksdb::kDefaultColumnFamilyName, cf_opts},
                                                      {"nodes", cf_opts},
                                                      {"times", cf_opts},
                                                      {"docs", cf_opts}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  NEARDUP_RETURN_IF_ERROR(
      FromRocks(rocksdb::DB::Open(db_opts, dir_, cfs, &handles, &raw), "opening store " + dir_));
  db_.reset(raw);
  cf_default_ = handles[0];
  cf_nodes_ = handles[1];
  cf_times_ = handles[2];
  cf_docs_ = handles[3];
  return Status::OK();
}

void DocStore::CloseDb() {
  if (!db_) return;
  for (auto* h : {cf_nodes_, cf_times_, cf_docs_, cf_default_}) {
    if (h != nullptr) (void)db_->DestroyColumnFamilyHandle(h);
  }
  cf_nodes_ = cf_times_ = cf_docs_ = cf_default_ = nullptr;
  (void)db_->Close();
  db_.reset();
}

DocStore::~DocStore() {
  if (!db_) return;
  if (!broken_) (void)Flush();
  CloseDb();
}

void DocStore::Prepare(Batch* batch) { batch->store_ = this; }

Status DocStore::Write(Batch* batch, bool sync) {
  if (broken_) NEARDUP_RETURN_IF_ERROR(Repair());
  rocksdb::WriteOptions wo;
  wo.sync = sync;
  Status s;
  {
    std::shared_lock lock(mu_);
    s = FromRocks(db_->Write(wo, batch->wb_.get()), "writing batch");
  }
  if (s.ok()) return s;
  // The batch may still reach the log: remember how to undo it, and try to
  // get the store writable again now (a transient fault) or at the next write.
  RecordUndo(*batch->wb_);
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

Status DocStore::ScanNodes(const std::function<Status(const NodeRow&)>& fn) const {
  // No lock: `fn` may take the caller's locks (see the header).
  NEARDUP_RETURN_IF_ERROR(Available());
  rocksdb::ReadOptions ro;
  ro.fill_cache = false;
  ro.readahead_size = 4u << 20;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cf_nodes_));
  NodeRow row;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (!DecodeNode(it->key().ToStringView(), it->value().ToStringView(), &row)) {
      return Status::Corruption("bad node row");
    }
    NEARDUP_RETURN_IF_ERROR(fn(row));
  }
  return FromRocks(it->status(), "scanning nodes");
}

Status DocStore::ScanTimes(const std::function<Status(const TimeRow&)>& fn) const {
  // No lock: `fn` may take the caller's locks (see the header).
  NEARDUP_RETURN_IF_ERROR(Available());
  rocksdb::ReadOptions ro;
  ro.fill_cache = false;
  ro.readahead_size = 4u << 20;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cf_times_));
  TimeRow row;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (!DecodeTime(it->key().ToStringView(), it->value().ToStringView(), &row)) {
      return Status::Corruption("bad time row");
    }
    NEARDUP_RETURN_IF_ERROR(fn(row));
  }
  return FromRocks(it->status(), "scanning times");
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

uint64_t DocStore::DiskBytes() const {
  std::shared_lock lock(mu_);
  if (!db_) return 0;
  uint64_t sst = 0, wal = 0;
  for (auto* h : {cf_default_, cf_nodes_, cf_times_, cf_docs_}) {
    uint64_t v = 0;
    if (db_->GetIntProperty(h, "rocksdb.live-sst-files-size", &v)) sst += v;
  }
  db_->GetIntProperty("rocksdb.cur-size-all-mem-tables", &wal);  // not yet in SSTs
  return sst + wal;
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
  rocksdb::FlushOptions fo;
  fo.wait = true;
  NEARDUP_RETURN_IF_ERROR(
      FromRocks(db_->Flush(fo, {cf_default_, cf_nodes_, cf_times_, cf_docs_}), "flushing"));
  return FromRocks(db_->SyncWAL(), "syncing WAL");
}

Status DocStore::Available() const {
  return db_ ? Status::OK() : Status::Unavailable("store " + dir_ + " is being reopened");
}

}  // namespace neardup::store
