// SPDX-License-Identifier: Apache-2.0
#include "verify/question_bank.h"

#include <unicode/uchar.h>
#include <unicode/uscript.h>

#include "verify/edit_distance.h"

namespace neardup::verify {
namespace {

bool IsHan(char32_t c) {
  if ((c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF)) return true;
  if (c < 0x2E80) return false;
  UErrorCode err = U_ZERO_ERROR;
  return uscript_getScript(static_cast<UChar32>(c), &err) == USCRIPT_HAN && U_SUCCESS(err);
}

}  // namespace

HanSplit SplitHan(std::u32string_view text) {
  HanSplit s;
  for (char32_t c : text) {
    if (IsHan(c)) {
      s.han.push_back(c);
    } else if (!u_isUWhiteSpace(static_cast<UChar32>(c)) &&
               !(U_GET_GC_MASK(static_cast<UChar32>(c)) & U_GC_P_MASK)) {
      s.other.push_back(c);
    }
  }
  return s;
}

QuestionBankResult QuestionBankCompare(std::string_view a, std::string_view b,
                                       const QuestionBankOptions& options) {
  const HanSplit x = SplitHan(DecodeCodePoints(a));
  const HanSplit y = SplitHan(DecodeCodePoints(b));
  QuestionBankResult r;
  r.other_similarity = x.other == y.other ? 1.0 : LevenshteinSimilarity(x.other, y.other);
  r.han_similarity = LevenshteinSimilarity(x.han, y.han);
  r.passed = r.other_similarity >= options.other_min && r.han_similarity >= options.han_min;
  return r;
}

}  // namespace neardup::verify
