// SPDX-License-Identifier: Apache-2.0
#include "engine/restore_nodes.h"

#include <atomic>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/parallel.h"
#include "base/queue.h"
#include "base/status_macros.h"
#include "engine/engine_internal.h"

namespace neardup::engine {
namespace {

constexpr size_t kBatchRows = 1024;
constexpr size_t kBatches = 4;  // decoded batches waiting: ~4k rows

// A node row as Restore takes it: its record and its decoded sketches, or
// why they could not be decoded.
struct Decoded {
  NodeRecord record;
  Status decoded;
  signal::SignalSet::Sketches sketches;
};
using Batch = std::vector<Decoded>;

void Decode(const Engine& e, const store::NodeRow& row, Decoded* d) {
  d->record.id = row.id;
  d->record.cluster = row.root.empty() ? row.id : row.root;
  d->record.fingerprint = row.fingerprint;
  d->record.time = row.time;
  auto sketches = EngineInternal::DecodeSketches(e, row.sketches);
  d->decoded = sketches.status();
  if (sketches.ok()) d->sketches = std::move(*sketches);
}

Status RestoreOne(Engine& e, Decoded* d) {
  Status s =
      d->decoded.ok() ? EngineInternal::Restore(e, d->record, std::move(d->sketches)) : d->decoded;
  return s.ok() ? s : Status::Corruption("recovering '" + d->record.id + "': " + s.message());
}

// Both on the calling thread: the fallback without a reader thread.
Result<uint64_t> RestoreInline(const store::DocStore& st, Engine& e) {
  uint64_t n = 0;
  Decoded d;
  NEARDUP_RETURN_IF_ERROR(st.ScanNodes([&](const store::NodeRow& row) {
    Decode(e, row, &d);
    NEARDUP_RETURN_IF_ERROR(RestoreOne(e, &d));
    ++n;
    return Status::OK();
  }));
  return n;
}

}  // namespace

Result<uint64_t> RestoreNodes(const store::DocStore& st, Engine& engine) {
  base::Queue<Batch> full(kBatches);
  std::atomic<bool> stop{false};
  Status scanned;
  base::FirstException error;
  auto read = [&] {
    try {
      Batch batch;
      batch.reserve(kBatchRows);
      scanned = st.ScanNodes([&](const store::NodeRow& row) {
        if (stop.load(std::memory_order_relaxed)) return Status::Internal("restore stopped");
        batch.emplace_back();
        Decode(engine, row, &batch.back());
        if (batch.size() == kBatchRows) {
          full.Push(std::move(batch));
          batch = Batch();
          batch.reserve(kBatchRows);
        }
        return Status::OK();
      });
      if (!batch.empty()) full.Push(std::move(batch));
    } catch (...) {
      error.Capture();
    }
    full.Close();
  };
  std::thread reader;
  if (!base::StartThread(&reader, "restore reader", read).ok()) {
    return RestoreInline(st, engine);
  }
  // However this thread leaves (an error, or an exception such as
  // std::bad_alloc), the reader stops at its next row and is joined.
  struct Join {
    std::atomic<bool>* stop;
    base::Queue<Batch>* full;
    std::thread* reader;
    ~Join() {
      stop->store(true);
      full->Close();  // a Push waiting for room returns
      if (reader->joinable()) reader->join();
    }
  } join{&stop, &full, &reader};
  uint64_t n = 0;
  Status restored;
  while (std::optional<Batch> batch = full.Pop()) {
    for (Decoded& d : *batch) {
      restored = RestoreOne(engine, &d);
      if (!restored.ok()) break;
      ++n;
    }
    if (!restored.ok()) break;
  }
  stop.store(true);
  full.Close();
  reader.join();  // ~Join finds it joined
  error.RethrowIfAny();
  NEARDUP_RETURN_IF_ERROR(restored);
  NEARDUP_RETURN_IF_ERROR(scanned);
  return n;
}

}  // namespace neardup::engine
