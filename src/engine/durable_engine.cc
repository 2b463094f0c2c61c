// SPDX-License-Identifier: Apache-2.0
// DurableEngine: opening and recovery, the write API (queued to the writer
// in durable_writer.cc) and the reads that join engine state with stored
// meta. Contract in include/neardup/durable_engine.h.
#include "neardup/durable_engine.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "base/file_util.h"
#include "base/machine.h"
#include "base/parallel.h"
#include "base/status_macros.h"
#include "engine/durable_access.h"
#include "engine/durable_impl.h"
#include "engine/engine_impl.h"
#include "engine/restore_nodes.h"
#include "pipeline/identity.h"

namespace neardup {

using engine::DurableImpl;
using engine::EngineInternal;
using engine::WriteOp;

namespace {

// Documents a thread of AddBatch prepares at a time: small enough to spread
// a batch of 100 over the cores, large enough that a chunk outweighs its
// hand-out.
constexpr size_t kPrepareChunk = 8;

// Prepares one document of AddBatch into *item; false, with *out set to the
// error, when it cannot be added. Thread-safe (Engine's const calls).
bool PrepareItem(const Engine& engine, const IncomingDocument& doc, WriteOp::Item* item,
                 Result<IngestResult>* out) {
  if (doc.id.empty()) {
    *out = Status::InvalidArgument("document id must not be empty");
    return false;
  }
  *item = WriteOp::Item{doc, {}, Status::Internal("not applied")};
  if (Status s = EngineInternal::Prepare(engine, doc.text, &item->prepared); !s.ok()) {
    *out = s;
    return false;
  }
  item->form = EngineInternal::MakeForm(engine, &item->prepared);
  // Off the writer: its verification of the candidates there are now.
  (void)EngineInternal::PreVerify(engine, &item->prepared);
  return true;
}

// A store only fits an engine whose pipeline makes the same sketches and
// similarities: PipelineIdentity() is written on creation and checked on
// open. Sets *record when the store has none yet (a new store).
Status CheckStoreOptions(const store::DocStore& st, const EngineOptions& o, bool* record) {
  const std::string want = PipelineIdentity(o);
  auto have = st.GetMeta("pipeline");
  *record = false;
  if (have.ok()) {
    if (!pipeline::IdentityMatches(*have, o)) {
      return Status::FailedPrecondition(
          "the store was written by the pipeline '" + *have + "' but this engine has '" + want +
          "'; open it with the same profile and options." + pipeline::IdentityHint(*have, o));
    }
    return Status::OK();
  }
  if (!have.status().IsNotFound()) return have.status();
  *record = true;
  return Status::OK();
}

Status RecordPipeline(store::DocStore& st, const EngineOptions& o) {
  store::DocStore::Batch b;
  st.Prepare(&b);
  b.PutMeta("pipeline", PipelineIdentity(o));
  return st.Write(&b, true);
}

// Names the store in a corruption found while loading it.
Status InStore(const std::string& dir, Status s) {
  if (s.code() != StatusCode::kCorruption || s.message().rfind("store ", 0) == 0) return s;
  return Status::Corruption("store " + dir + " is damaged: " + s.message());
}

// Rebuilds `engine` from the store: nodes in arrival order with their
// sketches, then refreshed times, then ghost roots, then counters.
Status Recover(store::DocStore& st, Engine& engine, DurableImpl& impl) {
  uint64_t c[5] = {0, 0, 0, 0, 0};
  if (auto v = st.GetMeta("counters"); v.ok()) {
    if (!engine::DecodeCounters(*v, c)) return Status::Corruption("bad counters '" + *v + "'");
  } else if (!v.status().IsNotFound()) {
    return v.status();
  }
  // Sizes the arrays for the rows to come: RocksDB's estimate, which no
  // more documents can have been stored than were ever added bounds.
  EngineInternal::BeginRestore(engine, std::min(st.EstimatedDocuments(), c[0]));
  const Result<uint64_t> n = engine::RestoreNodes(st, engine);
  EngineInternal::EndRestore(engine);
  NEARDUP_RETURN_IF_ERROR(n.status());
  std::vector<std::string> ghosts;
  NEARDUP_RETURN_IF_ERROR(st.ScanTimes([&](const store::TimeRow& row) {
    if (row.ghost) ghosts.push_back(row.id);
    Status s = EngineInternal::Touch(engine, row.id, row.time);
    if (s.IsNotFound()) return Status::OK();  // a stale time row; harmless
    return s;
  }));
  for (const auto& g : ghosts) {
    Status s = EngineInternal::MarkGhost(engine, g);
    if (!s.ok()) return Status::Corruption("ghost root '" + g + "': " + s.message());
  }
  EngineInternal::RestoreCounters(engine, c[0], c[1], c[2]);
  EngineInternal::ShrinkToFit(engine);
  impl.expired_trees = c[3];
  impl.expired_documents = c[4];
  impl.restored_documents = *n;
  NEARDUP_ASSIGN_OR_RETURN(impl.next_seq, st.NextSeq());
  return Status::OK();
}

}  // namespace

namespace engine {
namespace {

// The boilerplate guard's counts (verify/boilerplate.h), written by a clean
// Close and read by the next Open. Not part of the store: after a crash
// the counts of the last clean close are read (or none), and the guard
// learns again from the documents that arrive.
constexpr char kBoilerplateFile[] = "boilerplate.counts";

void LoadBoilerplateCounts(const std::string& dir, Engine& engine, const DurableImpl& impl) {
  std::string bytes;
  if (!base::ReadWholeFile(dir + "/" + kBoilerplateFile, &bytes).ok()) return;  // none yet
  if (!EngineInternal::LoadBoilerplate(engine, bytes)) {
    impl.Log(LogLevel::kWarning, std::string(kBoilerplateFile) +
                                     ": not this pipeline's boilerplate counts; starting afresh");
  }
}

store::StoreOptions WithLog(store::StoreOptions o, DurableImpl* impl) {
  if (!o.log)
    o.log = [impl](std::string_view m) {
      impl->Log(LogLevel::kWarning, "store: " + std::string(m));
    };
  return o;
}
}  // namespace

Status DurableImpl::LookupText(std::string_view id, std::string* text) const {
  {
    base::MutexLock lock(pending_mu);
    if (auto it = pending_texts.find(std::string(id)); it != pending_texts.end()) {
      *text = it->second->doc.text;
      return Status::OK();
    }
  }
  NEARDUP_ASSIGN_OR_RETURN(store::DocRow row, store->GetDoc(id));
  *text = std::move(row.text);
  return Status::OK();
}

Status DurableImpl::LookupForm(std::string_view id, std::string* form) const {
  {
    base::MutexLock lock(pending_mu);
    if (auto it = pending_texts.find(std::string(id)); it != pending_texts.end()) {
      if (it->second->form.empty()) return Status::NotFound("no verification form");
      *form = it->second->form;
      return Status::OK();
    }
  }
  NEARDUP_ASSIGN_OR_RETURN(*form, store->GetForm(id));
  return Status::OK();
}

}  // namespace engine

const store::DocStore& engine::DurableAccess::StoreOf(const DurableEngine& d) {
  return *d.impl_->store;
}

Result<std::unique_ptr<DurableEngine>> DurableEngine::Open(const DurableOptions& options) {
  return base::CatchResourceErrors([&] { return engine::DurableAccess::Open(options, {}); });
}

Result<std::unique_ptr<DurableEngine>> engine::DurableAccess::Open(
    const DurableOptions& options, const store::StoreOptions& store_options) {
  if (options.dir.empty()) return Status::InvalidArgument("a data directory is required");
  if (options.max_group == 0 || options.expire_trees_per_step == 0) {
    return Status::InvalidArgument("max_group and expire_trees_per_step must be positive");
  }
  if (options.ttl_ms < 0) return Status::InvalidArgument("ttl_ms must be >= 0 (0 = never expire)");
  if (options.engine.features.idf == IdfSource::kLearned) {
    return Status::FailedPrecondition(
        "the persisted store does not keep learned document frequencies yet; use idf=jieba "
        "(the in-memory Engine saves them with SaveIdf/LoadIdf)");
  }
  std::unique_ptr<DurableEngine> d(new DurableEngine());
  d->options_ = options;
  NEARDUP_ASSIGN_OR_RETURN(d->engine_, Engine::Create(options.engine));
  d->impl_ = std::make_unique<DurableImpl>();
  DurableImpl* impl = d->impl_.get();
  impl->owner = d.get();
  impl->engine = d->engine_.get();
  impl->options = &d->options_;
  impl->clock = options.engine.clock ? options.engine.clock.get() : &SystemClock();
  impl->log = options.engine.info_log;
  // The verifier compares with stored texts: keep them, and read them from
  // the store instead of memory.
  const bool verifies = options.engine.verify.kind != VerifyKind::kNone;
  impl->store_text = options.store_text || verifies;
  if (verifies) {
    EngineInternal::UseTextLookup(
        *d->engine_,
        [impl](std::string_view id, std::string* text) { return impl->LookupText(id, text); },
        [impl](std::string_view id, std::string* form) { return impl->LookupForm(id, form); });
  }
  // The store is loaded read-only and verified before anything is written
  // to it: a damaged store is refused as it is (doc_store.h, Open).
  store::StoreOptions so = WithLog(store_options, impl);
  so.read_only = true;
  NEARDUP_ASSIGN_OR_RETURN(impl->store, store::DocStore::Open(options.dir, so));
  bool record_pipeline = false;
  NEARDUP_RETURN_IF_ERROR(CheckStoreOptions(*impl->store, options.engine, &record_pipeline));
  const auto start = std::chrono::steady_clock::now();
  NEARDUP_RETURN_IF_ERROR(InStore(options.dir, Recover(*impl->store, *d->engine_, *impl)));
  NEARDUP_RETURN_IF_ERROR(impl->store->VerifyNodeCount(impl->restored_documents));
  NEARDUP_RETURN_IF_ERROR(impl->store->OpenForWriting());
  LoadBoilerplateCounts(options.dir, *d->engine_, *impl);
  impl->restored = true;
  if (record_pipeline) NEARDUP_RETURN_IF_ERROR(RecordPipeline(*impl->store, options.engine));
  impl->restore_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::steady_clock::now() - start)
                         .count();
  NEARDUP_RETURN_IF_ERROR(
      base::StartThread(&impl->writer, "store writer", [impl] { impl->WriterLoop(); }));
  if (options.background_expiry && options.ttl_ms > 0) {
    NEARDUP_RETURN_IF_ERROR(
        base::StartThread(&impl->expirer, "expiry", [impl] { impl->ExpirerLoop(); }));
  }
  return d;
}

DurableEngine::~DurableEngine() { (void)Close(); }

Status DurableEngine::Close() {
  if (!impl_) return Status::OK();
  {
    base::MutexLock lock(impl_->mu);
    if (impl_->closed) return Status::OK();
    impl_->closing = true;
    impl_->closed = true;
  }
  impl_->cv.NotifyAll();
  impl_->expirer_cv.NotifyAll();
  if (impl_->expirer.joinable()) impl_->expirer.join();
  if (impl_->writer.joinable()) impl_->writer.join();  // drains the queue first
  // An Open that failed before the store opened has nothing to flush.
  if (!impl_->store) return Status::OK();
  Status flushed = impl_->store->Flush();
  if (impl_->restored) {  // the guard's counts, for the next Open (not part of the store)
    const std::string counts = EngineInternal::SaveBoilerplate(*engine_);
    if (!counts.empty()) {
      Status saved = base::AtomicWrite(options_.dir + "/" + engine::kBoilerplateFile, counts);
      if (flushed.ok()) flushed = saved;
    }
  }
  return flushed;
}

std::vector<Result<IngestResult>> DurableEngine::AddBatch(std::span<const IncomingDocument> docs,
                                                          OnConflict on_conflict) {
  std::vector<Result<IngestResult>> out(docs.size(), Status::Internal("not applied"));
  // Prepared off the writer, on up to options.engine.threads threads (the
  // calling one among them): the documents are independent, and each one's
  // verification runs against the committed state, which no item of this
  // batch changes before the writer applies it.
  std::vector<WriteOp::Item> items(docs.size());
  std::vector<char> ready(docs.size(), 0);
  base::ParallelFor(docs.size(), options_.engine.threads, kPrepareChunk,
                    [&](int, size_t begin, size_t end) {
                      for (size_t i = begin; i < end; ++i) {
                        ready[i] = PrepareItem(*engine_, docs[i], &items[i], &out[i]);
                      }
                    });
  auto op = std::make_shared<WriteOp>();
  op->on_conflict = on_conflict;
  std::vector<size_t> where;  // index in `out` of each queued item
  for (size_t i = 0; i < docs.size(); ++i) {
    if (!ready[i]) continue;
    op->items.push_back(std::move(items[i]));
    where.push_back(i);
  }
  if (op->items.empty()) return out;
  auto done = op->done.get_future();
  if (Status s = impl_->Enqueue(op); !s.ok()) {
    for (size_t i : where) out[i] = s;
    return out;
  }
  done.wait();
  for (size_t j = 0; j < where.size(); ++j) out[where[j]] = std::move(op->items[j].result);
  return out;
}

Result<IngestResult> DurableEngine::Add(const IncomingDocument& doc, OnConflict on_conflict) {
  auto r = AddBatch(std::span<const IncomingDocument>(&doc, 1), on_conflict);
  return std::move(r[0]);
}

Status DurableEngine::Remove(const std::string& id) {
  auto op = std::make_shared<WriteOp>();
  op->kind = WriteOp::Kind::kRemove;
  op->id = id;
  auto done = op->done.get_future();
  NEARDUP_RETURN_IF_ERROR(impl_->Enqueue(op));
  done.wait();
  return op->status;
}

Result<ExpireReport> DurableEngine::Expire(int64_t before) { return impl_->ExpireAll(before); }

namespace {
// Queues a time refresh unless the node was refreshed within `granularity`.
void MaybeTouch(DurableImpl& impl, const NodeRecord& rec, int64_t granularity) {
  const int64_t now = impl.clock->NowMs();
  if (rec.time >= now - granularity) return;
  auto op = std::make_shared<WriteOp>();
  op->kind = WriteOp::Kind::kTouch;
  op->id = rec.id;
  op->time = now;
  op->wait = false;
  (void)impl.Enqueue(std::move(op));  // best effort: dropped when closing
}
}  // namespace

Result<DocumentRecord> DurableEngine::Peek(const std::string& id) const {
  NEARDUP_ASSIGN_OR_RETURN(NodeRecord rec, EngineInternal::Record(*engine_, id));
  if (rec.ghost) return Status::NotFound("no document '" + id + "'");
  DocumentRecord out;
  out.id = id;
  out.cluster = rec.cluster;
  out.fingerprint = rec.fingerprint;
  out.time = rec.time;
  if (auto c = engine_->GetCluster(rec.cluster, 0); c.ok()) out.cluster_size = c->size;
  auto row = impl_->store->GetDoc(id);
  if (row.ok()) {
    out.arrival = row->arrival;
    out.meta = std::move(row->meta);
    if (impl_->store_text) out.text = std::move(row->text);
  } else if (!row.status().IsNotFound()) {
    return row.status();
  } else {
    return Status::NotFound("no document '" + id + "'");  // removed meanwhile, or not committed
  }
  return out;
}

Result<DocumentRecord> DurableEngine::Get(const std::string& id) {
  NEARDUP_ASSIGN_OR_RETURN(DocumentRecord out, Peek(id));
  MaybeTouch(*impl_, NodeRecord{.id = id, .cluster = out.cluster, .time = out.time},
             options_.touch_granularity_ms);
  return out;
}

Result<std::vector<SimilarDocument>> DurableEngine::Similar(const std::string& id, size_t limit) {
  NEARDUP_ASSIGN_OR_RETURN(NodeRecord rec, EngineInternal::Record(*engine_, id));
  if (rec.ghost) return Status::NotFound("no document '" + id + "'");
  NEARDUP_ASSIGN_OR_RETURN(auto matches, engine_->Similar(id, limit));
  std::vector<SimilarDocument> out;
  out.reserve(matches.size());
  for (auto& m : matches) {
    auto row = impl_->store->GetDoc(m.id);
    SimilarDocument& d = out.emplace_back();
    d.match = std::move(m);
    if (row.ok()) {
      d.meta = std::move(row->meta);
      d.arrival = row->arrival;
      if (impl_->store_text) d.text = std::move(row->text);
    }
  }
  MaybeTouch(*impl_, rec, options_.touch_granularity_ms);
  return out;
}

Result<std::string> DurableEngine::Meta(const std::string& id) const {
  NEARDUP_ASSIGN_OR_RETURN(store::DocRow row, impl_->store->GetDoc(id));
  return std::move(row.meta);
}

Result<QueryResult> DurableEngine::Query(std::string_view text, const QueryOptions& q) const {
  return engine_->Query(text, q);
}

Result<ClusterInfo> DurableEngine::ClusterOf(const std::string& id, size_t limit) const {
  return engine_->ClusterOf(id, limit);
}

Result<ClusterInfo> DurableEngine::GetCluster(const std::string& cluster_id, size_t limit) const {
  return engine_->GetCluster(cluster_id, limit);
}

std::vector<ClusterSummary> DurableEngine::ListClusters(const ListOptions& page) const {
  return engine_->ListClusters(page);
}

Result<Explanation> DurableEngine::Explain(std::string_view a, std::string_view b) const {
  return engine_->Explain(a, b);
}

Status DurableEngine::FoldCharacters(std::string_view text, std::string* out) const {
  return engine_->FoldCharacters(text, out);
}

DurableStats DurableEngine::Stats() const {
  DurableStats s;
  s.engine = engine_->Stats();
  s.commits = impl_->commits;
  s.committed_docs = impl_->committed_docs;
  s.commit_errors = impl_->commit_errors;
  s.expired_trees = impl_->expired_trees;
  s.expired_documents = impl_->expired_documents;
  {
    base::MutexLock lock(impl_->mu);
    s.queue_depth = impl_->queued_docs;
  }
  s.disk_bytes = impl_->store->DiskBytes();
  const store::DocStore::Memory m = impl_->store->MemoryUsage();
  s.store_cache_bytes = m.block_cache;
  s.store_memtable_bytes = m.memtables;
  s.restore_ms = impl_->restore_ms;
  s.restored_documents = impl_->restored_documents;
  s.ttl_ms = options_.ttl_ms;
  return s;
}

}  // namespace neardup
