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
#include "pipeline/signals.h"
#include "resources/data_dir.h"
#include "sketch/lsh.h"

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

namespace {

// The LSH design the area optimizer alone chose for `o`: every default
// design before TrimBands (2026-11-27).
sketch::LshParams UntrimmedDesign(const EngineOptions& o) {
  auto p = pipeline::OptimizerLsh(o);
  return p.ok() ? *p : sketch::LshParams{};
}

bool UsesMinHash(const EngineOptions& o) {
  return std::find(o.signals.begin(), o.signals.end(), SignalKind::kMinHash) != o.signals.end();
}

// With `legacy`, the identity stores written before TrimBands recorded: no
// design after the options (they chose bands and rows by the optimizer).
std::string Identity(const EngineOptions& o, bool legacy) {
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
  // Default bands and rows name the design they resolve to where it is not
  // the optimizer's (TrimBands), so a store of the untrimmed design keeps
  // its identity and is told apart (DesignHint).
  std::string design;
  if (!legacy && UsesMinHash(o) && o.minhash.bands == 0 && o.minhash.rows == 0) {
    auto p = pipeline::ResolveLsh(o);
    if (p.ok() && !(*p == UntrimmedDesign(o))) {
      design = "/" + std::to_string(p->bands) + "x" + std::to_string(p->rows);
    }
  }
  add("minhash", std::to_string(o.minhash.num_perm) + ":" + std::to_string(o.minhash.bands) + "x" +
                     std::to_string(o.minhash.rows) + "@" + fmt(o.minhash.candidate_threshold) +
                     scheme + design);
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

// `o` with default bands and rows, as stores before TrimBands recorded it,
// when `o` asks for exactly the design the optimizer gave those; else "".
std::string LegacyEquivalent(const EngineOptions& o) {
  if (!UsesMinHash(o) || o.minhash.bands == 0 || o.minhash.rows == 0) return "";
  const sketch::LshParams untrimmed = UntrimmedDesign(o);
  if (!(sketch::LshParams{o.minhash.bands, o.minhash.rows} == untrimmed)) return "";
  EngineOptions d = o;
  d.minhash.bands = d.minhash.rows = 0;
  return Identity(d, /*legacy=*/true);
}

}  // namespace

std::string PipelineIdentity(const EngineOptions& o) { return Identity(o, /*legacy=*/false); }

namespace pipeline {

bool IdentityMatches(std::string_view recorded, const EngineOptions& o) {
  if (recorded == PipelineIdentity(o)) return true;
  const std::string legacy = LegacyEquivalent(o);
  return !legacy.empty() && recorded == legacy;
}

namespace {

// " --bands B --rows R" of the untrimmed design.
std::string UntrimmedFlags(const EngineOptions& o) {
  const sketch::LshParams p = UntrimmedDesign(o);
  return " --bands " + std::to_string(p.bands) + " --rows " + std::to_string(p.rows);
}

// When `recorded` is `o` as written before TrimBands, the sentence that says
// so and how to open it; otherwise "".
std::string DesignHint(std::string_view recorded, const EngineOptions& o) {
  if (!UsesMinHash(o) || o.minhash.bands != 0 || o.minhash.rows != 0) return "";
  if (recorded != Identity(o, /*legacy=*/true)) return "";
  const sketch::LshParams p = UntrimmedDesign(o);
  const std::string b = std::to_string(p.bands), r = std::to_string(p.rows);
  return " It was written with the LSH design of " + b + " bands x " + r +
         " rows (the default before 2026-11-27, when the default dropped the bands that only "
         "add memory): open it with --bands " +
         b + " --rows " + r + " (Python: bands=" + b + ", rows=" + r + ").";
}

}  // namespace

std::string IdentityHint(std::string_view recorded, const EngineOptions& o) {
  if (std::string hint = DesignHint(recorded, o); !hint.empty()) return hint;
  if (const auto c = std::find(o.signals.begin(), o.signals.end(), SignalKind::kContainment);
      c != o.signals.end()) {
    EngineOptions before = o;
    before.signals.erase(before.signals.begin() + (c - o.signals.begin()));
    if (IdentityMatches(recorded, before)) {
      std::string list;
      for (SignalKind k : before.signals) list += (list.empty() ? "" : ",") + std::string(Name(k));
      return " It was written without the containment signal (the default before "
             "2026-11-29, when excerpts joined it): open it with --signals " +
             list + " (Python: signals='" + list + "').";
    }
  }
  for (MinHashScheme scheme :
       {MinHashScheme::kPermutations, MinHashScheme::kOnePermutation, MinHashScheme::kCirculant}) {
    if (scheme == o.minhash.scheme) continue;
    EngineOptions other = o;
    other.minhash.scheme = scheme;
    const bool current = PipelineIdentity(other) == recorded;
    if (!current && Identity(other, /*legacy=*/true) != recorded) continue;
    const std::string name(Name(scheme));
    const std::string design = current ? std::string() : UntrimmedFlags(o);
    return " It was written with the MinHash scheme '" + name + "'" +
           (scheme == MinHashScheme::kPermutations
                ? " (the default before one-permutation hashing became it)"
                : "") +
           ": open it with --minhash-scheme " + name + design + " (Python: minhash_scheme='" +
           name + "'" + (design.empty() ? "" : ", and bands and rows as those flags") + ").";
  }
  return "";
}

}  // namespace pipeline
}  // namespace neardup
