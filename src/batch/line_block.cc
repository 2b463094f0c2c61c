// SPDX-License-Identifier: Apache-2.0
#include "batch/line_block.h"

#include <algorithm>
#include <cstring>

#include "base/huge_pages.h"
#include "base/status_macros.h"

namespace neardup::batch {

void LineBlock::Clear() {
  lines_.clear();
  pos_.clear();
  spans_.clear();
  bytes_ = 0;
}

size_t LineBlock::Add(const LineSource& source, uint64_t line) {
  NEARDUP_CHECK(lines_.empty() || line > lines_.back());
  NEARDUP_CHECK(line < kMaxDocs);
  const LineSource::Extent e = source.ExtentOf(line);
  if (!spans_.empty() && spans_.back().file == e.file && e.begin >= spans_.back().end &&
      e.begin - spans_.back().end <= max_gap_) {
    Span& s = spans_.back();
    bytes_ += e.end - s.end;
    s.end = e.end;
  } else {
    spans_.push_back({e.file, e.begin, e.end, bytes_});
    bytes_ += e.end - e.begin;
  }
  const Span& s = spans_.back();
  lines_.push_back(static_cast<uint32_t>(line));
  pos_.push_back(s.pos + (e.begin - s.begin));
  return lines_.size() - 1;
}

Status LineBlock::Load(const LineSource& source) {
  if (!buf_ || bytes_ > capacity_) {
    // Grows by at least half: each new buffer is fresh memory, paid for in
    // page faults when first read into.
    buf_.reset();
    capacity_ = std::max<uint64_t>(bytes_, capacity_ + capacity_ / 2);
    buf_ = std::make_unique_for_overwrite<char[]>(capacity_ + ChunkReader::kPadding);
    base::AdviseHugePages(buf_.get(), capacity_ + ChunkReader::kPadding);
  }
  for (const Span& s : spans_) {
    NEARDUP_RETURN_IF_ERROR(source.ReadBytes(s.file, s.begin, s.end - s.begin, buf_.get() + s.pos));
  }
  std::memset(buf_.get() + bytes_, 0, ChunkReader::kPadding);
  return Status::OK();
}

LineSource::Line LineBlock::Get(const LineSource& source, size_t i) const {
  const LineSource::Extent e = source.ExtentOf(lines_[i]);
  const char* p = buf_.get() + pos_[i];
  size_t len = e.end - e.begin;
  if (len > 0 && p[len - 1] == '\n') --len;
  LineSource::Line out;
  out.text = std::string_view(p, len);
  out.readable = bytes_ + ChunkReader::kPadding - pos_[i];
  out.file = e.file;
  out.line_in_file = source.LineInFile(lines_[i]);
  return out;
}

}  // namespace neardup::batch
