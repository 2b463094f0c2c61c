// SPDX-License-Identifier: Apache-2.0
//
// The batch pipeline on one process (pipeline.h): set-up, the phases in
// order and the counters they report.
#include "batch/pipeline.h"

#include <algorithm>
#include <cstring>
#include <thread>

#include "base/machine.h"
#include "base/parallel.h"
#include "base/status_macros.h"
#include "batch/boilerplate_phase.h"
#include "batch/results.h"

namespace neardup::batch {
namespace {

Status CreateSignature(BatchRun* r, BatchSignature* given) {
  r->sig = given;
  if (r->sig == nullptr) {
    NEARDUP_ASSIGN_OR_RETURN(r->owned_sig,
                             CreateBatchSignature(r->options.engine, r->options.learn_idf));
    r->sig = r->owned_sig.get();
  }
  if (r->sig->spaces().size() > static_cast<size_t>(kMaxSpaces)) {
    return Status::InvalidArgument("a batch signature has at most 15 key spaces");
  }
  if (!r->options.idf_load.empty()) {
    if (Status s = r->sig->LoadState(r->options.idf_load); !s.ok()) {
      return s.WithContext(r->options.idf_load);
    }
  }
  return Status::OK();
}

// Turns on the key filter when its bytes fit in half of the budget (lines
// estimated from the first MiB of the first file). Not against an index:
// its corpus records have no key bytes here.
void SetUpKeyFilter(BatchRun* r, uint64_t lines_estimate) {
  if (!r->options.key_filter || !r->options.against.empty() || r->input.files.empty()) return;
  KeyFilter f =
      KeyFilter::For(r->sig->spaces(), r->options.min_shared_keys, LineTable::kMaxKeyBytes);
  if (f.width() == 0 || lines_estimate * f.width() > r->budget.total() / 2) return;
  r->key_filter = f;
  r->input.lines->EnableKeyBytes(f.width());
}

// Learn() on each record of a chunk; bad records are left to the sketch
// phase to report.
// Learns the records of chunk c (at byte chunk_at of the inputs taken as
// one stream) whose lines start in [own_begin, own_end).
void LearnChunk(const BatchSignature& sig, const Chunk& c, uint64_t chunk_at, uint64_t own_begin,
                uint64_t own_end, SignatureScratch* scratch, RecordParser* parser) {
  if (chunk_at >= own_end || chunk_at + c.size <= own_begin) return;  // not ours
  ParsedRecord rec;
  const char* p = c.buf.data();
  uint64_t lineno = c.first_line_in_file;
  for (size_t pos = 0; pos < c.size; ++lineno) {
    const void* nl = std::memchr(p + pos, '\n', c.size - pos);
    const size_t end = nl == nullptr ? c.size : static_cast<const char*>(nl) - p;
    const std::string_view text(p + pos, end - pos);
    const size_t readable = c.buf.size() - pos;
    const uint64_t at = chunk_at + pos;
    pos = end + 1;
    if (at < own_begin || at >= own_end) continue;  // another rank's line
    if (IsBlankLine(text) || !parser->Parse(text, readable, {{}, lineno}, &rec).ok()) continue;
    (void)sig.Learn(rec.text, scratch);
  }
}

}  // namespace

Result<std::unique_ptr<BatchRun>> OpenRun(const std::vector<std::string>& names,
                                          const BatchOptions& options,
                                          const RunSettings& settings) {
  NEARDUP_RETURN_IF_ERROR(ValidateBatchOptions(options));
  auto run = std::make_unique<BatchRun>();
  BatchRun& r = *run;
  r.options = options;
  r.options.min_shared_keys = EffectiveMinSharedKeys(options);
  if (!settings.key_filter) r.options.key_filter = false;
  r.threads = base::ResolveThreads(options.engine.threads);
  const uint64_t total = options.memory_bytes > 0 ? options.memory_bytes : DefaultBatchMemory();
  r.stats.memory_budget = total;
  r.stats.threads = r.threads;
  r.input.fields.text_field = options.text_field;
  r.input.fields.id_field = options.id_field;
  r.input.fields.replace_invalid_utf8 = options.engine.normalize.replace_invalid_utf8;
  NEARDUP_RETURN_IF_ERROR(CreateSignature(&r, settings.sig));
  // What the process holds before any buffer (code, dictionaries, the
  // signature's tables) is part of the budget too.
  r.budget = Budget(total, CurrentRssBytes());
  NEARDUP_ASSIGN_OR_RETURN(r.tmp, TempDir::Create(options.tmp_dir));
  r.monitor = std::make_unique<Monitor>(options.progress, r.tmp.get());
  const bool stdin_input =
      names.empty() || std::find(names.begin(), names.end(), "-") != names.end();
  bool payloads = false;
  for (const auto& sp : r.sig->spaces()) payloads = payloads || sp.max_distance >= 0;
  r.input.lines = std::make_unique<LineTable>(payloads);
  if (!options.against.empty()) NEARDUP_RETURN_IF_ERROR(OpenIndex(&r));
  if (stdin_input) r.monitor->Phase(BatchPhase::kSpool, 0);
  NEARDUP_ASSIGN_OR_RETURN(auto inputs, OpenInputs(names, r.tmp.get()));
  // Several files: records without an id are named FILE:LINE (against an
  // index, the corpus is one more file).
  const bool several = r.input.files.size() + inputs.size() > 1;
  for (auto& f : inputs) {
    r.input.bytes += f.size;
    if (several) f.id_file = f.name;
    r.input.files.push_back(std::move(f));
  }
  r.stats.input_bytes = r.input.bytes;
  const uint64_t lines_estimate = EstimateLines(r.input.files);
  r.lines_estimate = lines_estimate;
  r.budget.TrackLines(r.input.lines.get(), lines_estimate);
  SetUpKeyFilter(&r, lines_estimate);
  return run;
}

Status LearnPhase(BatchRun* run, uint64_t own_begin, uint64_t own_end, const LineSpan* span) {
  const std::vector<uint64_t> file_base = run->input.FileStarts();
  LineTable scratch_lines;
  auto owned = span != nullptr
                   ? std::make_unique<ChunkReader>(&run->input.files, &scratch_lines, 4 << 20,
                                                   *span, file_base)
                   : std::make_unique<ChunkReader>(&run->input.files, &scratch_lines, 4 << 20);
  ChunkReader& reader = *owned;
  run->monitor->Phase(BatchPhase::kLearn, reader.total_bytes());
  Queue<std::unique_ptr<Chunk>> work(2 * static_cast<size_t>(run->threads));
  std::vector<std::thread> pool;
  std::vector<Status> failed(static_cast<size_t>(run->threads));
  for (int t = 0; t < run->threads; ++t) {
    (void)base::TryAddThread(&pool, [&, t] {
      try {  // out of memory: this worker stops, the phase fails
        auto scratch = run->sig->NewScratch();
        RecordParser parser(run->input.fields);
        while (auto c = work.Pop()) {
          LearnChunk(*run->sig, **c, file_base[(*c)->file] + (*c)->file_offset, own_begin, own_end,
                     scratch.get(), &parser);
          run->monitor->AddDone((*c)->size);  // work done, not bytes read ahead
        }
      } catch (...) {
        failed[static_cast<size_t>(t)] = base::ResourceErrorOrRethrow();
        while (work.Pop()) {  // the reader must not wait on a full queue
        }
      }
    });
  }
  if (pool.empty()) return Status::ResourceExhausted("cannot start a learning thread");
  Status status;
  while (true) {
    auto c = std::make_unique<Chunk>();
    auto more = reader.Next(c.get());
    if (!more.ok()) {
      status = more.status();
      break;
    }
    if (!*more) break;
    work.Push(std::move(c));
    run->monitor->Tick();
  }
  work.Close();
  for (auto& t : pool) t.join();
  if (span == nullptr) {  // the sketch phase numbers the lines
    for (auto& f : run->input.files) f.first_line = f.lines = 0;
  }
  for (Status& s : failed) {
    if (status.ok() && !s.ok()) status = std::move(s);
  }
  return status;
}

Status SketchKeys(BatchRun* run, KeyRuns* keys, uint64_t own_begin, uint64_t own_end,
                  const LineSpan* span) {
  const SketchInput in{&run->input, &run->key_filter, run->options.skip_invalid,
                       own_begin,   own_end,          run->forms.get(),
                       span};
  SketchPhase phase(run->env(), in, &run->errors);
  SketchCounts c;
  NEARDUP_RETURN_IF_ERROR(phase.Run(keys, &c));
  if (run->forms) NEARDUP_RETURN_IF_ERROR(run->forms->Finish());
  BatchStats& st = run->stats;
  st.records += c.records;
  st.skipped += c.skipped;
  st.keys = c.keys;
  st.key_runs_spilled = c.runs_spilled;
  st.key_bytes_spilled = c.bytes_spilled;
  return Status::OK();
}

Status PairKeys(BatchRun* run, KeyRuns* keys, PairRuns* pairs,
                const std::unordered_map<uint32_t, std::string>* ids) {
  const bool guard = run->forms != nullptr && run->sig->counts_boilerplate();
  if (guard) run->later.assign((run->input.n() + 63) / 64, 0);
  const PairInput in{&run->input,
                     &run->key_filter,
                     run->options.min_shared_keys,
                     run->options.skip_invalid,
                     ids,
                     guard ? &run->later : nullptr};
  PairPhase phase(run->env(), in, &run->errors);
  PairCounts c;
  Status s = phase.Run(keys, pairs, &c);
  BatchStats& st = run->stats;
  st.pairs_filtered += c.pairs_filtered;
  st.skipped += c.repeated_ids;
  st.records -= c.repeated_ids;
  return s;
}

Status VerifyPairs(BatchRun* run, PairRuns* pairs, const LineSource& source, uint64_t reserved,
                   const EdgeFn& on_edge) {
  const VerifyInput in{
      &run->input,           &source, run->options.min_shared_keys, reserved, run->forms != nullptr,
      run->boilerplate.get()};
  VerifyPhase phase(run->env(), in);
  VerifyCounts c;
  Status s = phase.Run(pairs, on_edge, &c);
  BatchStats& st = run->stats;
  st.candidate_pairs += c.candidate_pairs;
  st.similarity_calls += c.similarity_calls;
  st.verify_ranges += c.ranges;
  st.verify_bytes_read += c.bytes_read;
  return s;
}

Result<std::unique_ptr<BatchDedup>> RunPhases(std::unique_ptr<BatchRun> run) {
  BatchRun& r = *run;
  // Against an index, learned statistics come from the index (state.bin).
  if (r.sig->wants_learning() && r.options.against.empty()) {
    NEARDUP_RETURN_IF_ERROR(LearnPhase(&r));
  }
  // One process without an index: every record it verifies is sketched
  // here, so the verify phase reads their forms, not their texts.
  if (r.sig->has_forms() && r.options.against.empty()) {
    NEARDUP_ASSIGN_OR_RETURN(r.forms, FormStore::Create(r.tmp.get(), r.threads));
    r.budget.Hold(r.lines_estimate * FormStore::kBytesPerLine);
  }
  ClusterOutput clusters;
  {
    KeyRuns keys(r.tmp.get(), "keys");
    if (!r.index_keys.empty()) keys.AddFile(r.index_keys, r.index_key_records, /*keep=*/true);
    NEARDUP_RETURN_IF_ERROR(SketchKeys(&r, &keys));
    NEARDUP_RETURN_IF_ERROR(r.input.OpenStore());
    PairRuns pairs(r.tmp.get(), "pairs");
    NEARDUP_RETURN_IF_ERROR(PairKeys(&r, &keys, &pairs));
    r.errors.DeliverSkips(r.options.on_skip);
    NEARDUP_RETURN_IF_ERROR(CountBoilerplate(&r));
    ClusterPhase cluster(r.env(), r.input.n(), r.options.max_cluster_size, r.options.with_matches);
    const LineSource& source = r.forms ? static_cast<const LineSource&>(*r.forms) : r.input.store;
    NEARDUP_RETURN_IF_ERROR(VerifyPairs(&r, &pairs, source, cluster.reserved(),
                                        [&](const Edge& e) { return cluster.Add(e); }));
    NEARDUP_ASSIGN_OR_RETURN(clusters, cluster.Finish());
  }
  r.stats.edges = clusters.clustering.stats.edges;
  r.stats.oversized_components = clusters.clustering.stats.oversized_components;
  r.stats.refused_by_cap = clusters.clustering.stats.refused_by_cap;
  if (!r.options.idf_save.empty()) {
    if (Status s = r.sig->SaveState(r.options.idf_save); !s.ok()) {
      return s.WithContext(r.options.idf_save);
    }
  }
  return FinishRun(std::move(run), std::move(clusters.clustering), std::move(clusters.matches));
}

namespace {

// Ends the run's monitor and wraps the result, which takes the run.
std::unique_ptr<BatchDedup> WrapResult(std::unique_ptr<BatchRun> run,
                                       std::unique_ptr<RunResult> result) {
  BatchStats& st = run->stats;
  // Peaks already known (other MPI ranks') stand when larger.
  const uint64_t peak_rss = st.peak_rss_bytes, peak_disk = st.peak_disk_bytes;
  run->monitor->Finish(&st);
  st.peak_rss_bytes = std::max(st.peak_rss_bytes, peak_rss);
  st.peak_disk_bytes = std::max(st.peak_disk_bytes, peak_disk);
  result->run = std::move(run);
  return BatchInternal::Wrap(std::move(result));
}

}  // namespace

Result<std::unique_ptr<BatchDedup>> FinishRun(std::unique_ptr<BatchRun> run, Clustering clustering,
                                              std::unique_ptr<MatchRuns> matches) {
  auto result = std::make_unique<RunResult>();
  result->clustering = std::move(clustering);
  result->matches = std::move(matches);
  KeepPhase keep(run->env(), &run->input, &result->clustering, run->options.engine.keep);
  NEARDUP_ASSIGN_OR_RETURN(result->kept, keep.Run());
  BatchStats& st = run->stats;
  st.clusters = result->kept.clusters;
  st.multi_clusters = result->kept.multi_clusters;
  st.duplicates = result->kept.duplicates;
  return WrapResult(std::move(run), std::move(result));
}

std::unique_ptr<BatchDedup> FinishShare(std::unique_ptr<BatchRun> run,
                                        std::unique_ptr<ShareNames> share,
                                        std::unique_ptr<MatchRuns> matches,
                                        std::unique_ptr<LineSource> texts) {
  auto result = std::make_unique<RunResult>();
  result->share = std::move(share);
  result->matches = std::move(matches);
  result->texts = std::move(texts);
  return WrapResult(std::move(run), std::move(result));
}

Result<std::unique_ptr<BatchDedup>> RunWithSignature(const std::vector<std::string>& names,
                                                     const BatchOptions& options,
                                                     BatchSignature* sig) {
  NEARDUP_ASSIGN_OR_RETURN(auto run, OpenRun(names, options, {.sig = sig}));
  return RunPhases(std::move(run));
}

}  // namespace neardup::batch
