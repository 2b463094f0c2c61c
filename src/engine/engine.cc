// SPDX-License-Identifier: Apache-2.0
// Engine: wires pipeline -> Hamming index -> parent forest behind one
// ordered writer and concurrent readers (contract in include/neardup/engine.h).
#include "neardup/engine.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <unordered_map>

#include "base/parallel.h"
#include "engine/engine_impl.h"

namespace neardup {

std::string FingerprintHex(uint64_t fp) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(fp));
  return buf;
}

namespace engine {
int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}
}  // namespace engine

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;

Result<std::unique_ptr<Engine>> Engine::Create(const EngineOptions& options) {
  if (options.max_distance < 0 || options.max_distance > 32) {
    return Status::InvalidArgument("max_distance must be in [0, 32]");
  }
  const int index_k =
      options.index_max_distance < 0 ? options.max_distance : options.index_max_distance;
  if (index_k < options.max_distance) {
    return Status::InvalidArgument("index_max_distance must be >= max_distance");
  }
  if (options.learn_idf && (options.idf != "learned" || options.weights != "tfidf")) {
    return Status::InvalidArgument("learn_idf needs weights=tfidf and idf=learned");
  }
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->k = options.max_distance;
  NEARDUP_ASSIGN_OR_RETURN(impl->pipeline, engine::Pipeline::Create(options));
  NEARDUP_ASSIGN_OR_RETURN(impl->index, index::HammingIndex::Create({.max_distance = index_k}));
  NEARDUP_RETURN_IF_ERROR(engine::BuildSignals(options, impl->index.get(), impl->k, &impl->signals,
                                               &impl->simhash_pos));
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

Result<uint64_t> Engine::Fingerprint(std::string_view text) const {
  return impl_->pipeline->Fingerprint(text);
}

Result<AddResult> Engine::Add(const Document& doc) {
  if (doc.id.empty()) return Status::InvalidArgument("document id must not be empty");
  if (impl_->options.learn_idf) NEARDUP_RETURN_IF_ERROR(impl_->pipeline->Learn(doc.text));
  if (impl_->signals) {
    NEARDUP_ASSIGN_OR_RETURN(engine::Prepared p, impl_->Prepare(doc.text));
    std::unique_lock lock(impl_->mu);
    return impl_->AddLocked(doc, p.fp, &p);
  }
  NEARDUP_ASSIGN_OR_RETURN(uint64_t fp, impl_->pipeline->Fingerprint(doc.text));
  std::unique_lock lock(impl_->mu);
  return impl_->AddLocked(doc, fp);
}

std::vector<Result<AddResult>> Engine::AddBatch(std::span<const Document> docs) {
  if (impl_->options.learn_idf) {
    // Counts commute: learn the whole batch first, then fingerprint it, so the
    // result does not depend on thread timing. A document that fails to learn
    // fails the same way below.
    base::ParallelFor(docs.size(), impl_->options.threads, 64, [&](int, size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) (void)impl_->pipeline->Learn(docs[i].text);
    });
  }
  // Without signals only fingerprints are computed; with them, prepared documents.
  std::vector<Result<uint64_t>> fps;
  std::vector<Result<engine::Prepared>> prepared;
  if (impl_->signals) {
    prepared.resize(docs.size(), Status::Internal("not prepared"));
    base::ParallelFor(docs.size(), impl_->options.threads, 64, [&](int, size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) prepared[i] = impl_->Prepare(docs[i].text);
    });
  } else {
    fps.resize(docs.size(), Result<uint64_t>(uint64_t{0}));
    base::ParallelFor(docs.size(), impl_->options.threads, 64, [&](int, size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) fps[i] = impl_->pipeline->Fingerprint(docs[i].text);
    });
  }

  std::vector<Result<AddResult>> out;
  out.reserve(docs.size());
  std::unique_lock lock(impl_->mu);
  for (size_t i = 0; i < docs.size(); ++i) {
    if (docs[i].id.empty()) {
      out.push_back(Status::InvalidArgument("document id must not be empty"));
    } else if (impl_->signals) {
      if (!prepared[i].ok()) {
        out.push_back(prepared[i].status());
      } else {
        out.push_back(impl_->AddLocked(docs[i], prepared[i]->fp, &*prepared[i]));
      }
    } else if (!fps[i].ok()) {
      out.push_back(fps[i].status());
    } else {
      out.push_back(impl_->AddLocked(docs[i], *fps[i]));
    }
  }
  return out;
}

Status Engine::LearnIdf(std::string_view text) { return impl_->pipeline->Learn(text); }

Status Engine::SaveIdf(const std::string& path) const {
  auto df = impl_->pipeline->learned_idf();
  if (!df)
    return Status::FailedPrecondition("no learned document frequencies (idf is not learned)");
  return df->Save(path);
}

Status Engine::LoadIdf(const std::string& path) {
  auto df = impl_->pipeline->learned_idf();
  if (!df)
    return Status::FailedPrecondition("no learned document frequencies (idf is not learned)");
  return df->Load(path);
}

uint64_t Engine::IdfDocuments() const {
  auto df = impl_->pipeline->learned_idf();
  return df ? df->num_documents() : 0;
}

Result<QueryResult> Engine::Query(std::string_view text, int max_distance) const {
  const int k = max_distance < 0 ? impl_->k : max_distance;
  std::optional<engine::Prepared> p;
  uint64_t fp = 0;
  if (impl_->signals) {
    NEARDUP_ASSIGN_OR_RETURN(p, impl_->Prepare(text));
    fp = p->fp;
    if (impl_->simhash_pos >= 0) p->sketches[impl_->simhash_pos].u32 = {static_cast<uint32_t>(k)};
  } else {
    NEARDUP_ASSIGN_OR_RETURN(fp, impl_->pipeline->Fingerprint(text));
  }
  QueryResult q;
  q.fingerprint = fp;
  std::vector<Slot> near;
  std::shared_lock lock(impl_->mu);
  NEARDUP_RETURN_IF_ERROR(impl_->Candidates(fp, p ? &*p : nullptr, k, &near, &q.matches));
  const Slot root = impl_->forest.ChooseCluster(near);
  if (root != kNoSlot) {
    q.cluster = impl_->IdOf(root);
    q.cluster_size = impl_->forest.Size(root);
  }
  return q;
}

Result<std::vector<Match>> Engine::Similar(std::string_view id, size_t limit) const {
  std::shared_lock lock(impl_->mu);
  const Slot s = impl_->LiveSlot(id);
  if (s == kNoSlot) return Status::NotFound("no document '" + std::string(id) + "'");
  const uint64_t fp = impl_->FingerprintOf(s);
  std::vector<Slot> members;
  impl_->forest.Members(impl_->forest.RootOf(s), &members);
  std::vector<Match> out;
  for (Slot m : members) {
    if (m == s) continue;
    out.push_back(MakeMatch(impl_->IdOf(m), index::Distance(fp, impl_->FingerprintOf(m))));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Match& a, const Match& b) { return a.distance < b.distance; });
  if (out.size() > limit) out.resize(limit);
  return out;
}

Result<ClusterInfo> Engine::ClusterOf(std::string_view id, size_t limit) const {
  std::shared_lock lock(impl_->mu);
  const Slot s = impl_->LiveSlot(id);
  if (s == kNoSlot) return Status::NotFound("no document '" + std::string(id) + "'");
  return impl_->Describe(impl_->forest.RootOf(s), limit);
}

Result<ClusterInfo> Engine::GetCluster(std::string_view cluster_id, size_t limit) const {
  std::shared_lock lock(impl_->mu);
  const Slot s = impl_->Lookup(cluster_id);
  if (s == kNoSlot || impl_->forest.RootOf(s) != s) {
    return Status::NotFound("no cluster '" + std::string(cluster_id) + "'");
  }
  return impl_->Describe(s, limit);
}

Result<DocumentInfo> Engine::Get(std::string_view id) const {
  std::shared_lock lock(impl_->mu);
  const Slot s = impl_->LiveSlot(id);
  if (s == kNoSlot) return Status::NotFound("no document '" + std::string(id) + "'");
  return DocumentInfo{std::string(id), impl_->IdOf(impl_->forest.RootOf(s)),
                      impl_->FingerprintOf(s), impl_->forest.TimeOf(s)};
}

Status Engine::Remove(std::string_view id) {
  std::unique_lock lock(impl_->mu);
  const Slot s = impl_->LiveSlot(id);
  if (s == kNoSlot) return Status::NotFound("no document '" + std::string(id) + "'");
  impl_->RemoveFromIndexes(s);
  std::vector<Slot> released;
  impl_->forest.Remove(s, &released);
  for (Slot r : released) {
    impl_->ids.Erase(r);
    impl_->free_slots.push_back(r);
  }
  ++impl_->counters.removed;
  return Status::OK();
}

EngineStats Engine::Stats() const {
  std::shared_lock lock(impl_->mu);
  EngineStats s = impl_->counters;
  s.documents = impl_->forest.live();
  s.clusters = impl_->forest.clusters();
  s.index_bytes = impl_->index->MemoryBytes();
  s.forest_bytes = impl_->forest.MemoryBytes();
  s.id_bytes = impl_->ids.MemoryBytes();
  s.max_distance = impl_->k;
  return s;
}

void Engine::ShrinkToFit() {
  std::unique_lock lock(impl_->mu);
  impl_->forest.ShrinkToFit();
  impl_->ids.ShrinkToFit();
  impl_->free_slots.shrink_to_fit();
}

const EngineOptions& Engine::options() const { return impl_->options; }

}  // namespace neardup
