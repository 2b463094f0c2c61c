// SPDX-License-Identifier: Apache-2.0
#include "pipeline/signals.h"

#include <algorithm>

#include "base/status_macros.h"
#include "pipeline/pipeline.h"
#include "resources/data_dir.h"

namespace neardup::pipeline {
namespace {

bool Has(const EngineOptions& o, SignalKind k) {
  return std::find(o.signals.begin(), o.signals.end(), k) != o.signals.end();
}

verify::VerifierSpec::Kind ToVerifierKind(VerifyKind k) {
  using V = verify::VerifierSpec::Kind;
  switch (k) {
    case VerifyKind::kJaccard:
      return V::kJaccard;
    case VerifyKind::kContainment:
      return V::kContainment;
    case VerifyKind::kCosine:
      return V::kCosine;
    case VerifyKind::kLevenshtein:
      return V::kLevenshtein;
    case VerifyKind::kLcs:
      return V::kLcs;
    case VerifyKind::kQbank:
      return V::kQbank;
    default:
      return V::kSimilarity;
  }
}

}  // namespace

sketch::MinHashOptions ToMinHashOptions(const EngineOptions& o) {
  using S = sketch::MinHashScheme;
  const S scheme = o.minhash.scheme == MinHashScheme::kOnePermutation ? S::kOnePermutation
                   : o.minhash.scheme == MinHashScheme::kCirculant    ? S::kCirculant
                                                                      : S::kPermutations;
  return {.num_perm = o.minhash.num_perm, .scheme = scheme};
}

Result<signal::SignalOptions> MakeSignalOptions(const EngineOptions& o) {
  signal::SignalOptions so;
  so.simhash_max_distance = o.SimHashDistance();
  so.simhash_index_max_distance = std::max(so.simhash_max_distance, o.simhash.index_max_distance);
  if (so.simhash_index_max_distance > 32) {
    return Status::InvalidArgument("simhash k must be at most 32");
  }
  so.minhash_num_perm = o.minhash.num_perm;
  so.minhash_scheme = ToMinHashOptions(o).scheme;
  if (Has(o, SignalKind::kMinHash)) {
    NEARDUP_ASSIGN_OR_RETURN(so.minhash_lsh, ResolveLsh(o));
    if (o.minhash.min_shared_bands < 1 || o.minhash.min_shared_bands > so.minhash_lsh.bands) {
      return Status::InvalidArgument("minhash min_shared_bands must be in [1, bands]");
    }
  }
  so.minhash_min_bands = o.minhash.min_shared_bands;
  so.supershingle_min_equal = o.supershingle.min_equal;
  so.containment_min_shingles = static_cast<int>(verify::kMinContainedShingles);
  so.spotsig_threshold = o.spotsig.threshold;
  if (o.spotsig.stop_words == "zh") {
    so.spotsig_stop_words = resources::JiebaFile(resources::kJiebaStopWords, o.data_dir);
  } else if (o.spotsig.stop_words != "en") {
    so.spotsig_stop_words = o.spotsig.stop_words;
  }
  if (Has(o, SignalKind::kIMatch)) {
    sketch::IMatchOptions im;
    im.drop_low = o.imatch.drop_low;
    im.drop_high = o.imatch.drop_high;
    im.extra_lexicons = o.imatch.extra_lexicons;
    const std::string idf = o.imatch.idf_path.empty()
                                ? resources::JiebaFile(resources::kJiebaIdf, o.data_dir)
                                : o.imatch.idf_path;
    NEARDUP_ASSIGN_OR_RETURN(so.imatch, signal::LoadIMatchLexicon(idf, im));
  }
  return so;
}

cluster::KeepPolicy ToClusterKeep(KeepPolicy k) {
  switch (k) {
    case KeepPolicy::kSmallestId:
      return cluster::KeepPolicy::kSmallestId;
    case KeepPolicy::kLongest:
      return cluster::KeepPolicy::kLongest;
    default:
      return cluster::KeepPolicy::kFirst;
  }
}

PipelineNeeds NeedsOf(const EngineOptions& o) {
  PipelineNeeds n;
  n.features = Has(o, SignalKind::kSimHash) || Has(o, SignalKind::kIMatch);
  n.shingles = Has(o, SignalKind::kMinHash) || Has(o, SignalKind::kSuperShingle) ||
               Has(o, SignalKind::kContainment);
  switch (o.verify.kind) {
    case VerifyKind::kSimilarity:
    case VerifyKind::kJaccard:
    case VerifyKind::kContainment:
    case VerifyKind::kCosine:
      n.shingles = true;
      break;
    default:
      break;
  }
  return n;
}

namespace {

// The similarity the bands aim at: given, or the threshold - 0.1.
double CandidateThreshold(const EngineOptions& o) {
  const double t =
      o.minhash.candidate_threshold > 0 ? o.minhash.candidate_threshold : o.threshold - 0.1;
  return std::clamp(t, 0.05, 0.95);
}

}  // namespace

Result<sketch::LshParams> ResolveLsh(const EngineOptions& o) {
  const auto& m = o.minhash;
  if (m.num_perm < 1 || m.num_perm > 4096) {
    return Status::InvalidArgument("minhash permutations must be in [1, 4096]");
  }
  if (m.bands > 0 || m.rows > 0) {
    const int rows = m.rows > 0 ? m.rows : std::max(1, m.num_perm / m.bands);
    const int bands = m.bands > 0 ? m.bands : std::max(1, m.num_perm / rows);
    if (bands * rows > m.num_perm) {
      return Status::InvalidArgument("minhash bands x rows (" + std::to_string(bands) + " x " +
                                     std::to_string(rows) + ") exceed the permutations (" +
                                     std::to_string(m.num_perm) + ")");
    }
    return sketch::LshParams{bands, rows};
  }
  // At the default threshold, verified, with the candidate threshold it
  // implies (threshold - 0.1): the optimizer's rows, and no more bands than
  // make a pair at the threshold + 0.1 a candidate 99.5% of the time (20 of
  // 30 at 128 permutations). The band sweep on the leaderboard (docs/
  // quality.md, "The LSH band design") found the others worth less than
  // their memory (~4.9 bytes a band a document in a store) and false
  // candidates. Other thresholds (not swept), a candidate threshold given
  // (profiles, users) or no verification (the bands then decide) keep the
  // optimizer's design.
  NEARDUP_ASSIGN_OR_RETURN(const sketch::LshParams p, OptimizerLsh(o));
  if (m.candidate_threshold > 0 || o.verify.kind == VerifyKind::kNone ||
      o.threshold != EngineOptions{}.threshold) {
    return p;
  }
  return sketch::TrimBands(p, std::min(CandidateThreshold(o) + 0.2, 0.99), 0.995);
}

Result<sketch::LshParams> OptimizerLsh(const EngineOptions& o) {
  return sketch::OptimalLshParams(CandidateThreshold(o), o.minhash.num_perm, 0.2, 0.8);
}

Result<std::unique_ptr<verify::Verifier>> BuildVerifier(const EngineOptions& o) {
  if (o.verify.kind == VerifyKind::kNone) return std::unique_ptr<verify::Verifier>();
  verify::VerifierSpec spec;
  spec.kind = ToVerifierKind(o.verify.kind);
  spec.threshold = o.threshold;
  spec.shingles = ToShingleSpec(o.shingles);
  spec.short_chars = o.verify.short_chars;
  spec.edit_weight = o.verify.edit_weight;
  spec.short_numbers = o.verify.short_numbers;
  spec.short_words = o.verify.short_words;
  spec.qbank_other_min = o.verify.qbank_other_min;
  if (o.verify.kind == VerifyKind::kSimilarity) spec.containment = o.verify.containment;
  return verify::Verifier::Create(spec);
}

bool KeepsAnchors(const EngineOptions& o) {
  return BoilerplateGuard(o) || Has(o, SignalKind::kContainment);
}

bool BoilerplateGuard(const EngineOptions& o) {
  return o.verify.kind == VerifyKind::kSimilarity && o.verify.boilerplate_documents > 0 &&
         o.verify.short_chars >= 0;
}

Status CheckSignalOptions(const EngineOptions& o) {
  if (!(o.threshold >= 0.0 && o.threshold <= 1.0)) {
    return Status::InvalidArgument("threshold must be a similarity in [0, 1]");
  }
  if (!(o.verify.containment >= 0.0 && o.verify.containment <= 1.0)) {
    return Status::InvalidArgument("containment must be in [0, 1] (0: off)");
  }
  if (o.verify.boilerplate_documents < 0 || o.verify.boilerplate_documents > 255) {
    return Status::InvalidArgument("boilerplate documents must be in [0, 255] (0: off), got " +
                                   std::to_string(o.verify.boilerplate_documents));
  }
  if (o.signals.empty()) return Status::InvalidArgument("no signal selected");
  return Status::OK();
}

Result<std::unique_ptr<signal::SignalSet>> BuildSignalSet(const EngineOptions& o) {
  NEARDUP_RETURN_IF_ERROR(CheckSignalOptions(o));
  NEARDUP_ASSIGN_OR_RETURN(signal::SignalOptions so, MakeSignalOptions(o));
  std::vector<std::unique_ptr<signal::Signal>> list;
  for (SignalKind k : o.signals) {
    NEARDUP_ASSIGN_OR_RETURN(auto s, signal::CreateSignal(k, so));
    list.push_back(std::move(s));
  }
  NEARDUP_ASSIGN_OR_RETURN(auto verifier, BuildVerifier(o));
  return signal::SignalSet::Create(std::move(list), std::move(verifier));
}

}  // namespace neardup::pipeline
