// SPDX-License-Identifier: Apache-2.0
//
// A distributed run's output, written by every rank at once. Each rank
// renders its share (its lines, in input order) into a file in its
// temporary directory; an all-gather of the shares' sizes gives each rank
// its offset (the sizes of the ranks before it), and each rank writes its
// share at that offset into the one output file (pwrite: the file is rank
// 0's, every rank opens it by its path on a shared file system). The bytes
// are those of one process writing the shares in rank order.
//
// When some rank cannot open the file (no shared file system, or the output
// is a stream such as standard output), the shares go to rank 0 instead, in
// rounds of at most `round_bytes`, rank after rank, and rank 0 appends them.
//
// Collective: every rank calls it. Thread safety: one thread per rank.
// Memory: a buffer of 1 MiB, or of `round_bytes` when streaming.
#ifndef NEARDUP_DISTRIBUTED_OUTPUT_H_
#define NEARDUP_DISTRIBUTED_OUTPUT_H_

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "distributed/comm.h"
#include "neardup/status.h"

namespace neardup::distributed {

struct OutputTarget {
  // Rank 0: where the output goes, already open (null: nowhere, e.g. it
  // could not be created; the other ranks still take part). Ignored on
  // the other ranks.
  std::ostream* out = nullptr;
  // Rank 0: the path of the file `out` writes ("" for a stream). The other
  // ranks write into it when they all can.
  std::string path;
  // Rank 0: what errors call the output (the user's path; "" = `path`, or
  // "<output>" for a stream).
  std::string name;
  std::string tmp_dir;  // for the share's file ("" = $TMPDIR, else /tmp)
  uint64_t round_bytes = 8 << 20;
};

// Renders this rank's share with `render` and places it. *direct tells
// whether the ranks wrote the file themselves (false: through rank 0).
// Errors: the first failing rank's (render's, IOError writing; the same on
// every rank). Rank 0 still has to flush and commit its file.
Status WriteInRankOrder(Comm& c, const OutputTarget& target,
                        const std::function<Status(std::ostream&)>& render, bool* direct);

}  // namespace neardup::distributed

#endif  // NEARDUP_DISTRIBUTED_OUTPUT_H_
