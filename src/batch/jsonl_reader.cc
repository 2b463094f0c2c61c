// SPDX-License-Identifier: Apache-2.0
//
// JsonlReader (include/neardup/jsonl.h): each file is read front to back
// with read(2) into one buffer that keeps simdjson's padding after the bytes
// read, so every line is parsed in place by batch::RecordParser, the parser
// of batch dedup. A line longer than half the buffer doubles it.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/status_macros.h"
#include "batch/jsonl.h"
#include "neardup/jsonl.h"

namespace neardup {
namespace {

constexpr size_t kPadding = 64;  // simdjson::SIMDJSON_PADDING
constexpr size_t kInitialBuffer = 256 << 10;

}  // namespace

struct JsonlReader::Impl {
  explicit Impl(JsonlOptions options) : parser(std::move(options)) {}
  ~Impl() { CloseFile(); }

  std::vector<std::string> files;
  batch::RecordParser parser;
  size_t next_file = 0;
  int fd = -1;  // the file being read; -1 between files
  std::string name;
  std::vector<char> buf;  // unread bytes [begin, end), then kPadding or more
  size_t begin = 0, end = 0;
  bool eof = false;
  uint64_t line = 0;  // lines of the current file so far
  Status failed;      // an I/O error ends the input
  uint64_t bytes_read = 0, total_bytes = 0;

  void CloseFile() {
    if (fd > STDIN_FILENO) close(fd);
    fd = -1;
  }

  Status OpenFile() {
    const std::string& f = files[next_file++];
    begin = end = 0;
    eof = false;
    line = 0;
    if (buf.empty()) buf.resize(kInitialBuffer);
    if (f == "-") {
      name = "<stdin>";
      fd = STDIN_FILENO;
      return Status::OK();
    }
    name = f;
    fd = open(f.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) return Status::OK();
    if (errno == ENOENT) return Status::NotFound(name + ": cannot open file");
    return Status::IOError(name + ": cannot open file: " + std::strerror(errno));
  }

  // Reads more bytes after `end`: the unread ones move to the front first,
  // and the buffer doubles when they fill half of it.
  Status Fill() {
    std::memmove(buf.data(), buf.data() + begin, end - begin);
    end -= begin;
    begin = 0;
    if (2 * end > buf.size() - kPadding) buf.resize(2 * buf.size());
    while (true) {
      const ssize_t n = read(fd, buf.data() + end, buf.size() - kPadding - end);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Status::IOError(name + ": read error: " + std::strerror(errno));
      eof = n == 0;
      end += static_cast<size_t>(n);
      bytes_read += static_cast<uint64_t>(n);
      return Status::OK();
    }
  }

  // The next line of the file (without its '\n'); false at the file's end.
  Result<bool> NextLine(std::string_view* out) {
    size_t searched = 0;  // bytes after `begin` known to hold no '\n'
    while (true) {
      const size_t left = end - begin - searched;
      const void* nl = left == 0 ? nullptr : std::memchr(buf.data() + begin + searched, '\n', left);
      if (nl == nullptr && !eof) {
        searched = end - begin;
        NEARDUP_RETURN_IF_ERROR(Fill());
        continue;
      }
      if (nl == nullptr && begin == end) return false;
      const size_t stop = nl == nullptr ? end : static_cast<const char*>(nl) - buf.data();
      *out = std::string_view(buf.data() + begin, stop - begin);
      begin = nl == nullptr ? end : stop + 1;
      ++line;
      return true;
    }
  }

  // The next record, or a bad record's error; false at the end of the input.
  Result<bool> Next(JsonlRecord* out) {
    while (true) {
      if (fd < 0) {
        if (next_file == files.size()) return false;
        NEARDUP_RETURN_IF_ERROR(OpenFile());
      }
      std::string_view text;
      NEARDUP_ASSIGN_OR_RETURN(const bool more, NextLine(&text));
      if (!more) {
        CloseFile();
        continue;
      }
      if (batch::IsBlankLine(text)) continue;
      batch::ParsedRecord rec;
      const size_t readable = buf.size() - static_cast<size_t>(text.data() - buf.data());
      // Several files: records without an id are named FILE:LINE.
      const std::string_view id_file = files.size() > 1 ? std::string_view(name) : "";
      if (Status s = parser.Parse(text, readable, {id_file, line}, &rec); !s.ok()) {
        return s.WithContext(name + ":" + std::to_string(line));
      }
      *out = JsonlRecord{name, line, rec.id_json, rec.text, text};
      return true;
    }
  }
};

JsonlReader::JsonlReader(std::vector<std::string> files, JsonlOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {
  if (files.empty()) files.push_back("-");
  for (const std::string& f : files) {
    struct stat st;
    if (f != "-" && stat(f.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      impl_->total_bytes += static_cast<uint64_t>(st.st_size);
    }
  }
  impl_->files = std::move(files);
}

JsonlReader::~JsonlReader() = default;

Result<bool> JsonlReader::Next(JsonlRecord* out) {
  Impl& m = *impl_;
  if (!m.failed.ok()) return m.failed;
  Result<bool> r = m.Next(out);
  if (!r.ok() && r.status().code() != StatusCode::kInvalidArgument) {
    m.CloseFile();
    m.failed = r.status();
  }
  return r;
}

uint64_t JsonlReader::bytes_read() const { return impl_->bytes_read; }
uint64_t JsonlReader::total_bytes() const { return impl_->total_bytes; }

}  // namespace neardup
