// SPDX-License-Identifier: Apache-2.0
//
// LineBlock: the texts of a set of input lines, read into memory with a few
// large pread(2) calls instead of one random read per line. Lines are added
// in increasing id order; consecutive lines of one file whose bytes lie at
// most `max_gap` apart share one span (the gap is read and ignored), so a
// dense run of lines costs one sequential read and a sparse one a read per
// line. Verification (verify_phase.cc) reads the `a` texts of a range of
// pairs a chunk at a time, and the `b` texts of each batch, this way, from
// any LineSource (the input files, or an MPI rank's fetched records).
//
// Memory: the bytes of the spans (bytes()) plus kPadding, and 12 bytes per
// line. Thread safety: one thread per block; Get() is const and may be
// called from several threads after Load().
#ifndef NEARDUP_BATCH_LINE_BLOCK_H_
#define NEARDUP_BATCH_LINE_BLOCK_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "batch/input.h"
#include "batch/line_source.h"
#include "batch/records.h"
#include "neardup/status.h"

namespace neardup::batch {

class LineBlock {
 public:
  explicit LineBlock(uint64_t max_gap) : max_gap_(max_gap) {}

  // Forgets the lines (keeps the buffer for the next Load()).
  void Clear();
  // Adds `line`, which must be greater than every line added since Clear(),
  // and returns its index (0, 1, ...). O(files).
  size_t Add(const LineSource& source, uint64_t line);
  size_t size() const { return lines_.size(); }
  uint64_t line(size_t i) const { return lines_[i]; }
  // The bytes Load() reads (gaps inside spans included).
  uint64_t bytes() const { return bytes_; }

  // Reads every span. Errors: IOError naming the file.
  Status Load(const LineSource& source);
  // The line of index i (after Load()): its text without '\n', readable up
  // to the end of the buffer's padding.
  LineSource::Line Get(const LineSource& source, size_t i) const;

 private:
  struct Span {
    uint32_t file;        // of the source
    uint64_t begin, end;  // file offsets
    uint64_t pos;         // where the span starts in the buffer
  };
  uint64_t max_gap_;
  std::vector<uint32_t> lines_;
  std::vector<uint64_t> pos_;  // each line's start in the buffer
  std::vector<Span> spans_;
  uint64_t bytes_ = 0;
  std::unique_ptr<char[]> buf_;
  uint64_t capacity_ = 0;  // of buf_, padding excluded
};

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_LINE_BLOCK_H_
