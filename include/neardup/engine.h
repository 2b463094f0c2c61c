// SPDX-License-Identifier: Apache-2.0
//
// neardup::Engine: online near-duplicate detection and clustering.
//
// Each added document is normalized, turned into weighted features and a
// 64-bit SimHash, looked up in an exact Hamming index (distance <= k), and
// placed in the parent forest: it joins the cluster of the documents it is
// near, or starts a new one whose id is its own id. See docs/design.md.
//
// Other signals (EngineOptions::algorithms: exact, minhash, supershingle,
// imatch, spotsig, alone or beside simhash) propose candidates too, and an
// optional verifier (EngineOptions::verify) drops candidates that fail an
// exact check; every match carries the signal that found it and its
// verified similarity. The fingerprint index is kept in every configuration
// (Get, Similar and Record report fingerprints), but only searched when
// simhash is selected. Persistence (AddFingerprinted, Restore) supports the
// default, SimHash alone without a verifier, only.
//
// Example:
//   auto engine = neardup::Engine::Create(neardup::EngineOptions{});
//   if (!engine.ok()) ...;
//   auto r = (*engine)->Add({.id = "a1", .text = "..."});
//   if (r.ok() && r->duplicate) std::cout << "joins " << r->cluster;
//
// Thread safety: all methods may be called from any number of threads.
// Writers (Add, AddBatch, Remove) are applied one at a time in the order they
// take the writer lock; readers (Query, Similar, ClusterOf, Get, Stats) run
// concurrently with each other. Fingerprinting happens outside the lock, so
// writers only serialize on the index and forest update. Of two identical
// documents added at the same moment, exactly one starts the cluster.
//
// Ownership: the Engine owns all state; results are values.
#ifndef NEARDUP_ENGINE_H_
#define NEARDUP_ENGINE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "neardup/options.h"
#include "neardup/status.h"

namespace neardup {

struct Document {
  std::string id;    // unique, non-empty
  std::string text;  // UTF-8
  int64_t time = 0;  // arrival time (ms since epoch); 0 means now
};

// Evidence of why a document matched (docs/algorithms.md).
struct Match {
  std::string id;
  // The signal's distance: Hamming bits for simhash (similarity = 1 - d/64),
  // 0 for exact, unequal super-shingles for supershingle; -1 for signals
  // without one (minhash, imatch, spotsig).
  int distance = 0;
  double similarity = 0.0;         // the signal's similarity or estimate, in [0, 1]
  std::string signal = "simhash";  // the signal that found it: exact, simhash, minhash, ...
  std::optional<double> verified;  // the verifier's similarity, when one is set
};

struct AddResult {
  std::string id;
  std::string cluster;     // id of the cluster's root document
  bool duplicate = false;  // joined an existing cluster
  uint32_t cluster_size = 0;
  uint64_t fingerprint = 0;
  std::vector<Match> matches;  // documents within k, nearest first, at most max_matches
};

struct QueryResult {
  std::optional<std::string> cluster;  // the cluster the text would join; empty if new
  uint32_t cluster_size = 0;
  uint64_t fingerprint = 0;
  std::vector<Match> matches;
};

struct ClusterInfo {
  std::string id;
  uint32_t size = 0;                 // live members
  bool root_removed = false;         // the root document was removed; the id stays
  std::vector<std::string> members;  // arrival order, at most the requested limit
};

struct DocumentInfo {
  std::string id;
  std::string cluster;
  uint64_t fingerprint = 0;
  int64_t time = 0;
};

// A document's place in the forest, as a store persists and restores it.
struct NodeRecord {
  std::string id;
  std::string cluster;      // the root's id; equal to id for a root
  uint64_t fingerprint = 0;
  int64_t time = 0;         // node time: arrival, raised by joins and look-ups
  bool ghost = false;       // a removed root kept because members remain
};

// What a removal or an expiry changed, so that a store can mirror it.
struct RemovalChanges {
  std::vector<std::string> released;  // ids gone entirely (documents and ghost roots)
  std::vector<std::string> ghosted;   // roots that became ghosts
  uint64_t documents = 0;             // live documents removed
  uint64_t trees = 0;                 // whole clusters removed (expiry)
};

// One line of the cluster list page.
struct ClusterSummary {
  std::string id;              // cluster id (root id)
  std::string representative;  // the root, or its first live member when the root is removed
  uint32_t size = 0;
  int64_t time = 0;            // the root's time: the latest arrival or look-up in the tree
};

enum class ClusterSort { kSize, kRecent };

struct EngineStats {
  uint64_t documents = 0;    // live documents
  uint64_t clusters = 0;     // clusters with at least one live member
  uint64_t added = 0;        // successful Adds since creation
  uint64_t duplicates = 0;   // of those, how many joined an existing cluster
  uint64_t removed = 0;
  size_t index_bytes = 0;
  size_t forest_bytes = 0;
  size_t id_bytes = 0;  // the id table
  int max_distance = 0;
};

class Engine {
 public:
  // Errors: InvalidArgument for inconsistent options (an unknown algorithm,
  // a bad verifier spec); NotFound / IOError when data a profile or a signal
  // needs cannot be loaded.
  static Result<std::unique_ptr<Engine>> Create(const EngineOptions& options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Adds a document. Errors: InvalidArgument (empty id, bad UTF-8),
  // OutOfRange (text over max_document_bytes), AlreadyExists (id present).
  Result<AddResult> Add(const Document& doc);

  // Adds documents in order, fingerprinting them in parallel. One result per
  // document; a failed document does not stop the others.
  std::vector<Result<AddResult>> AddBatch(std::span<const Document> docs);

  // What Add would answer for `text`, inserting nothing. `max_distance` < 0
  // uses the engine's k; a larger k must not exceed index_max_distance.
  Result<QueryResult> Query(std::string_view text, int max_distance = -1) const;

  // The other live members of `id`'s cluster with their distance to `id`,
  // nearest first. Errors: NotFound.
  Result<std::vector<Match>> Similar(std::string_view id, size_t limit = SIZE_MAX) const;

  // The cluster `id` belongs to. Errors: NotFound.
  Result<ClusterInfo> ClusterOf(std::string_view id, size_t limit = SIZE_MAX) const;

  // The cluster whose root id is `cluster_id`. Errors: NotFound.
  Result<ClusterInfo> GetCluster(std::string_view cluster_id, size_t limit = SIZE_MAX) const;

  // The stored record of a live document. Errors: NotFound.
  Result<DocumentInfo> Get(std::string_view id) const;

  // Removes a document. A removed root leaves its cluster id in place while
  // members remain. Errors: NotFound.
  Status Remove(std::string_view id);

  // The fingerprint of `text` under this engine's pipeline (pure, no state).
  Result<uint64_t> Fingerprint(std::string_view text) const;

  // Learned IDF (EngineOptions::idf == "learned"). LearnIdf counts `text` in
  // the document frequencies without adding it: run it over a corpus first for
  // batch IDF. With learn_idf, Add and AddBatch count each document before
  // fingerprinting it (AddBatch learns the whole batch first). Save/Load keep
  // the table with the engine's state (binary, checksummed).
  // Errors: FailedPrecondition unless idf is "learned"; as Add for bad text;
  // IOError, Corruption for files.
  Status LearnIdf(std::string_view text);
  Status SaveIdf(const std::string& path) const;
  Status LoadIdf(const std::string& path);
  uint64_t IdfDocuments() const;  // documents counted so far; 0 unless learned

  EngineStats Stats() const;
  const EngineOptions& options() const;

  // ---- Persistence and expiry (src/engine/engine_persist.cc) ----
  // These serve a durable layer (neardup::DurableEngine) that mirrors every
  // change into a store and rebuilds the engine from it on start.

  // Add() with a fingerprint already computed by Fingerprint(). Same errors,
  // and FailedPrecondition unless options().SimHashOnly().
  Result<AddResult> AddFingerprinted(const Document& doc, uint64_t fingerprint);

  // The forest record of a live document or a ghost root. Errors: NotFound.
  Result<NodeRecord> Record(std::string_view id) const;

  // Rebuilds state: call with every live document and ghost root (ghost
  // false) in original arrival order, then MarkGhost() for each ghost root,
  // then RestoreCounters(). Times are arrival times; raise them afterwards
  // with Touch(). A member's root must have been restored before it.
  // Errors: AlreadyExists, NotFound (unknown root), InvalidArgument;
  // FailedPrecondition unless options().SimHashOnly().
  Status Restore(const NodeRecord& record);
  Status MarkGhost(std::string_view id);  // Remove() that does not count
  void RestoreCounters(uint64_t added, uint64_t duplicates, uint64_t removed);
  // Returns unused capacity to the allocator (after a restore or a large
  // expiry). Takes the writer lock; O(documents).
  void ShrinkToFit();

  // Raises the time of `id` and of its root to at least `time` (the expiry
  // rule: a root is never older than its members). Errors: NotFound.
  Status Touch(std::string_view id, int64_t time);

  // Remove() that reports which records changed.
  Status Erase(std::string_view id, RemovalChanges* changes);

  // Removes whole trees whose root time is < `before`, oldest first, at most
  // `max_trees` trees and (after the first tree) about `max_documents`
  // documents: bounded work under the writer lock. Returns trees removed.
  size_t Expire(int64_t before, size_t max_trees, size_t max_documents,
                RemovalChanges* changes);

  // One page of clusters, ordered by (size or time, then id), descending or
  // ascending, strictly after `after` (a (key, id) pair from the previous
  // page's last item; nullopt for the first page). O(clusters) per call.
  std::vector<ClusterSummary> ListClusters(
      ClusterSort sort, bool descending, size_t limit,
      const std::optional<std::pair<int64_t, std::string>>& after) const;

 private:
  struct Impl;
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Lower-case 16-digit hex of a fingerprint, the form used in JSON output.
std::string FingerprintHex(uint64_t fp);

}  // namespace neardup

#endif  // NEARDUP_ENGINE_H_
