// SPDX-License-Identifier: Apache-2.0
// FaultInjection (fault_injection.h): the switchboard and the RocksDB file
// system wrapper that consults it on every append, sync and read.
#include "store/fault_injection.h"

#include <rocksdb/file_system.h>

namespace neardup::store {
namespace {

using rocksdb::FileOptions;
using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

IOStatus Injected(FaultInjection* f, FaultInjection::Op op) {
  FaultInjection::Kind kind;
  if (!f->Take(op, &kind)) return IOStatus::OK();
  if (kind == FaultInjection::Kind::kNoSpace) return IOStatus::NoSpace("injected: no space");
  return IOStatus::IOError("injected I/O error");
}

class WritableFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  WritableFile(std::unique_ptr<rocksdb::FSWritableFile> f, FaultInjection* faults)
      : FSWritableFileOwnerWrapper(std::move(f)), faults_(faults) {}
  IOStatus Append(const Slice& data, const IOOptions& o, IODebugContext* dbg) override {
    IOStatus s = Injected(faults_, FaultInjection::Op::kWrite);
    return s.ok() ? target()->Append(data, o, dbg) : s;
  }
  IOStatus Append(const Slice& data, const IOOptions& o, const rocksdb::DataVerificationInfo& info,
                  IODebugContext* dbg) override {
    IOStatus s = Injected(faults_, FaultInjection::Op::kWrite);
    return s.ok() ? target()->Append(data, o, info, dbg) : s;
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& o,
                            IODebugContext* dbg) override {
    IOStatus s = Injected(faults_, FaultInjection::Op::kWrite);
    return s.ok() ? target()->PositionedAppend(data, offset, o, dbg) : s;
  }
  IOStatus Sync(const IOOptions& o, IODebugContext* dbg) override {
    IOStatus s = Injected(faults_, FaultInjection::Op::kSync);
    return s.ok() ? target()->Sync(o, dbg) : s;
  }
  IOStatus Fsync(const IOOptions& o, IODebugContext* dbg) override {
    IOStatus s = Injected(faults_, FaultInjection::Op::kSync);
    return s.ok() ? target()->Fsync(o, dbg) : s;
  }

 private:
  FaultInjection* faults_;
};

class RandomAccessFile : public rocksdb::FSRandomAccessFileOwnerWrapper {
 public:
  RandomAccessFile(std::unique_ptr<rocksdb::FSRandomAccessFile> f, FaultInjection* faults)
      : FSRandomAccessFileOwnerWrapper(std::move(f)), faults_(faults) {}
  IOStatus Read(uint64_t offset, size_t n, const IOOptions& o, Slice* result, char* scratch,
                IODebugContext* dbg) const override {
    IOStatus s = Injected(faults_, FaultInjection::Op::kRead);
    return s.ok() ? target()->Read(offset, n, o, result, scratch, dbg) : s;
  }
  IOStatus MultiRead(rocksdb::FSReadRequest* reqs, size_t n, const IOOptions& o,
                     IODebugContext* dbg) override {
    IOStatus s = Injected(faults_, FaultInjection::Op::kRead);
    return s.ok() ? target()->MultiRead(reqs, n, o, dbg) : s;
  }

 private:
  FaultInjection* faults_;
};

class SequentialFile : public rocksdb::FSSequentialFileOwnerWrapper {
 public:
  SequentialFile(std::unique_ptr<rocksdb::FSSequentialFile> f, FaultInjection* faults)
      : FSSequentialFileOwnerWrapper(std::move(f)), faults_(faults) {}
  IOStatus Read(size_t n, const IOOptions& o, Slice* result, char* scratch,
                IODebugContext* dbg) override {
    IOStatus s = Injected(faults_, FaultInjection::Op::kRead);
    return s.ok() ? target()->Read(n, o, result, scratch, dbg) : s;
  }

 private:
  FaultInjection* faults_;
};

class FileSystem : public rocksdb::FileSystemWrapper {
 public:
  FileSystem(std::shared_ptr<FaultInjection> faults, std::shared_ptr<rocksdb::FileSystem> base)
      : FileSystemWrapper(base), faults_(std::move(faults)) {}
  const char* Name() const override { return "NeardupFaultInjection"; }

  IOStatus NewWritableFile(const std::string& f, const FileOptions& o,
                           std::unique_ptr<rocksdb::FSWritableFile>* r,
                           IODebugContext* dbg) override {
    return Wrap(target()->NewWritableFile(f, o, r, dbg), r);
  }
  IOStatus ReopenWritableFile(const std::string& f, const FileOptions& o,
                              std::unique_ptr<rocksdb::FSWritableFile>* r,
                              IODebugContext* dbg) override {
    return Wrap(target()->ReopenWritableFile(f, o, r, dbg), r);
  }
  IOStatus ReuseWritableFile(const std::string& f, const std::string& old, const FileOptions& o,
                             std::unique_ptr<rocksdb::FSWritableFile>* r,
                             IODebugContext* dbg) override {
    return Wrap(target()->ReuseWritableFile(f, old, o, r, dbg), r);
  }
  IOStatus NewRandomAccessFile(const std::string& f, const FileOptions& o,
                               std::unique_ptr<rocksdb::FSRandomAccessFile>* r,
                               IODebugContext* dbg) override {
    IOStatus s = target()->NewRandomAccessFile(f, o, r, dbg);
    if (s.ok()) *r = std::make_unique<RandomAccessFile>(std::move(*r), faults_.get());
    return s;
  }
  IOStatus NewSequentialFile(const std::string& f, const FileOptions& o,
                             std::unique_ptr<rocksdb::FSSequentialFile>* r,
                             IODebugContext* dbg) override {
    IOStatus s = target()->NewSequentialFile(f, o, r, dbg);
    if (s.ok()) *r = std::make_unique<SequentialFile>(std::move(*r), faults_.get());
    return s;
  }

 private:
  IOStatus Wrap(IOStatus s, std::unique_ptr<rocksdb::FSWritableFile>* r) {
    if (s.ok()) *r = std::make_unique<WritableFile>(std::move(*r), faults_.get());
    return s;
  }
  std::shared_ptr<FaultInjection> faults_;
};

}  // namespace

void FaultInjection::Fail(Op op, Kind kind, int64_t count) {
  Slot& s = slots_[static_cast<int>(op)];
  s.kind = static_cast<int>(kind);
  s.remaining = count;
  s.on = count != 0;
}

void FaultInjection::Clear() {
  for (Slot& s : slots_) s.on = false;
}

bool FaultInjection::Take(Op op, Kind* kind) {
  Slot& s = slots_[static_cast<int>(op)];
  if (!s.on) return false;
  int64_t left = s.remaining.load();
  if (left >= 0) {
    // Counted: take one unless another thread took the last.
    do {
      if (left == 0) return false;
    } while (!s.remaining.compare_exchange_weak(left, left - 1));
    if (left == 1) s.on = false;
  }
  *kind = static_cast<Kind>(s.kind.load());
  ++injected_;
  return true;
}

std::shared_ptr<rocksdb::FileSystem> FaultInjection::Wrap(
    std::shared_ptr<FaultInjection> faults, std::shared_ptr<rocksdb::FileSystem> base) {
  return std::make_shared<FileSystem>(std::move(faults), std::move(base));
}

}  // namespace neardup::store
