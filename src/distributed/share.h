// SPDX-License-Identifier: Apache-2.0
//
// Each rank names its own records: the keep policy and the ids of every
// cluster's first and kept members, found over ranks, so that each rank
// writes the output of its own lines (no rank gathers every label or reads
// every record).
//
//   1. Each rank parses its records in clusters of two or more and sends
//      (root, line, code points, id) to the owner of the root's line.
//   2. That rank sorts a cluster's members by line: the first is the first
//      member; the kept one is the best by the keep policy in the order the
//      keep phase uses (batch/keep_phase.h: ties to the first, a corpus
//      record before any new one). It sends each member's owner the
//      member's (first, kept, their ids) and, with `clusters`, the whole
//      cluster (kept id, member ids) to the owner of its first member.
//   3. Singletons name themselves.
//
// Two all-to-alls (three with clusters) a pass. The clusters are split into
// passes by root (root mod passes), as many as keep a pass's messages and
// replies within limits.round_bytes on the rank with the most members
// (about kBytesPerMember each; at most kMaxPasses); with more than one pass, step 1's messages
// go to a spill file per pass in limits.tmp as the records are read, and
// each pass reads its own back. The counts of the output (clusters,
// clusters of two or more, duplicates over the new records) are summed
// over the ranks.
//
// Collective: every rank calls it. Thread safety: one thread per rank.
// Memory: a pass's messages (within the round bytes), the names of its
// records in clusters of two or more (24 bytes each and their first and
// kept ids, ShareNames) and, with `clusters`, the member ids of the
// clusters it lists.
#ifndef NEARDUP_DISTRIBUTED_SHARE_H_
#define NEARDUP_DISTRIBUTED_SHARE_H_

#include <memory>

#include "batch/results.h"
#include "distributed/comm.h"
#include "distributed/components.h"
#include "distributed/ranges.h"

namespace neardup::distributed {

struct ShareCounts {
  uint64_t clusters = 0, multi_clusters = 0, duplicates = 0;  // summed over ranks
};

struct NameLimits {
  uint64_t round_bytes = 64 << 20;  // a pass's messages and replies
  batch::TempDir* tmp = nullptr;    // for the passes' files (more than one pass)
};

// What a member costs a pass: its messages both ways (ids included), the
// root owner's copy and sort, the replies and their copies.
inline constexpr uint64_t kBytesPerMember = 192;
// At most this many passes (a file and a 64 KiB buffer each while step 1
// writes them): past it the passes grow instead.
inline constexpr uint64_t kMaxPasses = 64;

// The names of this rank's records (lines ranges.begin(rank) + i, labelled
// by labels.root[i], labels.size[i]). Errors: reading or parsing a record
// (the same status on every rank, the first bad line winning); IOError
// writing or reading a pass's file.
Result<std::unique_ptr<batch::ShareNames>> NameShare(Comm& c, const LineRanges& ranges,
                                                     const batch::RunInput& input,
                                                     const Labels& labels, KeepPolicy keep,
                                                     bool clusters, const NameLimits& limits,
                                                     ShareCounts* counts);

}  // namespace neardup::distributed

#endif  // NEARDUP_DISTRIBUTED_SHARE_H_
