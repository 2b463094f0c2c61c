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

namespace {

// An operand character after folding: ASCII letter or digit.
bool IsOperandChar(char32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// The operator a code point stands for (0: none), full-width forms folded.
char32_t OperatorOf(char32_t c) {
  switch (c) {
    case '+':
    case '-':
    case '*':
    case '/':
    case '=':
    case '<':
    case '>':
    case '^':
    case 0xD7:
    case 0xF7:
    case 0x2260:
    case 0x2264:
    case 0x2265:
      return c;
    case 0x2212:  // minus sign
      return '-';
    default:
      return 0;
  }
}

bool IsBlankInExpression(char32_t c) { return c == ' ' || c == '\t' || c == 0x3000 || c == 0xA0; }

// '-' and '/' join words too ("Wi-Fi", "TCP/IP"): they make an expression
// only next to a number or a one-letter operand.
bool Mathematical(std::string_view left, char32_t op, std::string_view right) {
  if (op != '-' && op != '/') return true;
  auto math = [](std::string_view o) { return o.size() == 1 || (o[0] >= '0' && o[0] <= '9'); };
  return math(left) || math(right);
}

// A scanner over the folded code points of a text.
class Folded {
 public:
  explicit Folded(std::string_view text) : text_(text) {}
  bool done() const { return i_ >= text_.size(); }
  size_t pos() const { return i_; }
  void seek(size_t i) { i_ = i; }
  char32_t Next() {
    const int32_t c = base::DecodeUtf8(text_, &i_);
    if (c < 0) return 0xFFFD;
    const auto u = static_cast<char32_t>(c);
    return u >= 0xFF01 && u <= 0xFF5E ? u - 0xFEE0 : u;  // full-width ASCII
  }

 private:
  std::string_view text_;
  size_t i_ = 0;
};

// Reads an operand at the scanner (skipping white space first when
// `skip_space`); empty (scanner unmoved) when there is none.
std::string Operand(Folded* f, bool skip_space) {
  const size_t start = f->pos();
  char32_t c = 0;
  while (!f->done()) {
    const size_t at = f->pos();
    c = f->Next();
    if (skip_space && IsBlankInExpression(c)) continue;
    f->seek(at);
    break;
  }
  // A run of digits or a run of letters, not both: "77m/s" is "77 m/s".
  std::string out;
  while (!f->done()) {
    const size_t at = f->pos();
    c = f->Next();
    const bool digit = c >= '0' && c <= '9';
    if (!IsOperandChar(c) || (!out.empty() && digit != (out[0] >= '0' && out[0] <= '9'))) {
      f->seek(at);
      break;
    }
    out.push_back(static_cast<char>(c));
  }
  if (out.empty()) f->seek(start);
  return out;
}

// Reads an operator (after white space) at the scanner; 0 (unmoved) if none.
char32_t Operator(Folded* f) {
  const size_t start = f->pos();
  while (!f->done()) {
    const char32_t c = f->Next();
    if (IsBlankInExpression(c)) continue;
    if (const char32_t op = OperatorOf(c)) return op;
    break;
  }
  f->seek(start);
  return 0;
}

std::vector<std::string_view> Lines(std::string_view s) {
  std::vector<std::string_view> out;
  for (size_t at = 0; at < s.size();) {
    const size_t nl = s.find('\n', at);
    const size_t end = nl == std::string_view::npos ? s.size() : nl;
    out.push_back(s.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

}  // namespace

std::string Expressions(std::string_view raw) {
  std::string out;
  Folded f(raw);
  std::string left;  // the operand just read, where an expression may start
  while (!f.done()) {
    left = Operand(&f, false);
    if (left.empty()) {
      f.Next();
      continue;
    }
    std::string expr = left;
    bool joined = false;
    while (true) {
      const size_t at = f.pos();
      const char32_t op = Operator(&f);
      if (op == 0) break;
      const std::string right = Operand(&f, true);
      if (right.empty() || !Mathematical(left, op, right)) {
        f.seek(at);
        break;
      }
      base::AppendUtf8(static_cast<int32_t>(op), &expr);
      expr += right;
      left = right;
      joined = true;
    }
    if (joined) out.append(expr).push_back('\n');
  }
  return out;
}

Fact ChangedFact(const FactSide& a, const FactSide& b, bool numbers, bool words) {
  if (numbers && ChangedNumbers(a.normalized, b.normalized)) return Fact::kNumber;
  if (numbers && a.expressions && b.expressions &&
      SameCountOtherMultiset(Lines(*a.expressions), Lines(*b.expressions))) {
    return Fact::kExpression;
  }
  if (!words || !MostlyHan(a.normalized) || !MostlyHan(b.normalized)) return Fact::kNone;
  return SameCountOtherMultiset(LatinWords(a.normalized), LatinWords(b.normalized)) ? Fact::kWord
                                                                                    : Fact::kNone;
}

const char* FactName(Fact f) {
  switch (f) {
    case Fact::kNumber:
      return "a number";
    case Fact::kExpression:
      return "an expression";
    case Fact::kWord:
      return "a Latin word";
    case Fact::kNone:
      break;
  }
  return "nothing";
}

std::string FactList(const FactSide& side, Fact f) {
  std::vector<std::string> facts;
  if (f == Fact::kWord) {
    facts = LatinWords(side.normalized);
  } else if (f == Fact::kNumber) {
    for (std::string_view s : Numbers(side.normalized)) facts.emplace_back(s);
  } else if (f == Fact::kExpression && side.expressions) {
    for (std::string_view s : Lines(*side.expressions)) facts.emplace_back(s);
  }
  std::string out = "[";
  for (size_t i = 0; i < facts.size() && i < 8; ++i) out += (i ? ", " : "") + facts[i];
  return out + (facts.size() > 8 ? ", ...]" : "]");
}

}  // namespace neardup::verify
