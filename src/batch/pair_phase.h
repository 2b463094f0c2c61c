// SPDX-License-Identifier: Apache-2.0
//
// The pair phase: the k-way merge of every key run yields buckets (equal
// keys) in key order, members in document order. Each bucket of a
// signature's space becomes candidate pairs by star pairing; pairs are
// sorted runs again (spilled past the budget), so the verify phase sees
// each pair once, in (a, b) order.
//
// Star pairing: a bucket's members, in document order m0 < m1 < ..., give
// the pairs (mj, mi) for j < min(i, W): all pairs of a bucket of up to W+1
// members, and for larger buckets every member paired with the first W.
// W = 8, or 64 in spaces with a payload distance (SimHash), whose buckets
// are filtered by distance first, or the space's own (KeySpace::star_width:
// 2 for containment's shared passages). Bounded: at most W pairs per key. With
// the key filter (key_filter.h) a bucket emits only pairs whose key bytes
// allow min_shared_keys shared keys. Against an index, pairs of two corpus
// records are not made.
//
// Buckets of the id space hold records with equal id hashes: a later record
// whose id equals an earlier one's is a repeated id (an error, or skipped).
//
// Thread safety: one thread (the merge); sorting uses env.threads. Memory:
// the merge's read buffers and a pair buffer, sized from the budget.
#ifndef NEARDUP_BATCH_PAIR_PHASE_H_
#define NEARDUP_BATCH_PAIR_PHASE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "batch/key_filter.h"
#include "batch/record_errors.h"
#include "batch/run_env.h"
#include "batch/run_input.h"
#include "batch/sketch_phase.h"
#include "batch/sorted_runs.h"

namespace neardup::batch {

inline constexpr size_t kStarWidth = 8;
inline constexpr size_t kHammingWidth = 64;

using PairRuns = RunSet<Pair, std::less<Pair>>;

struct PairInput {
  // Ids of repeated-id candidates are parsed from it; a repeated id skipped
  // under skip_invalid is marked kSkipped in its LineTable, whose key bytes
  // (read here only) are released at the end.
  RunInput* input = nullptr;
  const KeyFilter* key_filter = nullptr;
  uint64_t min_shared_keys = 1;
  bool skip_invalid = false;
  // An MPI rank's repeated-id candidates that other ranks own, with their
  // ids (fetched from the owners): these are not parsed. Null: none.
  const std::unordered_map<uint32_t, std::string>* ids = nullptr;
  // Not null: bit d (of word d / 64) is set for each record d that is the
  // later record of a pair made here (the boilerplate guard's founders are
  // the records without one). Sized by the caller to the lines.
  std::vector<uint64_t>* later = nullptr;
};

struct PairCounts {
  uint64_t pairs_filtered = 0;  // dropped by the key filter
  uint64_t repeated_ids = 0;    // records skipped for a repeated id
};

class PairPhase {
 public:
  PairPhase(const PhaseEnv& env, const PairInput& in, RecordErrors* errors);
  // Merges *keys into candidate pairs, sorted runs in *pairs. Errors: the
  // merge's and spilling's (IOError); a repeated id (errors->First()).
  Status Run(KeyRuns* keys, PairRuns* pairs, PairCounts* counts);

 private:
  class Writer;
  void StartBucket(uint64_t key);
  Status IdMember(uint32_t doc, PairCounts* counts);
  // From in_.ids, else parsed (valid until the next call).
  Status IdOf(uint32_t doc, std::string_view* id);
  Status StarMember(uint32_t doc, Writer* out, PairCounts* counts);

  PhaseEnv env_;
  PairInput in_;
  RecordErrors* errors_;
  RecordParser parser_;
  // The current bucket: its key and space, the first W members, the last
  // member, and for an id bucket the distinct ids met so far.
  uint64_t key_ = 0;
  uint32_t space_ = 0, last_ = UINT32_MAX;
  std::vector<uint32_t> head_;
  std::vector<std::pair<uint32_t, std::string>> ids_;
};

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_PAIR_PHASE_H_
