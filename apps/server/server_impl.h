// SPDX-License-Identifier: Apache-2.0
//
// HttpService::Impl: the httplib server, the route context and the request
// metrics. Not a public header.
#ifndef NEARDUP_APPS_SERVER_SERVER_IMPL_H_
#define NEARDUP_APPS_SERVER_SERVER_IMPL_H_

#include <httplib.h>

#include <chrono>
#include <string>
#include <vector>

#include "server/connections.h"
#include "server/metrics.h"
#include "server/route.h"
#include "server/server.h"

namespace neardup::server {

struct HttpService::Impl {
  Impl(DurableEngine* engine, ServerOptions options);

  DurableEngine* engine;
  ServerOptions options;
  HttpServer http;
  RequestMetrics metrics;
  RouteContext context;
  ConnectionServer connections;
  int port = 0;

  // Registers `routes` in order: for each distinct pattern (in order of
  // first appearance), its handlers, then a 405 for every other method.
  void Register(const std::vector<Route>& routes);
  // True when no token is configured, for /healthz and the console's
  // files (/, /console/...), or with the right bearer token (compared in
  // constant time).
  bool Authorized(std::string_view path, std::string_view authorization) const;
  // The connection layer's check of a request head: the token, then the
  // declared body size.
  std::optional<Rejection> Admit(const RequestHead& head);

 private:
  // `h` authenticated, timed under the metric name `name`, exception-safe.
  httplib::Server::Handler Wrap(std::string name, httplib::Server::Handler h);
  void Add(std::string_view method, const std::string& pattern, httplib::Server::Handler h);
  void MethodNotAllowed(const std::string& pattern, const std::string& allowed);
};

}  // namespace neardup::server

#endif  // NEARDUP_APPS_SERVER_SERVER_IMPL_H_
