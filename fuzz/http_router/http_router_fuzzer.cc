// SPDX-License-Identifier: Apache-2.0
// Fuzzes the request router of the HTTP service (apps/server/router.h) over
// the API's route table and the console's. Properties:
//   - any method and target: Match() answers one of its kinds; a found
//     route has the request's method (GET for HEAD), a 405 or an OPTIONS
//     answer lists the allowed methods, and an {id} is never empty;
//   - ids are data: any non-empty id, percent-encoded in full (as
//     encodeURIComponent does) or only where it must be ('%', '/', '?',
//     '#'), reaches the get, delete, similar and cluster routes with
//     exactly that id, and a query round-trips its parameters;
//   - PercentDecode inverts PercentEncode.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "server/console.h"
#include "server/route.h"
#include "server/router.h"

namespace {

using namespace neardup::server;

const Router& TheRouter() {
  static const Router* router = [] {
    auto* r = new Router();
    for (const Route& route : ApiRoutes()) {
      r->Add({std::string(route.method), std::string(route.pattern), std::string(route.name),
              nullptr});
    }
    RegisterConsole(*r);
    return r;
  }();
  return *router;
}

// Encodes only what a path segment cannot hold as it is.
std::string EncodeMinimal(const std::string& id) {
  std::string out;
  for (char c : id) {
    if (c == '%' || c == '/' || c == '?' || c == '#') {
      out += PercentEncode(std::string(1, c));
    } else {
      out += c;
    }
  }
  return out;
}

void CheckAny(const std::string& method, const std::string& target) {
  const RouteMatch m = TheRouter().Match(method, target);
  using Kind = RouteMatch::Kind;
  if (m.kind == Kind::kFound) {
    FUZZ_CHECK(m.entry != nullptr);
    FUZZ_CHECK(m.entry->method == (method == "HEAD" ? std::string("GET") : method));
    FUZZ_CHECK((m.entry->pattern.find("{id}") == std::string::npos) == m.id.empty());
  }
  if (m.kind == Kind::kMethodNotAllowed || m.kind == Kind::kOptions) {
    FUZZ_CHECK(m.allow.find("OPTIONS") != std::string::npos);
    FUZZ_CHECK(m.allow.find(method) == std::string::npos || method == "OPTIONS");
  }
  if (!IsKnownMethod(method)) FUZZ_CHECK(m.kind == Kind::kNotImplemented);
}

void CheckRoute(const char* method, const std::string& target, const char* name,
                const std::string& id) {
  const RouteMatch m = TheRouter().Match(method, target);
  FUZZ_CHECK(m.kind == RouteMatch::Kind::kFound);
  FUZZ_CHECK(m.entry->name == name);
  FUZZ_CHECK(m.id == id);
}

void CheckId(const std::string& id, const std::string& value) {
  FUZZ_CHECK(!id.empty());
  for (const std::string& e : {PercentEncode(id), EncodeMinimal(id)}) {
    CheckRoute("GET", "/v1/documents/" + e, "get", id);
    CheckRoute("HEAD", "/v1/documents/" + e, "get", id);
    CheckRoute("DELETE", "/v1/documents/" + e, "delete", id);
    CheckRoute("GET", "/v1/documents/" + e + "/similar?limit=" + PercentEncode(value), "similar",
               id);
    CheckRoute("GET", "/v1/clusters/" + e, "cluster", id);
  }
  const RouteMatch m = TheRouter().Match(
      "GET", "/v1/clusters?q=" + PercentEncode(value) + "&cursor=" + PercentEncode(id));
  FUZZ_CHECK(m.kind == RouteMatch::Kind::kFound && m.params.size() == 2);
  FUZZ_CHECK(m.params[0].first == "q" && m.params[0].second == value);
  FUZZ_CHECK(m.params[1].first == "cursor" && m.params[1].second == id);
  std::string back;
  FUZZ_CHECK(PercentDecode(PercentEncode(value), false, &back) && back == value);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const std::string method = in.ConsumeRandomLengthString(12);
  const std::string target = in.ConsumeRandomLengthString(512);
  CheckAny(method, target);
  const std::string value = in.ConsumeRandomLengthString(64);
  if (!target.empty()) CheckId(target, value);
  return 0;
}
