// SPDX-License-Identifier: Apache-2.0
//
// neardup::Engine: online near-duplicate detection and clustering.
//
// Each added document is normalized (NFKC case folding, Traditional folded
// to Simplified, punctuation dropped), turned into shingles and features,
// sketched by every signal of EngineOptions::signals (MinHash-LSH and exact
// hashes by default; SimHash, super-shingles, I-Match, SpotSig on request),
// and its candidates are decided by the verifier: a pair whose verified
// similarity reaches EngineOptions::threshold is a near-duplicate. The
// document is placed in the parent forest: it joins the cluster of the
// documents it is near, or starts a new one whose id is its own id. Every
// match carries the signal that found it and its verified similarity.
// See docs/design.md and docs/profiles.md.
//
// Memory: with a verifier the engine keeps each document's normalized text
// (the durable engine reads texts from its store instead).
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
namespace engine {
class EngineInternal;
}  // namespace engine

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
  // without one (minhash, imatch, spotsig) and for cluster members (Similar).
  int distance = 0;
  double similarity = 0.0;         // the signal's similarity or estimate, in [0, 1]
  std::string signal;              // the signal that found it: exact, simhash, minhash, ...
  std::optional<double> verified;  // the verifier's similarity, when one is set
};

struct AddResult {
  std::string id;
  std::string cluster;     // id of the cluster's root document
  bool duplicate = false;  // joined an existing cluster
  uint32_t cluster_size = 0;
  uint64_t fingerprint = 0;    // SimHash-64 with the simhash signal, else XXH3-64 of the text
  std::vector<Match> matches;  // verified near-duplicates, best first, at most max_matches
  // Documents that were alone in their clusters and joined this one, since
  // this document is near them as well (docs/design.md, "The parent
  // forest"): their cluster id is now `cluster`. Counted in cluster_size.
  std::vector<std::string> gathered;
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
  int64_t time = 0;                  // the root's time: the latest arrival or look-up in the tree
  std::vector<std::string> members;  // the order they joined, at most the requested limit
};

struct DocumentInfo {
  std::string id;
  std::string cluster;
  uint64_t fingerprint = 0;
  int64_t time = 0;
};

// One line of the cluster list page.
struct ClusterSummary {
  std::string id;              // cluster id (root id)
  std::string representative;  // the root, or its first live member when the root is removed
  uint32_t size = 0;
  int64_t time = 0;  // the root's time: the latest arrival or look-up in the tree
};

enum class ClusterSort { kSize, kRecent };

struct EngineStats {
  uint64_t documents = 0;   // live documents
  uint64_t clusters = 0;    // clusters with at least one live member
  uint64_t added = 0;       // successful Adds since creation
  uint64_t duplicates = 0;  // of those, how many joined an existing cluster
  uint64_t removed = 0;
  size_t index_bytes = 0;  // every signal's index, and the boilerplate guard's counts
  size_t forest_bytes = 0;
  size_t id_bytes = 0;  // the id table
  // Normalized texts kept for verification, with the compact verification
  // forms (src/verify/form.h, ~1.2 bytes a shingle) an in-memory engine keeps
  // of its long texts, so that candidates are verified without shingling
  // their texts again.
  size_t text_bytes = 0;
  double threshold = 0.0;  // the similarity threshold in effect
  // Candidates verified since creation: from verification forms (a durable
  // engine's stored ones, an in-memory engine's kept ones), and from texts. `verified_doubted` of
  // the latter had a form whose cut shingle hashes left the verdict too close to the threshold to
  // trust (src/verify/form.h); they were decided from the text.
  uint64_t verified_from_forms = 0;
  uint64_t verified_from_texts = 0;
  uint64_t verified_doubted = 0;
};

// A cluster list page: after the previous page's last (key, id).
struct ListOptions {
  ClusterSort sort = ClusterSort::kSize;
  bool descending = true;
  size_t limit = 50;
  std::optional<std::pair<int64_t, std::string>> after;
};

// Per-query settings.
struct QueryOptions {
  int max_distance = -1;  // simhash: k for this query (<= simhash.index_max_distance)
};

// Why two texts are or are not near-duplicates (Engine::Explain).
struct Explanation {
  bool duplicate = false;  // the verdict of this engine's rule
  std::string rule;        // the rule that decided, in words
  // How the verifier reached `similarity`, one step a line: each measure,
  // how they combine (the default: max(jaccard, 1 - edit_weight x (1 - edit
  // similarity)) for texts up to short_chars), the comparison with the
  // threshold; for qbank, which part differs. Empty without a verifier.
  std::vector<std::string> steps;
  double similarity = 0.0;  // the verified similarity the rule compared
  double threshold = 0.0;
  std::string normalized_a, normalized_b;
  size_t shingles_a = 0, shingles_b = 0, shared_shingles = 0;
  std::vector<std::string> shared_examples;  // some shared shingles, as text
  double jaccard = 0.0;                      // exact, of the shingle sets
  double containment = 0.0;                  // |A n B| / min(|A|, |B|)
  std::optional<double> edit_similarity;     // 1 - Levenshtein / longer length (short texts)
  double minhash_estimate = 0.0;             // MinHash estimate of the Jaccard (P permutations)
  int lsh_bands = 0, lsh_equal_bands = 0;    // the LSH bands and how many are equal
  bool candidate = false;                    // some signal proposes the pair
  int simhash_distance = 0;                  // Hamming distance of the SimHash-64 fingerprints
};

class Engine {
 public:
  // Errors: InvalidArgument for inconsistent options (an unknown algorithm,
  // a bad verifier spec, more threads than the machine allows: 4 per core,
  // at least 64, at most 1024, below RLIMIT_NPROC); NotFound / IOError when
  // data a profile or a signal needs cannot be loaded; ResourceExhausted
  // when memory runs out.
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

  // What Add would answer for `text`, inserting nothing. Errors: as Add;
  // InvalidArgument for a k above simhash.index_max_distance.
  Result<QueryResult> Query(std::string_view text, const QueryOptions& q = {}) const;

  // The other live members of `id`'s cluster with their similarity to `id`
  // (verified when the engine has a verifier, else the SimHash distance),
  // most similar first. Errors: NotFound.
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

  // Why `a` and `b` are or are not near-duplicates under this engine's
  // pipeline (pure, no state). Errors: as Add for bad text.
  Result<Explanation> Explain(std::string_view a, std::string_view b) const;

  // `text` with each character folded on its own by this engine's
  // normalization (NFKC, case, Traditional to Simplified characters), one
  // code point out per code point in; a character whose fold is not one
  // code point (dropped punctuation) stays as it is. Two texts' characters
  // at aligned positions that fold equal are equal to the engine: the
  // console's diff compares these. Pure; O(text). Errors: as Add.
  Status FoldCharacters(std::string_view text, std::string* out) const;

  // One page of clusters, ordered by (size or time, then id), descending or
  // ascending, strictly after `after`. O(log clusters + limit) per call: the
  // engine keeps both orders as it goes, so a page is a seek.
  std::vector<ClusterSummary> ListClusters(const ListOptions& page) const;

  // Learned IDF (FeatureOptions::idf == IdfSource::kLearned). LearnIdf counts `text` in
  // the document frequencies without adding it: run it over a corpus first for
  // batch IDF. With learn_idf, Add and AddBatch count each document before
  // fingerprinting it (AddBatch learns the whole batch first). Save/Load keep
  // the table with the engine's state (binary, checksummed).
  // Errors: FailedPrecondition unless idf is learned; as Add for bad text;
  // IOError, Corruption for files.
  Status LearnIdf(std::string_view text);
  Status SaveIdf(const std::string& path) const;
  Status LoadIdf(const std::string& path);
  uint64_t IdfDocuments() const;  // documents counted so far; 0 unless learned

  EngineStats Stats() const;
  const EngineOptions& options() const;

 private:
  friend class engine::EngineInternal;  // the durable layer (src/engine/engine_internal.h)
  struct Impl;
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Lower-case 16-digit hex of a fingerprint, the form used in JSON output.
std::string FingerprintHex(uint64_t fp);

}  // namespace neardup

#endif  // NEARDUP_ENGINE_H_
