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
#include <string>
#include <string_view>
#include <vector>

#include "batch/cluster_phase.h"
#include "batch/clusters.h"
#include "batch/keep_phase.h"
#include "batch/pipeline.h"
#include "neardup/batch.h"

namespace neardup::batch {

// Strings kept end to end in blocks of 1 MiB (a longer one gets a block of
// its own), each behind its 4-byte length; Add returns a handle for Get.
// Memory: the strings, 4 bytes each and the last block's slack. Views
// stay valid while the arena lives.
class StringArena {
 public:
  uint64_t Add(std::string_view s);
  std::string_view Get(uint64_t handle) const;
  uint64_t bytes() const { return bytes_; }

 private:
  static constexpr size_t kBlock = 1 << 20;
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t used_ = 0, size_ = 0;  // of the last block
  uint64_t bytes_ = 0;          // of every block
};

// One rank's share of a distributed run's output (src/distributed/share.h):
// the records of its lines [begin, end), named without the whole
// clustering, and the clusters of two or more whose first member is one of
// them. Memory: 24 bytes per record in a cluster of two or more, the ids
// of their first and kept members (once when they are one record), and the
// member ids of its clusters.
struct ShareNames {
  struct Name {  // a record in a cluster of two or more
    uint32_t line = 0, first = 0, kept = 0, size = 0;
    uint64_t first_id = 0, kept_id = 0;  // handles in `ids`
  };
  struct Cluster {  // with clusters: one whose first member is here
    uint32_t first = 0;
    std::string kept_id;
    std::vector<std::string> members;  // ids, input order
  };
  uint32_t begin = 0, end = 0;
  StringArena ids;
  std::vector<Name> names;        // by line
  std::vector<Cluster> clusters;  // by first member
};

struct RunResult {
  std::unique_ptr<BatchRun> run;
  // A rank's share of a distributed run: then clustering and kept are
  // empty and the output covers the share's lines only.
  std::unique_ptr<ShareNames> share;
  Clustering clustering;
  Kept kept;
  std::unique_ptr<MatchRuns> matches;  // with_matches only
  // A distributed share's matched records that other ranks own, fetched
  // (with_matches; null: every matched record is read from the input).
  std::unique_ptr<LineSource> texts;
  bool matches_read = false;  // WriteRecords streamed them (it runs once then)
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
