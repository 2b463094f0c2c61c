// SPDX-License-Identifier: Apache-2.0
// Built-in profiles (docs/profiles.md) and the one place where option names
// are parsed and printed.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "base/status_macros.h"
#include "neardup/options.h"
#include "signal/registry.h"

namespace neardup {
namespace {

template <typename E>
struct NameTable {
  E value;
  std::string_view name;
};

constexpr NameTable<T2S> kT2S[] = {{T2S::kOff, "off"},
                                   {T2S::kCharacters, "characters"},
                                   {T2S::kPhrases, "phrases"},
                                   {T2S::kTaiwan, "taiwan"}};
constexpr NameTable<FeatureKind> kFeatures[] = {
    {FeatureKind::kCharNgram, "char-ngram"},
    {FeatureKind::kWords, "words"},
    {FeatureKind::kLongestSentence, "longest-sentence"}};
constexpr NameTable<Weights> kWeights[] = {{Weights::kTf, "tf"}, {Weights::kTfIdf, "tfidf"}};
constexpr NameTable<IdfSource> kIdf[] = {{IdfSource::kJieba, "jieba"},
                                         {IdfSource::kLearned, "learned"}};
constexpr NameTable<ShingleKind> kShingles[] = {
    {ShingleKind::kScript, "script"}, {ShingleKind::kChar, "char"}, {ShingleKind::kWord, "word"}};
constexpr NameTable<VerifyKind> kVerify[] = {
    {VerifyKind::kNone, "none"},       {VerifyKind::kSimilarity, "similarity"},
    {VerifyKind::kJaccard, "jaccard"}, {VerifyKind::kContainment, "containment"},
    {VerifyKind::kCosine, "cosine"},   {VerifyKind::kLevenshtein, "levenshtein"},
    {VerifyKind::kLcs, "lcs"},         {VerifyKind::kQbank, "qbank"}};

constexpr NameTable<KeepPolicy> kKeep[] = {{KeepPolicy::kFirst, "first"},
                                           {KeepPolicy::kSmallestId, "smallest-id"},
                                           {KeepPolicy::kLongest, "longest"}};
constexpr NameTable<MinHashScheme> kMinHashSchemes[] = {
    {MinHashScheme::kPermutations, "permutations"},
    {MinHashScheme::kOnePermutation, "oph"},
    {MinHashScheme::kCirculant, "cminhash"}};

template <typename E, size_t N>
std::string_view NameOf(const NameTable<E> (&table)[N], E v) {
  for (const auto& e : table)
    if (e.value == v) return e.name;
  return "?";
}

template <typename E, size_t N>
Result<E> ParseName(const NameTable<E> (&table)[N], std::string_view s, std::string_view what) {
  std::string known;
  for (const auto& e : table) {
    if (e.name == s) return e.value;
    known += (known.empty() ? "" : ", ") + std::string(e.name);
  }
  return Status::InvalidArgument("unknown " + std::string(what) + " '" + std::string(s) +
                                 "' (known: " + known + ")");
}

Result<int> ParseInt(std::string_view s, std::string_view what) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) {
    return Status::InvalidArgument("bad " + std::string(what) + " '" + std::string(s) + "'");
  }
  return v;
}

// A number in [0, 1] (a threshold or a similarity).
Result<double> ParseFraction(std::string_view s, std::string_view what) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !(v >= 0 && v <= 1)) {
    return Status::InvalidArgument("bad " + std::string(what) + " '" + std::string(s) +
                                   "' (a number in [0, 1])");
  }
  return v;
}

// One ",key=value" part of a verifier spec.
Status ParseVerifyOption(std::string_view part, VerifySpec* o) {
  const size_t eq = part.find('=');
  if (eq == std::string_view::npos) {
    return Status::InvalidArgument("bad verifier option '" + std::string(part) +
                                   "' (ngram=N, word_ngram=N or other=X)");
  }
  const std::string_view key = part.substr(0, eq), value = part.substr(eq + 1);
  if (key == "other") {
    NEARDUP_ASSIGN_OR_RETURN(o->other_min, ParseFraction(value, "other"));
    return Status::OK();
  }
  if (key != "ngram" && key != "word_ngram") {
    return Status::InvalidArgument("verifier has no option '" + std::string(key) +
                                   "' (ngram, word_ngram, other)");
  }
  NEARDUP_ASSIGN_OR_RETURN(const int n, ParseInt(value, key));
  ShingleOptions sh = o->shingles.value_or(ShingleOptions{ShingleKind::kScript, 3, 1});
  (key == "ngram" ? sh.char_ngram : sh.word_ngram) = n;
  o->shingles = sh;
  return Status::OK();
}

}  // namespace

std::string_view Name(T2S v) { return NameOf(kT2S, v); }
std::string_view Name(FeatureKind v) { return NameOf(kFeatures, v); }
std::string_view Name(Weights v) { return NameOf(kWeights, v); }
std::string_view Name(IdfSource v) { return NameOf(kIdf, v); }
std::string_view Name(ShingleKind v) { return NameOf(kShingles, v); }
std::string_view Name(SignalKind v) { return signal::SignalName(v); }
std::string_view Name(VerifyKind v) { return NameOf(kVerify, v); }
std::string_view Name(KeepPolicy v) { return NameOf(kKeep, v); }
std::string_view Name(MinHashScheme v) { return NameOf(kMinHashSchemes, v); }
Result<MinHashScheme> ParseMinHashScheme(std::string_view s) {
  return ParseName(kMinHashSchemes, s, "minhash scheme");
}
Result<KeepPolicy> ParseKeepPolicy(std::string_view s) {
  return ParseName(kKeep, s, "keep policy");
}
Result<T2S> ParseT2S(std::string_view s) { return ParseName(kT2S, s, "t2s mode"); }
Result<FeatureKind> ParseFeatureKind(std::string_view s) {
  return ParseName(kFeatures, s, "feature kind");
}
Result<Weights> ParseWeights(std::string_view s) { return ParseName(kWeights, s, "weights"); }
Result<IdfSource> ParseIdfSource(std::string_view s) { return ParseName(kIdf, s, "idf source"); }
Result<SignalKind> ParseSignalKind(std::string_view s) { return signal::ParseSignalName(s); }
Result<VerifyKind> ParseVerifyKind(std::string_view s) { return ParseName(kVerify, s, "verifier"); }

Result<std::vector<SignalKind>> ParseSignals(std::string_view list) {
  std::vector<SignalKind> out;
  for (size_t start = 0; start <= list.size();) {
    size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    NEARDUP_ASSIGN_OR_RETURN(SignalKind a, ParseSignalKind(list.substr(start, comma - start)));
    if (std::find(out.begin(), out.end(), a) != out.end()) {
      return Status::InvalidArgument("signal '" + std::string(Name(a)) + "' repeated");
    }
    out.push_back(a);
    start = comma + 1;
  }
  return out;
}

Result<ShingleOptions> ParseShingles(std::string_view spec) {
  ShingleOptions s;
  const size_t colon = spec.find(':');
  if (colon == std::string_view::npos) {
    return Status::InvalidArgument("shingles '" + std::string(spec) +
                                   "' must be script:C[,W], char:N or word:N");
  }
  NEARDUP_ASSIGN_OR_RETURN(s.kind, ParseName(kShingles, spec.substr(0, colon), "shingle kind"));
  std::string_view nums = spec.substr(colon + 1);
  const size_t comma = nums.find(',');
  NEARDUP_ASSIGN_OR_RETURN(int first, ParseInt(nums.substr(0, comma), "shingle size"));
  if (s.kind == ShingleKind::kWord) {
    s.word_ngram = first;
  } else {
    s.char_ngram = first;
  }
  if (comma != std::string_view::npos) {
    if (s.kind != ShingleKind::kScript) {
      return Status::InvalidArgument("only script shingles take two sizes");
    }
    NEARDUP_ASSIGN_OR_RETURN(s.word_ngram, ParseInt(nums.substr(comma + 1), "shingle size"));
  }
  return s;
}

Result<VerifySpec> ParseVerifySpec(std::string_view spec) {
  VerifySpec o;
  const size_t comma = spec.find(',');
  std::string_view head = spec.substr(0, comma);
  if (const size_t colon = head.find(':'); colon != std::string_view::npos) {
    NEARDUP_ASSIGN_OR_RETURN(o.threshold, ParseFraction(head.substr(colon + 1), "threshold"));
    head = head.substr(0, colon);
  }
  NEARDUP_ASSIGN_OR_RETURN(o.kind, ParseVerifyKind(head));
  for (size_t start = comma; start != std::string_view::npos;) {
    const size_t next = spec.find(',', start + 1);
    NEARDUP_RETURN_IF_ERROR(ParseVerifyOption(spec.substr(start + 1, next - start - 1), &o));
    start = next;
  }
  return o;
}

void ApplyVerifySpec(const VerifySpec& spec, EngineOptions* options) {
  options->verify.kind = spec.kind;
  if (spec.threshold) options->threshold = *spec.threshold;
  if (spec.shingles) options->shingles = *spec.shingles;
  if (spec.other_min) options->verify.qbank_other_min = *spec.other_min;
}

std::string ShinglesName(const ShingleOptions& s) {
  switch (s.kind) {
    case ShingleKind::kChar:
      return "char:" + std::to_string(s.char_ngram);
    case ShingleKind::kWord:
      return "word:" + std::to_string(s.word_ngram);
    default:
      return "script:" + std::to_string(s.char_ngram) + "," + std::to_string(s.word_ngram);
  }
}

int EngineOptions::SimHashDistance() const {
  if (simhash.max_distance >= 0) return simhash.max_distance;
  // With a verifier SimHash only proposes candidates: Manku's k=3. Without
  // one it decides: the threshold's distance.
  if (verify.kind != VerifyKind::kNone) return 3;
  return std::clamp(static_cast<int>(std::floor((1.0 - threshold) * 64.0 + 1e-9)), 0, 32);
}

std::vector<std::string> EngineOptions::ProfileNames() {
  return {"default", "simhash", "qbank", "zh-news", "zh-short", "en-news"};
}

Result<EngineOptions> EngineOptions::FromProfile(std::string_view name) {
  EngineOptions o;
  o.profile = std::string(name);
  if (name == "default") return o;  // see the field defaults in options.h
  if (name == "simhash") {
    // The seeds' path (Charikar; Manku, Jain, Das Sarma 2007): character
    // 3-grams and words, TF, SimHash-64, k=3, no verification. Eight bytes a
    // document and microsecond lookups; recall falls fast below ~0.9
    // similarity (docs/profiles.md).
    o.normalize.t2s = T2S::kOff;
    o.signals = {SignalKind::kSimHash};
    o.simhash.max_distance = 3;
    o.threshold = 1.0 - 3.0 / 64.0;
    o.verify.kind = VerifyKind::kNone;
    return o;
  }
  if (name == "qbank") {
    // Question banks: digits, Latin letters and operators must match exactly
    // and the Han part needs edit similarity >= 0.8; punctuation is kept
    // because operators are symbols. Candidates from MinHash-LSH over
    // character 2-grams; keep the smallest id.
    o.normalize.drop_punctuation = false;
    o.shingles = {ShingleKind::kScript, 2, 1};
    o.threshold = 0.8;
    o.verify.kind = VerifyKind::kQbank;
    o.signals = {SignalKind::kExact, SignalKind::kMinHash};  // no containment rule here
    o.minhash.candidate_threshold = 0.4;
    o.minhash.min_shared_bands = 2;
    o.keep = KeepPolicy::kSmallestId;
    return o;
  }
  if (name == "zh-news") {
    // SimHash over jieba words with TF-IDF, stop words dropped, k=5.
    o.signals = {SignalKind::kSimHash};
    o.features.kind = FeatureKind::kWords;
    o.features.weights = Weights::kTfIdf;
    o.features.drop_stop_words = true;
    o.features.min_word_chars = 2;
    o.simhash.max_distance = 5;
    o.threshold = 1.0 - 5.0 / 64.0;
    o.verify.kind = VerifyKind::kNone;
    return o;
  }
  if (name == "zh-short") {
    // The first wave's short-text path: exact + MinHash (character 5-grams,
    // Jaccard 0.5), verified by edit similarity >= 0.9.
    o.shingles = {ShingleKind::kScript, 5, 1};
    o.minhash.candidate_threshold = 0.5;
    o.threshold = 0.9;
    o.verify.kind = VerifyKind::kLevenshtein;
    o.signals = {SignalKind::kExact, SignalKind::kMinHash};  // no containment rule here
    return o;
  }
  if (name == "en-news") {
    // SimHash over 2-word shingles, k=3.
    o.normalize.t2s = T2S::kOff;
    o.signals = {SignalKind::kSimHash};
    o.features.word_ngram = 2;
    o.simhash.max_distance = 3;
    o.threshold = 1.0 - 3.0 / 64.0;
    o.verify.kind = VerifyKind::kNone;
    return o;
  }
  if (name == "auto") {
    return Status::NotFound(
        "profile 'auto' was retired: it chose a pipeline per document, so copies on either "
        "side of its length line never matched. The default profile now handles every "
        "script and length; use it (or name another profile: simhash, qbank, ...)");
  }
  std::string known;
  for (const auto& n : ProfileNames()) known += (known.empty() ? "" : ", ") + n;
  return Status::NotFound("unknown profile '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace neardup
