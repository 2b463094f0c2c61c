// SPDX-License-Identifier: Apache-2.0
//
// The cluster phase of one process: verified edges, in any order, go to a
// ClusterBuilder (the canonical cap, clusters.h) and, with --with-matches,
// into sorted runs of matches by (b, a) that the record writer lists with
// each record. (An MPI run clusters its edges distributed instead:
// src/distributed/components.h.)
//
// Memory: the builder's 8 bytes a document and, with matches, a buffer of
// an eighth of what the budget has available; reserved() says how much,
// for the verify phase that runs meanwhile. Thread safety: one thread.
#ifndef NEARDUP_BATCH_CLUSTER_PHASE_H_
#define NEARDUP_BATCH_CLUSTER_PHASE_H_

#include <cstdint>
#include <memory>

#include "batch/clusters.h"
#include "batch/records.h"
#include "batch/run_env.h"
#include "batch/sorted_runs.h"
#include "batch/spill_buffer.h"

namespace neardup::batch {

// Verified edges for --with-matches, ordered by (b, a).
struct MatchLess {
  bool operator()(const Edge& x, const Edge& y) const { return x.b != y.b ? x.b < y.b : x.a < y.a; }
};
using MatchRuns = RunSet<Edge, MatchLess>;

// Collects edges, in any order, into MatchRuns: a buffer of at most
// `limit` edges (memory by need), sorted and spilled to `tmp` when full.
// Used by the cluster phase and by an MPI rank for its own edges.
class MatchCollector {
 public:
  MatchCollector(TempDir* tmp, uint64_t limit)
      : runs_(std::make_unique<MatchRuns>(tmp, "matches")), buf_(limit) {}
  // Errors: IOError (spilling).
  Status Add(const Edge& e) {
    return AppendOrSpill(&buf_, e, [&] { return Flush(true); });
  }
  // The runs (once). Errors: IOError.
  Result<std::unique_ptr<MatchRuns>> Finish();

 private:
  Status Flush(bool spill);
  std::unique_ptr<MatchRuns> runs_;
  SpillBuffer<Edge> buf_;
};

struct ClusterOutput {
  Clustering clustering;
  std::unique_ptr<MatchRuns> matches;  // null without with_matches
};

class ClusterPhase {
 public:
  // `n` documents, `cap` the cluster size cap (0 = none).
  ClusterPhase(const PhaseEnv& env, uint64_t n, uint64_t cap, bool with_matches);
  uint64_t reserved() const { return reserved_; }
  // An edge; similarity -1 (decided by a key space) counts as 1 for the
  // cap's order and is listed as unverified. Errors: IOError (spilling).
  Status Add(const Edge& e);
  // The clusters (held in the budget from now on) and the matches.
  // Errors: IOError.
  Result<ClusterOutput> Finish();

 private:
  PhaseEnv env_;
  uint64_t reserved_ = 0;
  ClusterBuilder builder_;
  std::unique_ptr<MatchCollector> matches_;  // with_matches only
};

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_CLUSTER_PHASE_H_
