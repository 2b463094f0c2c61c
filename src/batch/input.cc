// SPDX-License-Identifier: Apache-2.0
#include "batch/input.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/status_macros.h"
#include "batch/spill_file.h"

namespace neardup::batch {
namespace {

// Bytes touched between MADV_DONTNEED: the most file pages the map holds
// above the budget (part of the documented fixed overhead, docs/batch.md).
// 256 MB let a 100 MB budget peak at 297 MB while the output phase read the
// input in order.
constexpr uint64_t kDropEvery = 24ull << 20;
constexpr uint64_t kFaultAround = 64 << 10;  // Linux's default fault_around_bytes

Status SysError(const std::string& name, std::string_view what, int err) {
  std::string m = name + ": " + std::string(what) + ": " + std::strerror(err);
  return err == ENOENT ? Status::NotFound(name + ": cannot open file") : Status::IOError(m);
}

Status Stat(InputFile* f) {
  struct stat st;
  if (stat(f->path.c_str(), &st) != 0) return SysError(f->name, "cannot open file", errno);
  if (S_ISDIR(st.st_mode)) return Status::IOError(f->name + ": is a directory");
  f->size = static_cast<uint64_t>(st.st_size);
  f->mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return Status::OK();
}

Status Spool(int in_fd, const std::string& path) {
  SpillWriter w;
  NEARDUP_RETURN_IF_ERROR(w.Open(path, 4 << 20));
  std::vector<char> buf(1 << 20);
  while (true) {
    const ssize_t n = read(in_fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return SysError("<stdin>", "read error", errno);
    }
    if (n == 0) break;
    NEARDUP_RETURN_IF_ERROR(w.Append(buf.data(), static_cast<size_t>(n)));
  }
  return w.Close();
}

}  // namespace

Result<std::vector<InputFile>> OpenInputs(const std::vector<std::string>& names, TempDir* tmp) {
  std::vector<std::string> list = names;
  if (list.empty()) list.push_back("-");
  std::vector<InputFile> files;
  bool spooled = false;
  for (const std::string& n : list) {
    InputFile f;
    if (n == "-") {
      if (spooled) return Status::InvalidArgument("standard input given twice");
      if (tmp == nullptr) return Status::Internal("stdin needs a temporary directory");
      f.name = "<stdin>";
      f.path = tmp->File("stdin.jsonl");
      NEARDUP_RETURN_IF_ERROR(Spool(STDIN_FILENO, f.path));
      spooled = true;
    } else {
      f.name = n;
      f.path = n;
    }
    NEARDUP_RETURN_IF_ERROR(Stat(&f));
    files.push_back(std::move(f));
  }
  return files;
}

uint64_t EstimateLines(const std::vector<InputFile>& files) {
  uint64_t total = 0;
  for (const InputFile& f : files) total += f.size;
  if (total == 0) return 0;
  std::vector<char> buf(1 << 20);
  const int fd = open(files[0].path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return total / 64;
  const ssize_t got = pread(fd, buf.data(), buf.size(), 0);
  close(fd);
  if (got <= 0) return total / 64;
  const auto newlines = static_cast<uint64_t>(std::count(buf.begin(), buf.begin() + got, '\n'));
  return std::max<uint64_t>(1,
                            total * std::max<uint64_t>(1, newlines) / static_cast<uint64_t>(got));
}

namespace {

// Calls fn(data, n) over bytes [begin, end) of a file, 1 MiB at a time.
template <typename Fn>
Status ScanBytes(const InputFile& f, uint64_t begin, uint64_t end, Fn fn) {
  const int fd = open(f.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return SysError(f.name, "cannot open file", errno);
  posix_fadvise(fd, static_cast<off_t>(begin), static_cast<off_t>(end - begin),
                POSIX_FADV_SEQUENTIAL);
  std::vector<char> buf(1 << 20);
  Status status;
  for (uint64_t at = begin; at < end;) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(buf.size(), end - at));
    const ssize_t n = pread(fd, buf.data(), want, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      status = n == 0 ? Status::IOError(f.name + ": file shrank while running")
                      : SysError(f.name, "read error", errno);
      break;
    }
    at += static_cast<uint64_t>(n);
    if (!fn(buf.data(), static_cast<size_t>(n))) break;
  }
  close(fd);
  return status;
}

}  // namespace

size_t FileAtByte(const std::vector<uint64_t>& file_base, uint64_t pos) {
  size_t f = 0;
  while (file_base[f + 1] <= pos) ++f;
  return f;
}

Result<uint64_t> LineStartAtOrAfter(const std::vector<InputFile>& files,
                                    const std::vector<uint64_t>& file_base, uint64_t pos) {
  const uint64_t total = file_base.back();
  if (pos >= total) return total;
  const size_t f = FileAtByte(file_base, pos);
  const uint64_t base = file_base[f];
  if (pos == base) return pos;
  // A line starts at pos when byte pos - 1 is a '\n'; else after the next.
  uint64_t found = files[f].size;
  uint64_t at = pos - 1 - base;
  NEARDUP_RETURN_IF_ERROR(ScanBytes(files[f], at, files[f].size, [&](const char* p, size_t n) {
    const void* nl = std::memchr(p, '\n', n);
    if (nl == nullptr) {
      at += n;
      return true;
    }
    found = at + static_cast<uint64_t>(static_cast<const char*>(nl) - p) + 1;
    return false;
  }));
  return base + found;  // the file's end is the next file's start
}

Result<std::vector<uint64_t>> CountLines(const std::vector<InputFile>& files,
                                         const std::vector<uint64_t>& file_base, uint64_t begin,
                                         uint64_t end) {
  std::vector<uint64_t> counts(files.size(), 0);
  for (size_t f = 0; f < files.size(); ++f) {
    const uint64_t lo = std::max(begin, file_base[f]), hi = std::min(end, file_base[f + 1]);
    if (lo >= hi) continue;
    // Both ends are line starts: a line per '\n', and one more for a last
    // line without one.
    char last = '\n';
    uint64_t n = 0;
    NEARDUP_RETURN_IF_ERROR(
        ScanBytes(files[f], lo - file_base[f], hi - file_base[f], [&](const char* p, size_t len) {
          n += static_cast<uint64_t>(std::count(p, p + len, '\n'));
          last = p[len - 1];
          return true;
        }));
    counts[f] = n + (last != '\n' ? 1 : 0);
  }
  return counts;
}

LineTable::LineTable(bool payloads)
    : payloads_(payloads), segments_(new std::unique_ptr<Segment>[kMaxSegments]) {}
LineTable::~LineTable() = default;

void LineTable::Append(uint64_t offset) {
  const uint64_t n = size_.load(std::memory_order_relaxed);
  NEARDUP_CHECK_MSG(n < (1ull << 31), "more than 2^31 input lines");
  if (segments_[n >> kShift] == nullptr) {
    auto s = std::make_unique<Segment>();
    s->offsets.reset(new uint64_t[kMask + 1]);
    s->states.reset(new uint8_t[kMask + 1]());
    if (payloads_) s->payloads.reset(new uint64_t[kMask + 1]());
    if (key_width_ > 0) {
      const size_t bytes = (kMask + 1) * key_width_;
      void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      NEARDUP_CHECK_MSG(p != MAP_FAILED, "cannot map the key bytes");
      (void)madvise(p, bytes, MADV_HUGEPAGE);  // fewer TLB misses; fine if refused
      s->key_bytes =
          std::unique_ptr<uint8_t, Segment::Unmap>(static_cast<uint8_t*>(p), Segment::Unmap{bytes});
    }
    segments_[n >> kShift] = std::move(s);
    segments_allocated_.fetch_add(1, std::memory_order_relaxed);
  }
  Seg(n)->offsets[n & kMask] = offset;
  size_.store(n + 1, std::memory_order_release);
}

void LineTable::StartAt(uint64_t line) {
  const uint64_t n = size_.load(std::memory_order_relaxed);
  NEARDUP_CHECK_MSG(line >= n && line < (1ull << 31), "a line table cannot skip back");
  NEARDUP_CHECK_MSG(gap_begin_ == UINT64_MAX, "a line table skips once");
  gap_begin_ = n;
  gap_end_ = line;
  size_.store(line, std::memory_order_release);
}

const LineTable::Remote& LineTable::RemoteOf(uint64_t line) const {
  const auto it = remote_.find(line);
  NEARDUP_CHECK_MSG(it != remote_.end(), "the state of another rank's line was never received");
  return it->second;
}

LineTable::Remote& LineTable::RemoteAt(uint64_t line) {
  const auto [it, inserted] = remote_.try_emplace(line);
  if (inserted) remote_count_.fetch_add(1, std::memory_order_relaxed);
  return it->second;
}

void LineTable::Segment::Unmap::operator()(uint8_t* p) const { munmap(p, bytes); }

void LineTable::EnableKeyBytes(size_t width) {
  NEARDUP_CHECK_MSG(size() == 0, "key bytes enabled after the first line");
  NEARDUP_CHECK_MSG(width % 8 == 0 && width <= kMaxKeyBytes, "bad key-byte width");
  key_width_ = width;
}

void LineTable::ReleaseKeyBytes() {
  const uint64_t segs = (size() + kMask) >> kShift;
  for (uint64_t i = 0; i < segs; ++i) {
    if (segments_[i] != nullptr) segments_[i]->key_bytes.reset();
  }
  key_width_ = 0;
}

size_t LineTable::MemoryBytes() const {
  const uint64_t allocated = segments_allocated_.load(std::memory_order_relaxed);
  // A side-table entry: the node (key, value, next pointer, hash) and its
  // bucket pointer.
  constexpr size_t kRemoteBytes = 48;
  return allocated * (kMask + 1) * BytesPerLine() + remote_lines() * kRemoteBytes;
}

ChunkReader::ChunkReader(std::vector<InputFile>* files, LineTable* lines, size_t chunk_bytes,
                         size_t first_file)
    : files_(files),
      lines_(lines),
      chunk_bytes_(std::max<size_t>(chunk_bytes, 4096)),
      file_(first_file) {
  for (size_t i = first_file; i < files_->size(); ++i) total_bytes_ += (*files_)[i].size;
}

ChunkReader::ChunkReader(std::vector<InputFile>* files, LineTable* lines, size_t chunk_bytes,
                         const LineSpan& span, const std::vector<uint64_t>& file_base)
    : files_(files),
      lines_(lines),
      chunk_bytes_(std::max<size_t>(chunk_bytes, 4096)),
      file_(files->size()),
      ranged_(true),
      span_(span),
      file_base_(file_base) {
  total_bytes_ = span.end - span.begin;
  if (span.begin >= span.end) return;
  file_ = FileAtByte(file_base_, span.begin);
  lines_->StartAt(span.first_line);
}

ChunkReader::~ChunkReader() {
  if (fd_ >= 0) close(fd_);
}

Status ChunkReader::OpenFile() {
  InputFile& f = (*files_)[file_];
  fd_ = open(f.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return SysError(f.name, "cannot open file", errno);
  posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  offset_ = 0;
  line_in_file_ = 1;
  stop_ = UINT64_MAX;
  if (ranged_) {
    const uint64_t base = file_base_[file_];
    if (span_.begin > base) {
      offset_ = span_.begin - base;
      line_in_file_ = span_.first_line_in_file;
    }
    stop_ = std::min<uint64_t>(f.size, span_.end - base);
  } else {
    f.first_line = lines_->size();
  }
  read_at_ = offset_;
  carry_.clear();
  eof_ = false;
  return Status::OK();
}

// After the current file's last line: the next file, or none after a span.
void ChunkReader::NextFile() {
  close(fd_);
  fd_ = -1;
  InputFile& f = (*files_)[file_];
  if (!ranged_) {
    f.lines = lines_->size() - f.first_line;
  } else if (stop_ < f.size) {
    lines_->set_tail_offset(stop_);  // the span ends inside this file
  }
  ++file_;
  if (ranged_ && file_ < files_->size() && file_base_[file_] >= span_.end) file_ = files_->size();
}

Result<bool> ChunkReader::Next(Chunk* c) {
  while (file_ < files_->size()) {
    if (fd_ < 0) NEARDUP_RETURN_IF_ERROR(OpenFile());
    InputFile& f = (*files_)[file_];
    // Start with the carried partial line, then read until a line ends.
    size_t want = std::max(chunk_bytes_, carry_.size() * 2);
    if (c->buf.size() < want + kPadding) c->buf.resize(want + kPadding);
    std::memcpy(c->buf.data(), carry_.data(), carry_.size());
    size_t used = carry_.size();
    size_t whole = 0;
    while (true) {
      while (!eof_ && used < want) {
        const size_t room = static_cast<size_t>(std::min<uint64_t>(want - used, stop_ - read_at_));
        const ssize_t n =
            room == 0 ? 0 : pread(fd_, c->buf.data() + used, room, static_cast<off_t>(read_at_));
        if (n < 0) {
          if (errno == EINTR) continue;
          return SysError(f.name, "read error", errno);
        }
        if (n == 0) eof_ = true;
        used += static_cast<size_t>(n);
        read_at_ += static_cast<uint64_t>(n);
        bytes_read_.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
      }
      const void* nl = used == 0 ? nullptr : memrchr(c->buf.data(), '\n', used);
      if (nl != nullptr) {
        whole = static_cast<const char*>(nl) - c->buf.data() + 1;
        break;
      }
      if (eof_) {
        whole = used;  // a last line without '\n', or nothing
        break;
      }
      want *= 2;  // one line longer than the chunk
      c->buf.resize(want + kPadding);
    }
    carry_.assign(c->buf.data() + whole, used - whole);
    std::memset(c->buf.data() + whole, 0, kPadding);  // padding after the lines
    if (whole == 0) {
      NextFile();
      continue;
    }
    c->size = whole;
    c->file = static_cast<uint32_t>(file_);
    c->file_offset = offset_;
    c->first_line = lines_->size();
    c->first_line_in_file = line_in_file_;
    c->seq = seq_++;
    uint64_t n = 0;
    for (size_t pos = 0; pos < whole;) {
      lines_->Append(offset_ + pos);
      ++n;
      const void* e = std::memchr(c->buf.data() + pos, '\n', whole - pos);
      pos = e == nullptr ? whole : static_cast<const char*>(e) - c->buf.data() + 1;
    }
    c->lines = n;
    line_in_file_ += n;
    offset_ += whole;
    return true;
  }
  return false;
}

InputTexts::~InputTexts() {
  for (size_t i = 0; i < maps_.size(); ++i) {
    if (maps_[i] != nullptr) munmap(const_cast<char*>(maps_[i]), (*files_)[i].size);
  }
  for (int fd : fds_) {
    if (fd >= 0) close(fd);
  }
}

InputTexts::Extent InputTexts::ExtentOf(uint64_t line) const {
  Extent e;
  e.file = FileOf(line);
  const InputFile& f = (*files_)[e.file];
  e.begin = lines_->offset(line);
  if (line + 1 >= f.first_line + f.lines) {
    e.end = f.size;
  } else {  // the next rank's line when this rank's lines end here
    e.end = line + 1 < lines_->size() ? lines_->offset(line + 1) : lines_->tail_offset();
  }
  return e;
}

Status InputTexts::ReadBytes(uint32_t file, uint64_t offset, size_t len, char* dst) const {
  const InputFile& f = (*files_)[file];
  size_t got = 0;
  while (got < len) {
    const ssize_t n = pread(fds_[file], dst + got, len - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return SysError(f.name, "cannot read", errno);
    if (n == 0) return Status::IOError(f.name + ": file shrank while running");
    got += static_cast<size_t>(n);
  }
  return Status::OK();
}

Status ReadLine(const LineSource& source, uint64_t line, std::string* buf, LineSource::Line* out) {
  const LineSource::Extent e = source.ExtentOf(line);
  out->file = e.file;
  const size_t len = e.end - e.begin;
  buf->resize(len + ChunkReader::kPadding);
  if (len > 0) NEARDUP_RETURN_IF_ERROR(source.ReadBytes(e.file, e.begin, len, buf->data()));
  const size_t text_len = len > 0 && (*buf)[len - 1] == '\n' ? len - 1 : len;
  out->text = std::string_view(buf->data(), text_len);
  out->readable = buf->size();
  out->line_in_file = source.LineInFile(line);
  return Status::OK();
}

Status InputTexts::Read(uint64_t line, std::string* buf, Line* out) const {
  return ReadLine(*this, line, buf, out);
}

Status InputTexts::Open(const std::vector<InputFile>* files, const LineTable* lines) {
  files_ = files;
  lines_ = lines;
  for (const InputFile& f : *files) {
    if (f.size == 0) {
      maps_.push_back(nullptr);
      fds_.push_back(-1);
      continue;
    }
    const int fd = open(f.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return SysError(f.name, "cannot open file", errno);
    fds_.push_back(fd);
    void* p = mmap(nullptr, f.size, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) return SysError(f.name, "cannot map file", errno);
    maps_.push_back(static_cast<const char*>(p));
  }
  return Status::OK();
}

uint32_t InputTexts::FileOf(uint64_t line) const {
  uint32_t f = 0;
  while (f + 1 < files_->size() && (*files_)[f + 1].first_line <= line) ++f;
  return f;
}

void InputTexts::Touch(size_t bytes) const {
  const uint64_t before = touched_.fetch_add(bytes, std::memory_order_relaxed);
  if (before / kDropEvery == (before + bytes) / kDropEvery) return;
  for (size_t i = 0; i < maps_.size(); ++i) {
    if (maps_[i] != nullptr) madvise(const_cast<char*>(maps_[i]), (*files_)[i].size, MADV_DONTNEED);
  }
}

InputTexts::Line InputTexts::Get(uint64_t line, bool in_order) const {
  const Extent e = ExtentOf(line);
  const uint64_t begin = e.begin;
  uint64_t end = e.end;
  Line out;
  out.file = e.file;
  const char* base = maps_[out.file];
  if (end > begin && base[end - 1] == '\n') --end;
  out.text = std::string_view(base + begin, end - begin);
  out.readable = (*files_)[out.file].size - begin;
  out.line_in_file = LineInFile(line, out.file);
  // A random read fault maps every cached page of its 64 KB window (the
  // kernel's fault-around), so count that much: counting one page let 2.7 GB
  // of file pages stay mapped in a 2 GB run. Reads in order map each window
  // once.
  Touch(in_order ? end - begin + 1 : std::max<uint64_t>(end - begin + 1, kFaultAround));
  return out;
}

}  // namespace neardup::batch
