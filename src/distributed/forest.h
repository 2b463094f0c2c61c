// SPDX-License-Identifier: Apache-2.0
//
// Forest: the parents of one rank's documents and the rounds of connected
// components over them, for Components (components.h states the
// algorithm, its bound and its cost; forest.cc the steps and the proof).
//
// Collectives (comm.h): every rank calls Round and Finish the same number
// of times. Thread safety: one thread per rank. Memory: 5 bytes per own
// document; during a round, scratch of up to about 40 bytes per own
// document in a tree of more than one and 80 per edge still in play.
#ifndef NEARDUP_DISTRIBUTED_FOREST_H_
#define NEARDUP_DISTRIBUTED_FOREST_H_

#include <array>
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
  // Every document its own tree (a star).
  Forest(Comm& c, const LineRanges& ranges);

  // One round over the edges of `active` (edges not yet known to lie in
  // one tree; the others are dropped from it): 10 exchanges and an
  // all-reduce. Returns the changes (hooks, parents moved) over all ranks;
  // 0 once every tree is a star and a whole component.
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

  std::vector<uint32_t> HookStars(std::vector<batch::Edge>* active,
                                  std::vector<std::array<Answer, 2>>* ends);
  uint64_t HookStagnant(const std::vector<batch::Edge>& active,
                        const std::vector<std::array<Answer, 2>>& ends,
                        const std::vector<uint32_t>& under);
  std::vector<uint32_t> Hook(std::vector<uint64_t> hooks);
  uint64_t ShortcutAndFindStars();

  Comm& c_;
  const LineRanges& ranges_;
  uint32_t lo_;
  std::vector<uint32_t> parent_;
  std::vector<uint8_t> flags_;
};

}  // namespace neardup::distributed

#endif  // NEARDUP_DISTRIBUTED_FOREST_H_
