// SPDX-License-Identifier: Apache-2.0
//
// engine::DurableImpl, the state of a DurableEngine, shared by
// durable_engine.cc (open, recovery, reads) and durable_writer.cc (the writer
// thread, group commit, expiry thread). Not a public header.
#ifndef NEARDUP_ENGINE_DURABLE_IMPL_H_
#define NEARDUP_ENGINE_DURABLE_IMPL_H_

#include <atomic>
#include <deque>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "engine/engine_internal.h"
#include "neardup/durable_engine.h"
#include "store/doc_store.h"

namespace neardup::engine {

// One unit of the writer queue.
struct WriteOp {
  enum class Kind { kAdd, kRemove, kExpire, kTouch };
  Kind kind = Kind::kAdd;
  // kAdd: documents with their sketches (computed by the caller).
  struct Item {
    IncomingDocument doc;
    engine::PreparedDocument prepared;
    Result<IngestResult> result = Status::Internal("not applied");
    std::string form = {};  // the verification form (EngineInternal::MakeForm)
  };
  std::vector<Item> items;
  OnConflict on_conflict = OnConflict::kError;
  std::string id;          // kRemove, kTouch
  int64_t time = 0;        // kExpire: cutoff; kTouch: new time
  Status status;           // kRemove, kExpire
  RemovalChanges changes;  // kRemove, kExpire
  size_t trees = 0;        // kExpire: trees removed by this step
  std::promise<void> done;
  bool wait = true;  // false: nobody waits (kTouch)

  size_t weight() const { return kind == Kind::kAdd ? items.size() : 1; }
};

struct DurableImpl {
  DurableEngine* owner = nullptr;
  Engine* engine = nullptr;
  const DurableOptions* options = nullptr;
  const Clock* clock = nullptr;
  InfoLog log;  // may be null
  std::unique_ptr<store::DocStore> store;

  base::Mutex mu;  // guards the queue and flags
  base::CondVar cv;
  std::deque<std::shared_ptr<WriteOp>> queue GUARDED_BY(mu);
  size_t queued_docs GUARDED_BY(mu) = 0;
  bool closing GUARDED_BY(mu) = false;
  bool closed GUARDED_BY(mu) = false;
  std::thread writer;
  std::thread expirer;
  base::CondVar expirer_cv;

  bool store_text = false;  // options->store_text, or forced by the verifier

  // Writer-thread state.
  uint64_t next_seq = 0;
  // The documents applied in the current group (not yet in the store), by
  // id; the verifier reads their texts and forms before the store's.
  mutable base::Mutex pending_mu;
  std::unordered_map<std::string, const WriteOp::Item*> pending_texts GUARDED_BY(pending_mu);

  // The verifier's text and form lookups: the current group, then the store.
  Status LookupText(std::string_view id, std::string* text) const;
  Status LookupForm(std::string_view id, std::string* form) const;

  std::atomic<uint64_t> commits{0}, committed_docs{0}, commit_errors{0};
  std::atomic<uint64_t> expired_trees{0}, expired_documents{0};
  uint64_t restore_ms = 0, restored_documents = 0;
  bool restored = false;  // Open got as far as writing: Close saves the guard's counts

  // Queues `op`; Unavailable when closed or full.
  Status Enqueue(std::shared_ptr<WriteOp> op) EXCLUDES(mu);
  void WriterLoop();
  void ExpirerLoop();
  // Runs expiry steps with cutoff `before` until a step finds nothing more.
  Result<ExpireReport> ExpireAll(int64_t before);
  void Log(LogLevel level, const std::string& message) const {
    if (log) log(level, message);
  }
};

// Makes the trees of `ids` (documents, ghost roots or cluster ids) in
// `engine` what `store` holds: whatever memory has of each tree is erased,
// and the tree's stored nodes are restored in arrival order with their
// stored times and ghost marks. Ids the store never had are skipped. For
// rolling back a failed group commit (durable_rollback.cc). Errors: store
// read errors (the trees read so far are reloaded).
Status ReloadTrees(const store::DocStore& store, Engine& engine,
                   const std::vector<std::string>& ids);

// Counters persisted with every group ("counters" in the store's metadata).
std::string EncodeCounters(const EngineStats& s, uint64_t expired_trees, uint64_t expired_docs);
bool DecodeCounters(std::string_view v, uint64_t out[5]);

}  // namespace neardup::engine

#endif  // NEARDUP_ENGINE_DURABLE_IMPL_H_
