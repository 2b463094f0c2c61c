// SPDX-License-Identifier: Apache-2.0
// Engine: wires pipeline -> signals -> verifier -> parent forest behind one
// ordered writer and concurrent readers (contract in include/neardup/engine.h).
#include "neardup/engine.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <mutex>
#include <shared_mutex>

#include "base/machine.h"
#include "base/parallel.h"
#include "engine/engine_impl.h"
#include "pipeline/signals.h"

namespace neardup {

std::string FingerprintHex(uint64_t fp) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(fp));
  return buf;
}

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;

Result<std::unique_ptr<Engine>> Engine::Create(const EngineOptions& options) try {
  NEARDUP_RETURN_IF_ERROR(base::CheckThreads(options.threads, "threads"));
  auto impl = std::make_unique<Impl>();
  {
    base::WriterLock lock(impl->mu);  // not shared yet; the analysis asks for it
    impl->forest.OrderBy(&impl->root_names);
  }
  impl->options = options;
  impl->clock = options.clock ? options.clock.get() : &SystemClock();
  NEARDUP_ASSIGN_OR_RETURN(impl->signals, pipeline::BuildSignalSet(options));
  impl->simhash_pos = impl->signals->IndexOf(SignalKind::kSimHash);
  impl->containment_pos = impl->signals->IndexOf(SignalKind::kContainment);
  impl->k = options.SimHashDistance();
  const pipeline::PipelineNeeds needs = pipeline::NeedsOf(options);
  NEARDUP_ASSIGN_OR_RETURN(impl->pipeline,
                           pipeline::Pipeline::Create(options, needs.features, needs.shingles));
  if (pipeline::KeepsAnchors(options)) {
    impl->pipeline->KeepAnchors(static_cast<size_t>(options.verify.short_chars));
    base::WriterLock lock(impl->mu);
    impl->boilerplate = std::make_unique<verify::BoilerplateCounts>();
    impl->boilerplate->Watch(options.verify.boilerplate_documents);
  }
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
} catch (...) {
  return base::ResourceErrorOrRethrow();
}

Result<uint64_t> Engine::Fingerprint(std::string_view text) const {
  return impl_->pipeline->Fingerprint(text);
}

Status Engine::FoldCharacters(std::string_view text, std::string* out) const {
  return impl_->pipeline->FoldCharacters(text, out);
}

Result<AddResult> Engine::Add(const Document& doc) {
  if (doc.id.empty()) return Status::InvalidArgument("document id must not be empty");
  if (impl_->options.features.learn_idf) {
    NEARDUP_RETURN_IF_ERROR(impl_->pipeline->Learn(doc.text));
  }
  engine::PreparedDocument p;
  NEARDUP_RETURN_IF_ERROR(impl_->Prepare(doc.text, &p));
  impl_->PrepareForm(&p);
  base::WriterLock lock(impl_->mu);
  return impl_->AddLocked(doc, &p);
}

std::vector<Result<AddResult>> Engine::AddBatch(std::span<const Document> docs) {
  const int threads = impl_->options.threads;
  if (impl_->options.features.learn_idf) {
    // Counts commute: learn the whole batch first, then prepare it, so the
    // result does not depend on thread timing. A document that fails to learn
    // fails the same way below.
    base::ParallelFor(docs.size(), threads, 64, [&](int, size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) (void)impl_->pipeline->Learn(docs[i].text);
    });
  }
  std::vector<engine::PreparedDocument> prepared(docs.size());
  std::vector<Status> status(docs.size());
  base::ParallelFor(docs.size(), threads, 64, [&](int, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      status[i] = impl_->Prepare(docs[i].text, &prepared[i]);
      if (status[i].ok()) impl_->PrepareForm(&prepared[i]);
    }
  });
  std::vector<Result<AddResult>> out;
  out.reserve(docs.size());
  base::WriterLock lock(impl_->mu);
  for (size_t i = 0; i < docs.size(); ++i) {
    if (docs[i].id.empty()) {
      out.push_back(Status::InvalidArgument("document id must not be empty"));
    } else if (!status[i].ok()) {
      out.push_back(status[i]);
    } else {
      out.push_back(impl_->AddLocked(docs[i], &prepared[i]));
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

Result<QueryResult> Engine::Query(std::string_view text, const QueryOptions& q) const {
  engine::PreparedDocument p;
  NEARDUP_RETURN_IF_ERROR(impl_->Prepare(text, &p));
  QueryResult r;
  r.fingerprint = p.processed.fingerprint;
  std::vector<Slot> near;
  base::ReaderLock lock(impl_->mu);
  signal::QueryParams params;
  params.max_distance = q.max_distance;
  impl_->MarkBoilerplate(p.processed, &p.boilerplate);
  NEARDUP_RETURN_IF_ERROR(
      impl_->Candidates(impl_->InputOf(p), p.sketches, params, &near, &r.matches));
  const Slot root = impl_->forest.ChooseCluster(near, impl_->fingerprints);
  if (root != kNoSlot) {
    r.cluster = impl_->IdOf(root);
    r.cluster_size = impl_->forest.Size(root);
  }
  return r;
}

Result<std::vector<Match>> Engine::Similar(std::string_view id, size_t limit) const {
  const Impl& m = *impl_;
  base::ReaderLock lock(m.mu);
  const Slot s = m.LiveSlot(id);
  if (s == kNoSlot) return Status::NotFound("no document '" + std::string(id) + "'");
  std::vector<Slot> members;
  m.forest.Members(m.forest.RootOf(s), &members);
  const verify::Verifier* verifier = m.signals->verifier();
  std::string self, other;
  if (verifier) NEARDUP_RETURN_IF_ERROR(m.text_source()->Get(s, &self));
  std::vector<Match> out;
  for (Slot x : members) {
    if (x == s) continue;
    const int d = m.simhash_pos >= 0 ? std::popcount(m.fingerprints[s] ^ m.fingerprints[x]) : -1;
    Match match{m.IdOf(x), d, d >= 0 ? 1.0 - d / 64.0 : 0.0, "cluster", std::nullopt};
    if (verifier && m.text_source()->Get(x, &other).ok()) {
      match.similarity = verifier->Verify(self, other).similarity;
      match.verified = match.similarity;
    }
    out.push_back(std::move(match));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Match& a, const Match& b) { return a.similarity > b.similarity; });
  if (out.size() > limit) out.resize(limit);
  return out;
}

Result<ClusterInfo> Engine::ClusterOf(std::string_view id, size_t limit) const {
  base::ReaderLock lock(impl_->mu);
  const Slot s = impl_->LiveSlot(id);
  if (s == kNoSlot) return Status::NotFound("no document '" + std::string(id) + "'");
  return impl_->Describe(impl_->forest.RootOf(s), limit);
}

Result<ClusterInfo> Engine::GetCluster(std::string_view cluster_id, size_t limit) const {
  base::ReaderLock lock(impl_->mu);
  const Slot s = impl_->Lookup(cluster_id);
  if (s == kNoSlot || impl_->forest.RootOf(s) != s) {
    return Status::NotFound("no cluster '" + std::string(cluster_id) + "'");
  }
  return impl_->Describe(s, limit);
}

Result<DocumentInfo> Engine::Get(std::string_view id) const {
  base::ReaderLock lock(impl_->mu);
  const Slot s = impl_->LiveSlot(id);
  if (s == kNoSlot) return Status::NotFound("no document '" + std::string(id) + "'");
  return DocumentInfo{std::string(id), impl_->IdOf(impl_->forest.RootOf(s)), impl_->fingerprints[s],
                      impl_->forest.TimeOf(s)};
}

Status Engine::Remove(std::string_view id) {
  base::WriterLock lock(impl_->mu);
  const Slot s = impl_->LiveSlot(id);
  if (s == kNoSlot) return Status::NotFound("no document '" + std::string(id) + "'");
  RemovalChanges ignored;
  impl_->EraseLocked(s, &ignored);
  ++impl_->counters.removed;
  return Status::OK();
}

EngineStats Engine::Stats() const {
  base::ReaderLock lock(impl_->mu);
  EngineStats s = impl_->counters;
  s.documents = impl_->forest.live();
  s.clusters = impl_->forest.clusters();
  s.index_bytes = impl_->signals->MemoryBytes() + 8 * impl_->fingerprints.capacity();
  if (impl_->boilerplate) s.index_bytes += impl_->boilerplate->MemoryBytes();  // <= 32 MiB
  s.forest_bytes = impl_->forest.MemoryBytes();
  s.id_bytes = impl_->ids.MemoryBytes();
  s.text_bytes = impl_->texts.MemoryBytes();
  s.threshold = impl_->options.threshold;
  const signal::SignalSet::VerifyCounts v = impl_->signals->verify_counts();
  s.verified_from_forms = v.from_forms;
  s.verified_from_texts = v.from_texts;
  s.verified_doubted = v.doubted;
  return s;
}

const EngineOptions& Engine::options() const { return impl_->options; }

}  // namespace neardup
