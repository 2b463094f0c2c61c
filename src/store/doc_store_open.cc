// SPDX-License-Identifier: Apache-2.0
// DocStore: opening, the checks an existing store passes before anything is
// written to it (doc_store.h, Open), and the node count.
#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/table.h>
#include <rocksdb/write_buffer_manager.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <filesystem>

#include "base/status_macros.h"
#include "store/db_config.h"
#include "store/doc_store.h"
#include "store/fault_injection.h"
#include "store/rocks_status.h"
#include "store/rows.h"

namespace neardup::store {
namespace {

namespace fs = std::filesystem;

// Forwards RocksDB's messages at the logger's level and above to a sink.
class ForwardingLogger : public rocksdb::Logger {
 public:
  ForwardingLogger(std::function<void(std::string_view)> sink, rocksdb::InfoLogLevel level)
      : rocksdb::Logger(level), sink_(std::move(sink)) {}
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

// Whether `dir` holds a store. Missing or empty: false (a store may be
// created there). Files without CURRENT: Corruption, for RocksDB would
// create an empty store over them and delete their tables.
Result<bool> HasStore(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return false;
  if (!fs::is_directory(dir, ec)) return Status::IOError(dir + " is not a directory");
  if (fs::exists(fs::path(dir) / "CURRENT", ec)) return true;
  if (fs::is_empty(dir, ec) && !ec) return false;
  return Status::Corruption("store " + dir +
                            " has files but no CURRENT file (the pointer to its MANIFEST)");
}

// An open that RocksDB refused because of what it found on disk.
Status Damaged(const std::string& dir, const rocksdb::Status& s) {
  Status st = FromRocks(s, "store " + dir + " is damaged");
  if (st.IsNotFound() || st.code() == StatusCode::kIOError) {
    // A file the MANIFEST or CURRENT names is missing or cut short.
    const std::string m = s.ToString();
    if (m.find("No such file") != std::string::npos || st.IsNotFound() ||
        m.find("size mismatch") != std::string::npos) {
      return Status::Corruption(st.message());
    }
  }
  return st;
}

}  // namespace

DbConfig MakeDbConfig(size_t block_cache_bytes, std::function<void(std::string_view)> log,
                      rocksdb::InfoLogLevel level) {
  DbConfig c;
  rocksdb::Options o;
  o.info_log = std::make_shared<ForwardingLogger>(std::move(log), level);
  o.create_if_missing = false;
  o.create_missing_column_families = true;
  o.IncreaseParallelism(2);
  o.max_background_jobs = 2;
  o.max_total_wal_size = 256u << 20;
  o.paranoid_checks = true;
  o.wal_recovery_mode = rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
  o.track_and_verify_wals_in_manifest = true;
  o.max_open_files = -1;  // every table's metadata is read (and checked) at open
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(block_cache_bytes);
  table.cache_index_and_filter_blocks = true;
  rocksdb::ColumnFamilyOptions cf(o);
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  cf.write_buffer_size = 32u << 20;
  c.db = o;
  for (const char* name : {rocksdb::kDefaultColumnFamilyName.c_str(), "nodes", "times"}) {
    c.families.emplace_back(name, cf);
  }
  // Texts take most of the bytes: zstd, where RocksDB was built with it (its
  // tables record their compression, so a store moves between builds), over
  // 16 KiB blocks: a 4 KiB block holds one or two articles, too little for
  // zstd to pass RocksDB's 12.5% minimum saving on Chinese text. Level 1,
  // not zstd's default 3: on 16 KiB blocks of Chinese it compresses 1.6-3.9x
  // faster for 2-4% more bytes (docs/benchmarks.md), and flushes and
  // compactions of texts took a sixth of an ingesting process's CPU at 3.
  const auto supported = rocksdb::GetSupportedCompressions();
  if (std::find(supported.begin(), supported.end(), rocksdb::kZSTD) != supported.end()) {
    cf.compression = rocksdb::kZSTD;
    cf.compression_opts.level = 1;
  }
  table.block_size = 16u << 10;
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  c.families.emplace_back("docs", cf);
  table.block_size = 4u << 10;  // forms are random bits: no compression
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  cf.compression = rocksdb::kNoCompression;
  c.families.emplace_back("forms", cf);
  return c;
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
  NEARDUP_ASSIGN_OR_RETURN(const bool exists, HasStore(dir));
  if (!exists) {
    if (!options.create_if_missing) return Status::NotFound("no store in " + dir);
    NEARDUP_RETURN_IF_ERROR(store->Create());
  } else {
    NEARDUP_RETURN_IF_ERROR(store->OpenExisting());
  }
  return store;
}

Status DocStore::Create() {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  NEARDUP_RETURN_IF_ERROR(OpenDb(/*read_only=*/false, /*create=*/true));
  writable_ = true;
  node_rows_ = 0;
  NEARDUP_RETURN_IF_ERROR(commit_record_.Open(dir_));
  Batch b;
  Prepare(&b);
  b.PutMeta("format", kFormat);
  b.PutMeta(kNodeCountKey, "0");
  return Write(&b, true);
}

Status DocStore::OpenExisting() {
  const bool checks = !options_.skip_checks;
  // The record is read before the store: a store open elsewhere may only
  // have moved further.
  if (checks) {
    NEARDUP_ASSIGN_OR_RETURN(committed_, CommitRecord::Read(dir_));
  }
  // Repair opens its copy for writing at once: that creates a column family
  // that RocksDB's repair found no table of.
  const bool write_now = !checks && !options_.read_only;
  NEARDUP_RETURN_IF_ERROR(OpenDb(/*read_only=*/!write_now));
  writable_ = write_now;
  if (write_now) NEARDUP_RETURN_IF_ERROR(commit_record_.Open(dir_));
  auto format = GetMeta("format");
  const bool older = format.ok() && (*format == kFormatV2 || *format == kFormatV3);
  if (format.ok() && *format != kFormat && !older) {
    return Status::FailedPrecondition("store " + dir_ + " has format '" + *format +
                                      "', expected '" + kFormat + "'");
  }
  if (!format.ok() && (checks || !format.status().IsNotFound())) {
    if (!format.status().IsNotFound()) return format.status();
    return Status::Corruption("store " + dir_ + " has no format record: damaged, or not a store");
  }
  if (checks) NEARDUP_RETURN_IF_ERROR(CheckCommitted());
  NEARDUP_ASSIGN_OR_RETURN(next_node_, NextSeq());
  if (committed_) next_node_ = std::max(next_node_, committed_->next_node);
  if (options_.read_only) return Status::OK();
  if (checks) {
    uint64_t n = 0;
    NEARDUP_RETURN_IF_ERROR(CountNodes(&n));
    NEARDUP_RETURN_IF_ERROR(VerifyNodeCount(n));
  }
  NEARDUP_RETURN_IF_ERROR(OpenForWriting());
  if (!older) return Status::OK();
  Batch b;  // rows written from here on may be the current format's
  Prepare(&b);
  b.PutMeta("format", kFormat);
  return Write(&b, true);
}

Status DocStore::OpenDb(bool read_only, bool create) {
  DbConfig c = MakeDbConfig(options_.block_cache_bytes, options_.log);
  if (env_) c.db.env = env_.get();
  c.db.write_buffer_manager =
      std::make_shared<rocksdb::WriteBufferManager>(options_.memtable_bytes);
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s;
  if (read_only) {
    // A store from before the forms family opens read-only without it.
    std::vector<std::string> names;
    if (rocksdb::DB::ListColumnFamilies(c.db, dir_, &names).ok() &&
        std::find(names.begin(), names.end(), "forms") == names.end()) {
      c.families.pop_back();
    }
    s = rocksdb::DB::OpenForReadOnly(c.db, dir_, c.families, &handles, &raw);
  } else {
    c.db.create_if_missing = create;
    s = rocksdb::DB::Open(c.db, dir_, c.families, &handles, &raw);
  }
  if (!s.ok()) return Damaged(dir_, s);
  db_.reset(raw);
  cf_default_ = handles[0];
  cf_nodes_ = handles[1];
  cf_times_ = handles[2];
  cf_docs_ = handles[3];
  cf_forms_ = handles.size() > 4 ? handles[4] : nullptr;
  return Status::OK();
}

Status DocStore::CheckCommitted() {
  return CheckAcknowledged(dir_, committed_, db_->GetLatestSequenceNumber());
}

Status DocStore::OpenForWriting() {
  if (writable_) return Status::OK();
  {
    std::unique_lock lock(mu_);
    CloseDb();
    NEARDUP_RETURN_IF_ERROR(OpenDb(/*read_only=*/false));
  }
  NEARDUP_RETURN_IF_ERROR(commit_record_.Open(dir_));
  writable_ = true;
  std::lock_guard write_lock(write_mu_);
  return commit_record_.Update({db_->GetLatestSequenceNumber(), next_node_});
}

Status DocStore::CountNodes(uint64_t* n) const {
  *n = 0;
  return ScanFamily(cf_nodes_, "nodes", [n](std::string_view, std::string_view) {
    ++*n;
    return Status::OK();
  });
}

Status DocStore::VerifyNodeCount(uint64_t scanned) {
  auto recorded = GetMeta(kNodeCountKey);
  if (recorded.ok()) {
    if (*recorded != std::to_string(scanned)) {
      return Status::Corruption("store " + dir_ + " is damaged: its last write left " + *recorded +
                                " documents (node rows), but " + std::to_string(scanned) +
                                " are found: the MANIFEST has lost track of table files (*.sst)");
    }
  } else if (!recorded.status().IsNotFound()) {
    return recorded.status();
  }
  std::lock_guard write_lock(write_mu_);
  node_rows_ = scanned;
  return Status::OK();
}

Status DocStore::SetNodeCount(uint64_t count) {
  {
    std::lock_guard write_lock(write_mu_);
    node_rows_ = count;
  }
  Batch b;
  Prepare(&b);
  b.PutMeta(kNodeCountKey, std::to_string(count));
  return Write(&b, true);
}

std::vector<DocStore::TableFile> DocStore::Tables() const {
  std::shared_lock lock(mu_);
  std::vector<TableFile> out;
  if (!db_) return out;
  std::vector<rocksdb::LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  for (const auto& f : files) {
    std::string name = f.name;
    if (!name.empty() && name[0] == '/') name.erase(0, 1);
    out.push_back({name, f.column_family_name, f.size});
  }
  return out;
}

uint64_t DocStore::LatestSequence() const {
  std::shared_lock lock(mu_);
  return db_ ? db_->GetLatestSequenceNumber() : 0;
}

DocStore::Memory DocStore::MemoryUsage() const {
  std::shared_lock lock(mu_);
  Memory m;
  if (!db_) return m;
  uint64_t v = 0;
  // One cache serves every family: ask one (the aggregate counts it five times).
  if (db_->GetIntProperty(cf_default_, rocksdb::DB::Properties::kBlockCacheUsage, &v)) {
    m.block_cache = v;
  }
  if (db_->GetAggregatedIntProperty(rocksdb::DB::Properties::kCurSizeAllMemTables, &v)) {
    m.memtables = v;
  }
  return m;
}

uint64_t DocStore::DiskBytes() const {
  uint64_t total = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir_, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code fec;
    if (it->is_regular_file(fec)) {
      const uintmax_t size = it->file_size(fec);
      if (!fec) total += size;
    }
  }
  return total;
}

}  // namespace neardup::store
