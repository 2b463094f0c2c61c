// SPDX-License-Identifier: Apache-2.0
//
// The keep phase: each cluster's first member (input order) and the member
// it keeps, by one of three orders: first (input order), smallest-id (the
// one id order, neardup/ids.h IdLess on the canonical JSON ids), longest
// (code points of the text field, ties to the first). Found in one pass
// over the records in input order, re-reading ids and texts from the input,
// so the policy holds however the run was split or spilled. When the budget
// allows, each cluster's kept member's key (IdOrderKey of its id, or its
// code points) is kept per cluster, so members are compared without
// re-reading the kept one (a random read each).
//
// Against an index the corpus keeps its members: a new record never
// replaces a corpus record (corpus lines come first).
//
// Thread safety: one thread. Memory: 8 bytes a line (first, kept), 8 more
// for the keys when the budget allows.
#ifndef NEARDUP_BATCH_KEEP_PHASE_H_
#define NEARDUP_BATCH_KEEP_PHASE_H_

#include <cstdint>
#include <vector>

#include "batch/clusters.h"
#include "batch/run_env.h"
#include "batch/run_input.h"
#include "neardup/options.h"

namespace neardup::batch {

struct Kept {
  std::vector<uint32_t> first, kept;  // per cluster root: first member, kept member
  // With --keep smallest-id, when the budget allowed: per root of a cluster
  // of new records, IdOrderKey of its kept member's id (0: unknown).
  std::vector<uint64_t> kept_keys;
  // Over the reported records (the new ones, against an index).
  uint64_t clusters = 0, multi_clusters = 0, duplicates = 0;
};

class KeepPhase {
 public:
  // Reads records of `input` (states and texts) clustered by `clustering`.
  KeepPhase(const PhaseEnv& env, const RunInput* input, const Clustering* clustering,
            KeepPolicy keep);
  // The arrays are held in the budget from now on. Errors: reading or
  // parsing a record.
  Result<Kept> Run();

 private:
  uint64_t KeyOf(const ParsedRecord& r) const;
  Status Member(uint32_t d, Kept* out);
  // Whether d replaces the kept member of root r.
  Result<bool> Better(uint32_t d, uint32_t r, const Kept& k, uint64_t* key);
  void Count(Kept* out) const;

  PhaseEnv env_;
  const RunInput* input_;
  const Clustering* clustering_;
  KeepPolicy keep_;
  RecordParser pd_, pk_;
  ParsedRecord rd_, rk_;
  std::vector<uint64_t> best_;  // per root: the kept member's key (when keyed)
};

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_KEEP_PHASE_H_
