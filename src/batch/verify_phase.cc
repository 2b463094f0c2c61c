// SPDX-License-Identifier: Apache-2.0
//
// Phase 3: the merged pairs, each once (a pair proposed by several keys is
// de-duplicated here by DistinctPairs; `decided` if any proposer decides),
// are verified in blocks (VerifyPairs, verify_blocks.cc), whose edges reach
// the ClusterBuilder (and the --with-matches runs) in (a, b) order whatever
// the thread count. Pairs that touch a skipped record are dropped.
#include <algorithm>

#include "base/status_macros.h"
#include "batch/batch_run.h"
#include "batch/spill_buffer.h"

namespace neardup {

Status BatchDedup::Impl::VerifyPhase(batch::PairRuns* pairs) {
  if (options.with_matches) matches = std::make_unique<batch::MatchRuns>(tmp.get(), "matches");
  const uint64_t match_limit = std::max<uint64_t>(4096, Available() / 8 / sizeof(batch::Edge));
  batch::SpillBuffer<batch::Edge> match_buf(match_limit);  // memory by need
  batch::ClusterBuilder builder(n, options.max_cluster_size, tmp.get(),
                                std::max<uint64_t>(1 << 20, Available() / 4));
  NEARDUP_RETURN_IF_ERROR(VerifyPairs(pairs, store, [&](const batch::Edge& e) -> Status {
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

}  // namespace neardup
