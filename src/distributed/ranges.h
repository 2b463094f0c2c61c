// SPDX-License-Identifier: Apache-2.0
//
// Who owns what in a distributed run.
//
//   Lines: rank r owns the lines that start in bytes [T*r/N, T*(r+1)/N) of
//   the input files taken as one stream (T bytes, N ranks), so a rank's
//   lines are a contiguous run of line ids [begin(r), end(r)) and no line is
//   split. Document ids stay the global line numbers, numbered from every
//   rank's count of its own lines (LineNumbering).
//   Keys: a bucket key belongs to rank Mix(key) mod N (all entries of a key
//   meet on one rank).
//
// Thread safety: immutable after construction.
#ifndef NEARDUP_DISTRIBUTED_RANGES_H_
#define NEARDUP_DISTRIBUTED_RANGES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace neardup::distributed {

// splitmix64's finalizer: spreads keys (and component roots) over ranks.
uint64_t Mix(uint64_t x);
inline int KeyOwner(uint64_t key, int ranks) {
  return static_cast<int>(Mix(key) % static_cast<uint64_t>(ranks));
}

// The input bytes rank `rank` sketches: [begin, end); the last rank's end is
// UINT64_MAX.
struct ByteRange {
  uint64_t begin = 0, end = UINT64_MAX;
};
ByteRange OwnBytes(uint64_t total_bytes, int rank, int ranks);

class LineRanges {
 public:
  LineRanges() = default;
  // Given bounds: rank r owns [bounds[r], bounds[r+1]) (LineNumbering
  // computes them from the ranks' line counts).
  explicit LineRanges(std::vector<uint32_t> bounds) : bounds_(std::move(bounds)) {}

  int ranks() const { return static_cast<int>(bounds_.size()) - 1; }
  uint32_t begin(int rank) const { return bounds_[rank]; }
  uint32_t end(int rank) const { return bounds_[rank + 1]; }
  // The rank owning a line. O(log N).
  int Owner(uint32_t line) const;

 private:
  std::vector<uint32_t> bounds_;  // first line of each rank; bounds_[N] = lines
};

// Line ids from every rank's count of the lines starting in its bytes of
// each file (`counts[r * files + f]`, all-gathered). The files before
// `first_file` (an index's corpus) hold `first_line` lines, rank 0's. O(N x
// files).
struct LineNumbering {
  LineNumbering(const std::vector<uint64_t>& counts, int ranks, size_t first_file,
                uint64_t first_line);
  LineRanges ranges;                 // rank 0 also owns [0, first_line)
  uint64_t total = 0;                // lines in all
  std::vector<uint64_t> file_first;  // per file: its first line (0 before first_file)
  std::vector<uint64_t> file_lines;  // per file: its lines (0 before first_file)
  std::vector<uint64_t> before;      // [r * files + f]: f's lines on ranks before r
  // The first line of `rank`'s bytes (rank 0: after the corpus's).
  uint64_t first(int rank) const { return rank == 0 ? corpus_ : ranges.begin(rank); }

 private:
  uint64_t corpus_ = 0;
};

}  // namespace neardup::distributed

#endif  // NEARDUP_DISTRIBUTED_RANGES_H_
