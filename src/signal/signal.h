// SPDX-License-Identifier: Apache-2.0
//
// Signals: one candidate generator per near-duplicate algorithm behind a
// single interface (a sketch from sketch/ and its index from index/), with
// both of its sides, so the online engine, batch dedup and `explain` run the
// same object and agree by construction:
//
//   online   Compute() a sketch; Insert/Remove/Query the signal's index.
//   batch    Keys(): bucket keys of one document (documents sharing a key
//            become candidate pairs), described by key_space().
//   a pair   Compare(): would the signal propose the pair, and its estimate
//            of their similarity (the same figure Query() reports).
//
//   exact         XXH3-128 of the normalized text; equal hashes.
//   simhash       SimHash-64 of the features; Hamming distance <= k, in the
//                 exact multi-table Hamming index (its own fast path).
//   minhash       MinHash of the shingles, cut into LSH bands; any equal band.
//   supershingle  6 super-shingles of 14 min-hashes; >= min_equal equal.
//   imatch        I-Match signatures (a lexicon from an IDF table); any equal.
//   spotsig       SpotSig signature sets; exact Jaccard >= threshold.
//   containment   one-permutation MinHash of the anchors, a key a bin;
//                 any equal bin (candidates for the containment rule).
//
// Every signal is registered once, in registry.cc (name, factory); adding a
// signal is one file implementing this interface plus that registration.
//
// Compute(), Keys() and Compare() are pure and thread-safe; Insert/Remove/
// Query touch the signal's index and follow the engine's one-writer/
// many-readers discipline (Query is const and may run concurrently with
// other Query calls, never with a write). Documents are identified by the
// engine's slot number (uint32).
#ifndef NEARDUP_SIGNAL_SIGNAL_H_
#define NEARDUP_SIGNAL_SIGNAL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "features/anchors.h"
#include "features/feature.h"
#include "neardup/signal_kind.h"
#include "neardup/status.h"
#include "sketch/imatch.h"
#include "sketch/lsh.h"
#include "sketch/minhash.h"

namespace neardup::signal {

struct SignalOptions {
  int simhash_max_distance = 3;        // k
  int simhash_index_max_distance = 3;  // the largest k a query may ask
  int minhash_num_perm = 128;          // P
  sketch::MinHashScheme minhash_scheme = sketch::MinHashScheme::kPermutations;
  sketch::LshParams minhash_lsh{16, 8};
  int minhash_min_bands = 1;  // a candidate shares at least this many bands
  int supershingle_min_equal = 2;
  double spotsig_threshold = 0.5;  // Jaccard
  std::string spotsig_stop_words;  // stop-word file (Chinese); empty = English built-ins
  std::shared_ptr<const sketch::IMatcher> imatch;  // required for imatch
  int containment_bins = 8;                        // containment: keys a document
  int containment_min_shingles = 100;              // containment: shorter documents get none
};

// One document after normalization: what every signal may read.
struct SignalInput {
  std::string_view normalized;
  std::span<const features::Feature> features;  // weighted (SimHash, I-Match)
  std::span<const uint64_t> shingles;           // ascending, distinct (MinHash, ...)
  uint64_t key_salt = 0;  // mixed into MinHash band keys (sketch::SaltedBandKey); 0 = none
  // verify::Narrow(shingles, narrow_width, Cut::kHigh) when the caller made
  // it already, else empty.
  std::span<const uint64_t> narrow = {};
  // verify::Expressions() of the original text, when the pipeline made them
  // (short texts under the fact rule), for the verifier.
  std::optional<std::string_view> expressions = std::nullopt;
  int narrow_width = 32;  // of `narrow`
  // The shingles the boilerplate guard marks (verify/boilerplate.h),
  // ascending; empty: none.
  std::span<const uint64_t> boilerplate = {};
  // Its anchors (features/anchors.h), when the pipeline kept them
  // (containment).
  std::span<const features::Anchor> anchors = {};
};

// A signal's sketch of one document; which fields are used depends on the
// signal. `indexable` is false when the document has no usable sketch (no
// shingles, too few I-Match terms, no spot signatures): it is not indexed and
// matches nothing through this signal.
struct SignalSketch {
  std::vector<uint32_t> u32;
  std::vector<uint64_t> u64;
  bool indexable = true;
  friend bool operator==(const SignalSketch&, const SignalSketch&) = default;
};

// Evidence of a candidate: the estimated similarity in [0, 1] and, where the
// signal has one, an integer distance (Hamming bits, unequal super-shingles).
struct Candidate {
  uint32_t slot = 0;
  double similarity = 0.0;
  int distance = -1;  // -1: the signal has no distance
};

// Per-query parameters.
struct QueryParams {
  int max_distance = -1;  // simhash: k for this query; -1 = the signal's k
  // SignalSet::Candidates with a verifier: once `verified_per_group`
  // candidates of one group passed, the group's other candidates are neither
  // verified nor returned (0: every candidate is verified). `group` names a
  // candidate slot's group; the engine passes its cluster root, since
  // choosing a cluster needs one passing candidate of it, not all of them.
  size_t verified_per_group = 0;
  std::function<uint32_t(uint32_t)> group;
};

// How a signal's batch keys become candidate pairs (batch::KeySpace).
struct KeySpaceSpec {
  size_t max_keys = 0;  // the most keys Keys() adds for one document
  // > 0: Keys() adds at most this many keys, always in the same slot order,
  // and a key of slot i never equals a key of slot j != i (keys are seeded
  // by slot). 0: a variable number of keys.
  int slots = 0;
  // >= 0: a pair also needs the two payloads (SimHash fingerprints) within
  // this Hamming distance.
  int max_distance = -1;
  // Without a verifier, a pair sharing a key is a near-duplicate (false: the
  // pair still needs Compare()'s similarity >= its threshold: SpotSig).
  bool decides = true;
  // batch::KeySpace::marks_later: whether a pair makes its later record one
  // with an earlier near-duplicate (false: containment's shared passages).
  bool marks_later = true;
  // Star pairing pairs a bucket's members with its first this many (0: the
  // pipeline's default, batch/pair_phase.h).
  int star_width = 0;
};

// Where Keys() writes: at most `capacity` keys (more is a bug: it aborts).
class KeySink {
 public:
  KeySink(uint64_t* keys, size_t capacity) : keys_(keys), capacity_(capacity) {}
  void Add(uint64_t key);
  void SetPayload(uint64_t p) { payload_ = p, has_payload_ = true; }
  size_t size() const { return size_; }
  uint64_t key(size_t i) const { return keys_[i]; }
  uint64_t payload() const { return payload_; }
  bool has_payload() const { return has_payload_; }

 private:
  uint64_t* keys_;
  size_t capacity_;
  size_t size_ = 0;
  uint64_t payload_ = 0;
  bool has_payload_ = false;
};

// What a signal's index answered a query, kept so that the same query can
// be answered again later, after more inserts, for less (QueryAgain). Only
// the signal that filled it reads it.
struct QueryMemo {
  uint64_t generation = 0;  // 0: nothing kept
  std::vector<uint64_t> words;
};

// What a signal says of one pair.
struct PairEstimate {
  bool proposed = false;    // Query() of one would return the other
  double similarity = 0.0;  // the signal's estimate, as Query() reports it
  int distance = -1;        // Hamming bits, unequal super-shingles; -1 if none
};

class Signal {
 public:
  virtual ~Signal() = default;
  virtual SignalKind kind() const = 0;
  std::string_view name() const;  // the registered name

  // Pure and thread-safe. Errors: those of feature extraction.
  virtual Result<SignalSketch> Compute(const SignalInput& doc) const = 0;
  // Errors: AlreadyExists for a slot present; InvalidArgument for a sketch of
  // the wrong shape. A non-indexable sketch is accepted and ignored.
  virtual Status Insert(uint32_t slot, const SignalSketch& sketch) = 0;
  // Removes a slot inserted before (no-op for a non-indexable one).
  // Errors: NotFound.
  virtual Status Remove(uint32_t slot) = 0;
  // Between these two, Insert() may hold documents back and index them all
  // at the end, faster (a restore); no Query() in between. Remove() ends it.
  // `expected` hints how many documents will come (0: unknown).
  virtual void BeginBulkInsert(size_t expected) { (void)expected; }
  virtual void EndBulkInsert() {}
  // For a run of Insert() calls (a restore): asks the CPU for the memory
  // Insert(_, sketch) will read, one dependent step a stage (0, then 1 once
  // stage 0's lines have arrived). A hint only: it changes nothing.
  virtual void PrefetchInsert(const SignalSketch& sketch, int stage) const {
    (void)sketch;
    (void)stage;
  }
  // Appends the candidates of `sketch`, best first. Errors: InvalidArgument
  // for a bad sketch or a k above the index's.
  virtual Status Query(const SignalSketch& sketch, const QueryParams& params,
                       std::vector<Candidate>* out) const = 0;
  // Query(), keeping in *memo what QueryAgain() needs (by default nothing).
  virtual Status QueryRemembering(const SignalSketch& sketch, const QueryParams& params,
                                  std::vector<Candidate>* out, QueryMemo* memo) const {
    *memo = {};
    return Query(sketch, params, out);
  }
  // What Query() appends now, given the memo of an earlier
  // QueryRemembering() of the same sketch and params on this signal: the
  // writer applying a document a reader queried while others were added.
  // By default, and for a memo that kept nothing, Query().
  virtual Status QueryAgain(const SignalSketch& sketch, const QueryParams& params,
                            const QueryMemo& memo, std::vector<Candidate>* out) const {
    (void)memo;
    return Query(sketch, params, out);
  }
  // Approximate heap bytes of the signal's index.
  virtual size_t MemoryBytes() const = 0;
  // Online: whether a document that joins an existing cluster as a copy of
  // it (not by containing one of its texts) is still indexed by this signal.
  // A signal whose keys only find sources of passages (containment) says no:
  // a copy holds nearly its cluster's passages, whose keys the cluster
  // already has, so its own would cost memory and find the same cluster.
  virtual bool IndexesCopies() const { return true; }
  // Online: whether inserted `slot` was filed under keys, i.e. its sketch
  // was indexable (not a text too short for the signal, nor a copy whose
  // keys were dropped). By default true. Const calls may run concurrently.
  virtual bool Indexed(uint32_t slot) const {
    (void)slot;
    return true;
  }

  // Batch: how Keys() keys become pairs.
  virtual KeySpaceSpec key_space() const = 0;
  // Batch: the bucket keys of one document (none for a document without a
  // usable sketch), and for SimHash its fingerprint as the payload. Pure:
  // the same document gives the same keys in any run, thread or process.
  virtual void Keys(const SignalInput& doc, KeySink* out) const = 0;
  // Whether this signal proposes the pair (a, b), and its estimate: what
  // Query() of b would report after Insert() of a. Pure and thread-safe.
  virtual PairEstimate Compare(const SignalInput& a, const SignalInput& b) const = 0;
};

// Errors: InvalidArgument for bad options (imatch without a lexicon, ...);
// NotFound / IOError when the SpotSig stop-word file cannot be read.
Result<std::unique_ptr<Signal>> CreateSignal(SignalKind kind, const SignalOptions& options);

// An I-Match lexicon from an IDF table file of "term idf" lines (the format of
// cppjieba's idf.utf8); terms are hashed with features::HashFeature so they
// meet the engine's features (words, or n-grams of the same length).
// Errors: those of resources::ForEachIdfEntry; InvalidArgument for bad options.
Result<std::shared_ptr<const sketch::IMatcher>> LoadIMatchLexicon(
    const std::string& idf_path, const sketch::IMatchOptions& options);

}  // namespace neardup::signal

#endif  // NEARDUP_SIGNAL_SIGNAL_H_
