// SPDX-License-Identifier: Apache-2.0
#include "batch/spill_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

namespace neardup::batch {
namespace {

Status SysError(const std::string& path, std::string_view what, int err) {
  std::string m = path + ": " + std::string(what) + ": " + std::strerror(err);
  if (err == ENOSPC || err == EDQUOT)
    m += " (the temporary directory is full: free space or set --tmp-dir)";
  if (err == ENOENT) return Status::NotFound(std::move(m));
  return Status::IOError(std::move(m));
}

}  // namespace

SpillWriter::~SpillWriter() {
  if (fd_ >= 0) (void)Close();
}

Status SpillWriter::Open(const std::string& path, size_t buffer_bytes) {
  path_ = path;
  fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd_ < 0) return SysError(path, "cannot create", errno);
  buf_.resize(std::max<size_t>(4096, buffer_bytes));
  used_ = 0;
  written_ = 0;
  return Status::OK();
}

Status SpillWriter::Flush() {
  size_t off = 0;
  while (off < used_) {
    const ssize_t n = write(fd_, buf_.data() + off, used_ - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return SysError(path_, "write failed", errno);
    }
    off += static_cast<size_t>(n);
  }
  written_ += used_;
  used_ = 0;
  return Status::OK();
}

Status SpillWriter::Append(const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    if (used_ == buf_.size()) NEARDUP_RETURN_IF_ERROR(Flush());
    const size_t take = std::min(n, buf_.size() - used_);
    std::memcpy(buf_.data() + used_, p, take);
    used_ += take;
    p += take;
    n -= take;
  }
  return Status::OK();
}

Status SpillWriter::Close() {
  if (fd_ < 0) return Status::OK();
  Status s = Flush();
  if (close(fd_) != 0 && s.ok()) s = SysError(path_, "close failed", errno);
  fd_ = -1;
  std::vector<char>().swap(buf_);
  return s;
}

SpillReader::~SpillReader() {
  if (fd_ >= 0) close(fd_);
}

SpillReader::SpillReader(SpillReader&& o) noexcept { *this = std::move(o); }

SpillReader& SpillReader::operator=(SpillReader&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    path_ = std::move(o.path_);
    fd_ = std::exchange(o.fd_, -1);
    buf_ = std::move(o.buf_);
    pos_ = o.pos_;
    end_ = o.end_;
    eof_ = o.eof_;
    release_ = o.release_;
    offset_ = o.offset_;
    punched_ = o.punched_;
    limit_ = o.limit_;
  }
  return *this;
}

Status SpillReader::Open(const std::string& path, size_t buffer_bytes, bool release, uint64_t begin,
                         uint64_t end) {
  path_ = path;
  release_ = release && begin == 0;  // a window of a file is never released
  offset_ = punched_ = begin;
  limit_ = std::max(begin, end);
  fd_ = open(path.c_str(), (release ? O_RDWR : O_RDONLY) | O_CLOEXEC);
  if (fd_ < 0 && release) {  // read-only after all: keep the space until deleted
    release_ = false;
    fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (fd_ < 0) return SysError(path, "cannot open", errno);
  if (begin > 0 && lseek(fd_, static_cast<off_t>(begin), SEEK_SET) < 0) {
    return SysError(path, "cannot seek", errno);
  }
  posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  buf_.resize(std::max<size_t>(4096, buffer_bytes));
  pos_ = end_ = 0;
  eof_ = false;
  return Status::OK();
}

Status SpillReader::Fill() {
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  while (!eof_ && end_ < buf_.size()) {
    const size_t want = static_cast<size_t>(
        std::min<uint64_t>(buf_.size() - end_, limit_ - std::min(limit_, offset_)));
    if (want == 0) {
      eof_ = true;
      break;
    }
    const ssize_t n = read(fd_, buf_.data() + end_, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      return SysError(path_, "read failed", errno);
    }
    if (n == 0) eof_ = true;
    end_ += static_cast<size_t>(n);
    offset_ += static_cast<uint64_t>(n);
  }
  // What is in buf_ is no longer needed on disk.
  constexpr uint64_t kPunchEvery = 32 << 20;
  const uint64_t upto = offset_ / 4096 * 4096;
  if (release_ && upto - punched_ >= kPunchEvery) {
    if (fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(punched_),
                  static_cast<off_t>(upto - punched_)) == 0) {
      punched_ = upto;
    } else {
      release_ = false;  // not supported here
    }
  }
  return Status::OK();
}

Result<bool> SpillReader::Read(void* out, size_t n) {
  char* p = static_cast<char*>(out);
  size_t got = 0;
  while (got < n) {
    if (pos_ == end_) {
      NEARDUP_RETURN_IF_ERROR(Fill());
      if (pos_ == end_) {
        if (got == 0) return false;
        return Status::Corruption(path_ + ": truncated record");
      }
    }
    const size_t take = std::min(n - got, end_ - pos_);
    std::memcpy(p + got, buf_.data() + pos_, take);
    pos_ += take;
    got += take;
  }
  return true;
}

Result<std::span<const char>> SpillReader::NextBlock(size_t unit) {
  if (end_ - pos_ < unit) NEARDUP_RETURN_IF_ERROR(Fill());
  const size_t avail = end_ - pos_;
  if (avail == 0) return std::span<const char>();
  const size_t take = avail - avail % unit;
  if (take == 0) return Status::Corruption(path_ + ": truncated record");
  std::span<const char> out(buf_.data() + pos_, take);
  pos_ += take;
  return out;
}

uint64_t FileBytes(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

}  // namespace neardup::batch
