// SPDX-License-Identifier: Apache-2.0
//
// CommitRecord: a small file beside the RocksDB files of a store,
// NEARDUP_COMMITTED, that says how far the store had been written when it
// last acknowledged a write: RocksDB's last sequence number and the next
// node seq (one past the highest document arrival number written).
//
// Why: RocksDB cannot tell a deleted or truncated write-ahead log from an
// empty one (it tracks only closed logs in the MANIFEST), so it opens such a
// store silently without the acknowledged writes that were only in the log.
// The record lives outside the log: a store that recovers to a sequence
// number below the recorded one has lost acknowledged writes.
//
// The record is rewritten in place (one 64-byte pwrite, no fsync) after each
// successful write, so it never runs ahead of the log: the log was synced
// first, and a power loss can only leave the record behind (a weaker check,
// never a false alarm). It carries a checksum; a record that does not match
// it is reported as damage.
//
// Thread safety: none; DocStore serializes writes.
#ifndef NEARDUP_STORE_COMMIT_RECORD_H_
#define NEARDUP_STORE_COMMIT_RECORD_H_

#include <cstdint>
#include <optional>
#include <string>

#include "neardup/status.h"

namespace neardup::store {

struct Committed {
  uint64_t sequence = 0;   // RocksDB's last sequence number
  uint64_t next_node = 0;  // one past the highest node seq written
};

// OK when a store in `dir` that recovered RocksDB sequence `recovered` holds
// every write `committed` says was acknowledged (or there is no record);
// else Corruption naming the gap.
Status CheckAcknowledged(const std::string& dir, const std::optional<Committed>& committed,
                         uint64_t recovered);

class CommitRecord {
 public:
  static constexpr char kFileName[] = "NEARDUP_COMMITTED";

  // Reads DIR/NEARDUP_COMMITTED. Absent: nullopt (a store written before the
  // record existed). Errors: Corruption (unreadable record), IOError.
  static Result<std::optional<Committed>> Read(const std::string& dir);

  CommitRecord() = default;
  ~CommitRecord();
  CommitRecord(const CommitRecord&) = delete;
  CommitRecord& operator=(const CommitRecord&) = delete;

  // Opens (creating) the record of `dir` for updates. Errors: IOError.
  Status Open(const std::string& dir);
  // Overwrites the record. Errors: IOError.
  Status Update(const Committed& c);
  void Close();

 private:
  int fd_ = -1;
};

}  // namespace neardup::store

#endif  // NEARDUP_STORE_COMMIT_RECORD_H_
