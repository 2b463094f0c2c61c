// SPDX-License-Identifier: Apache-2.0
//
// The framing of one HTTP/1.1 request head (request line and header
// fields, RFC 9112), read by the connection layer before a request thread
// runs: enough to frame the body, to refuse a request before its body is
// read (authentication, size), and to bound what a client may send.
//
// Lines end with CRLF. As in cpp-httplib, which parses the same head again
// to route the request, a header line that ends in a bare LF is ignored and
// the head ends at the first empty CRLF line.
//
// Thread safety: pure functions. Complexity: O(head bytes).
#ifndef NEARDUP_APPS_SERVER_HTTP_HEAD_H_
#define NEARDUP_APPS_SERVER_HTTP_HEAD_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace neardup::server {

// Views into the scanned buffer.
struct RequestHead {
  std::string_view method;
  std::string_view target;  // as sent: path and query, not decoded
  bool http10 = false;
  std::optional<uint64_t> content_length;  // absent: no body unless chunked
  bool chunked = false;                    // Transfer-Encoding: chunked
  bool expect_continue = false;            // Expect: 100-continue
  bool close = false;                      // Connection: close, or HTTP/1.0 without keep-alive
  std::string_view authorization;          // the first Authorization value
  std::string_view content_type;           // the first Content-Type value
  size_t size = 0;                         // bytes up to and including the empty line

  // The path of the target: up to '?' or '#'.
  std::string_view path() const { return target.substr(0, target.find_first_of("?#")); }
};

enum class HeadScan {
  kIncomplete,  // no empty line yet, within max_bytes
  kComplete,    // *head describes buf[0, head->size)
  kTooLarge,    // no empty line within max_bytes
  kBad,         // malformed request line or framing header
};

// Scans `buf` for one request head of at most `max_bytes`. kBad for: a
// request line that is not "METHOD SP TARGET SP HTTP/1.x"; a Content-Length
// that is not a decimal number or that differs between repetitions; a
// Transfer-Encoding other than "chunked" (no other coding is supported),
// or chunked together with Content-Length (ambiguous framing, RFC 9112
// 6.3); a header line without a name and colon.
HeadScan ScanRequestHead(std::string_view buf, size_t max_bytes, RequestHead* head);

}  // namespace neardup::server

#endif  // NEARDUP_APPS_SERVER_HTTP_HEAD_H_
