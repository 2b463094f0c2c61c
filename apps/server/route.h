// SPDX-License-Identifier: Apache-2.0
//
// The routes of the HTTP service: each is one row {method, path pattern,
// metric name, handler} and each handler is one small function that parses
// and validates, calls the DurableEngine and writes JSON (docs/api.md).
//
// Adding a route: write the handler in a routes_*.cc file of its group,
// return its row from the group's table function, and list the group in
// ApiRoutes() (routes.cc). Patterns are paths with at most one `{id}`,
// which the router (router.h) matches as data: percent-decoded, possibly
// holding '/'. Rows are matched in table order (a pattern that also matches
// a later one's paths must come first), and every other method on a listed
// pattern answers 405 with an Allow header.
//
// A handler that can wait on anything but the CPU (a write's commit) says
// so in its row (`waits`), so that it does not hold a compute thread.
//
// Thread safety: handlers run concurrently on worker threads; the context
// is shared and read-only apart from the engine, which is itself
// thread-safe.
#ifndef NEARDUP_APPS_SERVER_ROUTE_H_
#define NEARDUP_APPS_SERVER_ROUTE_H_

#include <chrono>
#include <string_view>
#include <vector>

#include "neardup/durable_engine.h"
#include "server/http_message.h"
#include "server/json_io.h"
#include "server/metrics.h"

namespace neardup::server {

// What a handler may use.
struct RouteContext {
  DurableEngine& engine;
  const Limits& limits;
  const RequestMetrics& metrics;
  std::chrono::steady_clock::time_point started;
};

using RouteHandler = void (*)(const RouteContext&, const Request&, Response&);

struct Route {
  std::string_view method;   // GET, POST, DELETE, PUT or PATCH
  std::string_view pattern;  // a path with at most one {id} (router.h)
  std::string_view name;     // the `route` label of the request metrics
  RouteHandler handler;
  // The handler may wait on other work (a durable write waits for its group
  // commit): it runs on the transport's large pool, not the compute pool.
  bool waits = false;
};

// The route groups (routes_*.cc) and all of API v1 in matching order.
std::vector<Route> DocumentRoutes();
std::vector<Route> QueryRoutes();
std::vector<Route> ClusterRoutes();
std::vector<Route> OperationRoutes();
std::vector<Route> ApiRoutes();

// Writes `body` as JSON with `status`.
void Reply(Response& res, int status, const Json& body);
// Writes the error shape {"error":{"code","message"}} for a library error,
// or for an explicit status and code.
void Fail(Response& res, const Status& s);
void Fail(Response& res, int status, std::string_view code, std::string_view message);

// The value of query parameter `name` as a count in [0, max], or `def`
// when absent. Errors: InvalidArgument.
Result<size_t> CountParam(const Request& req, const char* name, size_t def, size_t max);
// True for ?NAME, ?NAME=true or ?NAME=1.
bool FlagParam(const Request& req, const char* name);
// FlagParam(req, "upsert").
bool WantsUpsert(const Request& req);

}  // namespace neardup::server

#endif  // NEARDUP_APPS_SERVER_ROUTE_H_
