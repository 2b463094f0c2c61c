// SPDX-License-Identifier: Apache-2.0
// The DurableEngine writer thread: group commit (one WriteBatch, one fsync,
// for up to max_group queued documents, acknowledged together, as in the
// "group commit" of database logs, Gawlick & Kinkade 1985) and the expiry
// thread that feeds it bounded steps.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "base/status_macros.h"
#include "engine/durable_impl.h"
#include "engine/engine_impl.h"

namespace neardup {
namespace {

using engine::EngineInternal;
using engine::WriteOp;

// The records of one group: the batch and the seq of ids added in it, so a
// removal in the same group finds them before they are in the store.
struct Group {
  store::DocStore::Batch batch;
  std::unordered_map<std::string, uint64_t> new_seqs;
  // The items of the ids added in it, for a document gathered in the same
  // group (its rows are rewritten from them).
  std::unordered_map<std::string, const WriteOp::Item*> new_items;
  std::vector<std::string> added;  // in order, for rollback
  // Ids whose trees changed in memory other than by an add of this group:
  // removed, expired and touched ids, and the clusters adds joined (their
  // root time rose). A failed commit reloads these trees from the store.
  std::vector<std::string> reload;
  bool sync = false;
  // A store read that failed while the group was applied: the group is
  // not written, and rolled back.
  Status error;
};

class Writer {
 public:
  Writer(engine::DurableImpl& impl, Engine& engine, const DurableOptions& options)
      : impl_(impl), engine_(engine), options_(options) {}

  void Apply(WriteOp& op, Group& g) {
    switch (op.kind) {
      case WriteOp::Kind::kAdd:
        for (auto& item : op.items) item.result = AddOne(item, op.on_conflict, g);
        break;
      case WriteOp::Kind::kRemove:
        op.status = EngineInternal::Erase(engine_, op.id, &op.changes);
        if (op.status.ok()) {
          Mirror(op.changes, g);
          g.sync = true;
        }
        g.reload.push_back(op.id);
        break;
      case WriteOp::Kind::kExpire:
        op.trees = EngineInternal::Expire(engine_, op.time, options_.expire_trees_per_step,
                                          options_.expire_documents_per_step, &op.changes);
        Mirror(op.changes, g);
        for (const auto& id : op.changes.released) g.reload.push_back(id);
        break;
      case WriteOp::Kind::kTouch:
        Touch(op.id, op.time, g);
        g.reload.push_back(op.id);
        break;
    }
  }

  // Brings memory back to the store after a failed commit: the group's
  // adds are undone, then every other tree the group changed (removals,
  // expiry, time refreshes, joins) is reloaded from the store, which the
  // failed batch did not change.
  void Rollback(Group& g) {
    RemovalChanges ignored;
    for (auto it = g.added.rbegin(); it != g.added.rend(); ++it) {
      (void)EngineInternal::Erase(engine_, *it, &ignored);
    }
    if (Status s = engine::ReloadTrees(*impl_.store, engine_, g.reload); !s.ok()) {
      impl_.Log(LogLevel::kError, "rollback could not reload trees: " + s.ToString());
    }
  }

 private:
  Result<IngestResult> AddOne(WriteOp::Item& item, OnConflict on_conflict, Group& g) {
    IncomingDocument& d = item.doc;
    if (auto existing = EngineInternal::Record(engine_, d.id); existing.ok()) {
      if (on_conflict == OnConflict::kReturnExisting && !existing->ghost) return Existing(item);
      return Status::AlreadyExists(
          existing->ghost ? "id '" + d.id + "' is a removed root whose cluster lives on"
                          : "document '" + d.id + "' already exists");
    }
    if (d.time == 0) d.time = impl_.clock->NowMs();
    Document doc{d.id, {}, d.time};
    // A group's own documents are in memory before they are in the store:
    // the verifier finds their texts here.
    {
      base::MutexLock lock(impl_.pending_mu);
      impl_.pending_texts[d.id] = &item;
    }
    NEARDUP_ASSIGN_OR_RETURN(AddResult r,
                             EngineInternal::AddPrepared(engine_, doc, &item.prepared));
    const uint64_t seq = impl_.next_seq++;
    g.batch.PutNode(NodeRowOf(item, seq, r.duplicate ? r.cluster : std::string()));
    g.batch.PutDoc(d.id, DocRowOf(item, seq));
    if (!item.form.empty()) g.batch.PutForm(d.id, item.form);
    if (r.duplicate) {
      PutTimeOf(r.cluster, g);
      g.reload.push_back(r.cluster);
    }
    g.new_seqs[d.id] = seq;
    g.new_items[d.id] = &item;
    g.added.push_back(d.id);
    g.sync = true;
    for (const auto& id : r.gathered) Regather(id, r.cluster, g);
    return IngestResult{std::move(r), true};
  }

  // A document the add gathered into `root`'s cluster (AddResult::
  // gathered): its node row moves to the next seq, naming its root, so a
  // restart restores the root first and replays the join in its order; its
  // doc row follows the seq. Its rows come from its item when it was added
  // in this group, else from the store.
  void Regather(const std::string& id, const std::string& root, Group& g) {
    store::NodeRow node;
    store::DocRow doc;
    uint64_t old_seq = 0;
    if (auto it = g.new_items.find(id); it != g.new_items.end()) {
      old_seq = g.new_seqs.at(id);
      node = NodeRowOf(*it->second, 0, "");
      doc = DocRowOf(*it->second, 0);
    } else {
      auto stored = impl_.store->GetDoc(id);
      if (!stored.ok()) return Fail(stored.status(), id, g);
      auto row = impl_.store->GetNode(stored->seq);
      if (!row.ok()) return Fail(row.status(), id, g);
      old_seq = stored->seq;
      node = std::move(*row);
      doc = std::move(*stored);
    }
    const uint64_t seq = impl_.next_seq++;
    node.seq = doc.seq = seq;
    node.root = root;
    g.batch.DeleteNodeRow(old_seq);
    g.batch.PutNode(node);
    g.batch.PutDoc(id, doc);
    g.new_seqs[id] = seq;
    g.reload.push_back(id);
  }

  // The rows of an added item (its time set), at `seq`, under `root` ("":
  // its own root).
  store::NodeRow NodeRowOf(const WriteOp::Item& item, uint64_t seq, std::string root) const {
    return {seq,
            item.doc.id,
            std::move(root),
            item.prepared.processed.fingerprint,
            item.doc.time,
            EngineInternal::EncodeSketches(engine_, item.prepared)};
  }
  store::DocRow DocRowOf(const WriteOp::Item& item, uint64_t seq) const {
    return {seq, item.doc.time, item.doc.meta, impl_.store_text ? item.doc.text : std::string()};
  }

  void Fail(const Status& s, const std::string& id, Group& g) {
    if (g.error.ok()) g.error = s.WithContext("moving gathered '" + id + "'");
  }

  Result<IngestResult> Existing(const WriteOp::Item& item) {
    NEARDUP_ASSIGN_OR_RETURN(NodeRecord rec, EngineInternal::Record(engine_, item.doc.id));
    IngestResult out;
    out.created = false;
    out.add.id = rec.id;
    out.add.cluster = rec.cluster;
    out.add.duplicate = rec.cluster != rec.id;
    out.add.fingerprint = rec.fingerprint;
    if (auto c = engine_.GetCluster(rec.cluster, 0); c.ok()) out.add.cluster_size = c->size;
    if (auto q = engine_.Query(item.doc.text); q.ok()) {
      for (auto& m : q->matches) {
        if (m.id != rec.id) out.add.matches.push_back(std::move(m));
      }
    }
    return out;
  }

  void PutTimeOf(const std::string& id, Group& g) {
    if (auto rec = EngineInternal::Record(engine_, id); rec.ok()) {
      g.batch.PutTime({id, rec->time, rec->ghost});
    }
  }

  void Touch(const std::string& id, int64_t time, Group& g) {
    auto rec = EngineInternal::Record(engine_, id);
    if (!rec.ok() || rec->ghost || rec->time >= time) return;
    if (!EngineInternal::Touch(engine_, id, time).ok()) return;
    g.batch.PutTime({id, time, false});
    if (rec->cluster != id) PutTimeOf(rec->cluster, g);
  }

  // Mirrors removals into the batch: released ids lose all rows; a root
  // turned ghost keeps its node row (fingerprint and order for recovery),
  // gets the ghost mark, and loses its meta and text.
  void Mirror(const RemovalChanges& changes, Group& g) {
    for (const auto& id : changes.released) {
      if (auto it = g.new_seqs.find(id); it != g.new_seqs.end()) {
        g.batch.DeleteDocument(id, it->second);
      } else if (auto row = impl_.store->GetDoc(id); row.ok()) {
        g.batch.DeleteDocument(id, row->seq);
      } else {
        impl_.Log(LogLevel::kWarning,
                  "store has no row for released '" + id + "': " + row.status().ToString());
      }
    }
    for (const auto& id : changes.ghosted) {
      auto rec = EngineInternal::Record(engine_, id);
      if (!rec.ok()) continue;
      g.batch.PutTime({id, rec->time, true});
      uint64_t seq = 0;
      int64_t arrival = 0;
      if (auto it = g.new_seqs.find(id); it != g.new_seqs.end()) {
        seq = it->second;
        arrival = rec->time;
      } else if (auto row = impl_.store->GetDoc(id); row.ok()) {
        seq = row->seq;
        arrival = row->arrival;
      } else {
        continue;
      }
      g.batch.PutDoc(id, {seq, arrival, "", ""});
    }
  }

  engine::DurableImpl& impl_;
  Engine& engine_;
  const DurableOptions& options_;
};

}  // namespace

namespace engine {

std::string EncodeCounters(const EngineStats& s, uint64_t expired_trees, uint64_t expired_docs) {
  char buf[128];
  std::snprintf(
      buf, sizeof(buf), "%llu %llu %llu %llu %llu", static_cast<unsigned long long>(s.added),
      static_cast<unsigned long long>(s.duplicates), static_cast<unsigned long long>(s.removed),
      static_cast<unsigned long long>(expired_trees),
      static_cast<unsigned long long>(expired_docs));
  return buf;
}

bool DecodeCounters(std::string_view v, uint64_t out[5]) {
  unsigned long long a[5];
  if (std::sscanf(std::string(v).c_str(), "%llu %llu %llu %llu %llu", &a[0], &a[1], &a[2], &a[3],
                  &a[4]) != 5) {
    return false;
  }
  for (int i = 0; i < 5; ++i) out[i] = a[i];
  return true;
}

Status DurableImpl::Enqueue(std::shared_ptr<WriteOp> op) {
  {
    base::MutexLock lock(mu);
    if (closing) return Status::Unavailable("the engine is shutting down");
    if (op->kind == WriteOp::Kind::kAdd && queued_docs + op->weight() > options->max_queue &&
        queued_docs > 0) {
      return Status::Unavailable("write queue is full; retry later");
    }
    queued_docs += op->weight();
    queue.push_back(std::move(op));
  }
  cv.NotifyOne();
  return Status::OK();
}

void DurableImpl::WriterLoop() {
  Engine& engine = *this->engine;
  const DurableOptions& options = *this->options;
  Writer writer(*this, engine, options);
  std::vector<std::shared_ptr<WriteOp>> ops;
  for (;;) {
    ops.clear();
    {
      base::MutexLock lock(mu);
      while (queue.empty() && !closing) cv.Wait(lock);
      if (queue.empty()) return;  // closing and drained
      size_t docs = 0;
      while (!queue.empty() &&
             (ops.empty() || docs + queue.front()->weight() <= options.max_group)) {
        docs += queue.front()->weight();
        ops.push_back(std::move(queue.front()));
        queue.pop_front();
      }
      queued_docs -= docs;
    }
    Group g;
    store->Prepare(&g.batch);
    const uint64_t seq_before = next_seq;
    const EngineStats before = EngineInternal::Counters(engine);
    for (auto& op : ops) writer.Apply(*op, g);
    uint64_t expired_t = expired_trees, expired_d = expired_documents;
    for (auto& op : ops) {
      if (op->kind == WriteOp::Kind::kExpire) {
        expired_t += op->changes.trees;
        expired_d += op->changes.documents;
      }
    }
    Status s = g.error;
    if (s.ok() && g.batch.count() > 0) {
      g.batch.PutMeta("counters",
                      EncodeCounters(EngineInternal::Counters(engine), expired_t, expired_d));
      s = store->Write(&g.batch, g.sync && options.sync);
    }
    {
      base::MutexLock lock(pending_mu);
      pending_texts.clear();
    }
    if (s.ok()) {
      expired_trees = expired_t;
      expired_documents = expired_d;
      ++commits;
      committed_docs += g.added.size();
    } else {
      ++commit_errors;
      writer.Rollback(g);
      EngineInternal::RestoreCounters(engine, before.added, before.duplicates, before.removed);
      next_seq = seq_before;
      Log(LogLevel::kError, "commit failed: " + s.ToString());
    }
    for (auto& op : ops) {
      if (!s.ok()) {
        for (auto& item : op->items) {
          if (item.result.ok() && item.result->created) item.result = s;
        }
        if (op->status.ok()) op->status = s;
      }
      if (op->wait) op->done.set_value();
    }
  }
}

Result<ExpireReport> DurableImpl::ExpireAll(int64_t before) {
  ExpireReport report;
  for (;;) {
    auto op = std::make_shared<WriteOp>();
    op->kind = WriteOp::Kind::kExpire;
    op->time = before;
    auto done = op->done.get_future();
    NEARDUP_RETURN_IF_ERROR(Enqueue(op));
    done.wait();
    NEARDUP_RETURN_IF_ERROR(op->status);
    report.trees += op->changes.trees;
    report.documents += op->changes.documents;
    if (op->trees == 0) return report;
  }
}

void DurableImpl::ExpirerLoop() {
  const DurableOptions& options = *this->options;
  base::MutexLock lock(mu);
  while (!closing) {
    expirer_cv.WaitFor(lock, std::chrono::milliseconds(options.expire_interval_ms));
    if (closing) break;
    lock.unlock();
    auto r = ExpireAll(clock->NowMs() - options.ttl_ms);
    if (!r.ok() && r.status().code() != StatusCode::kUnavailable) {
      Log(LogLevel::kError, "expiry failed: " + r.status().ToString());
    }
    lock.lock();
  }
}

}  // namespace engine
}  // namespace neardup
