// SPDX-License-Identifier: Apache-2.0
//
// FaultInjection: a switchboard of I/O faults for the document store, for
// tests only (in the spirit of RocksDB's FaultInjectionTestFS and SQLite's
// I/O error tests). Set StoreOptions::faults and every file the store opens
// goes through a rocksdb::FileSystemWrapper that consults it: appends
// (writes), syncs and reads can fail with an I/O error, and writes can
// report a full disk (ENOSPC), each for a number of calls or until cleared.
//
// Thread safety: all methods may be called from any thread while the store
// runs (RocksDB calls it from its own threads).
#ifndef NEARDUP_STORE_FAULT_INJECTION_H_
#define NEARDUP_STORE_FAULT_INJECTION_H_

#include <atomic>
#include <cstdint>
#include <memory>

namespace rocksdb {
class FileSystem;
}

namespace neardup::store {

class FaultInjection {
 public:
  enum class Op { kWrite, kSync, kRead };
  enum class Kind { kIOError, kNoSpace };

  // The next `count` calls of `op` fail with `kind` (count < 0: all of
  // them until Clear). Replaces an earlier setting for `op`.
  void Fail(Op op, Kind kind = Kind::kIOError, int64_t count = -1);
  // Lets every operation through again.
  void Clear();
  // Faults injected so far.
  uint64_t injected() const { return injected_; }

  // A file system over `base` that applies this switchboard (store internal).
  static std::shared_ptr<rocksdb::FileSystem> Wrap(std::shared_ptr<FaultInjection> faults,
                                                   std::shared_ptr<rocksdb::FileSystem> base);

  // Whether the current `op` call fails, and how (file system internal).
  bool Take(Op op, Kind* kind);

 private:
  struct Slot {
    std::atomic<int64_t> remaining{0};  // < 0: unlimited
    std::atomic<bool> on{false};
    std::atomic<int> kind{0};
  };
  Slot slots_[3];
  std::atomic<uint64_t> injected_{0};
};

}  // namespace neardup::store

#endif  // NEARDUP_STORE_FAULT_INJECTION_H_
