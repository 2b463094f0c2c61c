// SPDX-License-Identifier: Apache-2.0
//
// Signals: one candidate generator per near-duplicate algorithm behind a
// single interface, so the Engine can run several at once (e.g. exact +
// SimHash + MinHash) and report which signal found each match.
//
//   exact         XXH3-128 of the normalized text; equal hashes.
//   simhash       SimHash-64 of the features; Hamming distance <= k.
//   minhash       MinHash (P permutations) of the distinct shingles; LSH
//                 bands tuned to a Jaccard threshold; estimate >= threshold.
//   supershingle  6 super-shingles of 14 min-hashes; >= 2 equal.
//   imatch        I-Match signatures (lexicon from an IDF table or a corpus);
//                 any equal signature.
//   spotsig       SpotSig signature sets; exact Jaccard >= threshold.
//
// A signal is split in two so the engine can compute outside its lock:
// Compute() is pure and thread-safe; Insert/Remove/Query touch the signal's
// index and follow the engine's one-writer/many-readers discipline (Query is
// const and may run concurrently with other Query calls, never with a write).
//
// Documents are identified by the engine's slot number (uint32).
#ifndef NEARDUP_SIGNAL_SIGNAL_H_
#define NEARDUP_SIGNAL_SIGNAL_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "features/feature.h"
#include "neardup/status.h"
#include "sketch/imatch.h"

namespace neardup::index {
class HammingIndex;
}  // namespace neardup::index

namespace neardup::signal {

enum class Algorithm { kExact, kSimHash, kMinHash, kSuperShingle, kIMatch, kSpotSig };

// "exact", "simhash", "minhash", "supershingle", "imatch", "spotsig".
std::string_view AlgorithmName(Algorithm a);
// Errors: InvalidArgument naming the known algorithms.
Result<Algorithm> ParseAlgorithm(std::string_view name);
// A comma-separated list, e.g. "exact,simhash,minhash"; no repeats.
Result<std::vector<Algorithm>> ParseAlgorithms(std::string_view list);

struct SignalOptions {
  int simhash_max_distance = 3;    // k
  int minhash_num_perm = 128;      // P
  double minhash_threshold = 0.8;  // Jaccard threshold for LSH bands and the estimate
  int minhash_ngram = 5;           // own char n-gram shingles; 0 = the engine's features
  int supershingle_min_equal = 2;
  double spotsig_threshold = 0.5;  // Jaccard
  std::string spotsig_stop_words;  // stop-word file (Chinese); empty = English built-ins
  std::shared_ptr<const sketch::IMatcher> imatch;  // required for imatch
};

// One document as the engine sees it after normalization and features.
struct SignalInput {
  std::string_view normalized;
  std::span<const features::Feature> features;
};

// A signal's sketch of one document; which fields are used depends on the
// signal. `indexable` is false when the document has no usable sketch (no
// shingles, too few I-Match terms, no spot signatures): it is not indexed and
// matches nothing through this signal.
struct SignalSketch {
  std::vector<uint32_t> u32;
  std::vector<uint64_t> u64;
  bool indexable = true;
};

// Evidence of a candidate: the estimated similarity in [0, 1] and, where the
// signal has one, an integer distance (Hamming bits, unequal super-shingles).
struct Candidate {
  uint32_t slot = 0;
  double similarity = 0.0;
  int distance = -1;  // -1: the signal has no distance
};

class Signal {
 public:
  virtual ~Signal() = default;
  virtual Algorithm algorithm() const = 0;
  std::string_view name() const { return AlgorithmName(algorithm()); }

  // Pure and thread-safe. Errors: those of feature extraction.
  virtual Result<SignalSketch> Compute(const SignalInput& doc) const = 0;
  // Errors: AlreadyExists for a slot present; InvalidArgument for a sketch of
  // the wrong shape. A non-indexable sketch is accepted and ignored.
  virtual Status Insert(uint32_t slot, const SignalSketch& sketch) = 0;
  // Removes a slot inserted before (no-op for a non-indexable one).
  virtual Status Remove(uint32_t slot) = 0;
  // Appends the candidates of `sketch`, best first.
  virtual Status Query(const SignalSketch& sketch, std::vector<Candidate>* out) const = 0;
};

// Errors: InvalidArgument for bad options (imatch without a lexicon, ...);
// IOError when the SpotSig stop-word file cannot be read.
Result<std::unique_ptr<Signal>> CreateSignal(Algorithm algorithm, const SignalOptions& options);

// A SimHash signal over a Hamming index the caller owns and maintains (the
// engine's, which also serves persistence): Insert and Remove do nothing.
// The sketch is {u64: {fingerprint}, u32: {k}}; Query searches within the
// sketch's k (so one query may ask for a larger k, up to the index's
// max_distance), or `k` when the sketch has none. `index` must outlive the
// signal; Query follows the index's thread-safety rules.
std::unique_ptr<Signal> CreateSimHashView(const index::HammingIndex* index, int k);

// An I-Match lexicon from an IDF table file of "term idf" lines (the format of
// cppjieba's idf.utf8); terms are hashed with features::HashFeature so they
// meet the engine's features (words, or n-grams of the same length).
// Errors: IOError; InvalidArgument for a malformed line or bad options.
Result<std::shared_ptr<const sketch::IMatcher>> LoadIMatchLexicon(
    const std::string& idf_path, const sketch::IMatchOptions& options);

}  // namespace neardup::signal

#endif  // NEARDUP_SIGNAL_SIGNAL_H_
