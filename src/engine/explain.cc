// SPDX-License-Identifier: Apache-2.0
// Engine::Explain: why two texts are or are not near-duplicates. It runs the
// engine's own pipeline, signals and verifier on the pair, and adds the
// other measures a person asks about (exact Jaccard, containment, edit
// similarity, the MinHash estimate, the SimHash distance).
#include <algorithm>
#include <bit>
#include <cstdio>

#include "base/sorted_set.h"
#include "engine/engine_impl.h"
#include "pipeline/signals.h"
#include "sketch/minhash.h"
#include "sketch/simhash.h"
#include "verify/edit_distance.h"

namespace neardup {
namespace {

constexpr size_t kExamples = 12;

std::string_view Describe(VerifyKind k) {
  switch (k) {
    case VerifyKind::kSimilarity:
      return "similarity (shingle Jaccard; edit similarity for short texts)";
    case VerifyKind::kJaccard:
      return "shingle Jaccard";
    case VerifyKind::kContainment:
      return "shingle containment";
    case VerifyKind::kCosine:
      return "shingle cosine";
    case VerifyKind::kLevenshtein:
      return "edit similarity";
    case VerifyKind::kLcs:
      return "LCS ratio";
    case VerifyKind::kQbank:
      return "question-bank rule (digits, letters and operators equal; Han edit similarity)";
    default:
      return "similarity";
  }
}

std::string Fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

uint64_t SimHashOf(const pipeline::Pipeline& p, const std::string& normalized,
                   const std::vector<uint64_t>& shingles) {
  std::vector<features::Feature> feats;
  if (p.has_features() && p.Features(normalized, &feats).ok()) return sketch::SimHash(feats);
  feats.clear();
  for (uint64_t h : shingles) feats.push_back({h, 1.0f});
  return sketch::SimHash(feats);
}

// Would the signals propose b for a? Each signal's own Compare(), which
// agrees with its index (signal_test.cc checks it).
bool Proposes(const signal::SignalSet& set, const pipeline::Processed& a,
              const pipeline::Processed& b) {
  const signal::SignalInput ia = pipeline::SignalInputOf(a);
  const signal::SignalInput ib = pipeline::SignalInputOf(b);
  for (size_t i = 0; i < set.size(); ++i) {
    if (set.signal(i).Compare(ia, ib).proposed) return true;
  }
  return false;
}

}  // namespace

Result<Explanation> Engine::Explain(std::string_view text_a, std::string_view text_b) const {
  const Impl& m = *impl_;
  pipeline::Processed a, b;
  NEARDUP_RETURN_IF_ERROR(m.pipeline->Process(text_a, &a));
  NEARDUP_RETURN_IF_ERROR(m.pipeline->Process(text_b, &b));
  Explanation x;
  x.threshold = m.options.threshold;
  x.normalized_a = a.normalized;
  x.normalized_b = b.normalized;
  std::vector<std::pair<uint64_t, std::string>> ta, tb;
  m.pipeline->shingler().ShingleWithText(a.normalized, &ta);
  m.pipeline->shingler().ShingleWithText(b.normalized, &tb);
  std::vector<uint64_t> ha, hb;
  for (const auto& [h, t] : ta) ha.push_back(h);
  for (const auto& [h, t] : tb) hb.push_back(h);
  x.shingles_a = ha.size();
  x.shingles_b = hb.size();
  x.shared_shingles = SortedIntersectionSize<uint64_t>(ha, hb);
  for (size_t i = 0, j = 0;
       i < ta.size() && j < tb.size() && x.shared_examples.size() < kExamples;) {
    if (ta[i].first < tb[j].first) {
      ++i;
    } else if (tb[j].first < ta[i].first) {
      ++j;
    } else {
      x.shared_examples.push_back(ta[i].second);
      ++i, ++j;
    }
  }
  x.jaccard = SortedSetJaccard<uint64_t>(ha, hb);
  x.containment = SortedSetContainment<uint64_t>(ha, hb);
  const std::u32string ca = verify::DecodeCodePoints(a.normalized);
  const std::u32string cb = verify::DecodeCodePoints(b.normalized);
  if (ca.size() <= 4096 && cb.size() <= 4096) {
    x.edit_similarity = verify::LevenshteinSimilarity(ca, cb);
  }
  NEARDUP_ASSIGN_OR_RETURN(auto hasher,
                           sketch::MinHasher::Create(pipeline::ToMinHashOptions(m.options)));
  const auto sig_a = hasher.Sketch(ha), sig_b = hasher.Sketch(hb);
  x.minhash_estimate = sketch::EstimateJaccard(sig_a, sig_b);
  NEARDUP_ASSIGN_OR_RETURN(sketch::LshParams lsh, pipeline::ResolveLsh(m.options));
  x.lsh_bands = lsh.bands;
  for (int band = 0; band < lsh.bands; ++band) {
    x.lsh_equal_bands += sketch::SaltedBandKey(sketch::LshBandKey(sig_a, lsh, band), a.key_salt) ==
                         sketch::SaltedBandKey(sketch::LshBandKey(sig_b, lsh, band), b.key_salt);
  }
  x.simhash_distance = std::popcount(SimHashOf(*m.pipeline, a.normalized, ha) ^
                                     SimHashOf(*m.pipeline, b.normalized, hb));
  x.candidate = Proposes(*m.signals, a, b);

  const verify::Verifier* v = m.signals->verifier();
  if (v != nullptr) {
    verify::Side sa{a.normalized, a.shingles, std::nullopt, a.Expressions()},
        sb{b.normalized, std::nullopt, std::nullopt, b.Expressions()};
    std::vector<uint64_t> marked_a, marked_b;  // the guard's marks as Add would make them
    {
      base::ReaderLock lock(m.mu);
      m.MarkBoilerplate(a, &marked_a);
      m.MarkBoilerplate(b, &marked_b);
    }
    sa.boilerplate = marked_a;
    sb.boilerplate = marked_b;
    const verify::Verdict verdict = v->Verify(sa, sb);
    verify::VerdictSteps steps = v->Explain(sa, sb);
    x.steps = std::move(steps.steps);
    x.similarity = verdict.similarity;
    x.duplicate = x.candidate && verdict.passed;
    x.rule = std::string(Describe(m.options.verify.kind)) + " " + Fmt(verdict.similarity) +
             (verdict.passed ? " >= " : " < ") + "threshold " + Fmt(x.threshold);
    // The question-bank rule and the fact rule of short texts decide on
    // their parts, not on that one number.
    using Rule = verify::VerdictSteps::Rule;
    if (verdict.contained) {
      x.rule = "containment rule: " + steps.reason + ", though the similarity " +
               Fmt(verdict.similarity) + " < threshold " + Fmt(x.threshold);
    } else if (steps.rule == Rule::kBoilerplate) {
      x.rule = "boilerplate guard: " + steps.reason + "; the jaccard of the rest " +
               Fmt(verdict.similarity) + (verdict.passed ? " >= " : " < ") + "threshold " +
               Fmt(x.threshold);
    } else if (steps.rule == Rule::kParts) {
      x.rule = (m.options.verify.kind == VerifyKind::kQbank ? "question-bank rule: "
                                                            : "fact rule of short texts: ") +
               steps.reason;
    }
    if (!x.candidate) x.rule += "; but no signal proposes the pair, so it is never verified";
  } else {
    x.similarity = 1.0 - x.simhash_distance / 64.0;
    x.duplicate = x.candidate;
    x.rule = x.candidate ? "a signal proposes the pair and there is no verifier"
                         : "no signal proposes the pair";
    if (m.simhash_pos >= 0) {
      x.rule += " (SimHash distance " + std::to_string(x.simhash_distance) +
                (x.simhash_distance <= m.k ? " <= k=" : " > k=") + std::to_string(m.k) + ")";
    }
  }
  return x;
}

}  // namespace neardup
