// SPDX-License-Identifier: Apache-2.0
// Fuzzes every route of the HTTP API (apps/server/route.h) end to end below
// the socket: the input picks a route, fills its {id} (percent-encoded into
// the target), up to four query parameters and the body; the router
// (router.h) resolves the target, and the route's handler runs against a
// real DurableEngine in a temporary directory. Properties: the router finds
// that route with that id and those parameters; no request is a 5xx other
// than 503/507 (bad input is always a clear 4xx); every answer but /metrics
// is JSON, and every error has the {"error":{"code","message"}} shape.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "server/route.h"
#include "server/router.h"

namespace {

using namespace neardup;
using namespace neardup::server;

struct Service {
  Service() {
    char tmpl[] = "/tmp/neardup_fuzz_routes_XXXXXX";
    FUZZ_CHECK(mkdtemp(tmpl) != nullptr);
    dir = tmpl;
    DurableOptions o;
    o.dir = dir + "/store";
    auto eo = EngineOptions::FromProfile("default");
    FUZZ_CHECK(eo.ok());
    o.engine = *eo;
    o.engine.max_document_bytes = limits.max_doc_bytes;
    o.ttl_ms = 0;
    o.sync = false;
    o.background_expiry = false;
    auto e = DurableEngine::Open(o);
    FUZZ_CHECK(e.ok());
    engine = std::move(*e);
    context = std::make_unique<RouteContext>(
        RouteContext{*engine, limits, metrics, std::chrono::steady_clock::now()});
    routes = ApiRoutes();
    for (const Route& r : routes) {
      router.Add({std::string(r.method), std::string(r.pattern), std::string(r.name), nullptr});
    }
  }
  ~Service() {
    engine.reset();
    std::filesystem::remove_all(dir);
  }
  std::string dir;
  Limits limits{.max_body_bytes = 1 << 16, .max_doc_bytes = 4096, .max_batch = 16};
  RequestMetrics metrics;
  std::unique_ptr<DurableEngine> engine;
  std::unique_ptr<RouteContext> context;
  std::vector<Route> routes;
  Router router;
  uint64_t runs = 0;
};

Service& Get() {
  static Service s;
  return s;
}

// The route's path with its {id} replaced by `id`, percent-encoded.
std::string PathOf(std::string_view pattern, const std::string& id) {
  const size_t slot = pattern.find("{id}");
  if (slot == std::string_view::npos) return std::string(pattern);
  return std::string(pattern.substr(0, slot)) + PercentEncode(id) +
         std::string(pattern.substr(slot + 4));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Service& svc = Get();
  // Bounded memory over long runs: start from an empty engine now and then.
  if (++svc.runs % 20000 == 0) FUZZ_CHECK(svc.engine->Expire(INT64_MAX).ok());
  FuzzedDataProvider in(data, size);
  const size_t which = in.ConsumeIntegralInRange<size_t>(0, svc.routes.size() - 1);
  const Route& route = svc.routes[which];
  Request req;
  req.method = std::string(route.method);
  const std::string id = in.ConsumeRandomLengthString(64);
  const bool has_id = route.pattern.find("{id}") != std::string_view::npos;
  if (has_id && id.empty()) return 0;  // {id} is never empty
  req.target = PathOf(route.pattern, id);
  static const char* kParams[] = {"limit", "upsert", "sort", "order", "cursor", "x"};
  std::vector<std::pair<std::string, std::string>> params;
  const int count = in.ConsumeIntegralInRange<int>(0, 4);
  for (int i = 0; i < count; ++i) {
    const char* name = kParams[in.ConsumeIntegralInRange<int>(0, 5)];
    params.emplace_back(name, in.ConsumeRandomLengthString(24));
    req.target +=
        (i == 0 ? "?" : "&") + std::string(name) + "=" + PercentEncode(params.back().second);
  }
  req.body = in.ConsumeRemainingBytesAsString();
  RouteMatch m = svc.router.Match(req.method, req.target);
  // Any id reaches its route: a raw "/similar" suffix could only come from
  // a '/' in the id, which is encoded.
  FUZZ_CHECK(m.kind == RouteMatch::Kind::kFound);
  FUZZ_CHECK(m.entry->name == route.name);
  FUZZ_CHECK(m.id == (has_id ? id : ""));
  FUZZ_CHECK(m.params == params);
  req.id = m.id;
  req.params = m.params;

  Response res;
  route.handler(*svc.context, req, res);
  FUZZ_CHECK(res.status >= 200);
  FUZZ_CHECK(res.status < 500 || res.status == 503 || res.status == 507);
  if (route.name == "metrics") return 0;
  const Json j = Json::parse(res.body, nullptr, /*allow_exceptions=*/false);
  FUZZ_CHECK(!j.is_discarded());
  if (res.status >= 400) {
    FUZZ_CHECK(j.contains("error") && j["error"]["code"].is_string() &&
               j["error"]["message"].is_string());
  }
  return 0;
}
