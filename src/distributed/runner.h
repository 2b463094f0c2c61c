// SPDX-License-Identifier: Apache-2.0
//
// RunOnComm: the batch pipeline of src/batch/ with its stages spread over
// the ranks of a Comm (neardup/distributed.h runs it on MPI ranks). The
// stages are the batch module's own phases (batch/pipeline.h); the runner
// only moves their records between ranks, so the definitions of
// docs/batch.md (star pairing, min_shared_keys, the canonical cap, keep
// policies) hold unchanged and the output is byte-identical:
//
//   1. Ownership (ranges.h): each rank counts, reads and sketches only the
//      lines of its byte range of the input; an all-gather of the ranks'
//      per-file line counts numbers them. No rank reads another's lines.
//   2. Keys go to the owner of their hash (shuffle.h); a bucket is then
//      whole on one rank, which pairs it as one process would.
//   3. Pairs (a, b) go to the owner of b, which fetches the records of a it
//      does not own (fetch.h) and verifies them (the batch verify phase).
//   4. Components and the cap over the verified edges (components.h).
//   5. Each rank names its own records (share.h: the keep policy over
//      ranks) and owns the result for its lines; the shares, written in
//      rank order (output.h), are BatchDedup::Run's output. With
//      --with-matches each rank lists its own records' matches (the edges
//      it verified: their later record is its own), with the texts of the
//      matched records other ranks own fetched from them.
//
// With a work directory, stages 3 and 4 leave checkpoints (checkpoint.h)
// that a resumed run loads instead of running the stages again.
//
// Thread safety: one thread per rank calls it (the ranks of an in-process
// Comm are threads of one process); the phases run their own workers.
#ifndef NEARDUP_DISTRIBUTED_RUNNER_H_
#define NEARDUP_DISTRIBUTED_RUNNER_H_

#include <memory>
#include <string>
#include <vector>

#include "batch/signature.h"
#include "distributed/comm.h"
#include "neardup/batch.h"
#include "neardup/distributed.h"

namespace neardup::distributed {

// Runs on every rank of `c`; all ranks return the same status. Each rank's
// result holds its share of the records (stats summed over the ranks). `sig` (tests): the signature
// every rank uses instead of CreateBatchSignature's; it must outlive the result. Errors: as
// RunDistributed.
Result<std::unique_ptr<BatchDedup>> RunOnComm(Comm& c, const std::vector<std::string>& files,
                                              const BatchOptions& options,
                                              const DistributedOptions& distributed,
                                              batch::BatchSignature* sig = nullptr);

}  // namespace neardup::distributed

#endif  // NEARDUP_DISTRIBUTED_RUNNER_H_
