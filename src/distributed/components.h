// SPDX-License-Identifier: Apache-2.0
//
// Clusters over ranks: connected components of the verified edges, then
// the canonical cap (docs/batch.md) for the components over it.
//
// Components: every rank holds the parent p of its own documents (a forest,
// every document its own tree at first) and runs rounds of Shiloach and
// Vishkin, "An O(log n) parallel connectivity algorithm" (J. Algorithms
// 3(1), 1982), hooking whole stars as Awerbuch and Shiloach do (IEEE Trans.
// Computers 36(10), 1987). A round: (1) the root r of each star (a tree of
// height <= 1) hangs under the smallest p[v] < r over the star's edges
// (u, v); (2) each stagnant star (one that (1) neither hung nor hung
// anything under) hangs under the smallest p[v] over its edges to other
// trees; (3) every parent jumps once to its grandparent, which also tells
// which trees are stars now. The rounds end with one that changes nothing;
// then each document is labelled with the smallest member of its tree
// (forest.cc has the steps and the proof of the bound).
//
// Bound: at most floor(log_{3/2} s) + 2 rounds, s the size of the largest
// component (36 for a million documents; a chain of a million links takes
// 21, a 1000 x 1000 grid 12). A round is 5 all-to-alls (Exchange), 8 more
// per slice of at most `slice` edges (as many slices as the rank with the
// most edges still in play needs), and 3 all-reduces; the labels take 3
// more all-to-alls. No rank holds more than its edges, its documents'
// parents, flags and proposals and, during a round, per-document scratch
// and the scratch of one slice of edges (forest.h), plus O(N) counters.
//
// The cap: edges of components over the cap go to rank Mix(root) mod N,
// which replays them through the batch ClusterBuilder over the documents
// renumbered in order (so a < b and the canonical edge order survive) and
// sends each document's (root, size) back to its owner. The result is the
// single process's clusters exactly.
//
// Collectives (comm.h): every rank calls them, in the same order.
//
// Thread safety: one thread per rank. Memory: its edges, its documents'
// parents, proposals, flags and labels (17 bytes each), the scratch of a
// round, O(N) counters.
#ifndef NEARDUP_DISTRIBUTED_COMPONENTS_H_
#define NEARDUP_DISTRIBUTED_COMPONENTS_H_

#include <cstdint>
#include <vector>

#include "batch/pipeline.h"
#include "distributed/comm.h"
#include "distributed/ranges.h"

namespace neardup::distributed {

// Per document of this rank (ranges.begin(rank) + i): its cluster's root
// (a member) and the cluster's size.
struct Labels {
  std::vector<uint32_t> root, size;
};

// The connected components of the union of every rank's `edges` (any rank
// may hold any edge; taken by value: the rounds drop the edges found inside
// one tree, so a caller that needs them no more moves them in); labels of
// this rank's documents, roots the smallest member. Adds the rounds
// (above) to *rounds: the same on every rank, for any number of ranks and
// any slice.
Labels Components(Comm& c, const LineRanges& ranges, std::vector<batch::Edge> edges,
                  uint64_t* rounds, size_t slice = SIZE_MAX);

struct CapStats {
  uint64_t oversized_components = 0, refused_by_cap = 0;
};

// The containment guard (batch::ChooseContained) over ranks: every rank's
// `contained` edges (records.h IsContained) go to every rank (they are few:
// about one an excerpt), with the labels of their records from the owners;
// every rank chooses the same edges, and *labels become the components of
// the former components joined by them (Components again, over each
// record's edge to its root). Returns the chosen edges, with the
// similarity they report (the cap replays them). Collective.
std::vector<batch::Edge> JoinContained(Comm& c, const LineRanges& ranges,
                                       const std::vector<batch::Edge>& contained, Labels* labels,
                                       uint64_t* rounds, size_t slice = SIZE_MAX);

// Applies the cap (> 0) to the components of *labels (from Components over
// the same edges); `tmp` and `sort_bytes` as for batch::ClusterBuilder.
// Errors: the builder's (IOError); every rank still takes part.
Status Cap(Comm& c, const LineRanges& ranges, const std::vector<batch::Edge>& edges, uint64_t cap,
           batch::TempDir* tmp, uint64_t sort_bytes, Labels* labels, CapStats* stats);

}  // namespace neardup::distributed

#endif  // NEARDUP_DISTRIBUTED_COMPONENTS_H_
