// SPDX-License-Identifier: Apache-2.0
//
// BatchDedup (include/neardup/batch.h): set-up, the phases in order, and the
// in-memory entry point. The phases are in sketch_phase.cc, pair_phase.cc,
// verify_phase.cc and results.cc; the design is in docs/batch.md.
#include <algorithm>
#include <fstream>
#include <thread>

#include "base/machine.h"
#include "base/parallel.h"
#include "base/status_macros.h"
#include "batch/batch_run.h"
#include "batch/run_file.h"
#include "neardup/ids.h"

namespace neardup {

std::string_view Name(BatchPhase p) {
  switch (p) {
    case BatchPhase::kSpool:
      return "spool";
    case BatchPhase::kLearn:
      return "learn";
    case BatchPhase::kSketch:
      return "read+sketch";
    case BatchPhase::kMerge:
      return "merge";
    case BatchPhase::kVerify:
      return "verify";
    case BatchPhase::kCluster:
      return "cluster";
    case BatchPhase::kWrite:
      return "write";
  }
  return "?";
}

uint64_t DefaultBatchMemory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit) {
    if (key == "MemAvailable:") return std::max<uint64_t>(64ull << 20, kb * 1024 / 2);
  }
  return 1ull << 30;
}

void InstallBatchCleanupHandlers() { batch::InstallCleanupHandlers(); }

Status ValidateBatchOptions(const BatchOptions& options) {
  NEARDUP_RETURN_IF_ERROR(base::CheckMemory(options.memory_bytes, "memory budget"));
  return base::CheckThreads(options.engine.threads, "threads");
}

void BatchDedup::Impl::RecordError(uint64_t line, Status s) {
  std::lock_guard<std::mutex> lock(err_mu);
  if (line < err_line) {
    err_line = line;
    err = std::move(s);
    stop_line.store(line);
  }
}

void BatchDedup::Impl::RecordFatal(Status s) {
  std::lock_guard<std::mutex> lock(err_mu);
  if (fatal.ok()) fatal = std::move(s);
  stop_line.store(0);
}

Status BatchDedup::Impl::FirstError() {
  std::lock_guard<std::mutex> lock(err_mu);
  if (!fatal.ok()) return fatal;
  return err;
}

void BatchDedup::Impl::DeliverSkips() {
  std::sort(skips.begin(), skips.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  if (options.on_skip) {
    for (const auto& [line, s] : skips) options.on_skip(s);
  }
  skips.clear();
}

uint64_t BatchDedup::Impl::Available() const {
  // The line table as it will be at the end of the input (estimated), so
  // buffers sized early in the sketch phase leave room for its growth.
  uint64_t fixed =
      lines ? std::max<uint64_t>(lines->MemoryBytes(), lines_estimate * lines->BytesPerLine()) : 0;
  fixed += (clustering.root.capacity() + clustering.size.capacity()) * sizeof(uint32_t);
  fixed += (first.capacity() + kept.capacity()) * sizeof(uint32_t);
  fixed += kept_keys.capacity() * sizeof(uint64_t);
  // And a margin for what is not counted (allocator slack, stacks).
  fixed += baseline_rss + budget / 64;
  return budget > fixed ? budget - fixed : 0;
}

std::string BatchDedup::Impl::Where(uint64_t line) const {
  const uint32_t f = store.FileOf(line);
  return files[f].name + ":" + std::to_string(line - files[f].first_line + 1);
}

Status BatchDedup::Impl::Parse(uint64_t line, batch::RecordParser* parser, batch::ParsedRecord* out,
                               bool in_order, batch::TextStore::Line* raw) const {
  batch::TextStore::Line l;
  if (in_order) {
    l = store.Get(line, /*in_order=*/true);
  } else if (Status s = store.Read(line, parser->line_buffer(), &l); !s.ok()) {
    return s;
  }
  if (raw != nullptr) *raw = l;
  return ParseLine(line, l, parser, out);
}

Status BatchDedup::Impl::ParseLine(uint64_t line, const batch::TextStore::Line& l,
                                   batch::RecordParser* parser, batch::ParsedRecord* out) const {
  Status s = parser->Parse(l.text, l.readable, l.line_in_file, out);
  return s.ok() ? s : s.WithContext(Where(line));
}

Status BatchDedup::Impl::ParseId(uint64_t line, batch::RecordParser* parser,
                                 std::string_view* id) const {
  const batch::TextStore::Line l = store.Get(line);
  Status s = parser->ParseId(l.text, l.readable, l.line_in_file, id);
  return s.ok() ? s : s.WithContext(Where(line));
}

Status BatchDedup::Impl::Setup(const std::vector<std::string>& names) {
  NEARDUP_RETURN_IF_ERROR(ValidateBatchOptions(options));
  threads = base::ResolveThreads(options.engine.threads);
  budget = options.memory_bytes > 0 ? options.memory_bytes : DefaultBatchMemory();
  stats.memory_budget = budget;
  stats.threads = threads;
  fields.text_field = options.text_field;
  fields.id_field = options.id_field;
  fields.replace_invalid_utf8 = options.engine.normalize.replace_invalid_utf8;
  if (sig == nullptr) {
    NEARDUP_ASSIGN_OR_RETURN(owned_sig,
                             batch::CreateBatchSignature(options.engine, options.learn_idf));
    sig = owned_sig.get();
  }
  if (sig->spaces().size() > static_cast<size_t>(batch::kMaxSpaces)) {
    return Status::InvalidArgument("a batch signature has at most 15 key spaces");
  }
  if (!options.idf_load.empty()) {
    if (Status s = sig->LoadState(options.idf_load); !s.ok()) {
      return s.WithContext(options.idf_load);
    }
  }
  // What the process holds before any buffer (code, dictionaries, the
  // signature's tables) is part of the budget too.
  baseline_rss = batch::CurrentRssBytes();
  NEARDUP_ASSIGN_OR_RETURN(tmp, batch::TempDir::Create(options.tmp_dir));
  monitor = std::make_unique<batch::Monitor>(options.progress, tmp.get());
  const bool stdin_input =
      names.empty() || std::find(names.begin(), names.end(), "-") != names.end();
  bool payloads = false;
  for (const auto& sp : sig->spaces()) payloads = payloads || sp.max_distance >= 0;
  lines = std::make_unique<batch::LineTable>(payloads);
  if (!options.against.empty()) NEARDUP_RETURN_IF_ERROR(OpenIndex());
  if (stdin_input) monitor->Phase(BatchPhase::kSpool, 0);
  NEARDUP_ASSIGN_OR_RETURN(auto inputs, batch::OpenInputs(names, tmp.get()));
  for (auto& f : inputs) {
    stats.input_bytes += f.size;
    files.push_back(std::move(f));
  }
  lines_estimate = batch::EstimateLines(files);
  SetUpKeyFilter();
  return Status::OK();
}

void BatchDedup::Impl::SetUpKeyFilter() {
  // Not against an index: its corpus records have no key bytes here.
  if (!options.key_filter || !key_filter_allowed || !options.against.empty() || files.empty()) {
    return;
  }
  batch::KeyFilter f =
      batch::KeyFilter::For(sig->spaces(), options.min_shared_keys, batch::LineTable::kMaxKeyBytes);
  if (f.width() == 0) return;
  // Lines estimated from the first MiB of the first file; the key bytes
  // may take up to half of the budget.
  if (lines_estimate * f.width() > budget / 2) return;
  key_filter = f;
  lines->EnableKeyBytes(f.width());
}

Status BatchDedup::Impl::LearnPhase() {
  // Learned IDF counts every record first; bad records are left to the
  // sketch phase to report.
  batch::LineTable scratch_lines;
  batch::ChunkReader reader(&files, &scratch_lines, 4 << 20);
  monitor->Phase(BatchPhase::kLearn, reader.total_bytes());
  batch::Queue<std::unique_ptr<batch::Chunk>> work(2 * static_cast<size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      auto scratch = sig->NewScratch();
      batch::RecordParser parser(fields);
      batch::ParsedRecord rec;
      while (auto c = work.Pop()) {
        const char* p = (*c)->buf.data();
        uint64_t lineno = (*c)->first_line_in_file;
        for (size_t pos = 0; pos < (*c)->size; ++lineno) {
          const void* nl = std::memchr(p + pos, '\n', (*c)->size - pos);
          const size_t end = nl == nullptr ? (*c)->size : static_cast<const char*>(nl) - p;
          const std::string_view text(p + pos, end - pos);
          const size_t readable = (*c)->buf.size() - pos;
          pos = end + 1;
          if (batch::IsBlankLine(text) || !parser.Parse(text, readable, lineno, &rec).ok())
            continue;
          (void)sig->Learn(rec.text, scratch.get());
        }
      }
    });
  }
  Status status;
  while (true) {
    auto c = std::make_unique<batch::Chunk>();
    auto more = reader.Next(c.get());
    if (!more.ok()) {
      status = more.status();
      break;
    }
    if (!*more) break;
    work.Push(std::move(c));
    monitor->Done(reader.bytes_read());
    monitor->Tick();
  }
  work.Close();
  for (auto& t : pool) t.join();
  for (auto& f : files) f.first_line = f.lines = 0;
  return status;
}

BatchDedup::BatchDedup(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
std::unique_ptr<BatchDedup> BatchDedup::FromImpl(std::unique_ptr<Impl> impl) {
  return std::unique_ptr<BatchDedup>(new BatchDedup(std::move(impl)));
}
BatchDedup::~BatchDedup() = default;

const BatchStats& BatchDedup::stats() const { return impl_->stats; }

Status BatchDedup::SaveIdf(const std::string& path) const {
  Status s = impl_->sig->SaveState(path);
  return s.ok() ? s : s.WithContext(path);
}

uint64_t EffectiveMinSharedKeys(const BatchOptions& options) {
  if (options.min_shared_keys != 0) return options.min_shared_keys;
  const auto& s = options.engine.signals;
  const bool minhash = std::find(s.begin(), s.end(), SignalKind::kMinHash) != s.end();
  return minhash ? static_cast<uint64_t>(std::max(1, options.engine.minhash.min_shared_bands)) : 1;
}

Result<std::unique_ptr<BatchDedup>> BatchDedup::Run(const std::vector<std::string>& names,
                                                    const BatchOptions& options) {
  return base::CatchResourceErrors([&] { return RunWithSignature(names, options, nullptr); });
}

Result<std::unique_ptr<BatchDedup>> RunWithSignature(const std::vector<std::string>& names,
                                                     const BatchOptions& options,
                                                     batch::BatchSignature* sig) {
  auto m = std::make_unique<BatchDedup::Impl>();
  m->options = options;
  m->options.min_shared_keys = EffectiveMinSharedKeys(options);
  m->sig = sig;
  NEARDUP_RETURN_IF_ERROR(m->Setup(names));
  // Against an index, learned statistics come from the index (state.bin).
  if (m->sig->wants_learning() && options.against.empty()) {
    NEARDUP_RETURN_IF_ERROR(m->LearnPhase());
  }
  {
    batch::KeyRuns keys(m->tmp.get(), "keys");
    if (!m->index_keys.empty()) keys.AddFile(m->index_keys, m->index_key_records, /*keep=*/true);
    NEARDUP_RETURN_IF_ERROR(m->SketchPhase(&keys));
    NEARDUP_RETURN_IF_ERROR(m->store.Open(&m->files, m->lines.get()));
    batch::PairRuns pairs(m->tmp.get(), "pairs");
    NEARDUP_RETURN_IF_ERROR(m->PairPhase(&keys, &pairs));
    m->DeliverSkips();
    NEARDUP_RETURN_IF_ERROR(m->VerifyPhase(&pairs));
  }
  NEARDUP_RETURN_IF_ERROR(m->KeepPhase());
  if (!options.idf_save.empty()) {
    if (Status s = m->sig->SaveState(options.idf_save); !s.ok()) {
      return s.WithContext(options.idf_save);
    }
  }
  m->monitor->Finish(&m->stats);
  return BatchDedup::FromImpl(std::move(m));
}

Result<BatchDedup::Labels> BatchClusterDocuments(std::span<const Document> docs,
                                                 const BatchOptions& options) try {
  NEARDUP_RETURN_IF_ERROR(ValidateBatchOptions(options));
  NEARDUP_ASSIGN_OR_RETURN(auto tmp, batch::TempDir::Create(options.tmp_dir));
  const std::string path = tmp->File("documents.jsonl");
  {
    batch::SpillWriter w;
    NEARDUP_RETURN_IF_ERROR(w.Open(path, 4 << 20));
    std::string line;
    for (const Document& d : docs) {
      line.assign("{\"id\":");
      // Integers in canonical form (no leading zeros, no "-0") stay numbers.
      const std::string_view digits = std::string_view(d.id).substr(d.id[0] == '-' ? 1 : 0);
      if (IsIntegerId(d.id) && d.id.size() < 19 &&
          (digits == "0" ? d.id == "0" : digits[0] != '0')) {
        line.append(d.id);
      } else {
        batch::AppendJsonString(d.id, &line);
      }
      line.append(",\"text\":");
      batch::AppendJsonString(d.text, &line);
      line.append("}\n");
      NEARDUP_RETURN_IF_ERROR(w.Append(line.data(), line.size()));
    }
    NEARDUP_RETURN_IF_ERROR(w.Close());
  }
  BatchOptions o = options;
  o.text_field = "text";
  o.id_field = "id";
  NEARDUP_ASSIGN_OR_RETURN(auto run, BatchDedup::Run({path}, o));
  // Every document is one line: labels by line, skipped documents alone.
  return LabelsOf(*run->impl_, /*by_line=*/true);
} catch (...) {
  return base::ResourceErrorOrRethrow();
}

}  // namespace neardup
