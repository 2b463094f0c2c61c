// SPDX-License-Identifier: Apache-2.0
//
// The RocksDB options of a store, shared by DocStore and the store check
// and repair (store_check.h). Not a public header.
//
// Strict on purpose: paranoid checks; a write-ahead log record that fails
// its checksum refuses the open (kTolerateCorruptedTailRecords drops only an
// incomplete last record, a write cut short by a crash, never acknowledged)
// instead of ending recovery there (kPointInTimeRecovery, RocksDB's default,
// which silently drops every later record); closed logs tracked in the
// MANIFEST, so a missing one is an error; every table opened at open.
#ifndef NEARDUP_STORE_DB_CONFIG_H_
#define NEARDUP_STORE_DB_CONFIG_H_

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace neardup::store {

struct DbConfig {
  rocksdb::DBOptions db;
  std::vector<rocksdb::ColumnFamilyDescriptor> families;  // default, nodes, times, docs, forms
};

// `log` receives RocksDB's messages at `level` and above (may be null).
DbConfig MakeDbConfig(size_t block_cache_bytes, std::function<void(std::string_view)> log,
                      rocksdb::InfoLogLevel level = rocksdb::InfoLogLevel::WARN_LEVEL);

}  // namespace neardup::store

#endif  // NEARDUP_STORE_DB_CONFIG_H_
