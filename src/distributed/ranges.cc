// SPDX-License-Identifier: Apache-2.0
#include "distributed/ranges.h"

#include <algorithm>

namespace neardup::distributed {

uint64_t Mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

namespace {

uint64_t Cut(uint64_t total, uint64_t r, uint64_t np) {
  return total / np * r + total % np * r / np;
}

}  // namespace

ByteRange OwnBytes(uint64_t total_bytes, int rank, int ranks) {
  const auto np = static_cast<uint64_t>(ranks), r = static_cast<uint64_t>(rank);
  ByteRange b;
  b.begin = Cut(total_bytes, r, np);
  b.end = r + 1 == np ? UINT64_MAX : Cut(total_bytes, r + 1, np);
  return b;
}

LineNumbering::LineNumbering(const std::vector<uint64_t>& counts, int ranks, size_t first_file,
                             uint64_t first_line)
    : corpus_(first_line) {
  const size_t files = counts.size() / static_cast<size_t>(ranks);
  file_first.assign(files, 0);
  file_lines.assign(files, 0);
  before.assign(counts.size(), 0);
  uint64_t line = first_line;
  for (size_t f = first_file; f < files; ++f) {
    file_first[f] = line;
    for (int r = 0; r < ranks; ++r) {
      const size_t at = static_cast<size_t>(r) * files + f;
      before[at] = file_lines[f];
      file_lines[f] += counts[at];
    }
    line += file_lines[f];
  }
  total = line;
  std::vector<uint32_t> bounds(static_cast<size_t>(ranks) + 1, 0);
  line = first_line;
  for (int r = 0; r < ranks; ++r) {
    if (r > 0) bounds[r] = static_cast<uint32_t>(line);
    for (size_t f = 0; f < files; ++f) line += counts[static_cast<size_t>(r) * files + f];
  }
  bounds[ranks] = static_cast<uint32_t>(line);
  ranges = LineRanges(std::move(bounds));
}

int LineRanges::Owner(uint32_t line) const {
  return static_cast<int>(std::upper_bound(bounds_.begin(), bounds_.end(), line) -
                          bounds_.begin()) -
         1;
}

}  // namespace neardup::distributed
