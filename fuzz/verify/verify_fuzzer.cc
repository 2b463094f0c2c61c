// SPDX-License-Identifier: Apache-2.0
// Fuzzes every verifier kind (verify/verifier.h) and the edit-distance
// kernels (verify/edit_distance.h). Properties: similarities lie in [0, 1]
// and are symmetric; Myers' bit-parallel Levenshtein distance and the
// bit-parallel LCS equal the textbook dynamic programs on small inputs; the
// question-bank rule is symmetric. ASan's allocation limits catch runaway
// tables (the Myers table once took 15 GB on one input).
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "neardup/utf8.h"
#include "verify/edit_distance.h"
#include "verify/question_bank.h"
#include "verify/verifier.h"

namespace {

using namespace neardup::verify;

size_t NaiveLevenshtein(std::u32string_view a, std::u32string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

size_t NaiveLcs(std::u32string_view a, std::u32string_view b) {
  std::vector<size_t> row(b.size() + 1, 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = 0;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = a[i - 1] == b[j - 1] ? diag + 1 : std::max(row[j], row[j - 1]);
      diag = up;
    }
  }
  return row[b.size()];
}

void CheckKernels(const std::string& a, const std::string& b) {
  const std::u32string ca = DecodeCodePoints(a), cb = DecodeCodePoints(b);
  const size_t d = LevenshteinDistance(ca, cb);
  FUZZ_CHECK(d == LevenshteinDistance(cb, ca));
  FUZZ_CHECK(d <= std::max(ca.size(), cb.size()));
  const size_t l = LcsLength(ca, cb);
  FUZZ_CHECK(l <= std::min(ca.size(), cb.size()));
  if (ca.size() * cb.size() <= 200000) {
    FUZZ_CHECK(d == NaiveLevenshtein(ca, cb));
    FUZZ_CHECK(l == NaiveLcs(ca, cb));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  VerifierSpec spec;
  spec.kind = static_cast<VerifierSpec::Kind>(in.ConsumeIntegralInRange<int>(0, 6));
  spec.threshold = in.ConsumeProbability<double>();
  spec.shingles.kind =
      static_cast<neardup::features::ShingleSpec::Kind>(in.ConsumeIntegralInRange<int>(0, 2));
  spec.shingles.char_n = in.ConsumeIntegralInRange<int>(1, 32);
  spec.shingles.word_n = in.ConsumeIntegralInRange<int>(1, 8);
  spec.short_chars = in.ConsumeIntegralInRange<int>(0, 400);
  spec.qbank_other_min = in.ConsumeProbability<double>();
  const std::string a = neardup::ReplaceInvalidUtf8(in.ConsumeRandomLengthString(4096));
  const std::string b = neardup::ReplaceInvalidUtf8(in.ConsumeRemainingBytesAsString());

  CheckKernels(a, b);
  const QuestionBankResult q = QuestionBankCompare(a, b, {});
  const QuestionBankResult r = QuestionBankCompare(b, a, {});
  FUZZ_CHECK(q.han_similarity == r.han_similarity && q.other_similarity == r.other_similarity);

  auto v = Verifier::Create(spec);
  if (!v.ok()) {  // the one documented refusal for sizes in these ranges
    FUZZ_CHECK(spec.shingles.kind == neardup::features::ShingleSpec::Kind::kScript &&
               spec.shingles.char_n > 16);
    return 0;
  }
  const Verdict ab = (*v)->Verify(a, b);
  const Verdict ba = (*v)->Verify(b, a);
  FUZZ_CHECK(ab.similarity >= 0.0 && ab.similarity <= 1.0);
  FUZZ_CHECK(ab.similarity == ba.similarity && ab.passed == ba.passed);
  if (spec.kind != VerifierSpec::Kind::kQbank) {
    FUZZ_CHECK(ab.passed == (ab.similarity >= spec.threshold));
  }
  return 0;
}
