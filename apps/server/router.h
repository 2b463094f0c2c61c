// SPDX-License-Identifier: Apache-2.0
//
// The request router of the HTTP service: matches a method and a request
// target against a table of path patterns. Ids are data, not paths: a
// pattern holds at most one `{id}`, which matches the raw (still encoded)
// text between the pattern's literal prefix and suffix, one or more path
// segments, and is percent-decoded after matching. So `/v1/documents/a%2Fb`
// is the document "a/b", and `/v1/documents/a%2Fsimilar` the document
// "a/similar", while `/v1/documents/a/similar` is the similar-documents
// route of "a" (its pattern comes first). The query is split on '&' and
// '=' and decoded ('+' is a space).
//
// Answers: the first pattern (in table order) that matches the path is the
// resource. A method it lists runs that row's handler; HEAD runs GET's; OPTIONS
// answers which methods the resource allows; another known method (RFC 9110:
// TRACE, CONNECT, ...) is 405; a method no one knows is 501; a path no
// pattern matches is 404; a malformed percent-escape is 400.
//
// Thread safety: Add() while setting up; Match() from any thread after.
// Complexity: Match() is O(rows + target length).
#ifndef NEARDUP_APPS_SERVER_ROUTER_H_
#define NEARDUP_APPS_SERVER_ROUTER_H_

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/http_message.h"

namespace neardup::server {

using Handler = std::function<void(const Request&, Response&)>;

struct RouterEntry {
  std::string method;   // GET, POST, DELETE, PUT or PATCH
  std::string pattern;  // a path, with at most one "{id}"
  std::string name;     // the `route` label of the request metrics
  Handler handler;
  bool waits = false;  // Route::waits
};

struct RouteMatch {
  enum class Kind {
    kFound,             // entry and id are set
    kOptions,           // OPTIONS on a resource: allow is set
    kNotFound,          // 404
    kMethodNotAllowed,  // 405: allow is set
    kNotImplemented,    // 501: an unknown method
    kBadTarget,         // 400: not origin-form, or a bad percent-escape
  };
  Kind kind = Kind::kNotFound;
  const RouterEntry* entry = nullptr;
  std::string id;     // the decoded {id}
  std::string allow;  // the Allow header: "GET, HEAD, OPTIONS"
  std::vector<std::pair<std::string, std::string>> params;
};

class Router {
 public:
  void Add(RouterEntry entry);
  // `target` is origin-form ("/path?query") or "*" (OPTIONS only).
  RouteMatch Match(std::string_view method, std::string_view target) const;

 private:
  std::string AllowOf(std::string_view pattern) const;
  std::vector<RouterEntry> entries_;
};

// Percent-decodes `in` into `out`; with `plus_is_space`, '+' is a space (a
// query). False on a '%' not followed by two hex digits.
bool PercentDecode(std::string_view in, bool plus_is_space, std::string* out);
// Percent-encodes every byte but the unreserved ones (RFC 3986: letters,
// digits, "-._~"), as JavaScript's encodeURIComponent does and more.
std::string PercentEncode(std::string_view in);
// The decoded "name=value" pairs of a query ("a=1&b" gives b ""). False on
// a bad escape.
bool ParseQuery(std::string_view query, std::vector<std::pair<std::string, std::string>>* out);
// True for the methods RFC 9110 and RFC 5789 define.
bool IsKnownMethod(std::string_view method);

}  // namespace neardup::server

#endif  // NEARDUP_APPS_SERVER_ROUTER_H_
