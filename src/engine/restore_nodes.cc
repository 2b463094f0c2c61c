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
#include "engine/id_table.h"

namespace neardup::engine {
namespace {

constexpr size_t kBatches = 4;  // decoded batches waiting

// A node row as Restore takes it: its record and its decoded sketches, or
// why they could not be decoded.
struct Decoded {
  NodeRecord record;
  Status decoded;  // and bound, when the reader binds ids
  signal::SignalSet::Sketches sketches;
  uint32_t slot = IdTable::kNone;  // where the reader bound the id
  uint32_t root = IdTable::kNone;  // its root's slot; kNone for a root
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

// The reader's id binding (EngineInternal::LendIds): the checks and the
// slots of EngineInternal::Restore, on the table the engine lent, so that
// the calling thread only indexes. The first row that fails (to decode or
// to bind) is the last it binds: the calling thread stops there.
class Binder {
 public:
  IdTable ids;
  uint64_t bound = 0;  // rows bound: slots [0, bound)

  // Binds a batch's rows in order. The table is far larger than the caches,
  // and a probe's reads depend on one another (cell, slot word, id bytes):
  // each row's are asked for in three steps, kAhead[stage] rows before it,
  // so that its probes find them cached (IdTable::Prefetch).
  void BindBatch(Batch* b) {
    hashes_.resize(2 * b->used);
    for (size_t i = 0; i < b->used; ++i) {
      const NodeRecord& r = b->rows[i].record;
      hashes_[2 * i] = IdTable::HashOf(r.id);
      hashes_[2 * i + 1] = r.cluster != r.id ? IdTable::HashOf(r.cluster) : 0;
    }
    for (size_t i = 0; i < b->used; ++i) {
      for (int stage = 0; stage < 3; ++stage) Ahead(*b, i + kAhead[stage], stage);
      Bind(&b->rows[i], hashes_[2 * i], hashes_[2 * i + 1]);
    }
  }

 private:
  static constexpr size_t kAhead[3] = {48, 32, 16};

  void Ahead(const Batch& b, size_t i, int stage) const {
    if (i >= b.used) return;
    // A new id's probe compares no id bytes but on a 2^-24 chance.
    if (stage < 2) ids.Prefetch(hashes_[2 * i], stage);
    if (b.rows[i].record.cluster != b.rows[i].record.id) ids.Prefetch(hashes_[2 * i + 1], stage);
  }

  void Bind(Decoded* d, uint64_t id_hash, uint64_t root_hash) {
    if (failed_ || !d->decoded.ok()) {
      failed_ = true;
      return;
    }
    d->decoded = BindOne(d->record, id_hash, root_hash, d);
    failed_ = !d->decoded.ok();
  }

  Status BindOne(const NodeRecord& r, uint64_t id_hash, uint64_t root_hash, Decoded* d) {
    if (r.id.empty()) return Status::InvalidArgument("restored id must not be empty");
    d->root = IdTable::kNone;
    if (r.cluster != r.id) {
      d->root = ids.Find(r.cluster, root_hash);
      if (d->root == IdTable::kNone || !is_root_[d->root]) {
        return Status::NotFound("root '" + r.cluster + "' of '" + r.id + "' is not restored");
      }
    }
    d->slot = static_cast<uint32_t>(bound);
    if (!ids.TryInsert(d->slot, r.id, id_hash)) {
      return Status::AlreadyExists("restored document '" + r.id + "' already exists");
    }
    is_root_.push_back(d->root == IdTable::kNone);
    ++bound;
    return Status::OK();
  }

  std::vector<uint64_t> hashes_;  // per row of the batch: its id's, its root's
  std::vector<bool> is_root_;     // by slot
  bool failed_ = false;
};

Status Failed(const Decoded& d, const Status& s) {
  return Status::Corruption("recovering '" + d.record.id + "': " + s.message());
}

Status RestoreOne(Engine& e, Decoded* d) {
  Status s = d->decoded.ok() ? EngineInternal::Restore(e, d->record, &d->sketches) : d->decoded;
  return s.ok() ? s : Failed(*d, s);
}

// Restores a batch's rows up to the first that fails; adds those restored
// to *n.
Status RestoreEach(Engine& e, Batch* b, uint64_t* n) {
  for (size_t i = 0; i < b->used; ++i) {
    NEARDUP_RETURN_IF_ERROR(RestoreOne(e, &b->rows[i]));
    ++*n;
  }
  return Status::OK();
}

// The same for rows the reader bound: the rows before the first that
// failed, under one lock.
Status RestoreBatch(Engine& e, Batch* b, std::vector<EngineInternal::BoundNode>* bound,
                    uint64_t* n) {
  bound->clear();
  size_t i = 0;
  for (; i < b->used && b->rows[i].decoded.ok(); ++i) {
    Decoded& d = b->rows[i];
    bound->push_back({d.slot, d.root, d.record.fingerprint, d.record.time, &d.sketches});
  }
  EngineInternal::RestoreBound(e, *bound);
  *n += bound->size();
  return i < b->used ? Failed(b->rows[i], b->rows[i].decoded) : Status::OK();
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
  Binder binder;
  const bool lent = EngineInternal::LendIds(engine, &binder.ids);
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
          if (lent) binder.BindBatch(batch.get());
          full.Push(std::move(batch));
          batch = next();
        }
        return Status::OK();
      });
      if (batch->used > 0) {
        if (lent) binder.BindBatch(batch.get());
        full.Push(std::move(batch));
      }
    } catch (...) {
      error.Capture();
    }
    full.Close();
  };
  std::thread reader;
  if (!base::StartThread(&reader, "restore reader", read).ok()) {
    if (lent) EngineInternal::ReturnIds(engine, &binder.ids, 0, 0);
    return RestoreInline(st, engine);
  }
  uint64_t n = 0;
  Status restored;
  {
    // Gives the lent ids back once the reader is joined (the guard below
    // is destroyed first), however the block is left; on an exception,
    // rows bound but not restored are unbound.
    struct Give {
      Engine* engine;
      Binder* binder;
      bool lent;
      const uint64_t* restored;
      ~Give() {
        if (!lent) return;
        try {
          EngineInternal::ReturnIds(*engine, &binder->ids, *restored, binder->bound);
        } catch (...) {  // only while another exception unwinds: that one is reported
        }
      }
    } give{&engine, &binder, lent, &n};
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
    std::vector<EngineInternal::BoundNode> bound;
    while (std::optional<std::unique_ptr<Batch>> batch = full.Pop()) {
      Batch& b = **batch;
      restored = lent ? RestoreBatch(engine, &b, &bound, &n) : RestoreEach(engine, &b, &n);
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
