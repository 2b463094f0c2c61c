// SPDX-License-Identifier: Apache-2.0
//
// LineSource: where the bytes of input line i are, and how to read them.
// Verification reads its texts through one (LineBlock, verify_phase.cc):
// a single process from the input files (InputTexts), an MPI rank from the
// input files for its own lines and from a file of records fetched from
// other ranks for the rest (distributed/fetch.h). A source is a set of
// files; a line is a byte extent of one of them, its '\n' included.
//
// Thread safety: implementations are read-only after set-up; every method
// may be called from several threads.
#ifndef NEARDUP_BATCH_LINE_SOURCE_H_
#define NEARDUP_BATCH_LINE_SOURCE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "neardup/status.h"

namespace neardup::batch {

class LineSource {
 public:
  // Where a line's bytes are: [begin, end) of the source's file `file`,
  // its '\n' included.
  struct Extent {
    uint32_t file = 0;
    uint64_t begin = 0, end = 0;
  };
  // A line read into memory.
  struct Line {
    std::string_view text;      // without '\n'
    size_t readable = 0;        // bytes readable from text.data()
    uint32_t file = 0;          // the source's file it was read from
    uint64_t line_in_file = 0;  // 1-based, in its input file
  };

  virtual ~LineSource() = default;
  virtual Extent ExtentOf(uint64_t line) const = 0;
  // `len` bytes at `offset` of the source's file `file` into dst.
  // Errors: IOError naming the file.
  virtual Status ReadBytes(uint32_t file, uint64_t offset, size_t len, char* dst) const = 0;
  // The 1-based number of `line` in its input file (the id of a record
  // without one).
  virtual uint64_t LineInFile(uint64_t line) const = 0;
};

// Reads `line` of `source` into *buf (its text, then at least
// ChunkReader::kPadding readable bytes) and describes it in *out, which
// points into *buf. One pread(2) (ReadBytes). Errors: ReadBytes'.
Status ReadLine(const LineSource& source, uint64_t line, std::string* buf, LineSource::Line* out);

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_LINE_SOURCE_H_
