// SPDX-License-Identifier: Apache-2.0
//
// The state of one batch run (BatchDedup::Impl) and its phases, each in its
// own file:
//
//   sketch_phase.cc  reader thread + sketch workers -> sorted key runs
//   pair_phase.cc    k-way merge of the keys -> candidate pairs (star
//                    pairing), repeated ids
//   verify_phase.cc  pairs merged and de-duplicated -> Similarity() on
//                    worker threads, committed in order -> ClusterBuilder
//   results.cc       keep policy, records and clusters in input order
//   batch_dedup.cc   set-up, the public API, BuildBatchIndex
//
// Star pairing: a bucket's members, in document order m0 < m1 < ..., give
// the pairs (mj, mi) for j < min(i, W): all pairs of a bucket of up to W+1
// members, and for larger buckets every member paired with the first W.
// W = 8, or 64 in spaces with a payload distance (SimHash), whose buckets
// are filtered by distance first. Bounded: at most W pairs per key.
#ifndef NEARDUP_BATCH_BATCH_RUN_H_
#define NEARDUP_BATCH_BATCH_RUN_H_

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "batch/clusters.h"
#include "batch/input.h"
#include "batch/jsonl.h"
#include "batch/key_filter.h"
#include "batch/line_source.h"
#include "batch/monitor.h"
#include "batch/records.h"
#include "batch/runs.h"
#include "batch/signature.h"
#include "batch/temp_dir.h"
#include "neardup/batch.h"

namespace neardup {

namespace batch {
inline constexpr size_t kStarWidth = 8;
inline constexpr size_t kHammingWidth = 64;

// Verified edges for --with-matches, ordered by (b, a).
struct MatchLess {
  bool operator()(const Edge& x, const Edge& y) const { return x.b != y.b ? x.b < y.b : x.a < y.a; }
};
inline uint64_t MatchKey(const Edge& e) { return (static_cast<uint64_t>(e.b) << 32) | e.a; }

using KeyRuns = RunSet<KeyEntry, KeyEntryLess>;
using PairRuns = RunSet<Pair, std::less<Pair>>;
using MatchRuns = RunSet<Edge, MatchLess>;

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
}  // namespace batch

struct BatchDedup::Impl {
  BatchOptions options;
  std::unique_ptr<batch::BatchSignature> owned_sig;
  batch::BatchSignature* sig = nullptr;
  std::unique_ptr<batch::TempDir> tmp;
  std::vector<batch::InputFile> files;
  std::unique_ptr<batch::LineTable> lines;
  batch::TextStore store;
  batch::JsonlFields fields;
  int threads = 1;
  uint64_t budget = 0;
  uint64_t baseline_rss = 0;    // resident bytes when the run started (Available() counts them)
  uint64_t lines_estimate = 0;  // input lines, estimated from the first MiB (EstimateLines)
  // Active when min_shared_keys >= 2 and the key bytes fit (key_filter.h);
  // the pair phase then drops pairs that cannot share enough keys.
  batch::KeyFilter key_filter;
  bool key_filter_allowed = true;  // false: an MPI rank (it pairs others' records)
  std::unique_ptr<batch::Monitor> monitor;
  BatchStats stats;

  // The lines this process sketches: those starting at a global byte
  // offset (over the input files concatenated) in [own_begin, own_end). An
  // MPI rank owns one such range; a single process owns everything.
  uint64_t own_begin = 0, own_end = UINT64_MAX;

  // Against an index: its corpus lines come first (ids < corpus_lines), its
  // files are files[0, corpus_files), its keys one more sorted run.
  uint64_t corpus_lines = 0;
  size_t corpus_files = 0;
  std::string index_keys;
  uint64_t index_key_records = 0;

  // Results.
  uint64_t n = 0;  // lines
  batch::Clustering clustering;
  std::vector<uint32_t> first, kept;  // per cluster root: first member, kept member
  // With --keep smallest-id, when the budget allows: per root of a cluster of
  // new records, IdOrderKey of its kept member's id (0: unknown).
  std::vector<uint64_t> kept_keys;
  std::unique_ptr<batch::MatchRuns> matches;

  // The first record error by line (deterministic), a fatal error, skips.
  std::mutex err_mu;
  uint64_t err_line = UINT64_MAX;
  Status err;
  Status fatal;
  std::atomic<uint64_t> stop_line{UINT64_MAX};
  std::vector<std::pair<uint64_t, Status>> skips;

  // Phases.
  Status Setup(const std::vector<std::string>& names);
  Status LearnPhase();
  Status SketchPhase(batch::KeyRuns* keys);
  Status PairPhase(batch::KeyRuns* keys, batch::PairRuns* pairs);
  Status VerifyPhase(batch::PairRuns* pairs);
  // The verification of VerifyPhase without clustering (verify_blocks.cc;
  // texts read from `source` in large sequential reads): each edge, in
  // (a, b) order; similarity -1 marks a pair a key space decided. Errors:
  // on_edge's. An MPI rank's source holds the records it fetched.
  Status VerifyPairs(batch::PairRuns* pairs, const batch::LineSource& source,
                     const std::function<Status(const batch::Edge&)>& on_edge);
  Status KeepPhase();
  Status OpenIndex();  // index.cc
  // Turns on key_filter when its bytes fit in a share of the budget.
  void SetUpKeyFilter();

  // Helpers.
  void RecordError(uint64_t line, Status s);
  void RecordFatal(Status s);
  Status FirstError();
  void DeliverSkips();
  // Bytes of the budget left after the per-line tables and result arrays.
  uint64_t Available() const;
  // "file:line" of a global line id.
  std::string Where(uint64_t line) const;
  // The record of a line, read into parser->line_buffer() and parsed with
  // `parser`. Errors: as RecordParser; IOError reading the input.
  // `in_order`: the caller reads lines in increasing order (the mapped
  // input is cheaper then; random reads use pread).
  // `raw`, when given, receives the line read.
  Status Parse(uint64_t line, batch::RecordParser* parser, batch::ParsedRecord* out,
               bool in_order = false, batch::TextStore::Line* raw = nullptr) const;
  Status ParseId(uint64_t line, batch::RecordParser* parser, std::string_view* id) const;
  // Parses a line already read (a LineBlock's); errors name the line.
  Status ParseLine(uint64_t line, const batch::TextStore::Line& l, batch::RecordParser* parser,
                   batch::ParsedRecord* out) const;
};

// BatchDedup::Run with a given signature instead of CreateBatchSignature's
// (tests; other front ends). `sig` must outlive the result.
Result<std::unique_ptr<BatchDedup>> RunWithSignature(const std::vector<std::string>& names,
                                                     const BatchOptions& options,
                                                     batch::BatchSignature* sig);

// Labels per record (by_line: per input line, other lines alone).
Result<BatchDedup::Labels> LabelsOf(const BatchDedup::Impl& m, bool by_line);

}  // namespace neardup

#endif  // NEARDUP_BATCH_BATCH_RUN_H_
