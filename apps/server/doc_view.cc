// SPDX-License-Identifier: Apache-2.0
#include "server/doc_view.h"

#include <algorithm>

namespace neardup::server {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f'; }

char LowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// `s` with each run of whitespace (ASCII, and the ideographic space U+3000)
// replaced by one space, trimmed; stops after about `max_bytes` bytes.
std::string Collapse(std::string_view s, size_t max_bytes) {
  std::string out;
  bool space = false;
  for (size_t i = 0; i < s.size() && out.size() < max_bytes; ++i) {
    const bool ideographic = s.compare(i, 3, "\xE3\x80\x80") == 0;
    if (IsSpace(s[i]) || ideographic) {
      space = true;
      if (ideographic) i += 2;
      continue;
    }
    if (space && !out.empty()) out.push_back(' ');
    space = false;
    out.push_back(s[i]);
  }
  return out;
}

}  // namespace

std::string TruncateChars(std::string_view s, size_t max_chars) {
  size_t chars = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;  // continuation byte
    if (chars++ == max_chars) return std::string(s.substr(0, i)) + "\xE2\x80\xA6";
  }
  return std::string(s);
}

DocView MakeDocView(const Json& meta, const std::optional<std::string>& text) {
  DocView v;
  std::string_view body = text ? std::string_view(*text) : std::string_view();
  if (meta.is_object()) {
    if (auto t = meta.find("title"); t != meta.end() && t->is_string()) {
      v.title = TruncateChars(Collapse(t->get_ref<const std::string&>(), 4 * kTitleChars + 8),
                              kTitleChars);
    }
  }
  if (v.title.empty()) {
    // The first line with something on it is the headline.
    while (!body.empty()) {
      const size_t nl = body.find('\n');
      std::string line = Collapse(body.substr(0, nl), 4 * kTitleChars + 8);
      body = nl == std::string_view::npos ? std::string_view() : body.substr(nl + 1);
      if (!line.empty()) {
        v.title = TruncateChars(line, kTitleChars);
        break;
      }
    }
  }
  const std::string collapsed = Collapse(body, 4 * kSnippetChars + 8);
  v.snippet = TruncateChars(collapsed, kSnippetChars);
  constexpr std::string_view kEllipsis = "\xE2\x80\xA6";
  if (v.snippet != collapsed) {
    // Cut: back up out of a Latin word (20 bytes at most), drop a trailing space.
    std::string head = v.snippet.substr(0, v.snippet.size() - kEllipsis.size());
    auto letter = [](char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; };
    const size_t space = head.rfind(' ');
    if (!head.empty() && letter(head.back()) && letter(collapsed[head.size()]) &&
        space != std::string::npos && head.size() - space <= 20) {
      head.resize(space);
    }
    while (!head.empty() && head.back() == ' ') head.pop_back();
    v.snippet = head + std::string(kEllipsis);
  }
  return v;
}

std::vector<std::string> FilterTerms(std::string_view q) {
  std::vector<std::string> terms;
  std::string cur;
  for (size_t i = 0; i <= q.size(); ++i) {
    if (i == q.size() || IsSpace(q[i])) {
      if (!cur.empty()) terms.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back(LowerAscii(q[i]));
    }
  }
  return terms;
}

bool MatchesTerms(std::string_view title, const std::vector<std::string>& terms) {
  std::string lower(title);
  std::transform(lower.begin(), lower.end(), lower.begin(), LowerAscii);
  return std::all_of(terms.begin(), terms.end(),
                     [&](const std::string& t) { return lower.find(t) != std::string::npos; });
}

}  // namespace neardup::server
