// SPDX-License-Identifier: Apache-2.0
#include "batch/verify_phase.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "base/huge_pages.h"
#include "base/machine.h"
#include "base/parallel.h"
#include "base/status_macros.h"
#include "batch/sort.h"

namespace neardup::batch {
namespace {

constexpr size_t kBatchPairs = 4096;
constexpr size_t kPrepareChunk = 1024;     // a texts prepared per task
constexpr uint64_t kBatchGap = 16 << 10;   // b side
constexpr uint64_t kBatchBytes = 4 << 20;  // b side: at most this read at once by a worker
// Per pair held in a range: the entry, an edge, an a line and its prepared
// form's end offset.
constexpr uint64_t kBytesPerRangePair = 8 + 12 + 4 + 8;

}  // namespace

struct VerifyPhase::Worker {
  explicit Worker(const JsonlFields& fields) : parser(fields) {}
  std::unique_ptr<SignatureScratch> scratch;
  RecordParser parser;
  LineBlock block{kBatchGap};
  std::string prepared;  // of the current b
  ParsedRecord rec;
};

// The a side of a range: distinct a's in order, prepared forms by chunk.
struct VerifyPhase::ASide {
  std::vector<uint32_t> lines;
  uint64_t text_bytes = 0;          // raw bytes of their lines (the block's estimate)
  std::vector<std::string> chunks;  // prepared forms of lines [c*kPrepareChunk, ...)
  std::vector<uint64_t> ends;       // per line: its form's end in its chunk
  std::string_view Prepared(size_t i) const {
    const std::string& c = chunks[i / kPrepareChunk];
    const uint64_t begin = i % kPrepareChunk == 0 ? 0 : ends[i - 1];
    return std::string_view(c.data() + begin, ends[i] - begin);
  }
  // Keeps the chunks' memory for the next range: fresh memory costs a page
  // fault per page.
  void Clear() {
    lines.clear();
    for (std::string& c : chunks) c.clear();
    ends.clear();
    text_bytes = 0;
  }
};

Result<bool> DistinctPairs::Next(Pair* pair, uint64_t* proposals) {
  if (done_) return false;
  if (!have_pending_) {
    NEARDUP_ASSIGN_OR_RETURN(bool got, merger_->Next(&pending_));
    if (!got) {
      done_ = true;
      return false;
    }
    ++merged_;
    have_pending_ = true;
  }
  Pair cur = pending_;
  uint64_t n = 1;
  while (true) {
    Pair p;
    NEARDUP_ASSIGN_OR_RETURN(bool got, merger_->Next(&p));
    if (!got) {
      have_pending_ = false;
      done_ = true;
      break;
    }
    ++merged_;
    if ((p >> 1) != (cur >> 1)) {
      pending_ = p;
      break;
    }
    cur |= p & 1;  // the same pair again
    ++n;
  }
  *pair = cur;
  *proposals = n;
  return true;
}

VerifyPhase::VerifyPhase(const PhaseEnv& env, const VerifyInput& in)
    : env_(env), in_(in), aside_(std::make_unique<ASide>()) {
  for (int t = 0; t < env.threads; ++t) {
    workers_.push_back(std::make_unique<Worker>(in.input->fields));
    workers_.back()->scratch = env.sig->NewScratch();
    env.sig->UseBoilerplate(workers_.back()->scratch.get(), in.boilerplate);
  }
  threshold_ = env.sig->threshold();
}

VerifyPhase::~VerifyPhase() = default;

// What the budget leaves: less the merger's buffers, what the caller holds
// (`reserved`) and the workers' reads; 5/8 for the a block, 3/8 for the
// range's pairs. (Small floors, so tiny budgets in tests cut many ranges and
// batches.) A block holds at most an eighth of the input (or 64 MB): about
// eight ranges, each reading the rest of the input once, rather than every
// text of the input in memory because a large budget would allow it.
void VerifyPhase::Size(uint64_t read_budget) {
  const uint64_t available = env_.budget->Available();
  const uint64_t reserved =
      read_budget + in_.reserved + env_.threads * (kBatchBytes + kBatchPairs * sizeof(Edge));
  const uint64_t avail = available > reserved ? available - reserved : 0;
  block_bytes_ = std::min(std::max<uint64_t>(64 << 10, avail / 8 * 5),
                          std::max<uint64_t>(64 << 20, in_.input->bytes / 8));
  pair_cap_ = std::max<uint64_t>(1024, avail / 8 * 3 / kBytesPerRangePair);
  batch_bytes_ = std::clamp<uint64_t>(block_bytes_ / 16, 4 << 10, kBatchBytes);
}

Status VerifyPhase::Run(PairRuns* pairs, const EdgeFn& on_edge, VerifyCounts* counts) {
  on_edge_ = &on_edge;
  counts_ = counts;
  env_.monitor->Phase(BatchPhase::kVerify, pairs->records());
  const uint64_t read_budget = env_.budget->ReadBytes();
  Size(read_budget);
  NEARDUP_ASSIGN_OR_RETURN(auto merger, pairs->Merge(read_budget));
  DistinctPairs distinct(merger.get());
  const uint64_t min_proposals = std::max<uint64_t>(1, in_.min_shared_keys);
  while (true) {
    Pair p;
    uint64_t proposals = 0;
    const uint64_t merged_before = distinct.merged();
    NEARDUP_ASSIGN_OR_RETURN(bool more, distinct.Next(&p, &proposals));
    if (!more) break;
    if ((++counts->candidate_pairs & 0xFFFF) == 0) {
      env_.monitor->Done(merged_before);
      env_.monitor->Tick();
    }
    if (proposals >= min_proposals) NEARDUP_RETURN_IF_ERROR(Add(p, merged_before));
  }
  NEARDUP_RETURN_IF_ERROR(RunRange(distinct.merged()));
  env_.monitor->Done(distinct.merged());
  return Status::OK();
}

// Adds a distinct pair to the range, verifying the range first when the
// pair starts a new a and the range is full.
Status VerifyPhase::Add(Pair p, uint64_t merged_before) {
  const LineTable& lines = *in_.input->lines;
  const uint32_t a = PairA(p), b = PairB(p);
  if (lines.state(a) != kRecord || lines.state(b) != kRecord) return Status::OK();
  if (a != last_a_) {
    if (range_.size() + edges_.size() >= pair_cap_ || aside_->text_bytes >= block_bytes_) {
      NEARDUP_RETURN_IF_ERROR(RunRange(merged_before));
    }
    last_a_ = a;
    a_added_ = false;
  }
  if (PairDecided(p)) {
    edges_.push_back({a, b, -1.0f});
    return Status::OK();
  }
  if (!a_added_) {
    const LineSource::Extent e = Source().ExtentOf(a);
    aside_->text_bytes += e.end - e.begin;
    aside_->lines.push_back(a);
    a_added_ = true;
  }
  if (!range_.Room(1)) return Status::ResourceExhausted("cannot allocate memory for a range");
  range_.push_back({b, static_cast<uint32_t>(aside_->lines.size() - 1)});
  return Status::OK();
}

// Verifies the range (merged pair records [m0_, m1)) and hands its edges on.
Status VerifyPhase::RunRange(uint64_t m1) {
  if (!range_.empty()) {
    ++counts_->ranges;
    ASide& aside = *aside_;
    const size_t chunks = (aside.lines.size() + kPrepareChunk - 1) / kPrepareChunk;
    if (aside.chunks.size() < chunks) aside.chunks.resize(chunks);
    for (std::string& chunk : aside.chunks) chunk.clear();
    aside.ends.resize(aside.lines.size());
    const uint64_t mid = m0_ + (m1 - m0_) / 4;  // progress: a quarter for preparing
    RunTasks(chunks, m0_, mid,
             [this](Worker* w, size_t c, TaskResult* out) { return PrepareChunk(w, c, out); });
    NEARDUP_RETURN_IF_ERROR(Collect());
    auto key = [](const RangePair& p) { return (static_cast<uint64_t>(p.b) << 32) | p.ai; };
    ParallelRadixSort(
        range_.span(), key, [&](const RangePair& x, const RangePair& y) { return key(x) < key(y); },
        env_.threads);
    // Batches of up to kBatchPairs, at least 4 per thread when the range allows.
    const size_t per_batch =
        std::clamp<size_t>(range_.size() / (4 * env_.threads), 64, kBatchPairs);
    const size_t batches = (range_.size() + per_batch - 1) / per_batch;
    RunTasks(batches, mid, m1, [&](Worker* w, size_t i, TaskResult* out) {
      const size_t begin = i * per_batch, end = std::min(range_.size(), begin + per_batch);
      return VerifyBatch(w, std::span<const RangePair>(range_.data() + begin, end - begin), out);
    });
    NEARDUP_RETURN_IF_ERROR(Collect());
  }
  std::sort(edges_.begin(), edges_.end(),
            [](const Edge& x, const Edge& y) { return x.a != y.a ? x.a < y.a : x.b < y.b; });
  for (const Edge& e : edges_) NEARDUP_RETURN_IF_ERROR((*on_edge_)(e));
  edges_.clear();
  range_.clear();
  aside_->Clear();
  m0_ = m1;
  return Status::OK();
}

// Runs task(worker, i, result) for i in [0, tasks) on every worker; the
// calling thread is worker 0 and reports progress from `from` to `to`.
void VerifyPhase::RunTasks(size_t tasks, uint64_t from, uint64_t to, const Task& task) {
  results_.assign(tasks, TaskResult());
  std::atomic<size_t> next{0};
  auto loop = [&](Worker* w, bool report) {
    for (size_t i; (i = next.fetch_add(1)) < tasks;) {
      try {  // an exception must not leave a worker thread (base/parallel.h)
        results_[i].status = task(w, i, &results_[i]);
      } catch (...) {
        results_[i].status = base::ResourceErrorOrRethrow();
      }
      if (report) {
        env_.monitor->Done(from + (to - from) * std::min(i + 1, tasks) / tasks);
        env_.monitor->Tick();
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < env_.threads && static_cast<size_t>(t) < tasks; ++t) {
    Worker* w = workers_[t].get();
    if (!base::TryAddThread(&pool, [&loop, w] { loop(w, false); })) break;
  }
  loop(workers_[0].get(), true);
  for (auto& t : pool) t.join();
}

// The results of RunTasks: the first error, counts, edges.
Status VerifyPhase::Collect() {
  for (TaskResult& r : results_) {
    NEARDUP_RETURN_IF_ERROR(r.status);
    counts_->similarity_calls += r.calls;
    counts_->bytes_read += r.bytes_read;
    edges_.insert(edges_.end(), r.edges.begin(), r.edges.end());
  }
  results_.clear();
  return Status::OK();
}

// Reads and prepares the a texts of chunk c.
Status VerifyPhase::PrepareChunk(Worker* w, size_t c, TaskResult* out) {
  ASide& aside = *aside_;
  const LineSource& source = Source();
  const size_t begin = c * kPrepareChunk;
  const size_t end = std::min(aside.lines.size(), begin + kPrepareChunk);
  w->block.Clear();
  for (size_t i = begin; i < end; ++i) w->block.Add(source, aside.lines[i]);
  NEARDUP_RETURN_IF_ERROR(w->block.Load(source));
  out->bytes_read += w->block.bytes();
  std::string& arena = aside.chunks[c];
  // Forms are copied as read: one allocation of their size, not a string
  // that grows by doubling (each growth a fresh mapping, paid in page faults:
  // half of the verify phase's time on 1M articles).
  if (in_.forms) {
    size_t total = 0;
    for (size_t i = begin; i < end; ++i) total += w->block.Get(source, i - begin).text.size();
    arena.reserve(total);
    base::AdviseHugePages(arena.data(), arena.capacity());
  }
  for (size_t i = begin; i < end; ++i) {
    NEARDUP_ASSIGN_OR_RETURN(std::string_view prepared,
                             PreparedOf(w, aside.lines[i], w->block.Get(source, i - begin)));
    arena += prepared;
    aside.ends[i] = arena.size();
  }
  return Status::OK();
}

Result<std::string_view> VerifyPhase::PreparedOf(Worker* w, uint32_t doc,
                                                 const LineSource::Line& line) {
  if (in_.forms) return line.text;
  NEARDUP_RETURN_IF_ERROR(in_.input->ParseLine(doc, line, &w->parser, &w->rec));
  NEARDUP_RETURN_IF_ERROR(env_.sig->Prepare(w->rec.text, w->scratch.get(), &w->prepared));
  return std::string_view(w->prepared);
}

Result<size_t> VerifyPhase::ReadBSide(Worker* w, std::span<const RangePair> entries, size_t i,
                                      TaskResult* out) {
  w->block.Clear();
  size_t j = i;
  for (uint32_t last = UINT32_MAX; j < entries.size(); ++j) {
    if (entries[j].b == last) continue;
    if (j > i && w->block.bytes() >= batch_bytes_) break;
    w->block.Add(Source(), entries[j].b);
    last = entries[j].b;
  }
  NEARDUP_RETURN_IF_ERROR(w->block.Load(Source()));
  out->bytes_read += w->block.bytes();
  return j;
}

// Verifies the entries (sorted by b) of one batch.
Status VerifyPhase::VerifyBatch(Worker* w, std::span<const RangePair> entries, TaskResult* out) {
  const LineTable& lines = *in_.input->lines;
  std::string_view b_form;
  for (size_t i = 0; i < entries.size();) {
    NEARDUP_ASSIGN_OR_RETURN(const size_t j, ReadBSide(w, entries, i, out));
    size_t bi = 0;
    for (size_t k = i; k < j; ++k) {
      const uint32_t b = entries[k].b;
      if (k == i || b != entries[k - 1].b) {
        if (k > i) ++bi;
        NEARDUP_ASSIGN_OR_RETURN(b_form, PreparedOf(w, b, w->block.Get(Source(), bi)));
      }
      const uint32_t ai = entries[k].ai, a = aside_->lines[ai];
      ++out->calls;
      const DocText da{a, aside_->Prepared(ai), lines.payload(a)};
      const DocText db{b, b_form, lines.payload(b)};
      NEARDUP_ASSIGN_OR_RETURN(const PairVerdict v,
                               in_.forms ? env_.sig->VerdictOfForms(da, db, w->scratch.get())
                                         : env_.sig->VerdictPrepared(da, db, w->scratch.get()));
      if (v.similarity >= threshold_) {
        out->edges.push_back({a, b, static_cast<float>(v.similarity)});
      } else if (v.contained) {
        out->edges.push_back({a, b, ContainedSimilarity(v.similarity, v.smaller)});
      }
    }
    i = j;
  }
  return Status::OK();
}

}  // namespace neardup::batch
