// SPDX-License-Identifier: Apache-2.0
//
// neardup::RunDistributed: batch dedup (neardup/batch.h) over MPI ranks, with
// the same result as BatchDedup::Run on one process. Every rank of the job
// calls it with the same files and options (`mpirun -np N neardup dedup
// --distributed ...`); docs/distributed.md has the data flow:
//
//   each rank sketches the lines of its byte range of the input
//     -> bucket keys to owner ranks (key hash), MPI_Alltoallv in rounds
//        bounded by the memory budget
//     -> owners pair each bucket (star pairing) -> pairs to the rank owning
//        the later document, which verifies them
//     -> connected components over the verified edges, distributed (min
//        hooking of roots and pointer jumping); components over the cap
//        replay their edges canonically on one rank per component
//     -> the keep policy over ranks (each cluster's members meet on the
//        owner of its root); each rank names its own records and writes
//        its own lines' output at its offset in the one output file
//        (WriteDistributedOutput), the bytes of BatchDedup::Run's output
//
// The input files must be readable by every rank (a shared file system, as
// on a Slurm cluster); temporary files are per rank (BatchOptions::tmp_dir on
// each host) and nothing assumes a shared /tmp.
//
// No MPI type appears here. The first call initializes MPI (if the program
// has not); Finalize at the end of the program with FinalizeDistributed().
// Thread safety: call from the main thread only.
#ifndef NEARDUP_DISTRIBUTED_H_
#define NEARDUP_DISTRIBUTED_H_

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "neardup/batch.h"
#include "neardup/status.h"

namespace neardup {

struct DistributedOptions {
  // A directory (per rank: <work_dir>/rank-R-of-N) that keeps each stage's
  // output with a completion marker, so a run with `resume` re-runs only the
  // stages that did not finish. "" = no stage files (temporary files only).
  std::string work_dir;
  bool resume = false;
  // Messages for the user (which checkpoint a resumed run starts from);
  // called on rank 0 only.
  std::function<void(const std::string&)> info;
  // The output lists clusters (ForEachCluster): each rank then also gets the
  // member ids of the clusters whose first member is one of its records.
  bool clusters = false;
};

// This process's rank and the job's size (initializes MPI if needed).
// Errors: Unavailable when MPI cannot start.
Result<int> DistributedRank();
Result<int> DistributedSize();

// Runs on every rank; all ranks return the same status. Each rank's result
// holds its share: the records of its lines (ForEachRecord, in input order)
// and, with DistributedOptions::clusters, the clusters whose first member is
// one of them (ForEachCluster); stats are summed over the ranks; the shares
// in rank order are the records of one process. With
// BatchOptions::with_matches rank 0's result holds every record and the
// other ranks' is null. RecordLabels is not available on a share. Errors:
// as BatchDedup::Run (the first bad record over all ranks, by input line);
// InvalidArgument for options the distributed runner does not support
// (standard input, --idf stream).
Result<std::unique_ptr<BatchDedup>> RunDistributed(const std::vector<std::string>& files,
                                                   const BatchOptions& options,
                                                   const DistributedOptions& distributed);

// Writes the shares of RunDistributed in rank order (every rank calls it):
// `render` writes this rank's share to the stream it is given (nothing when
// the rank's result is null). On rank 0, `out` is the output (null: none)
// and `path` the file it writes ("" for a stream such as standard output);
// the other ranks write their shares into that file at their offsets when
// every one of them can open it (a shared file system), else they send
// them to rank 0 in rounds. `tmp_dir` holds each rank's rendered share
// ("" = $TMPDIR, else /tmp). `name` is what errors call the output on rank
// 0 (its path as the user gave it; "" = `path`). Rank 0 then flushes and
// commits its output.
// Errors: the first failing rank's (rendering, IOError); the same on every
// rank.
Status WriteDistributedOutput(std::ostream* out, const std::string& path,
                              const std::string& tmp_dir,
                              const std::function<Status(std::ostream&)>& render,
                              const std::string& name = "");

// Ends MPI (once, at the end of the program; a no-op when not started).
void FinalizeDistributed();

}  // namespace neardup

#endif  // NEARDUP_DISTRIBUTED_H_
