// SPDX-License-Identifier: Apache-2.0
// Request-head scanning (http_head.h).
#include "server/http_head.h"

namespace neardup::server {
namespace {

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x + 32);
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y + 32);
    if (x != y) return false;
  }
  return true;
}

std::string_view TrimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// True when the comma-separated list `value` holds `token` (any case).
bool HasToken(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    const size_t comma = value.find(',');
    if (EqualsNoCase(TrimOws(value.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

bool IsTokenChar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool ParseRequestLine(std::string_view line, RequestHead* h) {
  const size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos || sp1 == 0) return false;
  const size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || sp2 == sp1 + 1) return false;
  h->method = line.substr(0, sp1);
  for (char c : h->method) {
    if (!IsTokenChar(c)) return false;
  }
  h->target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (version == "HTTP/1.0") {
    h->http10 = true;
  } else if (version != "HTTP/1.1") {
    return false;
  }
  return true;
}

bool ParseLength(std::string_view v, uint64_t* out) {
  if (v.empty() || v.size() > 18) return false;
  uint64_t n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = n;
  return true;
}

// Applies one "name: value" line. False on a malformed framing header.
bool ParseField(std::string_view line, RequestHead* h, bool* keep_alive) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  const std::string_view name = line.substr(0, colon);
  for (char c : name) {
    if (!IsTokenChar(c)) return false;
  }
  const std::string_view value = TrimOws(line.substr(colon + 1));
  if (EqualsNoCase(name, "Content-Length")) {
    uint64_t n = 0;
    if (!ParseLength(value, &n)) return false;
    if (h->content_length && *h->content_length != n) return false;
    h->content_length = n;
  } else if (EqualsNoCase(name, "Transfer-Encoding")) {
    if (!EqualsNoCase(value, "chunked")) return false;
    h->chunked = true;
  } else if (EqualsNoCase(name, "Expect")) {
    h->expect_continue = EqualsNoCase(value, "100-continue");
  } else if (EqualsNoCase(name, "Connection")) {
    if (HasToken(value, "close")) h->close = true;
    if (HasToken(value, "keep-alive")) *keep_alive = true;
  } else if (EqualsNoCase(name, "Authorization") && h->authorization.empty()) {
    h->authorization = value;
  } else if (EqualsNoCase(name, "Content-Type") && h->content_type.empty()) {
    h->content_type = value;
  }
  return true;
}

}  // namespace

HeadScan ScanRequestHead(std::string_view buf, size_t max_bytes, RequestHead* head) {
  *head = RequestHead();
  bool keep_alive = false;
  size_t pos = 0;
  for (bool first = true;; first = false) {
    const size_t nl = buf.find('\n', pos);
    if (nl == std::string_view::npos || nl + 1 > max_bytes) {
      return buf.size() > max_bytes || nl != std::string_view::npos ? HeadScan::kTooLarge
                                                                    : HeadScan::kIncomplete;
    }
    const std::string_view line = buf.substr(pos, nl - pos);  // without '\n'
    pos = nl + 1;
    const bool crlf = !line.empty() && line.back() == '\r';
    const std::string_view text = crlf ? line.substr(0, line.size() - 1) : line;
    if (first) {
      if (!crlf || !ParseRequestLine(text, head)) return HeadScan::kBad;
      continue;
    }
    if (!crlf) continue;  // ignored, as cpp-httplib does
    if (text.empty()) break;
    if (!ParseField(text, head, &keep_alive)) return HeadScan::kBad;
  }
  if (head->chunked && head->content_length) return HeadScan::kBad;
  if (head->http10 && !keep_alive) head->close = true;
  head->size = pos;
  return HeadScan::kComplete;
}

}  // namespace neardup::server
