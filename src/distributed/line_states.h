// SPDX-License-Identifier: Apache-2.0
//
// Line states across ranks. A line's state (record, blank, skipped) is set
// by its owner while sketching, and a repeated id is skipped by the owner
// of its id key, which tells every rank (ShareSkips); the verify phase
// learns the state of another rank's record with its form (fetch.h). Skip
// messages are reported by rank 0, in input order, as one process reports
// them.
//
// Thread safety: one thread per rank.
#ifndef NEARDUP_DISTRIBUTED_LINE_STATES_H_
#define NEARDUP_DISTRIBUTED_LINE_STATES_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "batch/pipeline.h"
#include "distributed/comm.h"
#include "distributed/ranges.h"

namespace neardup::distributed {

// The records skipped on any rank become kSkipped on every rank; their
// messages (taken from `errors`) are gathered on rank 0 and returned there
// (serialized; empty elsewhere). Collective.
std::vector<uint8_t> ShareSkips(Comm& c, batch::RecordErrors* errors, batch::LineTable* lines);

// On rank 0: the gathered messages to on_skip, in input order.
void DeliverSkips(const Comm& c, const std::vector<uint8_t>& messages,
                  const std::function<void(const Status&)>& on_skip);

}  // namespace neardup::distributed

#endif  // NEARDUP_DISTRIBUTED_LINE_STATES_H_
