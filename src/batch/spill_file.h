// SPDX-License-Identifier: Apache-2.0
//
// Spill files: fixed-size, trivially copyable records written and read
// sequentially in large blocks with write(2)/read(2). A write that fails (a
// full disk, a quota) is an IOError naming the file and the system's reason,
// so "No space left on device" reaches the user with the path it hit.
//
// Thread safety: one object per thread. Memory: one buffer per file, its size
// chosen by the caller (the merger shrinks buffers when many runs are open).
#ifndef NEARDUP_BATCH_SPILL_FILE_H_
#define NEARDUP_BATCH_SPILL_FILE_H_

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "base/status_macros.h"
#include "neardup/status.h"

namespace neardup::batch {

// Appends bytes to a new file. Close() (or the destructor, which ignores
// errors) flushes; the file stays on disk until its TempDir goes.
class SpillWriter {
 public:
  SpillWriter() = default;
  ~SpillWriter();
  SpillWriter(const SpillWriter&) = delete;
  SpillWriter& operator=(const SpillWriter&) = delete;

  // Errors: IOError naming `path`.
  Status Open(const std::string& path, size_t buffer_bytes = 1 << 20);
  Status Append(const void* data, size_t n);
  // Errors: IOError (the disk filled while flushing).
  Status Close();
  uint64_t bytes() const { return written_ + used_; }
  const std::string& path() const { return path_; }

 private:
  Status Flush();
  std::string path_;
  int fd_ = -1;
  std::vector<char> buf_;
  size_t used_ = 0;
  uint64_t written_ = 0;
};

// Reads a file front to back in blocks.
class SpillReader {
 public:
  SpillReader() = default;
  ~SpillReader();
  SpillReader(SpillReader&&) noexcept;
  SpillReader& operator=(SpillReader&&) noexcept;

  // With `release`, the disk of what has been read is freed as reading goes
  // on (fallocate PUNCH_HOLE; the file is read once and then deleted), so a
  // merge needs little more disk than its input; where the file system
  // cannot punch holes the file keeps its space until it is deleted.
  // Errors: IOError / NotFound naming `path`.
  // Reads the file's bytes [begin, end) only (end past the file: to its end).
  Status Open(const std::string& path, size_t buffer_bytes = 1 << 20, bool release = false,
              uint64_t begin = 0, uint64_t end = UINT64_MAX);
  // Reads exactly n bytes; false at a clean end of file. Errors: IOError,
  // Corruption (the file ends inside a record).
  Result<bool> Read(void* out, size_t n);
  // Up to buffer_bytes of the next bytes, a multiple of `unit`; empty at the
  // end. The view stays valid until the next call.
  Result<std::span<const char>> NextBlock(size_t unit);

 private:
  Status Fill();
  std::string path_;
  int fd_ = -1;
  std::vector<char> buf_;
  size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
  bool release_ = false;
  uint64_t offset_ = 0, punched_ = 0;  // file bytes read into buf_; freed on disk
  uint64_t limit_ = UINT64_MAX;        // where reading stops
};

// Typed helpers over SpillWriter/SpillReader.
template <typename T>
Status WriteRecords(SpillWriter* w, std::span<const T> records) {
  static_assert(std::is_trivially_copyable_v<T>);
  return w->Append(records.data(), records.size_bytes());
}

// Bytes of file `path` (0 when it does not exist).
uint64_t FileBytes(const std::string& path);

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_SPILL_FILE_H_
