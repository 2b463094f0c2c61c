// SPDX-License-Identifier: Apache-2.0
#include "verify/question_bank.h"

#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <xxhash.h>

#include "verify/edit_distance.h"

namespace neardup::verify {
namespace {

bool IsHan(char32_t c) {
  if ((c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF)) return true;
  if (c < 0x2E80) return false;
  UErrorCode err = U_ZERO_ERROR;
  return uscript_getScript(static_cast<UChar32>(c), &err) == USCRIPT_HAN && U_SUCCESS(err);
}

bool IsDigit(char32_t c) { return c >= U'0' && c <= U'9'; }

// White space and punctuation are dropped, except the punctuation that is
// arithmetic: - (minus) / % * and a '.' between two digits (decimal point).
bool KeepInOther(std::u32string_view text, size_t i) {
  const char32_t c = text[i];
  if (u_isUWhiteSpace(static_cast<UChar32>(c))) return false;
  if (!(U_GET_GC_MASK(static_cast<UChar32>(c)) & U_GC_P_MASK)) return true;
  if (c == U'-' || c == U'/' || c == U'%' || c == U'*') return true;
  return c == U'.' && i > 0 && i + 1 < text.size() && IsDigit(text[i - 1]) && IsDigit(text[i + 1]);
}

}  // namespace

HanSplit SplitHan(std::u32string_view text) {
  HanSplit s;
  for (size_t i = 0; i < text.size(); ++i) {
    const char32_t c = text[i];
    if (IsHan(c)) {
      s.han.push_back(c);
    } else if (KeepInOther(text, i)) {
      s.other.push_back(c);
    }
  }
  return s;
}

uint64_t OtherPartKey(std::string_view text) {
  const std::u32string other = SplitHan(DecodeCodePoints(text)).other;
  const uint64_t h = XXH3_64bits(other.data(), other.size() * sizeof(char32_t));
  return h == 0 ? 1 : h;
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
