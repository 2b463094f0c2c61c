// SPDX-License-Identifier: Apache-2.0
#include "verify/numbers.h"

#include <algorithm>

#include "base/utf8.h"
#include "verify/question_bank.h"

namespace neardup::verify {
namespace {

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

template <typename T>
bool SameCountOtherMultiset(std::vector<T> x, std::vector<T> y) {
  if (x.size() != y.size()) return false;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x != y;
}

}  // namespace

std::vector<std::string_view> Numbers(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] < '0' || text[i] > '9') {
      ++i;
      continue;
    }
    const size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    out.push_back(text.substr(start, i - start));
  }
  return out;
}

bool ChangedNumbers(std::string_view a, std::string_view b) {
  return SameCountOtherMultiset(Numbers(a), Numbers(b));
}

std::vector<std::string> LatinWords(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    if (!IsAsciiLetter(text[i])) {
      ++i;
      continue;
    }
    std::string word;
    for (; i < text.size() && IsAsciiLetter(text[i]); ++i) word.push_back(text[i] | 0x20);
    out.push_back(std::move(word));
  }
  return out;
}

bool MostlyHan(std::string_view text) {
  size_t han = 0, letters = 0, i = 0;
  while (i < text.size()) {
    const int32_t c = base::DecodeUtf8(text, &i);  // -1 for a bad byte: neither
    if (c < 0) continue;
    han += IsHan(static_cast<char32_t>(c));
    letters += c < 0x80 && IsAsciiLetter(static_cast<char>(c));
  }
  return han > letters;
}

Fact ChangedFact(std::string_view a, std::string_view b, bool numbers, bool words) {
  if (numbers && ChangedNumbers(a, b)) return Fact::kNumber;
  if (!words || !MostlyHan(a) || !MostlyHan(b)) return Fact::kNone;
  return SameCountOtherMultiset(LatinWords(a), LatinWords(b)) ? Fact::kWord : Fact::kNone;
}

const char* FactName(Fact f) {
  switch (f) {
    case Fact::kNumber:
      return "a number";
    case Fact::kWord:
      return "a Latin word";
    case Fact::kNone:
      break;
  }
  return "nothing";
}

std::string FactList(std::string_view text, Fact f) {
  std::vector<std::string> facts;
  if (f == Fact::kWord) {
    facts = LatinWords(text);
  } else if (f == Fact::kNumber) {
    for (std::string_view s : Numbers(text)) facts.emplace_back(s);
  }
  std::string out = "[";
  for (size_t i = 0; i < facts.size() && i < 8; ++i) out += (i ? ", " : "") + facts[i];
  return out + (facts.size() > 8 ? ", ...]" : "]");
}

}  // namespace neardup::verify
