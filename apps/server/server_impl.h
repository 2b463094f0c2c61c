// SPDX-License-Identifier: Apache-2.0
//
// HttpService::Impl, shared by server.cc (setup, auth, errors, metrics) and
// routes.cc (the endpoint handlers). Not a public header.
#ifndef NEARDUP_APPS_SERVER_SERVER_IMPL_H_
#define NEARDUP_APPS_SERVER_SERVER_IMPL_H_

#include <httplib.h>

#include <chrono>
#include <functional>
#include <string>

#include "server/metrics.h"
#include "server/server.h"

namespace neardup::server {

struct HttpService::Impl {
  DurableEngine* engine = nullptr;
  ServerOptions options;
  httplib::Server http;
  RequestMetrics metrics;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  int port = 0;

  using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;
  // Registers `handler` for `method` on `pattern` (a regex) under the metric
  // name `route`: timed, exception-safe.
  void Route(const std::string& method, const std::string& pattern, const std::string& route,
             Handler handler);
  // Answers 405 for the methods of `pattern` that are not in `allowed`.
  void OtherMethods(const std::string& pattern, const std::string& allowed);
  void RegisterRoutes();  // routes.cc
  // True when no token is configured, for /healthz, or with the right
  // bearer token (compared in constant time).
  bool Authorized(const httplib::Request& req) const;

  // Writes a JSON body with `status`.
  static void Reply(httplib::Response& res, int status, const Json& body);
  static void Fail(httplib::Response& res, const Status& s);
  static void Fail(httplib::Response& res, int status, std::string_view code,
                   std::string_view message);
};

}  // namespace neardup::server

#endif  // NEARDUP_APPS_SERVER_SERVER_IMPL_H_
