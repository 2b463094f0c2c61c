// SPDX-License-Identifier: Apache-2.0
//
// EngineOptions: every knob of the pipeline, typed. Start from a profile
// (EngineOptions::FromProfile) and override fields; Engine::Create validates.
// The profiles and their measured trade-offs are in docs/profiles.md.
//
// The pipeline: text -> normalize (NFKC case folding, Traditional ->
// Simplified, punctuation to separators) -> features (weighted, for SimHash)
// and shingles (sets, for MinHash and verification) -> signals (candidate
// generators, each with its index) -> verification (a similarity in [0, 1]
// compared with `threshold`) -> clusters.
#ifndef NEARDUP_OPTIONS_H_
#define NEARDUP_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/env.h"
#include "neardup/signal_kind.h"
#include "neardup/status.h"

namespace neardup {

// Traditional -> Simplified folding after NFKC, from OpenCC's tables.
enum class T2S {
  kOff,
  kCharacters,  // character table only (TSCharacters)
  kPhrases,     // phrases, then characters (OpenCC t2s)
  kTaiwan,      // Taiwan usage to mainland first (tw2sp: 程式 -> 程序), then t2s
};

// The weighted features SimHash is computed from.
enum class FeatureKind {
  kCharNgram,        // character n-grams of Han and no-space runs, words elsewhere
  kWords,            // jieba words of Han, ICU words elsewhere
  kLongestSentence,  // n-grams of the N longest sentences
};
enum class Weights { kTf, kTfIdf };
enum class IdfSource {
  kJieba,    // jieba's idf.utf8, the median for unknown words
  kLearned,  // document frequencies of the corpus itself (Engine::LearnIdf)
};

// The shingle sets MinHash, super-shingles and set verifiers work on.
enum class ShingleKind {
  kScript,  // character n-grams in Han and no-space runs, word n-grams elsewhere
  kChar,    // character n-grams everywhere (words of spaced scripts are characters too)
  kWord,    // word n-grams everywhere (a Han character is a word)
};

// Candidate generators: SignalKind (neardup/signal_kind.h, docs/algorithms.md).

// How a candidate pair is decided. Every verifier gives a similarity in
// [0, 1]; the pair is a near-duplicate when it is >= EngineOptions::threshold.
enum class VerifyKind {
  kNone,         // no verification: the signal's own estimate decides
  kSimilarity,   // the default: max(shingle Jaccard, edit similarity of short texts)
  kJaccard,      // Jaccard of the shingle sets
  kContainment,  // |A n B| / min(|A|, |B|) of the shingle sets
  kCosine,       // cosine of the term-frequency vectors of the shingles
  kLevenshtein,  // 1 - edit distance / longer length (code points)
  kLcs,          // 2 LCS / (|a| + |b|)
  kQbank,        // question banks: other scripts equal, Han edit similarity >= threshold
};

// Which member of a cluster batch dedup keeps.
enum class KeepPolicy {
  kFirst,       // the first in input order
  kSmallestId,  // integers numerically, before strings (byte order)
  kLongest,     // the most code points; ties to the first
};

struct NormalizeOptions {
  bool drop_punctuation = true;       // punctuation and symbols separate tokens
  bool replace_invalid_utf8 = false;  // else ill-formed UTF-8 is InvalidArgument
  T2S t2s = T2S::kTaiwan;
};

struct FeatureOptions {
  FeatureKind kind = FeatureKind::kCharNgram;
  int ngram = 3;              // characters per feature in Han and other no-space runs
  int word_ngram = 1;         // words per feature in scripts written with spaces
  int longest_sentences = 3;  // kLongestSentence: how many sentences
  Weights weights = Weights::kTf;
  IdfSource idf = IdfSource::kJieba;
  bool learn_idf = false;               // kLearned: count each added document first
  bool drop_stop_words = false;         // kWords: drop jieba's stop_words.utf8
  int min_word_chars = 1;               // kWords: drop shorter words
  int top_n = 0;                        // kTfIdf: keep the N heaviest words; 0 = all
  std::vector<std::string> user_dicts;  // extra jieba user dictionaries
};

struct ShingleOptions {
  ShingleKind kind = ShingleKind::kScript;
  int char_ngram = 3;  // characters per shingle, 1..32
  int word_ngram = 2;  // words per shingle, 1..8
};

struct SimHashOptions {
  // k: fingerprints within k bits are candidates; -1: with a verifier 3
  // (Manku's k), without one the threshold's (similarity 1 - k/64).
  int max_distance = -1;
  int index_max_distance = -1;  // largest k a query may ask; -1 = max_distance
};

// How the MinHash signature of P positions is computed (docs/algorithms.md).
enum class MinHashScheme {
  kPermutations,    // P independent multiply-shift permutations: O(n P)
  kOnePermutation,  // one permutation into P bins, optimal densification: O(n + P)
  kCirculant,       // C-MinHash: two permutations, P circulant shifts: O(n P)
};

struct MinHashOptions {
  int num_perm = 128;  // P
  // One permutation: 10x faster than P permutations with the same
  // leaderboard (docs/quality.md). Stores written before the scheme was
  // recorded used kPermutations and open only with it.
  MinHashScheme scheme = MinHashScheme::kOnePermutation;
  // LSH banding: bands x rows <= P. 0 and 0 choose them for
  // `candidate_threshold` (minimizing false-negative and false-positive areas).
  int bands = 0;
  int rows = 0;
  // The similarity the bands aim at; 0 = the engine's threshold minus 0.1.
  double candidate_threshold = 0.0;
  // A MinHash candidate must share at least this many bands (1..bands). Two
  // cuts the pairs that collide in one band by chance, the bulk of a
  // templated question bank's candidates (the qbank profile uses 2).
  int min_shared_bands = 1;
};

struct SuperShingleOptions {
  int min_equal = 2;  // of 6 super-shingles
};

struct SpotSigOptions {
  double threshold = 0.5;  // Jaccard of signature sets
  // "en" (built-in English), "zh" (jieba's stop words plus English) or a file.
  std::string stop_words = "en";
};

struct IMatchOptions {
  std::string idf_path;  // "term idf" lines; empty = jieba's idf.utf8
  double drop_low = 0.0005;
  double drop_high = 0.0;
  int extra_lexicons = 0;  // randomized extra lexicons (Kołcz et al.)
};

struct VerifyOptions {
  VerifyKind kind = VerifyKind::kSimilarity;
  // kSimilarity: texts of at most this many code points (both) also get the
  // edit similarity; the larger of the two decides.
  int short_chars = 200;
  // kSimilarity: an edit of short texts counts edit_weight times its share
  // of the text (>= 1; see verify/verifier.h). 3 puts the edit similarity on
  // the scale of 3-gram Jaccard; chosen by the leaderboard's worst case
  // (docs/quality.md): short questions 0.03 -> 0.66 at the cost of Tang
  // 0.97 -> 0.92.
  double edit_weight = 3.0;
  // kSimilarity: two texts of at most short_chars code points that hold as
  // many numbers (runs of digits, in any order) but not the same ones are
  // not near-duplicates: "3+5" is not "3+6", "3 + 5" is "3+5"; a number
  // added with its text is an edit like any other. The same for their
  // expressions, read from the original text: "a+b=5" is not "a-b=5",
  // "ｘ＋ｙ" is "x + y". Longer texts are unaffected: a reprint with a
  // corrected figure is still a reprint (docs/quality.md, verify/numbers.h).
  bool short_numbers = true;
  // kSimilarity: the same for the Latin words of two short texts written
  // mostly in Han characters: "求 x" is not "求 y", "27 km/h" is not
  // "27 m/s", "tsort -v" is not "tsort -n" (verify/numbers.h). Texts with
  // as many Han characters as ASCII letters or fewer are unaffected: in
  // English a replaced word is as often a typo.
  bool short_words = true;
  // kSimilarity, engines: the boilerplate guard (verify/boilerplate.h). Text
  // that at least this many documents which started clusters of their own
  // repeat (a site's header and footer, a copyright notice, an ad) is left
  // out of the similarity of texts longer than short_chars, so a page of
  // footer alone is not a copy of every story under that footer. 0: off.
  int boilerplate_documents = 8;
  // kSimilarity: the containment rule (verify/verifier.h). For texts that
  // are not both short, a pair under the threshold is still a near-duplicate
  // when the smaller text has at least 100 shingles of its own (boilerplate
  // left out) and at least this share of them lies in the larger: an excerpt
  // of a story, a story with a paragraph added. The `containment` signal
  // finds such pairs; batch clusters join a contained text to one cluster
  // only (docs/quality.md). 0: off.
  double containment = 0.8;
  // kQbank: minimum similarity of the non-Han parts (1 = identical).
  double qbank_other_min = 1.0;
};

struct EngineOptions {
  // The profile these options came from (informational; docs/profiles.md).
  std::string profile = "default";

  // The one knob: pairs whose verified similarity is >= threshold are
  // near-duplicates.
  double threshold = 0.6;

  NormalizeOptions normalize{};
  FeatureOptions features{};
  ShingleOptions shingles{};

  // Candidate generators, in precedence order (the first that finds a
  // document gives its evidence).
  std::vector<SignalKind> signals = {SignalKind::kExact, SignalKind::kMinHash,
                                     SignalKind::kContainment};
  SimHashOptions simhash{};
  MinHashOptions minhash{};
  SuperShingleOptions supershingle{};
  SpotSigOptions spotsig{};
  IMatchOptions imatch{};
  VerifyOptions verify{};
  KeepPolicy keep = KeepPolicy::kFirst;  // batch dedup (neardup dedup, Python dedup())

  // --- limits and resources ---
  size_t max_matches = 100;  // matches returned per Add/Query, best first
  // With a verifier: a cluster's candidates are verified, best estimate
  // first, until this many of them passed; the rest are not verified and not
  // among the matches (0 = verify every candidate). The cluster a document
  // joins needs one passing member per cluster, so this changes only the
  // matches listed; it keeps a new copy of a story reprinted 1,000 times
  // from being verified against all 1,000 (Similar lists the cluster).
  size_t verify_per_cluster = 4;
  // An in-memory engine keeps the compact verification form of each long
  // text beside the text (src/verify/form.h, ~1.2 bytes a shingle) and
  // verifies candidates from it rather than shingling their texts again:
  // 14-16% less time an add, 39% more text bytes on 600-character articles
  // (docs/benchmarks.md). false keeps the texts only. A durable engine keeps
  // neither in memory, and ignores it.
  bool keep_forms = true;
  size_t max_document_bytes = 64u << 20;  // larger texts are OutOfRange
  int threads = 0;       // AddBatch threads; 0 = all cores; at most 4 per core (min 64, max 1024)
  std::string data_dir;  // dictionaries; empty = the built-in default
  std::shared_ptr<const Clock> clock;  // null = the system clock
  InfoLog info_log;                    // null = silent

  // The SimHash k in effect (see SimHashOptions::max_distance).
  int SimHashDistance() const;

  // The options of a named profile. Errors: NotFound for an unknown name
  // (with a note for retired names).
  static Result<EngineOptions> FromProfile(std::string_view name);
  // Names of the built-in profiles.
  static std::vector<std::string> ProfileNames();
};

// Names used by the CLI, JSON and docs, and their parsers. Parse errors are
// InvalidArgument naming the accepted values.
std::string_view Name(T2S v);
std::string_view Name(FeatureKind v);
std::string_view Name(Weights v);
std::string_view Name(IdfSource v);
std::string_view Name(ShingleKind v);
std::string_view Name(SignalKind v);
std::string_view Name(VerifyKind v);
std::string_view Name(KeepPolicy v);
std::string_view Name(MinHashScheme v);
Result<T2S> ParseT2S(std::string_view s);
Result<FeatureKind> ParseFeatureKind(std::string_view s);
Result<Weights> ParseWeights(std::string_view s);
Result<IdfSource> ParseIdfSource(std::string_view s);
Result<SignalKind> ParseSignalKind(std::string_view s);
Result<VerifyKind> ParseVerifyKind(std::string_view s);
Result<KeepPolicy> ParseKeepPolicy(std::string_view s);
Result<MinHashScheme> ParseMinHashScheme(std::string_view s);
// "exact,minhash": a comma-separated list without repeats.
Result<std::vector<SignalKind>> ParseSignals(std::string_view list);
// "script:3", "char:5", "word:2"; for script, "script:3,2" sets both sizes.
Result<ShingleOptions> ParseShingles(std::string_view spec);
std::string ShinglesName(const ShingleOptions& s);

// A verifier spec, "KIND[:T][,ngram=N][,word_ngram=N][,other=X]", as the
// CLI's --verify, `neardup cluster --verify` and Python's verify= take it:
// KIND is a VerifyKind name; T the threshold, in [0, 1]; ngram and
// word_ngram the shingle sizes of the set verifiers (script shingles,
// starting from script:3,1, so "jaccard,ngram=5" is script:5,1); X qbank's
// minimum similarity of the non-Han parts, in [0, 1]. The parts given are
// set, the others left unset.
struct VerifySpec {
  VerifyKind kind = VerifyKind::kSimilarity;
  std::optional<double> threshold;
  std::optional<ShingleOptions> shingles;
  std::optional<double> other_min;
};
// Errors: InvalidArgument naming the bad part ("unknown verifier 'x' (known:
// ...)", "bad threshold '2'", "verifier has no option 'k'", ...).
Result<VerifySpec> ParseVerifySpec(std::string_view spec);
// Sets options->verify.kind, and the threshold, shingles and
// verify.qbank_other_min where the spec gives them.
void ApplyVerifySpec(const VerifySpec& spec, EngineOptions* options);

// The identity of a pipeline: every option that changes sketches or
// similarities, the data files they read and a format version, as one line.
// Durable stores keep it and refuse to open under another.
std::string PipelineIdentity(const EngineOptions& options);

}  // namespace neardup

#endif  // NEARDUP_OPTIONS_H_
