// SPDX-License-Identifier: Apache-2.0
// Decisions from a request head (access_policy.h).
#include "server/access_policy.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

namespace neardup::server {
namespace {

// Compares in time that depends only on the lengths, not on the contents.
bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? a[i] : 0;
    const unsigned char y = i < b.size() ? b[i] : 0;
    diff |= x ^ y;
  }
  return diff == 0;
}

std::string LowerString(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

// The 4 or 16 bytes of an IP literal; empty when `s` is not one.
std::string AddressBytes(std::string_view s) {
  const std::string text(s);
  unsigned char buf[16];
  if (inet_pton(AF_INET, text.c_str(), buf) == 1) return std::string(buf, buf + 4);
  if (inet_pton(AF_INET6, text.c_str(), buf) == 1) {
    static const unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::memcmp(buf, kMapped, 12) == 0) return std::string(buf + 12, buf + 16);
    return std::string(buf, buf + 16);
  }
  return {};
}

bool IsLoopbackLiteral(std::string_view host) {
  const std::string b = AddressBytes(host);
  if (b.size() == 4) return static_cast<unsigned char>(b[0]) == 127;
  return b == std::string(15, '\0') + '\1';
}

// "scheme://authority" of an origin, lower-cased, without a trailing '/'.
std::string NormalizeOrigin(std::string_view origin) {
  std::string o = LowerString(TrimOws(origin));
  while (!o.empty() && o.back() == '/') o.pop_back();
  return o;
}

Refusal Refuse(int status, std::string code, std::string message) {
  return Refusal{status, std::move(code), std::move(message), {}};
}

// True for `application/json` or `application/x-ndjson`, with parameters.
bool IsJsonType(std::string_view type) {
  type = TrimOws(type.substr(0, type.find(';')));
  return EqualsNoCase(type, "application/json") || EqualsNoCase(type, "application/x-ndjson");
}

}  // namespace

std::string HostName(std::string_view authority) {
  authority = TrimOws(authority);
  if (authority.empty()) return {};
  std::string_view host;
  if (authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return {};
    host = authority.substr(1, close - 1);
    const std::string_view rest = authority.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return {};
  } else {
    const size_t colon = authority.rfind(':');
    host = authority.substr(0, colon);
    if (host.find(':') != std::string_view::npos) return {};
  }
  for (char c : host) {
    if (c == '/' || c == '@' || c == ' ' || c == '\\') return {};
  }
  return LowerString(host);
}

AccessPolicy::AccessPolicy(AccessOptions options) : o_(std::move(options)) {
  for (std::string& origin : o_.cors_origins) origin = NormalizeOrigin(origin);
  for (std::string& host : o_.allowed_hosts) host = LowerString(host);
}

std::optional<Refusal> AccessPolicy::CheckHost(const Request& head,
                                               const LocalAddress& local) const {
  size_t hosts = 0;
  for (const HeaderField& f : head.headers) hosts += EqualsNoCase(f.name, "Host");
  if (hosts > 1) return Refuse(400, "bad_request", "more than one Host header");
  const std::string_view host = head.Header("Host");
  if (host.empty()) {
    if (head.version >= 11) return Refuse(400, "bad_request", "HTTP/1.1 requests need a Host");
    return std::nullopt;  // HTTP/1.0 may omit it; no browser does
  }
  const std::string name = HostName(host);
  if (!name.empty()) {
    if (local.loopback && (name == "localhost" || IsLoopbackLiteral(name))) return std::nullopt;
    const std::string bytes = AddressBytes(name);
    if (!bytes.empty() && bytes == AddressBytes(local.ip)) return std::nullopt;
    for (const std::string& allowed : o_.allowed_hosts) {
      if (allowed == "*" || allowed == name) return std::nullopt;
    }
  }
  return Refuse(421, "misdirected_request",
                "Host '" + std::string(host.substr(0, 256)) +
                    "' is not this server's address; allow a name with --allowed-host");
}

bool AccessPolicy::IsCorsOrigin(std::string_view origin) const {
  const std::string o = NormalizeOrigin(origin);
  return std::find(o_.cors_origins.begin(), o_.cors_origins.end(), o) != o_.cors_origins.end();
}

std::optional<Refusal> AccessPolicy::CheckOrigin(const Request& head) const {
  if (!head.HasHeader("Origin")) return std::nullopt;
  const std::string origin = NormalizeOrigin(head.Header("Origin"));
  for (std::string_view scheme : {"http://", "https://"}) {
    if (origin.compare(0, scheme.size(), scheme) == 0 &&
        EqualsNoCase(std::string_view(origin).substr(scheme.size()),
                     TrimOws(head.Header("Host")))) {
      return std::nullopt;  // the server's own origin: the console
    }
  }
  if (IsCorsOrigin(origin)) return std::nullopt;
  return Refuse(403, "forbidden_origin",
                "requests from origin '" + origin.substr(0, 256) +
                    "' are not allowed; allow it with --cors-origin");
}

bool AccessPolicy::Authorized(std::string_view method, std::string_view path,
                              std::string_view authorization) const {
  // Open: health, the console's page and files (they hold no data; the page
  // sends the token with its API calls), and OPTIONS (preflights carry no
  // credentials, and the answer is only the allowed methods).
  if (o_.token.empty() || method == "OPTIONS" || path == "/healthz" || path == "/" ||
      path.substr(0, 9) == "/console/") {
    return true;
  }
  const std::string_view auth = TrimOws(authorization);
  const size_t sp = auth.find(' ');
  if (sp == std::string_view::npos || !EqualsNoCase(auth.substr(0, sp), "Bearer")) return false;
  return ConstantTimeEquals(TrimOws(auth.substr(sp + 1)), o_.token);
}

std::optional<Refusal> AccessPolicy::CheckBody(const Request& head,
                                               std::optional<uint64_t> content_length,
                                               bool chunked) const {
  if (head.HasHeader("Transfer-Encoding")) {
    // The parser accepts any final coding; only a lone `chunked` frames a
    // request we can read.
    for (const HeaderField& f : head.headers) {
      if (EqualsNoCase(f.name, "Transfer-Encoding") && !EqualsNoCase(TrimOws(f.value), "chunked")) {
        return Refuse(400, "bad_request", "Transfer-Encoding other than chunked is not supported");
      }
    }
  }
  const bool declares_body = chunked || content_length.value_or(0) > 0;
  const std::string_view m = head.method;
  if ((declares_body || m == "POST" || m == "PUT" || m == "PATCH") &&
      !IsJsonType(head.Header("Content-Type"))) {
    return Refuse(415, "unsupported_media_type",
                  "request bodies must be sent with 'Content-Type: application/json'");
  }
  if (content_length && *content_length > o_.max_body_bytes) {
    return Refuse(413, "payload_too_large",
                  "request body of " + std::to_string(*content_length) +
                      " bytes is over the limit of " + std::to_string(o_.max_body_bytes));
  }
  return std::nullopt;
}

std::optional<Refusal> AccessPolicy::Check(const Request& head,
                                           std::optional<uint64_t> content_length, bool chunked,
                                           const LocalAddress& local) const {
  if (auto r = CheckHost(head, local)) return r;
  if (auto r = CheckOrigin(head)) return r;
  const std::string_view path =
      std::string_view(head.target).substr(0, head.target.find_first_of("?#"));
  if (!Authorized(head.method, path, head.Header("Authorization"))) {
    Refusal r =
        Refuse(401, "unauthorized", "a valid 'Authorization: Bearer <token>' header is required");
    r.headers.push_back({"WWW-Authenticate", "Bearer realm=\"neardup\""});
    return r;
  }
  if (head.target.size() > kMaxTargetBytes) {
    return Refuse(414, "uri_too_long",
                  "request target over " + std::to_string(kMaxTargetBytes) + " bytes");
  }
  return CheckBody(head, content_length, chunked);
}

void AccessPolicy::AddCorsHeaders(const Request& req, std::string_view allow, Response* res) const {
  const std::string_view origin = req.Header("Origin");
  if (origin.empty() || !IsCorsOrigin(origin)) return;
  res->SetHeader("Access-Control-Allow-Origin", std::string(TrimOws(origin)));
  res->SetHeader("Vary", "Origin");
  if (req.method == "OPTIONS" && req.HasHeader("Access-Control-Request-Method")) {
    res->SetHeader("Access-Control-Allow-Methods", std::string(allow));
    res->SetHeader("Access-Control-Allow-Headers", "Authorization, Content-Type");
    res->SetHeader("Access-Control-Max-Age", "600");
  }
}

}  // namespace neardup::server
