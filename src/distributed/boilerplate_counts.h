// SPDX-License-Identifier: Apache-2.0
//
// The boilerplate guard over the ranks of a Comm (batch/boilerplate_phase.h):
// every rank learns which of its own records are the later record of some
// candidate pair (the pair phase ran on the keys' owners), counts its own
// founders' anchors from its own forms, and the ranks add their tables: a
// reduce-scatter (each rank sums one slice, Exchange) and an AllGather of
// the sums. Every rank then verifies with the table one process makes.
//
// Collective: every rank calls it, after the pair phase and before the
// verify phase. Traffic a rank: the later-record bits of its range from
// each rank (n / 8 bytes in all) and about twice the table.
#ifndef NEARDUP_DISTRIBUTED_BOILERPLATE_COUNTS_H_
#define NEARDUP_DISTRIBUTED_BOILERPLATE_COUNTS_H_

#include "batch/pipeline.h"
#include "distributed/comm.h"
#include "distributed/ranges.h"

namespace neardup::distributed {

// Does nothing when run->later is empty (no guard). Errors: those of
// reading the forms, on every rank (Agree).
Status CountBoilerplateAcross(Comm& c, const LineRanges& ranges, batch::BatchRun* run);

}  // namespace neardup::distributed

#endif  // NEARDUP_DISTRIBUTED_BOILERPLATE_COUNTS_H_
