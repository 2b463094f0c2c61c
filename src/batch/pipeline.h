// SPDX-License-Identifier: Apache-2.0
//
// The batch pipeline: a run's set-up (BatchRun) and its phases, each with
// explicit inputs and outputs:
//
//   OpenRun        options, signature, temporary directory, inputs, budget
//   LearnPhase     learned IDF: a first pass (pipeline.cc)
//   SketchPhase    records -> sorted key runs            (sketch_phase.h)
//   PairPhase      key runs -> candidate pair runs       (pair_phase.h)
//   VerifyPhase    pair runs + texts -> edges            (verify_phase.h)
//   ClusterPhase   edges -> clusters, match runs         (cluster_phase.h)
//   KeepPhase      clusters -> first and kept members    (keep_phase.h)
//   results.h      the output in input order
//
// BatchDedup::Run strings them together on one process (RunPhases); the MPI
// runner (src/distributed) runs the same phases on each rank and moves
// their records between ranks. This header and those it names are the
// interface the distributed module uses; it does not see a run's state
// other than through them.
//
// Thread safety: a BatchRun is driven by one thread; the phases run their
// own workers. Ownership: the BatchRun owns its signature (unless given),
// temporary directory and monitor.
#ifndef NEARDUP_BATCH_PIPELINE_H_
#define NEARDUP_BATCH_PIPELINE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "batch/cluster_phase.h"
#include "batch/key_filter.h"
#include "batch/line_source.h"
#include "batch/monitor.h"
#include "batch/pair_phase.h"
#include "batch/record_errors.h"
#include "batch/run_env.h"
#include "batch/run_input.h"
#include "batch/signature.h"
#include "batch/sketch_phase.h"
#include "batch/temp_dir.h"
#include "batch/verify_phase.h"
#include "neardup/batch.h"

namespace neardup::batch {

// What OpenRun set up; the phases take their parts explicitly.
struct BatchRun {
  BatchOptions options;  // min_shared_keys resolved (EffectiveMinSharedKeys)
  std::unique_ptr<BatchSignature> owned_sig;
  BatchSignature* sig = nullptr;
  std::unique_ptr<TempDir> tmp;
  std::unique_ptr<Monitor> monitor;
  int threads = 1;
  Budget budget;
  RunInput input;
  // Active when min_shared_keys >= 2 and the key bytes fit (key_filter.h).
  KeyFilter key_filter;
  RecordErrors errors;
  // Against an index: its keys, one sorted run (index.cc).
  std::string index_keys;
  uint64_t index_key_records = 0;
  // The records' verification forms, when the signature has them and the
  // run is on one process without an index (RunPhases); else null.
  std::unique_ptr<FormStore> forms;
  // The boilerplate guard (boilerplate_phase.h), when the signature has it
  // and the run has forms: records that are the later of a candidate pair
  // (a bit each), then the counts of the others' anchors.
  std::vector<uint64_t> later;
  std::shared_ptr<const verify::BoilerplateCounts> boilerplate;
  uint64_t lines_estimate = 0;
  BatchStats stats;

  PhaseEnv env() { return {sig, tmp.get(), monitor.get(), &budget, threads}; }
};

struct RunSettings {
  BatchSignature* sig =
      nullptr;             // null: CreateBatchSignature(options.engine); else outlives the run
  bool key_filter = true;  // false: an MPI rank (it pairs others' records)
};

// Resolves the options, makes the signature, the temporary directory and
// the monitor, opens the inputs (standard input spooled) and, against an
// index, the index. Errors: as BatchDedup::Run.
Result<std::unique_ptr<BatchRun>> OpenRun(const std::vector<std::string>& names,
                                          const BatchOptions& options, const RunSettings& settings);
// Against an index: its lines first, its keys (index.cc). Errors: NotFound,
// Corruption, FailedPrecondition naming the index.
Status OpenIndex(BatchRun* run);
// Learned statistics: a pass over every record before sketching.
// Learns from the lines starting in [own_begin, own_end) of the input bytes;
// given `span` (those lines, input.h), reads only it.
Status LearnPhase(BatchRun* run, uint64_t own_begin = 0, uint64_t own_end = UINT64_MAX,
                  const LineSpan* span = nullptr);

// The phases with the run's own inputs, counters added to run->stats.
// Sketches the lines starting in [own_begin, own_end) of the input bytes;
// given `span` (those lines, input.h), reads only it.
Status SketchKeys(BatchRun* run, KeyRuns* keys, uint64_t own_begin = 0,
                  uint64_t own_end = UINT64_MAX, const LineSpan* span = nullptr);
// `ids`: as PairInput::ids.
Status PairKeys(BatchRun* run, KeyRuns* keys, PairRuns* pairs,
                const std::unordered_map<uint32_t, std::string>* ids = nullptr);
// `reserved`: bytes of the budget held by the caller meanwhile. `source`
// holds the verification forms when run->forms is set (its forms, or a
// source that reads them), else the texts.
Status VerifyPairs(BatchRun* run, PairRuns* pairs, const LineSource& source, uint64_t reserved,
                   const EdgeFn& on_edge);

// Every phase on this process, then the keep phase: BatchDedup::Run.
Result<std::unique_ptr<BatchDedup>> RunPhases(std::unique_ptr<BatchRun> run);
// The keep phase over known clusters, and the BatchDedup that owns it all
// (also rank 0 of an MPI run). Errors: the keep phase's.
Result<std::unique_ptr<BatchDedup>> FinishRun(std::unique_ptr<BatchRun> run, Clustering clustering,
                                              std::unique_ptr<MatchRuns> matches);
// The BatchDedup of one rank's share of an MPI run (results.h ShareNames):
// no keep phase here, the share is named already and run->stats counted.
// With with_matches, `matches` holds the verified edges whose later record
// (b) is in the share, and `texts` reads every line such an edge names
// (the share's own from the input, the others' fetched).
struct ShareNames;
std::unique_ptr<BatchDedup> FinishShare(std::unique_ptr<BatchRun> run,
                                        std::unique_ptr<ShareNames> share,
                                        std::unique_ptr<MatchRuns> matches = nullptr,
                                        std::unique_ptr<LineSource> texts = nullptr);

// BatchDedup::Run with a given signature instead of CreateBatchSignature's
// (tests; other front ends). `sig` must outlive the result.
Result<std::unique_ptr<BatchDedup>> RunWithSignature(const std::vector<std::string>& names,
                                                     const BatchOptions& options,
                                                     BatchSignature* sig);

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_PIPELINE_H_
