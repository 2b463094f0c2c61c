// SPDX-License-Identifier: Apache-2.0
//
// neardup::BatchDedup: near-duplicate clustering of whole JSONL files in
// bounded memory, at disk speed. What `neardup dedup`, `neardup index build`,
// `neardup dedup --against`, `neardup eval` and the Python binding call.
//
//   reader -> sketch workers (every core) -> bucket keys (key, doc)
//     -> sorted runs in memory, spilled to tmp_dir past memory_bytes
//     -> k-way merge -> candidate pairs (star pairing per bucket)
//     -> verification on texts re-read from the input (memory-mapped)
//     -> union-find with a size cap (canonical edge order) -> keep policy
//     -> results in input order
//
// The result is a function of the input and the options only: the same for
// any thread count and memory budget, spilled or not (docs/batch.md has the
// definitions: star pairing, the canonical cap, the keep policies).
//
// Records are JSON objects, one per line, with a text field and an optional
// id (a string or an integer; the line number when absent), read by the
// parser of neardup/jsonl.h with its rules: ids are canonical JSON, so 7 and
// "7" are different ids. A bad record is an error naming file and line, or
// is skipped under skip_invalid.
//
// Thread safety: a BatchDedup is used from one thread; it runs its own
// workers. Ownership: the result owns its temporary directory (removed when
// it is destroyed) and reads the input files until then.
#ifndef NEARDUP_BATCH_H_
#define NEARDUP_BATCH_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "neardup/engine.h"
#include "neardup/options.h"
#include "neardup/status.h"

namespace neardup {
namespace batch {
struct RunResult;     // src/batch/results.h: what a run leaves for its output
class BatchInternal;  // src/batch/results.h: the batch phases and the MPI runner make results
}  // namespace batch

enum class BatchPhase { kSpool, kLearn, kSketch, kMerge, kVerify, kCluster, kWrite };
std::string_view Name(BatchPhase p);

struct BatchProgress {
  BatchPhase phase = BatchPhase::kSketch;
  uint64_t done = 0,
           total = 0;    // phase units (input bytes, keys, pairs, records); total 0 = unknown
  uint64_t records = 0;  // records read so far
  double seconds = 0;    // since the run started
};

struct BatchOptions {
  // The pipeline: signals, verifier, threshold, keep policy (engine.keep),
  // worker threads (engine.threads; 0 = every core).
  EngineOptions engine;
  uint64_t memory_bytes = 0;      // the budget; 0 = half of the available RAM
  std::string tmp_dir;            // where spill files go; "" = $TMPDIR, else /tmp
  uint64_t max_cluster_size = 0;  // the cap; 0 = none
  // A candidate pair needs this many buckets in common (e.g. LSH bands)
  // before it is verified; 1 = any shared key (the engine's rule). Counted
  // over the star pairs (docs/batch.md), so a pair met only in large buckets
  // may count fewer. 0 = the pipeline's choice: engine.minhash.min_shared_bands
  // when MinHash is a signal (2 in the qbank profile), else 1.
  uint64_t min_shared_keys = 0;
  // With min_shared_keys >= 2, drop pairs that cannot share that many keys
  // as buckets propose them, from a byte of each key kept per record (32
  // bytes for qbank, taken from the budget). Never changes the output; off
  // only to compare.
  bool key_filter = true;
  std::string text_field = "text";
  std::string id_field = "id";
  bool skip_invalid = false;  // skip bad records (reported through on_skip)
  bool with_matches = false;  // collect each record's matches (BatchRecord::matches)
  // Learned IDF: a first pass over the whole input (learn_idf), a table to
  // start from (idf_load) and where to save it afterwards (idf_save).
  bool learn_idf = false;
  std::string idf_load, idf_save;
  // An index directory (BuildBatchIndex): the input is checked against that
  // corpus; only the input's records are reported.
  std::string against;
  // Called from the calling thread a few times a second.
  std::function<void(const BatchProgress&)> progress;
  // Each skipped record, "file:line: reason", in input order.
  std::function<void(const Status&)> on_skip;
};

struct BatchStats {
  uint64_t records = 0, skipped = 0;
  uint64_t clusters = 0, multi_clusters = 0, duplicates = 0;
  uint64_t keys = 0, key_runs_spilled = 0, key_bytes_spilled = 0;
  uint64_t candidate_pairs = 0;  // distinct pairs that reached the verify phase
  // Pairs a bucket proposed that the key filter dropped at once (they share
  // fewer than min_shared_keys keys; a pair may be dropped in several buckets).
  uint64_t pairs_filtered = 0;
  uint64_t similarity_calls = 0, edges = 0;
  // Verification in blocks: the ranges of pairs it was cut into (each a block
  // of texts in memory) and the input bytes it read.
  uint64_t verify_ranges = 0, verify_bytes_read = 0;
  uint64_t oversized_components = 0, refused_by_cap = 0;
  // The boilerplate guard: records whose anchors were counted (no earlier
  // candidate), and the bytes of its table.
  uint64_t boilerplate_founders = 0, boilerplate_table_bytes = 0;
  uint64_t memory_budget = 0;
  uint64_t peak_rss_bytes = 0, peak_disk_bytes = 0;
  uint64_t input_bytes = 0;
  int threads = 0;
  std::vector<std::pair<BatchPhase, double>> phase_seconds;
  std::vector<std::pair<double, uint64_t>> rss_samples;  // (seconds, resident bytes)
  double seconds = 0;
  // Distributed runs (neardup/distributed.h): ranks, bytes each shuffle sent
  // to other ranks (all ranks together), rounds of connected components.
  int ranks = 0;
  uint64_t shuffled_key_bytes = 0, shuffled_pair_bytes = 0, component_rounds = 0;
  uint64_t fetched_text_bytes = 0;  // records fetched from other ranks to verify
  // The largest rank's line table (offsets and states of its own lines, the
  // states and payloads it was sent of other ranks' lines).
  uint64_t line_table_bytes = 0;
};

struct BatchMatch {
  std::string_view id;             // JSON of the matched record's id
  std::string_view signal;         // the first signal (in precedence order) proposing the pair
  int distance = -1;               // that signal's distance; -1 if it has none
  double similarity = 0;           // that signal's estimate
  std::optional<double> verified;  // the verified similarity (none when a signal decided)
};

// One record of the result, passed to ForEachRecord's callback: the views
// are valid during that call only.
struct BatchRecord {
  uint64_t index = 0;        // line number over all input files, 0-based
  std::string_view id;       // canonical JSON of the id: 7, "a" (neardup/jsonl.h)
  std::string_view cluster;  // JSON id of the cluster's first member
  uint64_t cluster_size = 1;
  std::string_view kept;  // JSON id of the member the cluster keeps
  bool is_kept = true;
  std::string_view line;  // the input line (repaired with replace_invalid_utf8)
  // Against an index: the cluster includes corpus records (kept is one).
  bool duplicates_corpus = false;
  std::span<const BatchMatch> matches;  // with_matches: verified matches among earlier records
};

struct BatchCluster {
  std::string_view cluster;  // JSON id of the first member
  uint64_t size = 0;
  std::string_view kept;
  std::span<const std::string_view> members;  // JSON ids, input order
};

// min_shared_keys with 0 resolved to the pipeline's choice.
uint64_t EffectiveMinSharedKeys(const BatchOptions& options);

class BatchDedup {
 public:
  // Runs the whole pipeline over JSONL files ("-" or none = stdin, spooled
  // to tmp_dir). Errors: InvalidArgument (bad options, ValidateBatchOptions,
  // or a bad record: "file:line: reason", the first in input order; format
  // errors before repeated ids), NotFound / IOError naming a file (input,
  // full disk), ResourceExhausted when memory or threads run out.
  static Result<std::unique_ptr<BatchDedup>> Run(const std::vector<std::string>& files,
                                                 const BatchOptions& options);
  ~BatchDedup();
  BatchDedup(const BatchDedup&) = delete;
  BatchDedup& operator=(const BatchDedup&) = delete;

  // Every record in input order. The record's views (ids, line, matches)
  // are valid during the callback only: copy what must outlive it. Without
  // with_matches it may be called again (the records are re-read from the
  // input); with with_matches the matches are streamed from their runs once,
  // so a second call is FailedPrecondition. Errors: the callback's, IOError.
  Status ForEachRecord(const std::function<Status(const BatchRecord&)>& fn);
  // Every cluster of two or more, in order of its first member.
  Status ForEachCluster(const std::function<Status(const BatchCluster&)>& fn);
  // Per record in input order (skipped records excluded): the position of
  // its cluster's first member and of the kept member (positions count
  // records only), and the cluster size.
  struct Labels {
    std::vector<uint32_t> cluster, kept, size;
  };
  Result<Labels> RecordLabels();

  const BatchStats& stats() const;
  // Learned IDF: saves the table (BatchOptions::idf_save does it for Run).
  Status SaveIdf(const std::string& path) const;

 private:
  friend class batch::BatchInternal;
  explicit BatchDedup(std::unique_ptr<batch::RunResult> result);
  std::unique_ptr<batch::RunResult> result_;
};

// Clusters in-memory documents with the batch pipeline (a temporary JSONL
// spool; ids that are integers are written as numbers). Returns labels per
// document, as RecordLabels(). Errors: as Run; InvalidArgument naming the
// document for bad text (unless skip_invalid: then a singleton).
Result<BatchDedup::Labels> BatchClusterDocuments(std::span<const Document> docs,
                                                 const BatchOptions& options);

// Writes a reusable on-disk index of a corpus to `dir` (created): the sorted
// bucket keys, the record offsets, and the corpus files' identity (path, size,
// modification time) and the pipeline identity, which BatchOptions::against
// checks. Errors: as Run; IOError for `dir`.
Status BuildBatchIndex(const std::vector<std::string>& files, const std::string& dir,
                       const BatchOptions& options, BatchStats* stats = nullptr);

// Half of MemAvailable (/proc/meminfo), at least 64 MiB.
uint64_t DefaultBatchMemory();

// Checks the options against the machine: memory_bytes no more than its
// physical memory (or its cgroup's limit), engine.threads no more than 4 per
// core (at least 64, at most 1024, below RLIMIT_NPROC). Run, BuildBatchIndex
// and BatchClusterDocuments call it first; front ends call it to report a
// usage error before any work. Errors: InvalidArgument naming the limit.
Status ValidateBatchOptions(const BatchOptions& options);

// Removes temporary files and directories when the process dies of a signal
// that can be caught (SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGABRT,
// SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ; one the process ignores stays
// ignored), then dies of it (programs call it once; the library installs no
// handler itself).
void InstallBatchCleanupHandlers();

}  // namespace neardup

#endif  // NEARDUP_BATCH_H_
