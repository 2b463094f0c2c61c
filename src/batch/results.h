// SPDX-License-Identifier: Apache-2.0
//
// What a batch run leaves for its output (RunResult: the run's input and
// set-up, its clusters, the kept members, the --with-matches runs) and the
// output itself, in input order: the records (BatchDedup::ForEachRecord),
// the clusters of two or more (ForEachCluster) and labels per record.
// BatchInternal makes the public BatchDedup of a RunResult: the single
// process (pipeline.cc) and rank 0 of an MPI run (src/distributed) do.
//
// Thread safety: one thread at a time. Ownership: a RunResult owns the run
// (its temporary directory lives until the result goes).
#ifndef NEARDUP_BATCH_RESULTS_H_
#define NEARDUP_BATCH_RESULTS_H_

#include <functional>
#include <memory>

#include "batch/cluster_phase.h"
#include "batch/clusters.h"
#include "batch/keep_phase.h"
#include "batch/pipeline.h"
#include "neardup/batch.h"

namespace neardup::batch {

struct RunResult {
  std::unique_ptr<BatchRun> run;
  Clustering clustering;
  Kept kept;
  std::unique_ptr<MatchRuns> matches;  // with_matches only
  bool matches_read = false;           // WriteRecords streamed them (it runs once then)
};

class BatchInternal {
 public:
  static std::unique_ptr<BatchDedup> Wrap(std::unique_ptr<RunResult> result) {
    return std::unique_ptr<BatchDedup>(new BatchDedup(std::move(result)));
  }
  static const RunResult& Of(const BatchDedup& d) { return *d.result_; }
};

// The bodies of BatchDedup::ForEachRecord, ForEachCluster (results.cc).
Status WriteRecords(RunResult* r, const std::function<Status(const BatchRecord&)>& fn);
Status WriteClusters(RunResult* r, const std::function<Status(const BatchCluster&)>& fn);
// Labels per record (by_line: per input line, other lines alone).
Result<BatchDedup::Labels> LabelsOf(const RunResult& r, bool by_line);

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_RESULTS_H_
