// SPDX-License-Identifier: Apache-2.0
//
// Table layouts for the exact Hamming index and the cost model that picks one.
//
// A Design splits the 64 fingerprint bits into m contiguous blocks and the
// blocks into groups. Every t-subset of blocks inside a group keys one table
// (Manku, Jain, Das Sarma, WWW 2007, generalised). A query probes each table
// with every key within Hamming radius r_g of its own key (multi-index hashing,
// Norouzi, Punjani, Fleet, CVPR 2012). With e_b the differing bits in block b,
// a fingerprint is found by a table iff the sum of e_b over its key blocks is
// at most r_g. The adversary must spend, per group of s blocks,
// (r+1) + (s-t) * ceil((r+1)/t) bits to defeat every t-subset of it, so the
// design is exact for distance k iff the sum of those costs over the groups
// exceeds k. Radii are chosen per query distance, so smaller k probe less.
//
// Special cases: g = m, t = 1 is multi-index hashing; g = 1, t = 1, m = k+1 is
// the plain pigeonhole; g = 1, t = m-k is Manku's permuted tables. A design
// with no tables is a linear scan.
//
// Thread safety: Design is an immutable value after construction.
#ifndef NEARDUP_INDEX_DESIGN_H_
#define NEARDUP_INDEX_DESIGN_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "index/hamming_index.h"

namespace neardup::index {

// A bit permutation built from contiguous segments: each moves `width` bits
// from bit `src` to bit `dst`. Apply() costs one shift/and/or per segment.
struct BitPermutation {
  struct Segment {
    uint8_t src, dst;
    uint64_t mask;  // (1 << width) - 1
  };
  std::vector<Segment> segments;

  uint64_t Apply(uint64_t x) const {
    uint64_t r = 0;
    for (const Segment& s : segments) r |= ((x >> s.src) & s.mask) << s.dst;
    return r;
  }
  BitPermutation Inverse() const;
};

struct TableSpec {
  int group = 0;             // which group's radius applies
  int key_bits = 0;          // bits of the key, placed at the top of the permuted value
  uint64_t key_mask = 0;     // the key bits in original fingerprint positions
  BitPermutation permute;    // original -> permuted (key blocks first, then the rest)
  BitPermutation unpermute;  // permuted -> original
};

class Design {
 public:
  static Design Linear();
  // Blocks of near-equal width, groups of near-equal size. Returns a linear
  // design when the parameters are inconsistent (see Valid()).
  static Design Make(int blocks, int groups, int key_blocks);
  static bool Valid(int blocks, int groups, int key_blocks);

  bool linear() const { return tables_.empty(); }
  const std::vector<TableSpec>& tables() const { return tables_; }
  int num_groups() const { return num_groups_; }

  // Radius per group for query distance k; -1 means the group's tables are
  // not probed. Exact for every k >= 0 (radii grow as needed).
  std::vector<int> Radii(int k) const;

  std::string ToString() const;  // "m=6 g=2 t=2 tables=6" or "linear"

 private:
  int blocks_ = 0, key_blocks_ = 0, num_groups_ = 0;
  std::vector<int> group_size_;
  std::vector<TableSpec> tables_;
};

// Directory bits for a table with `key_bits` key bits holding n entries.
int DirectoryBits(size_t n, int key_bits);

// Estimated query cost (nanoseconds) and memory (bytes per stored document,
// excluding the index-wide 12 bytes per slot) of a design for n entries.
struct CostEstimate {
  double ns_per_query = 0;
  double bytes_per_doc = 0;
  double candidates = 0;
  double probes = 0;
};
CostEstimate Estimate(const Design& design, size_t n, int k);

// The cheapest design for n entries at distance k whose memory (including the
// 12 bytes per slot kept by the index) fits `budget_bytes_per_doc`; a linear
// scan when nothing fits or the scan is cheapest. `override` wins when set.
Design ChooseDesign(size_t n, int k, double budget_bytes_per_doc, const HammingLayout& override);

// Bytes per slot kept by the index outside the runs (fingerprint + run id).
inline constexpr double kSlotBytes = 12;

}  // namespace neardup::index

#endif  // NEARDUP_INDEX_DESIGN_H_
