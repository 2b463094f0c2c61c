// SPDX-License-Identifier: Apache-2.0
//
// The request and response of one HTTP exchange as the route handlers see
// them (route.h), independent of the transport that framed them
// (transport.h). Header names compare without case (RFC 9110 5.1).
//
// Thread safety: plain values; one thread at a time.
#ifndef NEARDUP_APPS_SERVER_HTTP_MESSAGE_H_
#define NEARDUP_APPS_SERVER_HTTP_MESSAGE_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace neardup::server {

// ASCII case-insensitive equality (header names, tokens, schemes).
bool EqualsNoCase(std::string_view a, std::string_view b);
// `s` without leading and trailing spaces and tabs.
std::string_view TrimOws(std::string_view s);

struct HeaderField {
  std::string name;
  std::string value;
};

// The first value of header `name` in `fields`, or "" when absent.
std::string_view FindHeader(const std::vector<HeaderField>& fields, std::string_view name);

struct Request {
  std::string method;  // as sent: a case-sensitive token
  std::string target;  // as sent: origin-form path and query, not decoded
  int version = 11;    // 10 (HTTP/1.0) or 11
  std::vector<HeaderField> headers;
  std::string body;

  // Filled by the router (router.h) from the target:
  std::string id;  // the decoded {id} of the route's pattern; "" without one
  std::vector<std::pair<std::string, std::string>> params;  // decoded query, in order

  std::string_view Header(std::string_view name) const { return FindHeader(headers, name); }
  bool HasHeader(std::string_view name) const;
  bool HasParam(std::string_view name) const;
  // The first value of query parameter `name`, or "" when absent.
  std::string Param(std::string_view name) const;
};

struct Response {
  int status = 200;
  std::string body;
  std::vector<HeaderField> headers;  // Content-Length and Connection are the transport's

  // Sets the body and its Content-Type.
  void SetContent(std::string content, std::string_view type);
  // Sets header `name` to `value`, replacing any value it had.
  void SetHeader(std::string_view name, std::string value);
  bool HasHeader(std::string_view name) const;
  std::string_view Header(std::string_view name) const { return FindHeader(headers, name); }
};

// The reason phrase of a status code ("Not Found"); "" for unknown codes.
std::string_view ReasonPhrase(int status);

}  // namespace neardup::server

#endif  // NEARDUP_APPS_SERVER_HTTP_MESSAGE_H_
