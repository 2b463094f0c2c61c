// SPDX-License-Identifier: Apache-2.0
// PipelineIdentity: what a durable store records of the pipeline that wrote
// it, and the system clock.
#include "pipeline/identity.h"

#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "base/file_util.h"
#include "neardup/env.h"
#include "neardup/options.h"
#include "pipeline/pipeline.h"
#include "resources/data_dir.h"

namespace neardup {
namespace {

// Bumped whenever sketches or similarities change for the same options.
constexpr int kFormatVersion = 2;

std::string FileHash(const std::string& path) {
  std::string text;
  if (!base::ReadWholeFile(path, &text).ok()) return path + "=missing";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx",
                static_cast<unsigned long long>(XXH3_64bits(text.data(), text.size())));
  const size_t slash = path.rfind('/');
  return path.substr(slash == std::string::npos ? 0 : slash + 1) + "=" + buf;
}

class WallClock final : public Clock {
 public:
  int64_t NowMs() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace

const Clock& SystemClock() {
  static const WallClock clock;
  return clock;
}

std::string PipelineIdentity(const EngineOptions& o) {
  std::string s = "neardup-pipeline v" + std::to_string(kFormatVersion);
  auto add = [&s](std::string_view key, const std::string& value) {
    s += " " + std::string(key) + "=" + value;
  };
  char num[32];
  auto fmt = [&num](double v) {
    std::snprintf(num, sizeof num, "%.6g", v);
    return std::string(num);
  };
  add("threshold", fmt(o.threshold));
  add("punct", o.normalize.drop_punctuation ? "drop" : "keep");
  add("t2s", std::string(Name(o.normalize.t2s)));
  add("shingles", ShinglesName(o.shingles));
  std::string signals;
  for (SignalKind k : o.signals) signals += (signals.empty() ? "" : ",") + std::string(Name(k));
  add("signals", signals);
  const bool simhash =
      std::find(o.signals.begin(), o.signals.end(), SignalKind::kSimHash) != o.signals.end();
  if (simhash) {
    add("features", std::string(Name(o.features.kind)) + ":" + std::to_string(o.features.ngram) +
                        "," + std::to_string(o.features.word_ngram));
    add("weights", std::string(Name(o.features.weights)) + "/" + std::string(Name(o.features.idf)));
    add("k", std::to_string(o.SimHashDistance()));
  }
  // The MinHash scheme is named unless it is the permutations every store
  // before it used (or no signal sketches with MinHash), so those stores keep
  // their identity; SchemeHint() explains a mismatch in the scheme alone.
  std::string scheme;
  if (std::find(o.signals.begin(), o.signals.end(), SignalKind::kMinHash) != o.signals.end() &&
      o.minhash.scheme != MinHashScheme::kPermutations) {
    scheme = ":" + std::string(Name(o.minhash.scheme));
  }
  add("minhash", std::to_string(o.minhash.num_perm) + ":" + std::to_string(o.minhash.bands) + "x" +
                     std::to_string(o.minhash.rows) + "@" + fmt(o.minhash.candidate_threshold) +
                     scheme);
  add("verify", std::string(Name(o.verify.kind)) + ":" + std::to_string(o.verify.short_chars) +
                    ":" + fmt(o.verify.edit_weight));
  // Band keys salted with the exact part of a question (engine/pipeline.h).
  if (pipeline::SaltsKeys(o)) add("salt", "other");
  // The data files the pipeline reads.
  if (o.normalize.t2s != T2S::kOff) {
    s += " " + FileHash(resources::OpenccFile("TSCharacters.txt", o.data_dir));
    if (o.normalize.t2s != T2S::kCharacters) {
      s += " " + FileHash(resources::OpenccFile("TSPhrases.txt", o.data_dir));
    }
    if (o.normalize.t2s == T2S::kTaiwan) {
      s += " " + FileHash(resources::OpenccFile("TWPhrasesRev.txt", o.data_dir));
    }
  }
  if (simhash && o.features.kind == FeatureKind::kWords) {
    s += " " + FileHash(resources::JiebaFile(resources::kJiebaDict, o.data_dir));
    s += " user_dicts=" + std::to_string(o.features.user_dicts.size());
  }
  if (simhash && o.features.weights == Weights::kTfIdf && o.features.idf == IdfSource::kJieba) {
    s += " " + FileHash(resources::JiebaFile(resources::kJiebaIdf, o.data_dir));
  }
  return s;
}

namespace pipeline {

std::string SchemeHint(std::string_view recorded, const EngineOptions& o) {
  for (MinHashScheme scheme :
       {MinHashScheme::kPermutations, MinHashScheme::kOnePermutation, MinHashScheme::kCirculant}) {
    if (scheme == o.minhash.scheme) continue;
    EngineOptions other = o;
    other.minhash.scheme = scheme;
    if (PipelineIdentity(other) != recorded) continue;
    const std::string name(Name(scheme));
    return " It was written with the MinHash scheme '" + name + "'" +
           (scheme == MinHashScheme::kPermutations
                ? " (the default before one-permutation hashing became it)"
                : "") +
           ": open it with --minhash-scheme " + name + " (Python: minhash_scheme='" + name + "').";
  }
  return "";
}

}  // namespace pipeline
}  // namespace neardup
