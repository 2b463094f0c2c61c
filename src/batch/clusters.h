// SPDX-License-Identifier: Apache-2.0
//
// Clusters from verified edges, with a cap on cluster size, defined so the
// result does not depend on the order edges arrive in (threads, spilling,
// MPI ranks):
//
//   The clusters are what a capped union-find (cluster::CappedUnionFind)
//   gives when it processes every verified edge in the canonical order:
//   similarity descending (as a float), then (a, b) ascending. Containment
//   edges (records.h) count only as ChooseContained() keeps them, chosen
//   over the components of the other edges.
//
// Computed in two steps that give exactly that: (1) an uncapped union-find
// over the edges as they come (order-free); a component of at most `cap`
// documents is final, because no union inside it can exceed the cap. (2)
// Only the components larger than the cap replay their own edges, sorted
// canonically (sorted runs, spilled when large), through a capped
// union-find. Edges are kept in a spill file until Finish() for step 2.
//
// Memory: 8 bytes per document (16 while step 2 runs) plus the edge buffer
// given. Thread safety: one thread.
#ifndef NEARDUP_BATCH_CLUSTERS_H_
#define NEARDUP_BATCH_CLUSTERS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "batch/records.h"
#include "batch/spill_file.h"
#include "batch/temp_dir.h"
#include "neardup/status.h"

namespace neardup::batch {

struct ClusterStats {
  uint64_t edges = 0;
  uint64_t oversized_components = 0;  // components larger than the cap before step 2
  uint64_t replayed_edges = 0;        // edges of those, replayed in canonical order
  uint64_t refused_by_cap = 0;
  uint64_t containment_edges = 0;   // verified by containment (records.h IsContained)
  uint64_t containment_joined = 0;  // of those, the ones that joined two clusters
};

// The containment guard (verify/verifier.h): of the containment edges whose
// two records lie in different components of the other edges (`root`: a
// record's component, as any label), the one edge of each contained
// record's component that joins it to another: the most similar, then the
// smallest (a, b); with the similarity it reports. A component of excerpts
// thus joins one story, so a shared passage (an ad, a footer) never chains
// two unrelated stories together. Order-free: the same edges in any order
// give the same choice. (--with-matches still lists every verified edge,
// joined or not: a containment match may name a record of another cluster.)
std::vector<Edge> ChooseContained(std::span<const Edge> contained,
                                  const std::function<uint32_t(uint32_t)>& root);

// The final clusters: root[d] is the cluster's representative (a member),
// size[root] its size; for non-roots size[] is unspecified.
struct Clustering {
  std::vector<uint32_t> root;
  std::vector<uint32_t> size;
  ClusterStats stats;
};

class ClusterBuilder {
 public:
  // `n` documents; `cap` 0 = no cap; `tmp` holds the edge file (may be null
  // without a cap); `sort_bytes` bounds step 2's sort buffer.
  ClusterBuilder(uint64_t n, uint64_t cap, TempDir* tmp, size_t sort_bytes);
  ~ClusterBuilder();

  // Errors: IOError (the edge file, disk full).
  Status Add(const Edge& e);
  // Errors: IOError.
  Result<Clustering> Finish();

 private:
  uint32_t Find(uint32_t x);
  Status Join(const Edge& e);
  uint64_t n_, cap_;
  TempDir* tmp_;
  size_t sort_bytes_;
  std::vector<uint32_t> parent_, size_;
  std::unique_ptr<SpillWriter> edges_;
  std::string edges_path_;
  std::vector<Edge> contained_;  // containment edges, joined by Finish()
  ClusterStats stats_;
};

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_CLUSTERS_H_
