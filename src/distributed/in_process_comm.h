// SPDX-License-Identifier: Apache-2.0
//
// An in-process Comm: the ranks of a job are threads of this process, and
// each collective is a rendezvous of all of them. The semantics are
// MpiComm's (same results, same order, a call returns once every rank has
// made it), so the distributed runner and its parts run unchanged on N
// threads: the unit tests run them under AddressSanitizer and
// ThreadSanitizer, which Open MPI's hooks confuse.
//
// A collective: every rank publishes a pointer to its input and waits at a
// barrier; each then reads what it needs from the others' inputs and waits
// at a second barrier, after which the inputs may go. The barriers are a
// mutex and a condition variable, so all reads happen after the writes they
// read (no data race). Memory: what a collective returns.
#ifndef NEARDUP_DISTRIBUTED_IN_PROCESS_COMM_H_
#define NEARDUP_DISTRIBUTED_IN_PROCESS_COMM_H_

#include <functional>

#include "distributed/comm.h"

namespace neardup::distributed {

// Runs fn(comm) for ranks 0..ranks-1, each on its own thread, and returns
// when all have. Every rank must make the same collective calls.
void RunInProcess(int ranks, const std::function<void(Comm&)>& fn);

}  // namespace neardup::distributed

#endif  // NEARDUP_DISTRIBUTED_IN_PROCESS_COMM_H_
