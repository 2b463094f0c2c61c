// SPDX-License-Identifier: Apache-2.0
//
// Clusters over ranks: connected components of the verified edges, then
// the canonical cap (docs/batch.md) for the components over it.
//
// Components: every rank holds the parent of its own documents (a forest,
// every document its own root at first). A round looks up the roots of the
// ends of the edges not yet inside one tree (Query), hooks each larger root
// under the smallest root it meets (a root's parent only decreases, so the
// forest has no cycles, and a component ends rooted at its smallest
// document), then jumps pointers (parent = parent[parent], by lookups)
// until every tree is a star. This is the hooking and pointer jumping of
// Shiloach and Vishkin, "An O(log n) parallel connectivity algorithm"
// (J. Algorithms 3, 1982), without their stagnant-star rule: few rounds on
// near-duplicate graphs, at most a chain's length in the worst case. No rank
// holds more than its edges, its documents' parents and O(N) counters.
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
// parents and labels (12 bytes each), O(N) counters.
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
// may hold any edge); labels of this rank's documents, roots the smallest
// member. Adds the hooking rounds to *rounds.
Labels Components(Comm& c, const LineRanges& ranges, const std::vector<batch::Edge>& edges,
                  uint64_t* rounds);

struct CapStats {
  uint64_t oversized_components = 0, refused_by_cap = 0;
};

// Applies the cap (> 0) to the components of *labels (from Components over
// the same edges); `tmp` and `sort_bytes` as for batch::ClusterBuilder.
// Errors: the builder's (IOError); every rank still takes part.
Status Cap(Comm& c, const LineRanges& ranges, const std::vector<batch::Edge>& edges, uint64_t cap,
           batch::TempDir* tmp, uint64_t sort_bytes, Labels* labels, CapStats* stats);

}  // namespace neardup::distributed

#endif  // NEARDUP_DISTRIBUTED_COMPONENTS_H_
