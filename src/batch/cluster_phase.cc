// SPDX-License-Identifier: Apache-2.0
#include "batch/cluster_phase.h"

#include <algorithm>

#include "base/status_macros.h"

namespace neardup::batch {

ClusterPhase::ClusterPhase(const PhaseEnv& env, uint64_t n, uint64_t cap, bool with_matches)
    : env_(env),
      reserved_(8 * n + (with_matches ? env.budget->Available() / 8 : 0)),
      builder_(n, cap, env.tmp, std::max<uint64_t>(1 << 20, env.budget->Available() / 4)) {
  if (with_matches) {
    matches_ = std::make_unique<MatchCollector>(
        env.tmp, std::max<uint64_t>(4096, env.budget->Available() / 8 / sizeof(Edge)));
  }
}

Status MatchCollector::Flush(bool spill) {
  std::sort(buf_.begin(), buf_.end(), MatchLess());
  return runs_->AddRun(&buf_, spill);
}

Result<std::unique_ptr<MatchRuns>> MatchCollector::Finish() {
  NEARDUP_RETURN_IF_ERROR(Flush(runs_->spilled_runs() > 0));
  return std::move(runs_);
}

Status ClusterPhase::Add(const Edge& e) {
  NEARDUP_RETURN_IF_ERROR(builder_.Add({e.a, e.b, e.similarity < 0 ? 1.0f : e.similarity}));
  // (A containment edge goes as it is: its similarity says it is one.)
  if (!matches_) return Status::OK();
  return matches_->Add(e);
}

Result<ClusterOutput> ClusterPhase::Finish() {
  ClusterOutput out;
  if (matches_) {
    NEARDUP_ASSIGN_OR_RETURN(out.matches, matches_->Finish());
  }
  env_.monitor->Phase(BatchPhase::kCluster, 0);
  NEARDUP_ASSIGN_OR_RETURN(out.clustering, builder_.Finish());
  env_.budget->Hold((out.clustering.root.capacity() + out.clustering.size.capacity()) *
                    sizeof(uint32_t));
  return out;
}

}  // namespace neardup::batch
