// SPDX-License-Identifier: Apache-2.0
//
// Who owns what in a distributed run.
//
//   Lines: rank r owns the lines that start in bytes [T*r/N, T*(r+1)/N) of
//   the input files taken as one stream (T bytes, N ranks), so a rank's
//   lines are a contiguous run of line ids [begin(r), end(r)) and no line is
//   split. Document ids stay the global line numbers.
//   Keys: a bucket key belongs to rank Mix(key) mod N (all entries of a key
//   meet on one rank).
//
// Thread safety: immutable after construction.
#ifndef NEARDUP_DISTRIBUTED_RANGES_H_
#define NEARDUP_DISTRIBUTED_RANGES_H_

#include <cstdint>
#include <functional>
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
  // From the start of each of `lines` lines in the input stream
  // (`global_start`, increasing) and its total size. O(N log lines).
  LineRanges(int ranks, uint64_t total_bytes, uint64_t lines,
             const std::function<uint64_t(uint64_t)>& global_start);
  // Given bounds: rank r owns [bounds[r], bounds[r+1]).
  explicit LineRanges(std::vector<uint32_t> bounds) : bounds_(std::move(bounds)) {}

  int ranks() const { return static_cast<int>(bounds_.size()) - 1; }
  uint32_t begin(int rank) const { return bounds_[rank]; }
  uint32_t end(int rank) const { return bounds_[rank + 1]; }
  // The rank owning a line. O(log N).
  int Owner(uint32_t line) const;

 private:
  std::vector<uint32_t> bounds_;  // first line of each rank; bounds_[N] = lines
};

}  // namespace neardup::distributed

#endif  // NEARDUP_DISTRIBUTED_RANGES_H_
