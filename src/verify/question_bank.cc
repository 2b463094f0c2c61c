// SPDX-License-Identifier: Apache-2.0
#include "verify/question_bank.h"

#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <xxhash.h>

#include <algorithm>
#include <vector>

#include "verify/edit_distance.h"

namespace neardup::verify {

bool IsHan(char32_t c) {
  if ((c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF)) return true;
  if (c < 0x2E80) return false;
  UErrorCode err = U_ZERO_ERROR;
  return uscript_getScript(static_cast<UChar32>(c), &err) == USCRIPT_HAN && U_SUCCESS(err);
}

namespace {

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

bool IsAsciiAlnum(char32_t c) {
  return (c >= U'0' && c <= U'9') || (c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z');
}

bool IsSpace(char32_t c) { return u_isUWhiteSpace(static_cast<UChar32>(c)); }

// Positions of the option markers "A." "B." ... (in order, from A) in `text`.
std::vector<size_t> OptionMarkers(std::u32string_view text) {
  std::vector<size_t> at;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    const char32_t want = static_cast<char32_t>(U'a' + at.size());
    const char32_t c = text[i];
    if ((c | 0x20) != want || !((c >= U'a' && c <= U'h') || (c >= U'A' && c <= U'H'))) continue;
    const char32_t next = text[i + 1];
    const bool sep = next == U'.' || next == U'、' || next == U':' || next == U')' ||
                     next == U'：' || next == U'）';
    if (sep && (i == 0 || !IsAsciiAlnum(text[i - 1]))) at.push_back(i);
  }
  return at;
}

std::u32string_view Trim(std::u32string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

QuestionBankResult Compare(std::u32string_view a, std::u32string_view b,
                           const QuestionBankOptions& options) {
  const HanSplit x = SplitHan(a);
  const HanSplit y = SplitHan(b);
  QuestionBankResult r;
  r.other_similarity = x.other == y.other ? 1.0 : LevenshteinSimilarity(x.other, y.other);
  r.han_similarity = LevenshteinSimilarity(x.han, y.han);
  r.passed = r.other_similarity >= options.other_min && r.han_similarity >= options.han_min;
  return r;
}

}  // namespace

std::u32string CanonicalOptions(std::u32string_view text) {
  const std::vector<size_t> at = OptionMarkers(text);
  if (at.size() < 2) return std::u32string(text);
  std::vector<std::u32string_view> bodies;
  for (size_t j = 0; j < at.size(); ++j) {
    const size_t end = j + 1 < at.size() ? at[j + 1] : text.size();
    bodies.push_back(Trim(text.substr(at[j] + 2, end - at[j] - 2)));
  }
  std::sort(bodies.begin(), bodies.end());
  std::u32string out(text.substr(0, at[0]));
  for (size_t j = 0; j < at.size(); ++j) {
    out += text.substr(at[j], 2);
    out += bodies[j];
    out += U' ';
  }
  return out;
}

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
  std::u32string other = SplitHan(DecodeCodePoints(text)).other;
  std::sort(other.begin(), other.end());
  const uint64_t h = XXH3_64bits(other.data(), other.size() * sizeof(char32_t));
  return h == 0 ? 1 : h;
}

QuestionBankComparison CompareQuestions(std::string_view a, std::string_view b,
                                        const QuestionBankOptions& options) {
  QuestionBankComparison c{DecodeCodePoints(a), DecodeCodePoints(b), false, {}};
  c.result = Compare(c.a, c.b, options);
  if (c.result.passed) return c;
  std::u32string sa = CanonicalOptions(c.a), sb = CanonicalOptions(c.b);
  if (sa == c.a && sb == c.b) return c;
  // Options in another order: the texts with sorted option bodies.
  const QuestionBankResult s = Compare(sa, sb, options);
  auto score = [](const QuestionBankResult& q) {
    return std::min(q.han_similarity, q.other_similarity);
  };
  if (s.passed || score(s) > score(c.result)) {
    c = {std::move(sa), std::move(sb), true, s};
  }
  return c;
}

QuestionBankResult QuestionBankCompare(std::string_view a, std::string_view b,
                                       const QuestionBankOptions& options) {
  return CompareQuestions(a, b, options).result;
}

}  // namespace neardup::verify
