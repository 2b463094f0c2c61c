// SPDX-License-Identifier: Apache-2.0
// DocStore on RocksDB (layout in doc_store.h). Values are encoded by hand:
// fixed 64-bit little-endian integers and length-prefixed strings (varint32).
#include "store/doc_store.h"

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/slice.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <cstring>
#include <vector>

#include "base/status_macros.h"

namespace neardup::store {
namespace {

Status FromRocks(const rocksdb::Status& s, std::string_view what) {
  if (s.ok()) return Status::OK();
  std::string m = std::string(what) + ": " + s.ToString();
  if (s.IsNoSpace() || s.subcode() == rocksdb::Status::kNoSpace) {
    return Status::ResourceExhausted("disk full: " + m);
  }
  if (s.IsNotFound()) return Status::NotFound(m);
  if (s.IsCorruption()) return Status::Corruption(m);
  if (s.IsIOError()) return Status::IOError(m);
  return Status::Internal(m);
}

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
  rocksdb::Options db_opts;
  db_opts.create_if_missing = options.create_if_missing;
  db_opts.create_missing_column_families = true;
  db_opts.IncreaseParallelism(2);
  db_opts.max_background_jobs = 2;
  db_opts.max_total_wal_size = 256u << 20;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(options.block_cache_bytes);
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
      FromRocks(rocksdb::DB::Open(db_opts, dir, cfs, &handles, &raw), "opening store " + dir));
  std::unique_ptr<DocStore> store(new DocStore());
  store->db_.reset(raw);
  store->cf_default_ = handles[0];
  store->cf_nodes_ = handles[1];
  store->cf_times_ = handles[2];
  store->cf_docs_ = handles[3];
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

DocStore::~DocStore() {
  if (!db_) return;
  (void)Flush();
  for (auto* h : {cf_nodes_, cf_times_, cf_docs_, cf_default_}) {
    if (h != nullptr) (void)db_->DestroyColumnFamilyHandle(h);
  }
  (void)db_->Close();
}

void DocStore::Prepare(Batch* batch) { batch->store_ = this; }

Status DocStore::Write(Batch* batch, bool sync) {
  rocksdb::WriteOptions wo;
  wo.sync = sync;
  return FromRocks(db_->Write(wo, batch->wb_.get()), "writing batch");
}

Result<DocRow> DocStore::GetDoc(std::string_view id) const {
  std::string v;
  auto s = db_->Get(rocksdb::ReadOptions(), cf_docs_, rocksdb::Slice(id.data(), id.size()), &v);
  if (s.IsNotFound()) return Status::NotFound("no stored document '" + std::string(id) + "'");
  NEARDUP_RETURN_IF_ERROR(FromRocks(s, "reading document"));
  DocRow row;
  if (!DecodeDoc(v, &row))
    return Status::Corruption("bad document row for '" + std::string(id) + "'");
  return row;
}

Result<std::string> DocStore::GetMeta(std::string_view key) const {
  std::string v;
  auto s =
      db_->Get(rocksdb::ReadOptions(), cf_default_, rocksdb::Slice(key.data(), key.size()), &v);
  if (s.IsNotFound()) return Status::NotFound("no metadata '" + std::string(key) + "'");
  NEARDUP_RETURN_IF_ERROR(FromRocks(s, "reading metadata"));
  return v;
}

Status DocStore::ScanNodes(const std::function<Status(const NodeRow&)>& fn) const {
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
  rocksdb::ReadOptions ro;
  ro.fill_cache = false;
  ro.readahead_size = 4u << 20;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cf_times_));
  TimeRow row;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    Reader rd{it->value().ToStringView()};
    uint64_t t;
    if (!rd.Fixed64(&t) || rd.in.size() != 1) return Status::Corruption("bad time row");
    row.id.assign(it->key().data(), it->key().size());
    row.time = static_cast<int64_t>(t);
    row.ghost = rd.in[0] != 0;
    NEARDUP_RETURN_IF_ERROR(fn(row));
  }
  return FromRocks(it->status(), "scanning times");
}

Result<uint64_t> DocStore::NextSeq() const {
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), cf_nodes_));
  it->SeekToLast();
  NEARDUP_RETURN_IF_ERROR(FromRocks(it->status(), "seeking last node"));
  if (!it->Valid()) return uint64_t{0};
  return DecodeSeqKey(it->key().ToStringView()) + 1;
}

uint64_t DocStore::DiskBytes() const {
  uint64_t sst = 0, wal = 0;
  for (auto* h : {cf_default_, cf_nodes_, cf_times_, cf_docs_}) {
    uint64_t v = 0;
    if (db_->GetIntProperty(h, "rocksdb.live-sst-files-size", &v)) sst += v;
  }
  db_->GetIntProperty("rocksdb.cur-size-all-mem-tables", &wal);  // not yet in SSTs
  return sst + wal;
}

uint64_t DocStore::EstimatedDocuments() const {
  uint64_t v = 0;
  db_->GetIntProperty(cf_nodes_, "rocksdb.estimate-num-keys", &v);
  return v;
}

Status DocStore::Flush() {
  rocksdb::FlushOptions fo;
  fo.wait = true;
  NEARDUP_RETURN_IF_ERROR(
      FromRocks(db_->Flush(fo, {cf_default_, cf_nodes_, cf_times_, cf_docs_}), "flushing"));
  return FromRocks(db_->SyncWAL(), "syncing WAL");
}

Status DocStore::Resume() { return FromRocks(db_->Resume(), "resuming"); }

}  // namespace neardup::store
