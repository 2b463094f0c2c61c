// SPDX-License-Identifier: Apache-2.0
//
// Who may ask what, decided from a request's head alone, before any of its
// body is read (docs/api.md "Browsers and the network"). In order:
//
//   1. Host. HTTP/1.1 needs one, and no request may carry two (400).
//      Its name (the port is not compared) must be the address the
//      connection arrived on, `localhost` or a
//      loopback address when that address is loopback, or a name given
//      with --allowed-host ("*" allows any): otherwise 421
//      `misdirected_request`. This defeats DNS rebinding, where a page of
//      attacker.example resolves its own name to this server.
//   2. Origin. A request a browser sends from a page carries an Origin; it
//      must be the server's own origin (http or https and the Host of the
//      request) or one of the --cors-origin list: otherwise 403
//      `forbidden_origin`. Allowed foreign origins get CORS headers.
//   3. Token. With one configured, every path but /healthz and the
//      console's files, and every method but OPTIONS (preflights carry no
//      credentials), needs `Authorization: Bearer <token>`; the scheme is
//      matched without case (RFC 9110 11.1) and the token in constant
//      time. Otherwise 401 with WWW-Authenticate.
//   4. Framing. A Transfer-Encoding other than a lone `chunked` is 400
//      (RFC 9112 6.1: no other coding is supported); a target over 8 KiB
//      is 414.
//   5. Content type. POST, PUT and PATCH, and any request that declares a
//      body, need `Content-Type: application/json` (NDJSON batches may say
//      `application/x-ndjson`): otherwise 415 `unsupported_media_type`.
//      Browsers send no other type without a CORS preflight, so a page
//      elsewhere cannot write with a form or a "simple" fetch.
//   6. Size. A declared Content-Length over --max-body is 413.
//
// Thread safety: immutable after construction; Check() from any thread.
// Complexity: linear in the head.
#ifndef NEARDUP_APPS_SERVER_ACCESS_POLICY_H_
#define NEARDUP_APPS_SERVER_ACCESS_POLICY_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/http_message.h"

namespace neardup::server {

struct AccessOptions {
  std::string token;                       // empty: no authentication
  std::vector<std::string> cors_origins;   // "https://desk.example.com", beyond the own origin
  std::vector<std::string> allowed_hosts;  // host names beyond the local address; "*" any
  size_t max_body_bytes = 32u << 20;
};

// Where a connection arrived: the local address as text ("127.0.0.1",
// "::1"; an IPv4-mapped IPv6 address as its IPv4 text).
struct LocalAddress {
  std::string ip;
  bool loopback = false;
};

// A refusal from the head: its status, error code and message, and extra
// headers (WWW-Authenticate). The connection closes after it.
struct Refusal {
  int status = 400;
  std::string code;
  std::string message;
  std::vector<HeaderField> headers;
};

class AccessPolicy {
 public:
  static constexpr size_t kMaxTargetBytes = 8 << 10;

  explicit AccessPolicy(AccessOptions options);

  // `head` is a request without its body yet; `content_length` and
  // `chunked` its framing as the parser read it.
  std::optional<Refusal> Check(const Request& head, std::optional<uint64_t> content_length,
                               bool chunked, const LocalAddress& local) const;

  // True when `origin` may call the API cross-origin (a --cors-origin).
  bool IsCorsOrigin(std::string_view origin) const;
  // Adds the CORS headers to the answer of an allowed cross-origin
  // request; for a preflight (OPTIONS with Access-Control-Request-Method),
  // also the methods (`allow`) and request headers it may use.
  void AddCorsHeaders(const Request& req, std::string_view allow, Response* res) const;

  // True when no token is needed for `path` or `authorization` carries it.
  bool Authorized(std::string_view method, std::string_view path,
                  std::string_view authorization) const;

 private:
  std::optional<Refusal> CheckHost(const Request& head, const LocalAddress& local) const;
  std::optional<Refusal> CheckOrigin(const Request& head) const;
  std::optional<Refusal> CheckBody(const Request& head, std::optional<uint64_t> content_length,
                                   bool chunked) const;

  AccessOptions o_;
};

// The host name of a Host header value or an origin's authority: without
// the port, without IPv6 brackets, lower-cased. Empty when malformed.
std::string HostName(std::string_view authority);

}  // namespace neardup::server

#endif  // NEARDUP_APPS_SERVER_ACCESS_POLICY_H_
