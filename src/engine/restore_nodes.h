// SPDX-License-Identifier: Apache-2.0
//
// RestoreNodes: the node rows of a store restored into an engine, in the
// store's (arrival) order, with their stored sketches (EngineInternal::
// Restore). A reader thread scans the rows, decodes their sketches and,
// when the engine starts empty (EngineInternal::LendIds), binds their ids
// and finds their roots' slots, a batch at a time, while the calling thread
// indexes the batch before: a restart's RocksDB scan, decoding and id table
// run beside the engine's index and forest inserts on a second core. A
// restored batch goes back to the reader, which decodes the next rows into
// its strings and vectors: a restore allocates a few batches, not a few
// blocks a row. When that thread cannot start (the process is at its
// thread limit), the calling thread does both.
//
// Call between EngineInternal::BeginRestore and EndRestore, before the
// engine serves. Thread safety: the engine must not be used meanwhile.
// Complexity: one pass over the rows; at most kBatches batches in flight.
// Errors: Corruption naming the first row that cannot be restored (rows
// before it stay restored), or the store's scan error.
#ifndef NEARDUP_ENGINE_RESTORE_NODES_H_
#define NEARDUP_ENGINE_RESTORE_NODES_H_

#include <cstddef>
#include <cstdint>

#include "neardup/engine.h"
#include "neardup/status.h"
#include "store/doc_store.h"

namespace neardup::engine {

// Returns the number of rows restored. `batch_rows`: rows a batch (tests
// use small ones to cycle many batches).
Result<uint64_t> RestoreNodes(const store::DocStore& st, Engine& engine, size_t batch_rows = 1024);

}  // namespace neardup::engine

#endif  // NEARDUP_ENGINE_RESTORE_NODES_H_
