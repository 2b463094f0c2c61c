// SPDX-License-Identifier: Apache-2.0
//
// The verify phase: the merged candidate pairs, each distinct pair once
// (`decided` if any proposal decides; with min_shared_keys = m only pairs
// proposed m times), verified on their texts with reads that are
// sequential, so it runs at disk speed when the input is larger than the
// page cache (a random pread per pair side made the 100M-record run
// disk-bound: 332 GB read). Pairs touching a record that is not kRecord
// are dropped.
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
// So edges reach on_edge in (a, b) order whatever the budget or thread
// count. This is a block nested-loop join of pairs with texts (Garcia-
// Molina, Ullman and Widom, "Database Systems: The Complete Book", 2nd ed.,
// section 15.3): the input is read about once per range plus once for the a
// blocks, all of it in large reads.
//
// Texts come from a LineSource: the input files (one process), or an MPI
// rank's own lines plus the records it fetched from other ranks. With a
// FormStore (a signature with forms; on MPI, a rank's own forms plus those
// it fetched) the records' verification forms are read instead, the same
// way, and compared as they are (SimilarityOfForms): no text is parsed or
// prepared.
//
// Thread safety: Run() from one thread, which is worker 0; env.threads
// workers verify. Memory: a block of a texts and a range of pairs, sized
// from what the budget leaves after `reserved`.
#ifndef NEARDUP_BATCH_VERIFY_PHASE_H_
#define NEARDUP_BATCH_VERIFY_PHASE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "batch/form_store.h"
#include "batch/line_block.h"
#include "batch/line_source.h"
#include "batch/pair_phase.h"
#include "batch/run_env.h"
#include "batch/run_input.h"
#include "batch/spill_buffer.h"

namespace neardup::batch {

// The merged pair runs, each distinct pair once: `decided` ORed over its
// proposals, and how many buckets proposed it.
class DistinctPairs {
 public:
  explicit DistinctPairs(RunMerger<Pair, std::less<Pair>>* merger) : merger_(merger) {}
  // False at the end. Errors: the merger's (IOError).
  Result<bool> Next(Pair* pair, uint64_t* proposals);
  uint64_t merged() const { return merged_; }  // pair records read so far

 private:
  RunMerger<Pair, std::less<Pair>>* merger_;
  Pair pending_ = 0;
  bool have_pending_ = false, done_ = false;
  uint64_t merged_ = 0;
};

struct VerifyInput {
  // Records are parsed with its fields and named by its files (errors);
  // states and payloads come from its LineTable.
  const RunInput* input = nullptr;
  const LineSource* source = nullptr;  // the texts, or the forms
  uint64_t min_shared_keys = 1;
  uint64_t reserved = 0;  // bytes of the budget the caller holds meanwhile
  // `source` holds every kRecord line's verification form (a FormStore, or
  // an MPI rank's own forms and those it fetched), not the texts.
  bool forms = false;
  // The boilerplate guard's counts (boilerplate_phase.h); null: none.
  const verify::BoilerplateCounts* boilerplate = nullptr;
};

struct VerifyCounts {
  uint64_t candidate_pairs = 0, similarity_calls = 0, ranges = 0, bytes_read = 0;
};

// An edge: similarity -1 marks a pair a key space decided.
using EdgeFn = std::function<Status(const Edge&)>;

class VerifyPhase {
 public:
  VerifyPhase(const PhaseEnv& env, const VerifyInput& in);
  ~VerifyPhase();
  // Verifies *pairs, handing each edge to on_edge in (a, b) order.
  // Errors: reading pairs or texts (IOError), a record that no longer
  // parses, the signature's, on_edge's.
  Status Run(PairRuns* pairs, const EdgeFn& on_edge, VerifyCounts* counts);

 private:
  struct Worker;
  struct ASide;
  // A pair of a range: its b document and the index of its a in the range;
  // (b, ai) order is (b, a) order.
  struct RangePair {
    uint32_t b;
    uint32_t ai;
  };
  struct TaskResult {
    std::vector<Edge> edges;
    uint64_t calls = 0, bytes_read = 0;
    Status status;
  };
  using Task = std::function<Status(Worker*, size_t, TaskResult*)>;
  void Size(uint64_t read_budget);
  Status Add(Pair p, uint64_t merged_before);
  Status RunRange(uint64_t m1);
  void RunTasks(size_t tasks, uint64_t from, uint64_t to, const Task& task);
  Status Collect();
  Status PrepareChunk(Worker* w, size_t c, TaskResult* out);
  Status VerifyBatch(Worker* w, std::span<const RangePair> entries, TaskResult* out);
  // Reads the b sides of entries from i on, about batch_bytes_; returns
  // the end of the entries read.
  // Where the phase reads: the forms, or the texts.
  const LineSource& Source() const { return *in_.source; }
  // The prepared form of the record read as `line`: the form itself, or
  // its text parsed and prepared into w->prepared.
  Result<std::string_view> PreparedOf(Worker* w, uint32_t doc, const LineSource::Line& line);
  Result<size_t> ReadBSide(Worker* w, std::span<const RangePair> entries, size_t i,
                           TaskResult* out);

  PhaseEnv env_;
  VerifyInput in_;
  const EdgeFn* on_edge_ = nullptr;
  VerifyCounts* counts_ = nullptr;
  uint64_t block_bytes_ = 0, pair_cap_ = 0, batch_bytes_ = 0;
  double threshold_ = 0;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::unique_ptr<ASide> aside_;
  SpillBuffer<RangePair> range_;  // grows by need (the cut bounds it); no copies
  std::vector<Edge> edges_;       // of the range
  std::vector<TaskResult> results_;
  uint64_t m0_ = 0;  // the range's first merged pair record
  uint32_t last_a_ = UINT32_MAX;
  bool a_added_ = false;  // last_a_ is in the a side
};

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_VERIFY_PHASE_H_
