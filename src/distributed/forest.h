// SPDX-License-Identifier: Apache-2.0
//
// Forest: the parents of one rank's documents and the rounds of connected
// components over them, for Components (components.h states the
// algorithm, its bound and its cost; forest.cc the steps and the proof).
//
// Collectives (comm.h): every rank calls Round and Finish the same number
// of times. Thread safety: one thread per rank. Memory: 9 bytes per own
// document; during a round, scratch of up to about 40 bytes per own
// document in a tree of more than one, and about 80 bytes per edge of a
// slice: steps 1 and 2 take the edges a slice at a time (the slices'
// proposals meet on the roots' owners), so the per-edge scratch is bounded
// by the slice, not by the edges.
#ifndef NEARDUP_DISTRIBUTED_FOREST_H_
#define NEARDUP_DISTRIBUTED_FOREST_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "batch/pipeline.h"
#include "distributed/comm.h"
#include "distributed/components.h"
#include "distributed/ranges.h"

namespace neardup::distributed {

class Forest {
 public:
  // Every document its own tree (a star). Steps 1 and 2 of a round take
  // at most `slice` edges at a time (at least 1).
  Forest(Comm& c, const LineRanges& ranges, size_t slice = SIZE_MAX);

  // One round over the edges of `active` (edges not yet known to lie in
  // one tree; the others are dropped from it): 5 exchanges, 8 per slice of
  // each rank's edges (as many slices as the rank with the most edges has)
  // and 3 all-reduces. Returns the changes (hooks, parents moved) over all
  // ranks; 0 once every tree is a star and a whole component.
  uint64_t Round(std::vector<batch::Edge>* active);

  // After a round without changes: each document's label (the smallest
  // member of its tree) and its tree's size. 3 exchanges.
  Labels Finish();

  // What an end's owner tells: its parent and one bit (the end is in a
  // star; asked about a root: its star is stagnant).
  struct Answer {
    uint32_t parent, bit;
  };

 private:
  bool Root(uint32_t i) const { return parent_[i] == lo_ + i; }
  int Owner(uint32_t d) const { return ranges_.Owner(d); }

  // The owners' answers for `ids` (any order, repeats allowed; each
  // distinct id is sent once): `query` asks for the sorted distinct ids.
  template <typename T>
  std::vector<T> Fetch(const std::vector<uint32_t>& ids,
                       const std::function<std::vector<T>(std::span<const uint32_t>)>& query);
  // Fetch by Query, `answer` running on the owner with the own index.
  template <typename T>
  std::vector<T> Lookup(const std::vector<uint32_t>& ids, const std::function<T(uint32_t)>& answer);

  // Calls f(begin, end) for each slice of [0, n), as many times as the rank
  // with the most slices (empty ranges past n): every rank takes part in
  // each slice's collectives. 1 all-reduce.
  template <typename F>
  void InSlices(size_t n, F&& f) {
    const size_t slices = MaxAll(c_, n == 0 ? 0 : (n - 1) / slice_ + 1);
    for (size_t s = 0; s < slices; ++s) {
      const size_t begin = std::min(n, s * slice_);
      f(begin, std::min(n, begin + slice_));
    }
  }
  std::vector<uint32_t> HookStars(std::vector<batch::Edge>* active);
  uint64_t HookStagnant(const std::vector<batch::Edge>& active, const std::vector<uint32_t>& under);
  void HookStagnantSlice(std::span<const batch::Edge> edges);
  // Sends proposals (root << 32 | under) to the roots' owners, which keep
  // the smallest `under` per root. 1 exchange.
  void Propose(std::vector<uint64_t> hooks);
  // Hangs every own root under its smallest proposal; returns those
  // documents, one per root hung.
  std::vector<uint32_t> HangProposed();
  uint64_t ShortcutAndFindStars();

  Comm& c_;
  const LineRanges& ranges_;
  uint32_t lo_;
  size_t slice_;
  std::vector<uint32_t> parent_;
  std::vector<uint32_t> proposal_;  // per own root, this step's smallest
  std::vector<uint8_t> flags_;
};

}  // namespace neardup::distributed

#endif  // NEARDUP_DISTRIBUTED_FOREST_H_
