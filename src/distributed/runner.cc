// SPDX-License-Identifier: Apache-2.0
#include "distributed/runner.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <thread>

#include "base/status_macros.h"
#include "batch/cluster_phase.h"
#include "batch/form_store.h"
#include "batch/pipeline.h"
#include "batch/spill_buffer.h"
#include "distributed/boilerplate_counts.h"
#include "distributed/checkpoint.h"
#include "distributed/components.h"
#include "distributed/fetch.h"
#include "distributed/line_states.h"
#include "distributed/ranges.h"
#include "distributed/share.h"
#include "distributed/shuffle.h"

namespace neardup::distributed {
namespace {

// Tests make a rank die at a stage: NEARDUP_TEST_MPI_DIE=RANK:STAGE.
void DieForTest(const Comm& c, const char* stage) {
  const char* env = std::getenv("NEARDUP_TEST_MPI_DIE");
  if (env == nullptr) return;
  const std::string want = std::to_string(c.rank()) + ":" + stage;
  if (want == env) _exit(3);
}

// Checks that give the same answer on every rank (no agreement needed).
Status CheckSupported(const std::vector<std::string>& files, const BatchOptions& options) {
  if (files.empty() || std::find(files.begin(), files.end(), "-") != files.end()) {
    return Status::InvalidArgument(
        "--distributed reads named files, not standard input: every rank opens the files and "
        "reads its own byte range, and mpirun gives standard input to rank 0 alone; save the "
        "input to a file on a file system all ranks see");
  }
  if (options.engine.features.learn_idf) {
    return Status::InvalidArgument(
        "--distributed learns IDF from the whole input (--idf corpus), not as a stream (--idf "
        "stream): a stream weighs each record by the records before it, an order that ranks "
        "working at once do not have");
  }
  return Status::OK();
}

class Runner {
 public:
  Runner(Comm& c, DistributedOptions d) : c_(c), d_(std::move(d)) {}
  Result<std::unique_ptr<BatchDedup>> Run(const std::vector<std::string>& files,
                                          const BatchOptions& options, batch::BatchSignature* sig);

 private:
  Status Open(const std::vector<std::string>& files, const BatchOptions& options,
              batch::BatchSignature* sig);
  Status Count();
  Status Learn();
  Status Sketch(batch::KeyRuns* keys);
  Status PairAndVerify(batch::KeyRuns* keys);
  Status Verify(batch::PairRuns* local);
  Status LoadVerify();
  Status OwnMatches(std::unique_ptr<batch::MatchRuns>* out);
  Status FetchMatched(std::unique_ptr<batch::LineSource>* out);
  Status Cluster();
  Result<std::unique_ptr<BatchDedup>> FinishShare(std::unique_ptr<batch::MatchRuns> matches,
                                                  std::unique_ptr<batch::LineSource> texts);
  void SumStats();
  uint64_t ErrLine() const { return run_->errors.first_line(); }
  ShuffleLimits Limits() const { return {run_->budget.ReadBytes(), run_->budget.Available() / 4}; }
  void Info(const std::string& message) const {
    if (c_.rank() == 0 && d_.info) d_.info(message);
  }

  Comm& c_;
  DistributedOptions d_;
  std::unique_ptr<batch::BatchRun> run_;
  Checkpoints checkpoints_;
  Stage resume_ = Stage::kNone;
  LineRanges ranges_;
  batch::LineSpan span_;                         // this rank's lines, the only ones it reads
  static constexpr size_t kScratchPerEdge = 96;  // of a round of the components
  std::vector<batch::Edge> edges_;               // verified here (b owned here)
  uint64_t edge_count_ = 0;                      // edges_.size() before Cluster()
  std::vector<uint8_t> skips_;                   // skip messages (rank 0)
  ClusterState clusters_;                        // labels of own documents
  uint64_t rounds_ = 0, key_bytes_ = 0, pair_bytes_ = 0, fetched_ = 0;
};

Status Runner::Open(const std::vector<std::string>& files, const BatchOptions& options,
                    batch::BatchSignature* sig) {
  // Owners pair other ranks' records, whose key bytes they do not have.
  auto run = batch::OpenRun(files, options, {.sig = sig, .key_filter = false});
  NEARDUP_RETURN_IF_ERROR(Agree(c_, run.status(), 0));
  run_ = std::move(run).value();
  if (!d_.work_dir.empty()) {
    NEARDUP_ASSIGN_OR_RETURN(checkpoints_,
                             Checkpoints::Open(c_, d_.work_dir, RunIdentity(*run_, c_.size())));
  }
  resume_ = checkpoints_.Agreed(c_, d_.resume);
  if (resume_ != Stage::kNone) {
    Info(std::string("resuming from the ") + (resume_ == Stage::kCluster ? "cluster" : "verify") +
         " checkpoint in " + d_.work_dir);
  }
  return Status::OK();
}

// This rank's lines: its byte range of the new input, moved to line starts
// (the next rank's first line ends it), counted per file. Every rank's
// counts (all-gathered, ranks x files) number the lines: each file's first
// line, each rank's first line and the LineRanges. Reads only this rank's
// bytes; holds ranks x files counts.
Status Runner::Count() {
  batch::RunInput& in = run_->input;
  const std::vector<uint64_t> base = in.FileStarts();
  const uint64_t at = base[in.corpus_files], total = base.back() - at;
  const ByteRange own = OwnBytes(total, c_.rank(), c_.size());
  const uint64_t own_end = own.end == UINT64_MAX ? base.back() : at + own.end;
  Result<uint64_t> begin = batch::LineStartAtOrAfter(in.files, base, at + own.begin);
  Result<uint64_t> end =
      begin.ok() ? batch::LineStartAtOrAfter(in.files, base, own_end) : begin.status();
  Result<std::vector<uint64_t>> counts =
      end.ok() ? batch::CountLines(in.files, base, *begin, *end) : end.status();
  NEARDUP_RETURN_IF_ERROR(Agree(c_, counts.status(), 0));
  const size_t files = in.files.size();
  const std::vector<uint64_t> all = FromBytes<uint64_t>(c_.AllGather(AsBytes(*counts)));
  NEARDUP_CHECK(all.size() == files * static_cast<size_t>(c_.size()));
  const LineNumbering number(all, c_.size(), in.corpus_files, in.corpus_lines);
  for (size_t f = in.corpus_files; f < files; ++f) {
    in.files[f].first_line = number.file_first[f];
    in.files[f].lines = number.file_lines[f];
  }
  in.total_lines = number.total;
  span_ = {*begin, *end, number.first(c_.rank()), 1};
  if (*begin < *end) {
    const size_t f = batch::FileAtByte(base, *begin);
    span_.first_line_in_file += number.before[static_cast<size_t>(c_.rank()) * files + f];
  }
  ranges_ = number.ranges;
  // The table holds this rank's lines only.
  run_->budget.TrackLines(in.lines.get(), run_->lines_estimate / static_cast<uint64_t>(c_.size()));
  return Status::OK();
}

// Learned IDF (--idf corpus): each rank counts the records of its own byte
// range, then every rank takes the sum of all ranks' tables (gathered by
// all: each receives every table), which is the table one process learns.
Status Runner::Learn() {
  batch::BatchRun& r = *run_;
  // Against an index, learned statistics come from the index (state.bin).
  if (!r.sig->wants_learning() || !r.options.against.empty()) return Status::OK();
  const ByteRange own = OwnBytes(r.input.FileStarts().back(), c_.rank(), c_.size());
  NEARDUP_RETURN_IF_ERROR(Agree(c_, batch::LearnPhase(&r, own.begin, own.end, &span_), 0));
  std::string mine;
  Status s = r.sig->SerializeState(&mine);  // on failure an empty table goes out
  std::vector<uint8_t> framed;
  AppendPod(static_cast<uint64_t>(mine.size()), &framed);
  framed.insert(framed.end(), mine.begin(), mine.end());
  const std::vector<uint8_t> all = c_.AllGather(framed);
  for (size_t pos = 0, k = 0; s.ok() && pos + 8 <= all.size(); ++k) {
    uint64_t n = 0;
    std::memcpy(&n, all.data() + pos, 8);
    const std::string_view state(reinterpret_cast<const char*>(all.data()) + pos + 8, n);
    pos += 8 + n;
    s = k == 0 ? r.sig->ReplaceState(state) : r.sig->MergeState(state);
  }
  return Agree(c_, s, 0);
}

// Sketches this rank's lines (Count; nothing when resuming: only their
// offsets are read). Against an
// index the ranges split the new input only: the corpus lines come first
// and belong to rank 0 (their keys are the index's, a share on each rank;
// their texts are read where they are needed).
Status Runner::Sketch(batch::KeyRuns* keys) {
  batch::BatchRun& r = *run_;
  const std::vector<uint64_t> file_base = r.input.FileStarts();
  const uint64_t base = file_base[r.input.corpus_files], total = file_base.back() - base;
  ByteRange own = OwnBytes(total, c_.rank(), c_.size());
  own.begin += base;
  if (own.end != UINT64_MAX) own.end += base;
  if (resume_ != Stage::kNone) own = {UINT64_MAX, UINT64_MAX};
  if (resume_ == Stage::kNone && !r.index_keys.empty()) {
    // This rank's share of the index's keys, split as the bytes are.
    const uint64_t n = r.index_key_records;
    const ByteRange share = OwnBytes(n, c_.rank(), c_.size());
    keys->AddFileSlice(r.index_keys, share.begin, std::min(share.end, n) - share.begin);
  }
  // The sketch keeps the verification forms of this rank's records, as one
  // process does, so that no rank prepares a text again to verify it
  // (fetch.h). A resumed run starts after verification and needs none;
  // against an index the texts are verified, as in one process.
  if (resume_ == Stage::kNone && r.sig->has_forms() && r.options.against.empty()) {
    auto forms = batch::FormStore::Create(r.tmp.get(), r.threads);
    NEARDUP_RETURN_IF_ERROR(Agree(c_, forms.status(), 0));
    r.forms = std::move(forms).value();
    r.budget.Hold(r.lines_estimate / static_cast<uint64_t>(c_.size()) *
                  batch::FormStore::kBytesPerLine);
  }
  NEARDUP_RETURN_IF_ERROR(
      Agree(c_, batch::SketchKeys(run_.get(), keys, own.begin, own.end, &span_), ErrLine()));
  batch::RunInput& in = run_->input;
  Status read = in.OpenStore();
  // The lines read must be those counted (the input did not change).
  const uint64_t first = span_.first_line;
  const uint64_t want = ranges_.end(c_.rank());
  if (read.ok() && span_.begin < span_.end && in.lines->size() != want) {
    read =
        Status::FailedPrecondition("the input changed while running: this rank read " +
                                   std::to_string(in.lines->size() - first) + " lines, counted " +
                                   std::to_string(want - first) + " before");
  }
  return Agree(c_, read, 0);
}

// Keys to their owners, pairs there, pairs to the owner of b, verified.
Status Runner::PairAndVerify(batch::KeyRuns* keys) {
  batch::BatchRun& r = *run_;
  DieForTest(c_, "sketch");
  batch::PairRuns local(r.tmp.get(), "pairs");
  {
    batch::KeyRuns owned(r.tmp.get(), "owned");
    r.monitor->Phase(BatchPhase::kMerge, 0);
    std::vector<batch::KeyEntry> id_entries;  // one per own share's record
    NEARDUP_RETURN_IF_ERROR(Agree(
        c_, ShuffleKeys(c_, keys, &owned, r.input.lines.get(), Limits(), &id_entries, &key_bytes_),
        0));
    // Ids of other ranks' records are not parsed here: their owners send them.
    NEARDUP_ASSIGN_OR_RETURN(const auto ids,
                             FetchIds(c_, ranges_, std::move(id_entries), r.input, &fetched_));
    NEARDUP_RETURN_IF_ERROR(Agree(c_, batch::PairKeys(&r, &owned, &local, &ids), ErrLine()));
  }
  skips_ = ShareSkips(c_, &r.errors, r.input.lines.get());
  NEARDUP_RETURN_IF_ERROR(CountBoilerplateAcross(c_, ranges_, &r));
  NEARDUP_RETURN_IF_ERROR(Verify(&local));
  if (!checkpoints_.enabled()) return Status::OK();
  VerifyState state;
  state.edges = std::move(edges_);  // back below: not copied
  const uint32_t lo = ranges_.begin(c_.rank());
  state.states.resize(ranges_.end(c_.rank()) - lo);  // of own lines
  for (uint32_t d = 0; d < state.states.size(); ++d) {
    state.states[d] = r.input.lines->state(lo + d);
  }
  const BatchStats& st = r.stats;
  state.counters = {st.records,          st.skipped,           st.keys,
                    st.key_runs_spilled, st.key_bytes_spilled, st.candidate_pairs,
                    st.similarity_calls};
  state.skips = skips_;
  const Status saved = checkpoints_.SaveVerify(state);
  edges_ = std::move(state.edges);
  return Agree(c_, saved, 0);
}

Status Runner::Verify(batch::PairRuns* local) {
  batch::BatchRun& r = *run_;
  batch::PairRuns pairs(r.tmp.get(), "verify");
  std::vector<uint32_t> borrowed;
  NEARDUP_RETURN_IF_ERROR(
      Agree(c_, ShufflePairs(c_, ranges_, local, &pairs, Limits(), &borrowed, &pair_bytes_), 0));
  DieForTest(c_, "pairs");
  auto source = BorrowedLines::Fetch(c_, ranges_, std::move(borrowed), &r.input, r.forms.get(),
                                     r.tmp.get(), Limits().round_bytes, &fetched_);
  NEARDUP_RETURN_IF_ERROR(Agree(c_, source.status(), 0));
  // The edges stay in memory for the components: at most one per proposed
  // pair, reserved (so the verify phase sizes its buffers around them) and
  // then held in the budget for the phases after it.
  const uint64_t edge_bytes = pairs.records() * sizeof(batch::Edge);
  const Status s = batch::VerifyPairs(&r, &pairs, **source, edge_bytes, [&](const batch::Edge& e) {
    edges_.push_back(e);  // -1 (decided by a key space) until Cluster()
    return Status::OK();
  });
  r.budget.Hold(edges_.capacity() * sizeof(batch::Edge));
  return Agree(c_, s, 0);
}

Status Runner::LoadVerify() {
  VerifyState state;
  const uint32_t lo = ranges_.begin(c_.rank());
  NEARDUP_RETURN_IF_ERROR(
      Agree(c_, checkpoints_.LoadVerify(ranges_.end(c_.rank()) - lo, &state), 0));
  edges_ = std::move(state.edges);
  run_->budget.Hold(edges_.capacity() * sizeof(batch::Edge));
  skips_ = std::move(state.skips);
  batch::LineTable& lines = *run_->input.lines;
  for (uint32_t d = 0; d < state.states.size(); ++d) lines.set_state(lo + d, state.states[d]);
  BatchStats& st = run_->stats;
  const std::vector<uint64_t>& k = state.counters;
  st.records = k[0], st.skipped = k[1], st.keys = k[2], st.key_runs_spilled = k[3];
  st.key_bytes_spilled = k[4], st.candidate_pairs = k[5], st.similarity_calls = k[6];
  return Status::OK();
}

// --with-matches: the verified edges this rank found (their later record,
// b, is its own) as sorted runs by (b, a), spilled past an eighth of the
// budget, as a single process's cluster phase collects them
// (batch/cluster_phase.h). Before Cluster(), which rewrites the edges that
// a key space decided.
Status Runner::OwnMatches(std::unique_ptr<batch::MatchRuns>* out) {
  batch::BatchRun& r = *run_;
  const uint64_t most = std::max<uint64_t>(1 << 16, r.budget.Available() / 8 / sizeof(batch::Edge));
  batch::MatchCollector matches(r.tmp.get(), std::clamp<uint64_t>(edges_.size(), 1, most));
  Status s;
  for (size_t i = 0; s.ok() && i < edges_.size(); ++i) s = matches.Add(edges_[i]);
  if (s.ok()) {
    Result<std::unique_ptr<batch::MatchRuns>> runs = matches.Finish();
    s = runs.status();
    if (s.ok()) *out = std::move(runs).value();
  }
  return Agree(c_, s, 0);
}

// --with-matches: the records of other ranks that this rank's matches name
// (a, of the edges above), fetched from their owners as texts, in rounds
// (fetch.h). Collective. Each rank then renders its own records with their
// matches: no rank reads or writes another's share of the output.
Status Runner::FetchMatched(std::unique_ptr<batch::LineSource>* out) {
  batch::BatchRun& r = *run_;
  const uint32_t lo = ranges_.begin(c_.rank());
  std::vector<uint32_t> ids;
  for (const batch::Edge& e : edges_) {
    if (e.a < lo) ids.push_back(e.a);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  auto source = BorrowedLines::Fetch(c_, ranges_, std::move(ids), &r.input, nullptr, r.tmp.get(),
                                     Limits().round_bytes, &fetched_, "matched.jsonl");
  NEARDUP_RETURN_IF_ERROR(Agree(c_, source.status(), 0));
  *out = std::move(source).value();
  return Status::OK();
}

// Components and the cap over the verified edges (or the checkpoint).
Status Runner::Cluster() {
  batch::BatchRun& r = *run_;
  r.monitor->Phase(BatchPhase::kCluster, 0);
  edge_count_ = edges_.size();
  // An edge a key space decided (-1) counts as 1 for the cap's order.
  for (batch::Edge& e : edges_) e.similarity = e.similarity < 0 ? 1.0f : e.similarity;
  // Containment edges join after the components of the others (clusters.h).
  const auto split = std::stable_partition(
      edges_.begin(), edges_.end(), [](const batch::Edge& e) { return !batch::IsContained(e); });
  std::vector<batch::Edge> contained(split, edges_.end());
  edges_.erase(split, edges_.end());
  const bool any_contained = SumAll(c_, contained.size()) > 0;
  const auto hold_labels = [&] {
    const Labels& l = clusters_.labels;
    r.budget.Hold((l.root.capacity() + l.size.capacity()) * sizeof(uint32_t));
  };
  if (resume_ == Stage::kCluster) {
    const uint64_t own = ranges_.end(c_.rank()) - ranges_.begin(c_.rank());
    const Status loaded = Agree(c_, checkpoints_.LoadCluster(own, &clusters_), 0);
    hold_labels();
    return loaded;
  }
  // The rounds take the edges a slice at a time, the slice's scratch
  // (about 80 bytes an edge) within a round's bytes of the budget; they
  // drop edges as they go, so without the cap, which reads every edge
  // again, they take the edges themselves rather than a copy.
  const size_t slice = std::max<size_t>(4096, Limits().round_bytes / kScratchPerEdge);
  if (r.options.max_cluster_size > 0) {
    clusters_.labels = Components(c_, ranges_, edges_, &rounds_, slice);
  } else {
    clusters_.labels = Components(c_, ranges_, std::move(edges_), &rounds_, slice);
    edges_ = std::vector<batch::Edge>();
  }
  if (any_contained) {
    const std::vector<batch::Edge> chosen =
        JoinContained(c_, ranges_, contained, &clusters_.labels, &rounds_, slice);
    if (r.options.max_cluster_size > 0 && c_.rank() == 0) {
      edges_.insert(edges_.end(), chosen.begin(), chosen.end());
    }
  }
  hold_labels();
  if (r.options.max_cluster_size > 0) {
    CapStats cap;
    const uint64_t sort_bytes = std::max<uint64_t>(1 << 20, r.budget.Available() / 4);
    NEARDUP_RETURN_IF_ERROR(
        Agree(c_,
              distributed::Cap(c_, ranges_, edges_, r.options.max_cluster_size, r.tmp.get(),
                               sort_bytes, &clusters_.labels, &cap),
              0));
    clusters_.oversized_components = cap.oversized_components;
    clusters_.refused_by_cap = cap.refused_by_cap;
  }
  if (!checkpoints_.enabled()) return Status::OK();
  return Agree(c_, checkpoints_.SaveCluster(clusters_), 0);
}

// This rank's share of the output: its records named (share.h), its own
// BatchDedup, written in rank order by WriteInRankOrder (output.h).
Result<std::unique_ptr<BatchDedup>> Runner::FinishShare(std::unique_ptr<batch::MatchRuns> matches,
                                                        std::unique_ptr<batch::LineSource> texts) {
  batch::BatchRun& r = *run_;
  ShareCounts counts;
  // A pass of the naming within an eighth of what the budget has left,
  // at least 16 KiB: a small budget makes more passes (up to
  // kMaxPasses), not larger ones.
  const NameLimits limits{std::max<uint64_t>(16 << 10, r.budget.Available() / 8), r.tmp.get()};
  auto share = NameShare(c_, ranges_, r.input, clusters_.labels, r.options.engine.keep,
                         d_.clusters && r.options.against.empty(), limits, &counts);
  NEARDUP_RETURN_IF_ERROR(share.status());
  clusters_ = ClusterState();
  edges_ = std::vector<batch::Edge>();
  // The names stay until the output is written.
  uint64_t held = 0;
  held += (*share)->names.capacity() * sizeof(batch::ShareNames::Name) + (*share)->ids.bytes();
  for (const batch::ShareNames::Cluster& cl : (*share)->clusters) {
    held += sizeof cl + cl.kept_id.capacity();
    for (const std::string& m : cl.members) held += sizeof m + m.capacity();
  }
  r.budget.Hold(held);
  r.stats.clusters = counts.clusters;
  r.stats.multi_clusters = counts.multi_clusters;
  r.stats.duplicates = counts.duplicates;
  return batch::FinishShare(std::move(run_), std::move(share).value(), std::move(matches),
                            std::move(texts));
}

// Counters summed over the ranks (peak memory and disk: the largest rank).
void Runner::SumStats() {
  BatchStats& st = run_->stats;
  for (uint64_t* v : {&st.records, &st.skipped, &st.keys, &st.key_runs_spilled,
                      &st.key_bytes_spilled, &st.candidate_pairs, &st.similarity_calls}) {
    *v = SumAll(c_, *v);
  }
  st.edges = SumAll(c_, edge_count_);
  st.oversized_components = SumAll(c_, clusters_.oversized_components);
  st.refused_by_cap = SumAll(c_, clusters_.refused_by_cap);
  st.ranks = c_.size();
  st.shuffled_key_bytes = SumAll(c_, key_bytes_);
  st.shuffled_pair_bytes = SumAll(c_, pair_bytes_);
  st.component_rounds = MaxAll(c_, rounds_);
  st.fetched_text_bytes = SumAll(c_, fetched_);
  st.line_table_bytes = MaxAll(c_, run_->input.lines->MemoryBytes());
  st.peak_rss_bytes = MaxAll(c_, batch::PeakRssBytes());
  st.peak_disk_bytes = MaxAll(c_, run_->tmp->DiskBytes());
}

Result<std::unique_ptr<BatchDedup>> Runner::Run(const std::vector<std::string>& files,
                                                const BatchOptions& options,
                                                batch::BatchSignature* sig) {
  NEARDUP_RETURN_IF_ERROR(Open(files, options, sig));
  NEARDUP_RETURN_IF_ERROR(Count());
  NEARDUP_RETURN_IF_ERROR(Learn());
  {
    batch::KeyRuns keys(run_->tmp.get(), "keys");
    NEARDUP_RETURN_IF_ERROR(Sketch(&keys));
    if (resume_ == Stage::kNone) {
      NEARDUP_RETURN_IF_ERROR(PairAndVerify(&keys));
    } else {
      NEARDUP_RETURN_IF_ERROR(LoadVerify());
    }
  }
  batch::ReleaseFreedMemory();  // the shuffles' and verification's buffers
  DeliverSkips(c_, skips_, run_->options.on_skip);
  DieForTest(c_, "verify");
  std::unique_ptr<batch::MatchRuns> matches;
  std::unique_ptr<batch::LineSource> texts;
  if (run_->options.with_matches) {
    NEARDUP_RETURN_IF_ERROR(OwnMatches(&matches));
    NEARDUP_RETURN_IF_ERROR(FetchMatched(&texts));
  }
  NEARDUP_RETURN_IF_ERROR(Cluster());
  batch::ReleaseFreedMemory();  // the edges and the components' scratch
  DieForTest(c_, "cluster");
  SumStats();
  if (!run_->options.idf_save.empty()) {  // rank 0 writes it, as one process does at the end
    Status s;
    if (c_.rank() == 0) s = run_->sig->SaveState(run_->options.idf_save);
    NEARDUP_RETURN_IF_ERROR(Agree(c_, s.WithContext(run_->options.idf_save), 0));
  }
  return FinishShare(std::move(matches), std::move(texts));
}

}  // namespace

Result<std::unique_ptr<BatchDedup>> RunOnComm(Comm& c, const std::vector<std::string>& files,
                                              const BatchOptions& options,
                                              const DistributedOptions& distributed,
                                              batch::BatchSignature* sig) {
  NEARDUP_RETURN_IF_ERROR(CheckSupported(files, options));
  BatchOptions o = options;
  if (c.rank() != 0) o.progress = nullptr;
  // Defaults: every core and half the available memory of this host,
  // shared by the ranks on it.
  const int local = c.LocalSize();
  if (o.engine.threads == 0) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    o.engine.threads = std::max(1, cores / local);
  }
  if (o.memory_bytes == 0) {
    o.memory_bytes = std::max<uint64_t>(64ull << 20, DefaultBatchMemory() / local);
  }
  Runner runner(c, distributed);
  return runner.Run(files, o, sig);
}

}  // namespace neardup::distributed
