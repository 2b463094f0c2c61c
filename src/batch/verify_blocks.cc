// SPDX-License-Identifier: Apache-2.0
//
// Phase 3 in blocks: verification whose text reads are sequential, so it
// runs at disk speed when the input is larger than the page cache (a random
// pread per pair side made the 100M-record run disk-bound: 332 GB read).
//
// The distinct pairs arrive in (a, b) order. They are cut into ranges: a
// range takes pairs while its distinct `a` documents' texts fit in a block
// (a share of the budget) and its pairs fit too. For each range:
//   1. the a texts are read (LineBlock: coalesced preads, sequential when
//      the a's are dense) a chunk at a time on the workers, and kept in
//      memory in their prepared form (BatchSignature::Prepare: the engine's
//      normalized text), so an a verified against many b's is parsed and
//      normalized once;
//   2. its pairs are sorted by (b, a) and cut into batches; a worker reads
//      the b texts of its batch with a few coalesced preads (b increasing,
//      so consecutive b's share reads), prepares each b once for its run of
//      a's and calls SimilarityPrepared() per pair;
//   3. the range's edges are sorted back into (a, b) order and handed on.
// So edges reach on_edge in (a, b) order, whatever the budget or thread
// count. Texts come from a LineSource: the input files, or an MPI rank's
// own lines and the records it fetched from other ranks. This is a block nested-loop join of pairs
// with texts (Garcia-Molina, Ullman and Widom, "Database Systems: The Complete Book", 2nd ed.,
// section 15.3): the input is read about once per range plus once for the a blocks, all of it in
// large reads.
#include <algorithm>
#include <atomic>
#include <thread>

#include "base/status_macros.h"
#include "batch/batch_run.h"
#include "batch/line_block.h"
#include "batch/sort.h"
#include "batch/spill_buffer.h"

namespace neardup {
namespace {

constexpr size_t kBatchPairs = 4096;
constexpr size_t kPrepareChunk = 1024;     // a texts prepared per task
constexpr uint64_t kBatchGap = 16 << 10;   // b side
constexpr uint64_t kBatchBytes = 4 << 20;  // b side: at most this read at once by a worker
// Per pair held in a range: the entry, an edge, an a line and its prepared
// form's end offset.
constexpr uint64_t kBytesPerRangePair = 8 + 12 + 4 + 8;

// A pair of a range: its b document and the index of its a in the range;
// (b, ai) order is (b, a) order.
struct RangePair {
  uint32_t b;
  uint32_t ai;
};
uint64_t RangeKey(const RangePair& p) { return (static_cast<uint64_t>(p.b) << 32) | p.ai; }
struct RangeLess {
  bool operator()(const RangePair& x, const RangePair& y) const {
    return RangeKey(x) < RangeKey(y);
  }
};

struct Worker {
  explicit Worker(const batch::JsonlFields& fields) : parser(fields) {}
  std::unique_ptr<batch::SignatureScratch> scratch;
  batch::RecordParser parser;
  batch::LineBlock block{kBatchGap};
  std::string prepared;  // of the current b
};

struct TaskResult {
  std::vector<batch::Edge> edges;
  uint64_t calls = 0, bytes_read = 0;
  Status status;
};

// The a side of a range: distinct a's in order, prepared forms by chunk.
struct ASide {
  std::vector<uint32_t> lines;
  uint64_t text_bytes = 0;          // raw bytes of their lines (the block's estimate)
  std::vector<std::string> chunks;  // prepared forms of lines [c*kPrepareChunk, ...)
  std::vector<uint64_t> ends;       // per line: its form's end in its chunk
  std::string_view Prepared(size_t i) const {
    const std::string& c = chunks[i / kPrepareChunk];
    const uint64_t begin = i % kPrepareChunk == 0 ? 0 : ends[i - 1];
    return std::string_view(c.data() + begin, ends[i] - begin);
  }
  void Clear() {
    lines.clear();
    chunks.clear();
    ends.clear();
    text_bytes = 0;
  }
};

}  // namespace

Status BatchDedup::Impl::VerifyPairs(batch::PairRuns* pairs, const batch::LineSource& source,
                                     const std::function<Status(const batch::Edge&)>& on_edge) {
  monitor->Phase(BatchPhase::kVerify, pairs->records());
  const uint64_t read_budget = std::clamp<uint64_t>(Available() / 8, 1 << 20, 256 << 20);
  // What the budget leaves: less the merger's buffers, VerifyPhase's
  // ClusterBuilder (8 bytes a document) and match buffer, the workers'
  // reads; 5/8 for the a block, 3/8 for the range's pairs.
  const uint64_t reserved = read_budget + 8 * n + (options.with_matches ? Available() / 8 : 0) +
                            threads * (kBatchBytes + kBatchPairs * sizeof(batch::Edge));
  const uint64_t avail = Available() > reserved ? Available() - reserved : 0;
  // (Small floors, so tiny budgets in tests cut many ranges and batches.)
  // A block holds at most an eighth of the input (or 64 MB): about eight
  // ranges, each reading the rest of the input once, rather than every text
  // of the input in memory because a large budget would allow it.
  const uint64_t block_bytes = std::min(std::max<uint64_t>(64 << 10, avail / 8 * 5),
                                        std::max<uint64_t>(64 << 20, stats.input_bytes / 8));
  const uint64_t pair_cap = std::max<uint64_t>(1024, avail / 8 * 3 / kBytesPerRangePair);
  const uint64_t batch_bytes = std::clamp<uint64_t>(block_bytes / 16, 4 << 10, kBatchBytes);
  NEARDUP_ASSIGN_OR_RETURN(auto merger, pairs->Merge(read_budget));
  const double threshold = sig->threshold();

  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < threads; ++t) {
    workers.push_back(std::make_unique<Worker>(fields));
    workers.back()->scratch = sig->NewScratch();
  }
  ASide aside;
  batch::SpillBuffer<RangePair> range;  // grows by need (the cut below bounds it); no copies
  std::vector<batch::Edge> edges;       // of the range
  std::vector<TaskResult> results;

  // Runs task(worker, i, result) for i in [0, tasks) on every worker; the
  // calling thread is worker 0 and reports progress from `from` to `to`.
  auto run_tasks = [&](size_t tasks, uint64_t from, uint64_t to,
                       const std::function<Status(Worker*, size_t, TaskResult*)>& task) {
    results.assign(tasks, TaskResult());
    std::atomic<size_t> next{0};
    auto loop = [&](Worker* w, bool report) {
      for (size_t i; (i = next.fetch_add(1)) < tasks;) {
        results[i].status = task(w, i, &results[i]);
        if (report) {
          monitor->Done(from + (to - from) * std::min(i + 1, tasks) / tasks);
          monitor->Tick();
        }
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads && static_cast<size_t>(t) < tasks; ++t) {
      pool.emplace_back(loop, workers[t].get(), false);
    }
    loop(workers[0].get(), true);
    for (auto& t : pool) t.join();
  };

  // Reads and prepares the a texts of chunk c.
  auto prepare_chunk = [&](Worker* w, size_t c, TaskResult* out) -> Status {
    const size_t begin = c * kPrepareChunk;
    const size_t end = std::min(aside.lines.size(), begin + kPrepareChunk);
    w->block.Clear();
    for (size_t i = begin; i < end; ++i) w->block.Add(source, aside.lines[i]);
    NEARDUP_RETURN_IF_ERROR(w->block.Load(source));
    out->bytes_read += w->block.bytes();
    std::string& arena = aside.chunks[c];
    batch::ParsedRecord rec;
    for (size_t i = begin; i < end; ++i) {
      NEARDUP_RETURN_IF_ERROR(
          ParseLine(aside.lines[i], w->block.Get(source, i - begin), &w->parser, &rec));
      NEARDUP_RETURN_IF_ERROR(sig->Prepare(rec.text, w->scratch.get(), &w->prepared));
      arena += w->prepared;
      aside.ends[i] = arena.size();
    }
    return Status::OK();
  };

  // Verifies the pairs entries (sorted by b) of one batch.
  auto verify_batch = [&](Worker* w, std::span<const RangePair> entries,
                          TaskResult* out) -> Status {
    batch::ParsedRecord rb;
    for (size_t i = 0; i < entries.size();) {
      // Read the b sides of entries [i, j), about batch_bytes.
      w->block.Clear();
      size_t j = i;
      for (uint32_t last = UINT32_MAX; j < entries.size(); ++j) {
        if (entries[j].b == last) continue;
        if (j > i && w->block.bytes() >= batch_bytes) break;
        w->block.Add(source, entries[j].b);
        last = entries[j].b;
      }
      NEARDUP_RETURN_IF_ERROR(w->block.Load(source));
      out->bytes_read += w->block.bytes();
      size_t bi = 0;
      for (size_t k = i; k < j; ++k) {
        const uint32_t b = entries[k].b;
        if (k == i || b != entries[k - 1].b) {
          if (k > i) ++bi;
          NEARDUP_RETURN_IF_ERROR(ParseLine(b, w->block.Get(source, bi), &w->parser, &rb));
          NEARDUP_RETURN_IF_ERROR(sig->Prepare(rb.text, w->scratch.get(), &w->prepared));
        }
        const uint32_t ai = entries[k].ai, a = aside.lines[ai];
        ++out->calls;
        NEARDUP_ASSIGN_OR_RETURN(
            double sim,
            sig->SimilarityPrepared({a, aside.Prepared(ai), lines->payload(a)},
                                    {b, w->prepared, lines->payload(b)}, w->scratch.get()));
        if (sim >= threshold) out->edges.push_back({a, b, static_cast<float>(sim)});
      }
      i = j;
    }
    return Status::OK();
  };

  // Collects the results of run_tasks: the first error, counts, edges.
  auto collect = [&]() -> Status {
    for (TaskResult& r : results) {
      NEARDUP_RETURN_IF_ERROR(r.status);
      stats.similarity_calls += r.calls;
      stats.verify_bytes_read += r.bytes_read;
      edges.insert(edges.end(), r.edges.begin(), r.edges.end());
    }
    results.clear();
    return Status::OK();
  };

  // Verifies the range (merged pair records [m0, m1)) and hands its edges on.
  uint64_t m0 = 0;
  auto run_range = [&](uint64_t m1) -> Status {
    if (!range.empty()) {
      ++stats.verify_ranges;
      const size_t chunks = (aside.lines.size() + kPrepareChunk - 1) / kPrepareChunk;
      aside.chunks.assign(chunks, std::string());
      aside.ends.resize(aside.lines.size());
      const uint64_t mid = m0 + (m1 - m0) / 4;  // progress: a quarter for preparing
      run_tasks(chunks, m0, mid, prepare_chunk);
      NEARDUP_RETURN_IF_ERROR(collect());
      batch::ParallelRadixSort(range.span(), RangeKey, RangeLess(), threads);
      // Batches of up to kBatchPairs, at least 4 per thread when the range allows.
      const size_t per_batch = std::clamp<size_t>(range.size() / (4 * threads), 64, kBatchPairs);
      const size_t batches = (range.size() + per_batch - 1) / per_batch;
      run_tasks(batches, mid, m1, [&](Worker* w, size_t i, TaskResult* out) {
        const size_t begin = i * per_batch, end = std::min(range.size(), begin + per_batch);
        return verify_batch(w, std::span<const RangePair>(range.data() + begin, end - begin), out);
      });
      NEARDUP_RETURN_IF_ERROR(collect());
    }
    std::sort(edges.begin(), edges.end(), [](const batch::Edge& x, const batch::Edge& y) {
      return x.a != y.a ? x.a < y.a : x.b < y.b;
    });
    for (const batch::Edge& e : edges) NEARDUP_RETURN_IF_ERROR(on_edge(e));
    edges.clear();
    range.clear();
    aside.Clear();
    m0 = m1;
    return Status::OK();
  };

  batch::DistinctPairs distinct(merger.get());
  const uint64_t min_proposals = std::max<uint64_t>(1, options.min_shared_keys);
  uint32_t last_a = UINT32_MAX;
  bool a_added = false;  // last_a is in aside.lines
  while (true) {
    batch::Pair p;
    uint64_t proposals = 0;
    const uint64_t merged_before = distinct.merged();
    NEARDUP_ASSIGN_OR_RETURN(bool more, distinct.Next(&p, &proposals));
    if (!more) break;
    if ((++stats.candidate_pairs & 0xFFFF) == 0) {
      monitor->Done(merged_before);
      monitor->Tick();
    }
    if (proposals < min_proposals) continue;
    const uint32_t a = batch::PairA(p), b = batch::PairB(p);
    if (lines->state(a) != batch::kRecord || lines->state(b) != batch::kRecord) continue;
    if (a != last_a) {
      if (range.size() + edges.size() >= pair_cap || aside.text_bytes >= block_bytes) {
        NEARDUP_RETURN_IF_ERROR(run_range(merged_before));
      }
      last_a = a;
      a_added = false;
    }
    if (batch::PairDecided(p)) {
      edges.push_back({a, b, -1.0f});
      continue;
    }
    if (!a_added) {
      const batch::LineSource::Extent e = source.ExtentOf(a);
      aside.text_bytes += e.end - e.begin;
      aside.lines.push_back(a);
      a_added = true;
    }
    if (!range.Room(1)) return Status::ResourceExhausted("cannot allocate memory for a range");
    range.push_back({b, static_cast<uint32_t>(aside.lines.size() - 1)});
  }
  NEARDUP_RETURN_IF_ERROR(run_range(distinct.merged()));
  monitor->Done(distinct.merged());
  return Status::OK();
}

}  // namespace neardup
