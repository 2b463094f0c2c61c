// SPDX-License-Identifier: Apache-2.0
#include "verify/verifier.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "base/sorted_set.h"
#include "base/status_macros.h"
#include "base/utf8.h"
#include "verify/edit_distance.h"
#include "verify/numbers.h"
#include "verify/question_bank.h"

namespace neardup::verify {
namespace {

using Kind = VerifierSpec::Kind;

// The side's shingles, computed into `scratch` when it brings none.
std::span<const uint64_t> ShinglesOf(const features::Shingler& sh, const Side& s,
                                     std::vector<uint64_t>* scratch) {
  if (s.shingles) return *s.shingles;
  sh.Shingle(s.normalized, scratch);
  return *scratch;
}

// The sizes of two shingle sets (from their whole sets where a side's is
// cut: Side::shingle_count) and of their intersection.
struct SetSizes {
  size_t common, a, b;
};

SetSizes SizesOf(std::span<const uint64_t> x, std::span<const uint64_t> y, const Side& a,
                 const Side& b) {
  const size_t na = a.shingle_count.value_or(x.size()), nb = b.shingle_count.value_or(y.size());
  return {std::min({SortedIntersectionSize(x, y), na, nb}), na, nb};
}

// Whether the own sets pass the containment rule (verifier.h); sets
// v->contained and v->smaller when they do.
void ContainmentRule(const OwnSizes& own, double containment, Verdict* v) {
  if (containment <= 0.0 || v == nullptr) return;
  const ContainmentMeasure m = MeasureContainment(own, containment);
  v->containment = m.value;
  if (!m.passed) return;
  v->contained = true;
  v->smaller = own.a <= own.b ? 'a' : 'b';
}

}  // namespace

ContainmentMeasure MeasureContainment(const OwnSizes& own, double containment) {
  const size_t smaller = std::min(own.a, own.b);
  if (smaller < kMinContainedShingles) return {};
  return {static_cast<double>(own.common) / static_cast<double>(smaller),
          static_cast<double>(own.common) >= containment * static_cast<double>(smaller)};
}

std::span<const uint64_t> BoilerplateOf(const Side& a, const Side& b,
                                        std::vector<uint64_t>* scratch) {
  if (a.boilerplate.empty()) return b.boilerplate;
  if (b.boilerplate.empty()) return a.boilerplate;
  scratch->clear();
  std::set_union(a.boilerplate.begin(), a.boilerplate.end(), b.boilerplate.begin(),
                 b.boilerplate.end(), std::back_inserter(*scratch));
  return *scratch;
}

OwnSizes OwnSetSizes(std::span<const uint64_t> x, std::span<const uint64_t> y,
                     std::span<const uint64_t> union_bp, size_t na, size_t nb, size_t common) {
  size_t in_x = 0, in_y = 0, in_both = 0;
  size_t i = 0, j = 0;
  for (uint64_t u : union_bp) {
    while (i < x.size() && x[i] < u) ++i;
    while (j < y.size() && y[j] < u) ++j;
    const bool hx = i < x.size() && x[i] == u, hy = j < y.size() && y[j] == u;
    in_x += hx, in_y += hy, in_both += hx && hy;
  }
  const size_t a = na - std::min(na, in_x), b = nb - std::min(nb, in_y);
  return {std::min({common - std::min(common, in_both), a, b}), a, b};
}

Result<std::unique_ptr<Verifier>> Verifier::Create(const VerifierSpec& spec) {
  if (!(spec.threshold >= 0.0 && spec.threshold <= 1.0)) {
    return Status::InvalidArgument("verification threshold must be in [0, 1]");
  }
  if (!(spec.qbank_other_min >= 0.0 && spec.qbank_other_min <= 1.0)) {
    return Status::InvalidArgument("qbank other minimum must be in [0, 1]");
  }
  if (spec.short_chars < 0) return Status::InvalidArgument("short_chars must be >= 0");
  if (!(spec.edit_weight >= 1.0)) return Status::InvalidArgument("edit_weight must be >= 1");
  if (!(spec.containment >= 0.0 && spec.containment <= 1.0)) {
    return Status::InvalidArgument("containment must be in [0, 1] (0 = off)");
  }
  NEARDUP_ASSIGN_OR_RETURN(auto shingler, features::Shingler::Create(spec.shingles));
  return std::unique_ptr<Verifier>(new Verifier(spec, std::move(shingler)));
}

bool Verifier::uses_shingles() const {
  switch (spec_.kind) {
    case Kind::kSimilarity:
    case Kind::kJaccard:
    case Kind::kContainment:
    case Kind::kCosine:
      return true;
    default:
      return false;
  }
}

bool Verifier::reads_text(size_t code_points) const {
  if (spec_.kind == Kind::kSimilarity) return code_points <= static_cast<size_t>(spec_.short_chars);
  return !uses_shingles();  // the edit kinds and qbank read it; the set kinds never
}

double Verifier::Similarity(const Side& a, const Side& b, Verdict* contained) const {
  switch (spec_.kind) {
    case Kind::kLevenshtein:
      return LevenshteinSimilarity(DecodeCodePoints(a.normalized), DecodeCodePoints(b.normalized));
    case Kind::kLcs:
      return LcsRatio(DecodeCodePoints(a.normalized), DecodeCodePoints(b.normalized));
    default:
      break;
  }
  thread_local std::vector<uint64_t> sa, sb;
  const std::span<const uint64_t> x = ShinglesOf(*shingler_, a, &sa);
  const std::span<const uint64_t> y = ShinglesOf(*shingler_, b, &sb);
  const SetSizes n = SizesOf(x, y, a, b);
  switch (spec_.kind) {
    case Kind::kContainment:
      return ContainmentOfSizes(n.common, n.a, n.b);
    case Kind::kCosine: {
      if (n.a == 0 && n.b == 0) return 1.0;
      if (n.a == 0 || n.b == 0) return 0.0;
      return static_cast<double>(n.common) /
             std::sqrt(static_cast<double>(n.a) * static_cast<double>(n.b));
    }
    case Kind::kSimilarity: {
      const double j = JaccardOfSizes(n.common, n.a, n.b);
      const size_t la = a.code_points ? *a.code_points : base::CodePointCount(a.normalized);
      const size_t lb = b.code_points ? *b.code_points : base::CodePointCount(b.normalized);
      const size_t limit = static_cast<size_t>(spec_.short_chars);
      if (la > limit || lb > limit) {
        thread_local std::vector<uint64_t> bp;
        const std::span<const uint64_t> u = BoilerplateOf(a, b, &bp);
        // Without boilerplate the own sets are the sets, and their Jaccard j.
        const OwnSizes own = OwnSetSizes(x, y, u, n.a, n.b, n.common);
        const double s =
            std::max(own.a, own.b) < kMinOwnShingles ? j : JaccardOfSizes(own.common, own.a, own.b);
        if (s < spec_.threshold) ContainmentRule(own, spec_.containment, contained);
        return s;
      }
      if (ChangedFact({a.normalized, a.expressions}, {b.normalized, b.expressions},
                      spec_.short_numbers, spec_.short_words) != Fact::kNone) {
        return 0.0;
      }
      if (j >= spec_.threshold) return j;
      const double e =
          LevenshteinSimilarity(DecodeCodePoints(a.normalized), DecodeCodePoints(b.normalized));
      return std::max(j, std::max(0.0, 1.0 - spec_.edit_weight * (1.0 - e)));
    }
    default:
      return JaccardOfSizes(n.common, n.a, n.b);
  }
}

Verdict Verifier::Verify(const Side& a, const Side& b) const {
  if (spec_.kind == Kind::kQbank) {
    const QuestionBankResult r =
        QuestionBankCompare(a.normalized, b.normalized,
                            {.han_min = spec_.threshold, .other_min = spec_.qbank_other_min});
    return Verdict{std::min(r.han_similarity, r.other_similarity), r.passed};
  }
  Verdict v;
  v.similarity = Similarity(a, b, &v);
  v.passed = v.similarity >= spec_.threshold || v.contained;
  return v;
}

}  // namespace neardup::verify
