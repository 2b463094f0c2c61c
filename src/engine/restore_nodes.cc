// SPDX-License-Identifier: Apache-2.0
#include "engine/restore_nodes.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
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

constexpr size_t kBatches = 4;  // decoded batches waiting

// A node row as Restore takes it: its record and its decoded sketches, or
// why they could not be decoded.
struct Decoded {
  NodeRecord record;
  Status decoded;
  signal::SignalSet::Sketches sketches;
};
// Rows [0, used) of `rows` are this batch's. A batch goes back to the
// reader once restored, so that its strings and vectors keep their memory:
// a restore allocates a few batches, not a few blocks a row (and frees none
// on the other thread).
struct Batch {
  explicit Batch(size_t n) : rows(n) {}
  std::vector<Decoded> rows;
  size_t used = 0;
};

void Decode(const Engine& e, const store::NodeRow& row, Decoded* d) {
  d->record.id = row.id;
  d->record.cluster = row.cluster();
  d->record.fingerprint = row.fingerprint;
  d->record.time = row.time;
  d->decoded = EngineInternal::DecodeSketches(e, row.sketches, &d->sketches);
}

Status RestoreOne(Engine& e, Decoded* d) {
  Status s = d->decoded.ok() ? EngineInternal::Restore(e, d->record, &d->sketches) : d->decoded;
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

Result<uint64_t> RestoreNodes(const store::DocStore& st, Engine& engine, size_t batch_rows) {
  batch_rows = std::max<size_t>(batch_rows, 1);
  base::Queue<std::unique_ptr<Batch>> full(kBatches), spent;
  std::atomic<bool> stop{false};
  Status scanned;
  base::FirstException error;
  auto read = [&] {
    try {
      // A restored batch if one is back, else a new one.
      auto next = [&spent, batch_rows] {
        bool closed = false;
        std::optional<std::unique_ptr<Batch>> b =
            spent.PopFor(std::chrono::milliseconds(0), &closed);
        std::unique_ptr<Batch> out = b ? std::move(*b) : std::make_unique<Batch>(batch_rows);
        out->used = 0;
        return out;
      };
      std::unique_ptr<Batch> batch = next();
      scanned = st.ScanNodes([&](const store::NodeRow& row) {
        if (stop.load(std::memory_order_relaxed)) return Status::Internal("restore stopped");
        Decode(engine, row, &batch->rows[batch->used++]);
        if (batch->used == batch_rows) {
          full.Push(std::move(batch));
          batch = next();
        }
        return Status::OK();
      });
      if (batch->used > 0) full.Push(std::move(batch));
    } catch (...) {
      error.Capture();
    }
    full.Close();
  };
  std::thread reader;
  if (!base::StartThread(&reader, "restore reader", read).ok()) {
    return RestoreInline(st, engine);
  }
  uint64_t n = 0;
  Status restored;
  {
    // However this block is left (the last batch, an error, or an exception
    // such as std::bad_alloc), the reader stops at its next row and is
    // joined before its results are read.
    struct Join {
      std::atomic<bool>* stop;
      base::Queue<std::unique_ptr<Batch>>* full;
      std::thread* reader;
      ~Join() {
        stop->store(true);
        full->Close();  // a Push waiting for room returns
        reader->join();
      }
    } join{&stop, &full, &reader};
    while (std::optional<std::unique_ptr<Batch>> batch = full.Pop()) {
      Batch& b = **batch;
      for (size_t i = 0; i < b.used && restored.ok(); ++i) {
        restored = RestoreOne(engine, &b.rows[i]);
        n += restored.ok();
      }
      if (!restored.ok()) break;
      spent.Push(std::move(*batch));
    }
  }
  error.RethrowIfAny();
  NEARDUP_RETURN_IF_ERROR(restored);
  NEARDUP_RETURN_IF_ERROR(scanned);
  return n;
}

}  // namespace neardup::engine
