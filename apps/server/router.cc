// SPDX-License-Identifier: Apache-2.0
// The request router (router.h).
#include "server/router.h"

#include <array>

namespace neardup::server {
namespace {

constexpr std::string_view kIdSlot = "{id}";

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Matches the raw `path` against `pattern`; on a match, `*raw_id` is the
// still-encoded text of {id} (empty for a pattern without one).
bool MatchPattern(std::string_view pattern, std::string_view path, std::string_view* raw_id) {
  const size_t slot = pattern.find(kIdSlot);
  if (slot == std::string_view::npos) {
    *raw_id = {};
    return pattern == path;
  }
  const std::string_view prefix = pattern.substr(0, slot);
  const std::string_view suffix = pattern.substr(slot + kIdSlot.size());
  if (path.size() <= prefix.size() + suffix.size()) return false;  // {id} is never empty
  if (path.substr(0, prefix.size()) != prefix) return false;
  if (path.substr(path.size() - suffix.size()) != suffix) return false;
  *raw_id = path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  return true;
}

}  // namespace

bool PercentDecode(std::string_view in, bool plus_is_space, std::string* out) {
  out->clear();
  out->reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return false;
      const int hi = HexValue(in[i + 1]), lo = HexValue(in[i + 2]);
      if (hi < 0 || lo < 0) return false;
      out->push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      out->push_back(plus_is_space && c == '+' ? ' ' : c);
    }
  }
  return true;
}

std::string PercentEncode(std::string_view in) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(in.size());
  for (unsigned char c : in) {
    const bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

bool ParseQuery(std::string_view query, std::vector<std::pair<std::string, std::string>>* out) {
  out->clear();
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    std::string key, value;
    if (!PercentDecode(part.substr(0, eq), true, &key)) return false;
    if (eq != std::string_view::npos && !PercentDecode(part.substr(eq + 1), true, &value)) {
      return false;
    }
    out->emplace_back(std::move(key), std::move(value));
  }
  return true;
}

bool IsKnownMethod(std::string_view method) {
  static constexpr std::array<std::string_view, 9> kKnown = {
      "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"};
  for (std::string_view m : kKnown) {
    if (m == method) return true;
  }
  return false;
}

void Router::Add(RouterEntry entry) { entries_.push_back(std::move(entry)); }

std::string Router::AllowOf(std::string_view pattern) const {
  std::string allow;
  for (const RouterEntry& e : entries_) {
    if (e.pattern != pattern) continue;
    allow += (allow.empty() ? "" : ", ") + e.method;
    if (e.method == "GET") allow += ", HEAD";
  }
  return allow + (allow.empty() ? "" : ", ") + "OPTIONS";
}

RouteMatch Router::Match(std::string_view method, std::string_view target) const {
  RouteMatch m;
  if (!IsKnownMethod(method)) {
    m.kind = RouteMatch::Kind::kNotImplemented;
    return m;
  }
  if (target == "*") {
    m.kind = method == "OPTIONS" ? RouteMatch::Kind::kOptions : RouteMatch::Kind::kBadTarget;
    m.allow = "GET, HEAD, POST, DELETE, OPTIONS";
    return m;
  }
  if (target.empty() || target.front() != '/') {
    m.kind = RouteMatch::Kind::kBadTarget;
    return m;
  }
  const size_t q = target.find_first_of("?#");
  const std::string_view path = target.substr(0, q);
  if (q != std::string_view::npos && target[q] == '?') {
    std::string_view query = target.substr(q + 1);
    query = query.substr(0, query.find('#'));
    if (!ParseQuery(query, &m.params)) {
      m.kind = RouteMatch::Kind::kBadTarget;
      return m;
    }
  }
  const std::string_view want = method == "HEAD" ? std::string_view("GET") : method;
  for (const RouterEntry& e : entries_) {
    std::string_view raw_id;
    if (!MatchPattern(e.pattern, path, &raw_id)) continue;
    // The first matching pattern is the resource.
    if (!PercentDecode(raw_id, false, &m.id)) {
      m.kind = RouteMatch::Kind::kBadTarget;
      return m;
    }
    for (const RouterEntry& r : entries_) {
      if (r.pattern == e.pattern && r.method == want) {
        m.kind = RouteMatch::Kind::kFound;
        m.entry = &r;
        return m;
      }
    }
    m.allow = AllowOf(e.pattern);
    m.kind = method == "OPTIONS" ? RouteMatch::Kind::kOptions : RouteMatch::Kind::kMethodNotAllowed;
    return m;
  }
  m.kind = RouteMatch::Kind::kNotFound;
  return m;
}

}  // namespace neardup::server
