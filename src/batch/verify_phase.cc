// SPDX-License-Identifier: Apache-2.0
//
// Phase 3: the merged pairs, each once (a pair proposed by several keys is
// de-duplicated here; `decided` if any proposer decides), go in batches to
// worker threads, which read both texts from the TextStore and call
// BatchSignature::Similarity. Batches are committed in order, so the edges
// reach the ClusterBuilder (and the --with-matches runs) in (a, b) order
// whatever the thread count. Pairs that touch a skipped record are dropped.
// This streaming way reads both texts of every pair at random (pread); it
// serves MPI ranks, whose borrowed lines are not in the TextStore. A single
// process verifies in blocks (verify_blocks.cc). VerifyPairs hands the edges
// to a callback (the MPI runner's edge list); VerifyPhase feeds them to the
// ClusterBuilder.
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <thread>

#include "base/status_macros.h"
#include "batch/batch_run.h"
#include "batch/spill_buffer.h"

namespace neardup {
namespace {

constexpr size_t kBatchPairs = 4096;

struct PairBatch {
  std::vector<batch::Pair> pairs;
  std::vector<batch::Edge> edges;  // similarity -1: decided by a key space
  uint64_t calls = 0;
  Status status;
};

}  // namespace

Status BatchDedup::Impl::VerifyPhase(batch::PairRuns* pairs) {
  if (options.with_matches) matches = std::make_unique<batch::MatchRuns>(tmp.get(), "matches");
  const uint64_t match_limit = std::max<uint64_t>(4096, Available() / 8 / sizeof(batch::Edge));
  batch::SpillBuffer<batch::Edge> match_buf(match_limit);  // memory by need
  batch::ClusterBuilder builder(n, options.max_cluster_size, tmp.get(),
                                std::max<uint64_t>(1 << 20, Available() / 4));
  NEARDUP_RETURN_IF_ERROR(VerifyPairs(pairs, [&](const batch::Edge& e) -> Status {
    NEARDUP_RETURN_IF_ERROR(builder.Add({e.a, e.b, e.similarity < 0 ? 1.0f : e.similarity}));
    if (matches) {
      NEARDUP_RETURN_IF_ERROR(batch::AppendOrSpill(&match_buf, e, [&] {
        std::sort(match_buf.begin(), match_buf.end(), batch::MatchLess());
        return matches->AddRun(&match_buf, true);
      }));
    }
    return Status::OK();
  }));
  if (matches) {
    std::sort(match_buf.begin(), match_buf.end(), batch::MatchLess());
    NEARDUP_RETURN_IF_ERROR(matches->AddRun(&match_buf, matches->spilled_runs() > 0));
  }
  monitor->Phase(BatchPhase::kCluster, 0);
  NEARDUP_ASSIGN_OR_RETURN(clustering, builder.Finish());
  stats.edges = clustering.stats.edges;
  stats.oversized_components = clustering.stats.oversized_components;
  stats.refused_by_cap = clustering.stats.refused_by_cap;
  return Status::OK();
}

Result<bool> batch::DistinctPairs::Next(Pair* pair, uint64_t* proposals) {
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

Status BatchDedup::Impl::VerifyPairs(batch::PairRuns* pairs,
                                     const std::function<Status(const batch::Edge&)>& on_edge) {
  if (borrowed) return VerifyStreaming(pairs, on_edge);
  return VerifyBlocks(pairs, on_edge);
}

Status BatchDedup::Impl::VerifyStreaming(batch::PairRuns* pairs,
                                         const std::function<Status(const batch::Edge&)>& on_edge) {
  monitor->Phase(BatchPhase::kVerify, pairs->records());
  const uint64_t read_budget = std::clamp<uint64_t>(Available() / 8, 1 << 20, 256 << 20);
  NEARDUP_ASSIGN_OR_RETURN(auto merger, pairs->Merge(read_budget));
  const double threshold = sig->threshold();

  // Workers: batches in, batches out keyed by sequence number.
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::pair<uint64_t, std::unique_ptr<PairBatch>>> todo;
  std::map<uint64_t, std::unique_ptr<PairBatch>> done;
  bool closing = false;
  auto work = [&](batch::SignatureScratch* scratch, batch::RecordParser* pa,
                  batch::RecordParser* pb, PairBatch* b) {
    uint32_t cached = UINT32_MAX;
    batch::ParsedRecord ra, rb;
    for (batch::Pair p : b->pairs) {
      const uint32_t a = batch::PairA(p), d = batch::PairB(p);
      if (lines->state(a) != batch::kRecord || lines->state(d) != batch::kRecord) continue;
      if (batch::PairDecided(p)) {
        b->edges.push_back({a, d, -1.0f});
        continue;
      }
      if (cached != a) {
        cached = UINT32_MAX;
        if (Status s = Parse(a, pa, &ra); !s.ok()) return s;
        cached = a;
      }
      NEARDUP_RETURN_IF_ERROR(Parse(d, pb, &rb));
      ++b->calls;
      NEARDUP_ASSIGN_OR_RETURN(double sim,
                               sig->Similarity({a, ra.text, lines->payload(a)},
                                               {d, rb.text, lines->payload(d)}, scratch));
      if (sim >= threshold) b->edges.push_back({a, d, static_cast<float>(sim)});
    }
    return Status::OK();
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      auto scratch = sig->NewScratch();
      batch::RecordParser pa(fields), pb(fields);
      std::unique_lock<std::mutex> lock(mu);
      while (true) {
        cv.wait(lock, [&] { return !todo.empty() || closing; });
        if (todo.empty()) return;
        auto [seq, b] = std::move(todo.front());
        todo.pop_front();
        lock.unlock();
        b->status = work(scratch.get(), &pa, &pb, b.get());
        lock.lock();
        done.emplace(seq, std::move(b));
        cv.notify_all();
      }
    });
  }

  auto commit = [&](PairBatch& b) -> Status {
    NEARDUP_RETURN_IF_ERROR(b.status);
    stats.similarity_calls += b.calls;
    for (const batch::Edge& e : b.edges) NEARDUP_RETURN_IF_ERROR(on_edge(e));
    return Status::OK();
  };

  // Produce batches, keep at most 2 per thread in flight, commit in order.
  const size_t max_in_flight = 2 * static_cast<size_t>(threads);
  uint64_t next_seq = 0, next_commit = 0;
  Status status;
  bool more = true;
  auto batch_buf = std::make_unique<PairBatch>();
  batch::DistinctPairs distinct(merger.get());
  const uint64_t min_proposals = std::max<uint64_t>(1, options.min_shared_keys);
  while (status.ok() && (more || next_commit < next_seq)) {
    while (more && next_seq - next_commit < max_in_flight) {
      batch::Pair p;
      uint64_t proposals = 0;
      auto r = distinct.Next(&p, &proposals);
      if (!r.ok()) {
        status = r.status();
        more = false;
        break;
      }
      more = *r;
      if (more) {
        ++stats.candidate_pairs;
        if (proposals >= min_proposals) batch_buf->pairs.push_back(p);
      }
      if ((!more || batch_buf->pairs.size() >= kBatchPairs) && !batch_buf->pairs.empty()) {
        std::lock_guard<std::mutex> lock(mu);
        todo.emplace_back(next_seq++, std::move(batch_buf));
        batch_buf = std::make_unique<PairBatch>();
        cv.notify_all();
      }
    }
    std::unique_ptr<PairBatch> ready;
    {
      std::unique_lock<std::mutex> lock(mu);
      if (next_commit == next_seq) continue;
      cv.wait_for(lock, std::chrono::milliseconds(100),
                  [&] { return done.count(next_commit) > 0; });
      auto it = done.find(next_commit);
      if (it != done.end()) {
        ready = std::move(it->second);
        done.erase(it);
      }
    }
    monitor->Done(distinct.merged());
    monitor->Tick();
    if (ready) {
      ++next_commit;
      status = commit(*ready);
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    closing = true;
    cv.notify_all();
  }
  for (auto& t : pool) t.join();
  NEARDUP_RETURN_IF_ERROR(status);
  return Status::OK();
}

}  // namespace neardup
