// SPDX-License-Identifier: Apache-2.0
//
// Stage checkpoints of a distributed run, for --resume. With a work
// directory each rank keeps its own (<work_dir>/rank-R-of-N): a stage is a
// set of files and then a marker `<stage>.done` holding the run's identity
// (the pipeline identity, the options that change results, the input files'
// sizes and modification times, the number of ranks), written last and
// renamed into place. A resumed run loads the latest stage that every rank
// has, for this very run, instead of re-running the steps before it:
//
//   verify   after verification: the rank's edges, every line's state, its
//            counters and (rank 0) the skip messages
//   cluster  after the components and the cap: the labels of its documents
//
// Sketching and the key shuffle have no checkpoint of their own: their
// output (sorted key runs) is large and short-lived.
//
// Thread safety: one thread per rank.
#ifndef NEARDUP_DISTRIBUTED_CHECKPOINT_H_
#define NEARDUP_DISTRIBUTED_CHECKPOINT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "batch/pipeline.h"
#include "distributed/comm.h"
#include "distributed/components.h"
#include "neardup/status.h"

namespace neardup::distributed {

// The identity of a run: what must match for its checkpoints to be used.
std::string RunIdentity(const batch::BatchRun& run, int ranks);

enum class Stage { kNone, kVerify, kCluster };

struct VerifyState {
  std::vector<batch::Edge> edges;
  std::vector<uint8_t> states;  // the rank's own lines'
  // records, skipped, keys, key runs spilled, key bytes spilled, candidate
  // pairs, similarity calls
  std::vector<uint64_t> counters;
  std::vector<uint8_t> skips;  // messages (rank 0)
};

struct ClusterState {
  Labels labels;
  uint64_t oversized_components = 0, refused_by_cap = 0;
};

class Checkpoints {
 public:
  // No checkpoints (no work directory): nothing is saved, nothing resumed.
  Checkpoints() = default;
  // This rank's directory under work_dir, created on every rank.
  // Collective. Errors: IOError (agreed: every rank gets the first).
  static Result<Checkpoints> Open(Comm& c, const std::string& work_dir, std::string identity);

  bool enabled() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }
  // Whether this rank has the stage, for this run.
  bool Has(const std::string& stage) const;
  // The latest stage every rank has (collective; kNone when not resuming).
  Stage Agreed(Comm& c, bool resume) const;

  // Errors: IOError (write), Corruption (a file that does not decode or
  // does not match the rank's `lines` own lines / own documents).
  Status SaveVerify(const VerifyState& s) const;
  Status LoadVerify(uint64_t lines, VerifyState* s) const;
  Status SaveCluster(const ClusterState& s) const;
  Status LoadCluster(uint64_t own_documents, ClusterState* s) const;

 private:
  Checkpoints(std::string dir, std::string identity)
      : dir_(std::move(dir)), identity_(std::move(identity)) {}
  std::string File(const std::string& name) const { return dir_ + "/" + name; }
  Status Mark(const std::string& stage) const;

  std::string dir_;  // "" = none
  std::string identity_;
};

}  // namespace neardup::distributed

#endif  // NEARDUP_DISTRIBUTED_CHECKPOINT_H_
