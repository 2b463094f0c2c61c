// SPDX-License-Identifier: Apache-2.0
//
// The one mapping of RocksDB statuses to neardup::Status in the store: a
// full disk is ResourceExhausted (507 at the service), the rest by kind.
// Not a public header.
#ifndef NEARDUP_STORE_ROCKS_STATUS_H_
#define NEARDUP_STORE_ROCKS_STATUS_H_

#include <rocksdb/status.h>

#include <string>
#include <string_view>

#include "neardup/status.h"

namespace neardup::store {

// `what` names the operation in the message.
inline Status FromRocks(const rocksdb::Status& s, std::string_view what) {
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

}  // namespace neardup::store

#endif  // NEARDUP_STORE_ROCKS_STATUS_H_
