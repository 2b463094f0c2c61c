// SPDX-License-Identifier: Apache-2.0
//
// HttpService::Impl: the transport, the access policy, the router with the
// API's and the console's routes, and the request metrics. Not a public
// header.
#ifndef NEARDUP_APPS_SERVER_SERVER_IMPL_H_
#define NEARDUP_APPS_SERVER_SERVER_IMPL_H_

#include <optional>
#include <string>
#include <vector>

#include "server/access_policy.h"
#include "server/metrics.h"
#include "server/route.h"
#include "server/router.h"
#include "server/server.h"
#include "server/transport.h"

namespace neardup::server {

struct HttpService::Impl {
  Impl(DurableEngine* engine, ServerOptions options);

  // Adds `routes` to the router with the context bound.
  void Register(const std::vector<Route>& routes);
  // Event thread: the access policy on a request head.
  std::optional<Refusal> Admit(const Request& head, const RequestReader& framing,
                               const LocalAddress& local);
  // Worker: routes and runs a whole request; timed, exception-safe, with
  // the security and CORS headers.
  Response Handle(Request& req);
  // The answer of a refusal: the JSON error and the security headers.
  Response Render(const Refusal& refusal);
  // The transport's question: may the request's handler wait (Route::waits)?
  bool Waits(const Request& req) const;

  DurableEngine* engine;
  ServerOptions options;
  RequestMetrics metrics;
  RouteContext context;
  AccessPolicy policy;
  Router router;
  HttpTransport transport;
};

}  // namespace neardup::server

#endif  // NEARDUP_APPS_SERVER_SERVER_IMPL_H_
