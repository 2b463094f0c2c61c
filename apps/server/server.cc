// SPDX-License-Identifier: Apache-2.0
// HttpService setup: limits, authentication, JSON errors for every status
// httplib produces itself, and timed, exception-safe routes.
#include "server/server.h"

#include <algorithm>
#include <cstdio>

#include "base/status_macros.h"
#include "server/console.h"
#include "server/server_impl.h"

namespace neardup::server {
namespace {

// Compares in time that depends only on the lengths, not on the contents.
bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? a[i] : 0;
    const unsigned char y = i < b.size() ? b[i] : 0;
    diff |= x ^ y;
  }
  return diff == 0;
}

const char* CodeForStatus(int status) {
  switch (status) {
    case 400:
      return "bad_request";
    case 401:
      return "unauthorized";
    case 404:
      return "not_found";
    case 405:
      return "method_not_allowed";
    case 413:
      return "payload_too_large";
    case 414:
      return "uri_too_long";
    case 503:
      return "unavailable";
    default:
      return status >= 500 ? "internal" : "bad_request";
  }
}

}  // namespace

HttpService::Impl::Impl(DurableEngine* engine, ServerOptions options)
    : engine(engine),
      options(std::move(options)),
      context{*engine, this->options.limits, metrics, std::chrono::steady_clock::now()},
      connections(
          &http, this->options.connection, [this](const RequestHead& h) { return Admit(h); },
          &metrics.connections) {}

httplib::Server::Handler HttpService::Impl::Wrap(std::string name, httplib::Server::Handler h) {
  return [this, name = std::move(name), h = std::move(h)](const httplib::Request& req,
                                                          httplib::Response& res) {
    const auto start = std::chrono::steady_clock::now();
    // Admit() refused unauthenticated heads already; this second check
    // guards routes reached some other way.
    if (!Authorized(req.path, req.get_header_value("Authorization"))) {
      res.set_header("WWW-Authenticate", "Bearer realm=\"neardup\"");
      Fail(res, 401, "unauthorized", "a valid 'Authorization: Bearer <token>' header is required");
      metrics.Record("unauthorized", 401, 0);
      return;
    }
    try {
      h(req, res);
    } catch (const std::exception& e) {
      Fail(res, 500, "internal", std::string("unexpected error: ") + e.what());
    } catch (...) {
      Fail(res, 500, "internal", "unexpected error");
    }
    metrics.Record(name, res.status,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  };
}

void HttpService::Impl::Add(std::string_view method, const std::string& pattern,
                            httplib::Server::Handler h) {
  if (method == "GET")
    http.Get(pattern, std::move(h));
  else if (method == "POST")
    http.Post(pattern, std::move(h));
  else if (method == "DELETE")
    http.Delete(pattern, std::move(h));
  else if (method == "PUT")
    http.Put(pattern, std::move(h));
  else if (method == "PATCH")
    http.Patch(pattern, std::move(h));
  else
    NEARDUP_CHECK_MSG(false, "unsupported method in the route table");
}

void HttpService::Impl::MethodNotAllowed(const std::string& pattern, const std::string& allowed) {
  for (const char* m : {"GET", "POST", "DELETE", "PUT", "PATCH"}) {
    if (allowed.find(m) != std::string::npos) continue;
    Add(m, pattern,
        Wrap("method_not_allowed", [allowed](const httplib::Request& req, httplib::Response& res) {
          res.set_header("Allow", allowed);
          Fail(res, 405, "method_not_allowed", req.method + " is not allowed here; use " + allowed);
        }));
  }
}

void HttpService::Impl::Register(const std::vector<Route>& routes) {
  std::vector<std::string_view> patterns;
  for (const Route& r : routes) {
    if (std::find(patterns.begin(), patterns.end(), r.pattern) == patterns.end()) {
      patterns.push_back(r.pattern);
    }
  }
  for (std::string_view pattern : patterns) {
    std::string allowed;
    for (const Route& r : routes) {
      if (r.pattern != pattern) continue;
      RouteHandler handler = r.handler;
      Add(r.method, std::string(pattern),
          Wrap(std::string(r.name),
               [this, handler](const httplib::Request& req, httplib::Response& res) {
                 handler(context, req, res);
               }));
      allowed += (allowed.empty() ? "" : ", ") + std::string(r.method);
    }
    MethodNotAllowed(std::string(pattern), allowed);
  }
}

bool HttpService::Impl::Authorized(std::string_view path, std::string_view auth) const {
  // Open paths: health, and the console's page and files (they hold no data;
  // the page sends the token with its API calls).
  if (options.token.empty() || path == "/healthz" || path == "/" ||
      path.substr(0, 9) == "/console/") {
    return true;
  }
  constexpr std::string_view kBearer = "Bearer ";
  return auth.size() > kBearer.size() && auth.substr(0, kBearer.size()) == kBearer &&
         ConstantTimeEquals(auth.substr(kBearer.size()), options.token);
}

std::optional<Rejection> HttpService::Impl::Admit(const RequestHead& head) {
  if (!Authorized(head.path(), head.authorization)) {
    metrics.Record("unauthorized", 401, 0);
    return Rejection{401, "unauthorized",
                     "a valid 'Authorization: Bearer <token>' header is required",
                     "WWW-Authenticate: Bearer realm=\"neardup\"\r\n"};
  }
  const size_t max = options.limits.max_body_bytes;
  if (head.content_length && *head.content_length > max) {
    metrics.Record("payload_too_large", 413, 0);
    return Rejection{413, "payload_too_large",
                     "request body of " + std::to_string(*head.content_length) +
                         " bytes is over the limit of " + std::to_string(max),
                     ""};
  }
  return std::nullopt;
}

HttpService::HttpService(DurableEngine* engine, ServerOptions options)
    : impl_(std::make_unique<Impl>(engine, std::move(options))) {
  Impl* impl = impl_.get();
  // Content-Length over the limit is refused from the head (Admit); this
  // bounds chunked bodies.
  impl->http.set_payload_max_length(impl->options.limits.max_body_bytes);
  // Statuses httplib sets itself (unknown path, body too large, bad request
  // line) get the JSON error shape too.
  impl->http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string msg = res.status == 404   ? "no route for " + req.method + " " + req.path
                      : res.status == 413 ? "request body over the limit"
                                          : "request rejected";
    Fail(res, res.status, CodeForStatus(res.status), msg);
  });
  impl->http.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        Fail(res, 500, "internal", "unexpected error");
      });
  impl->Register(ApiRoutes());
  RegisterConsole(impl->http, impl->metrics);
}

HttpService::~HttpService() { Stop(); }

Status HttpService::Bind() {
  if (impl_->options.port == 0) {
    impl_->port = impl_->http.bind_to_any_port(impl_->options.host);
    if (impl_->port <= 0) return Status::IOError("cannot bind " + impl_->options.host);
    return Status::OK();
  }
  if (!impl_->http.bind_to_port(impl_->options.host, impl_->options.port)) {
    return Status::IOError("cannot bind " + impl_->options.host + ":" +
                           std::to_string(impl_->options.port));
  }
  impl_->port = impl_->options.port;
  return Status::OK();
}

int HttpService::port() const { return impl_->port; }

Status HttpService::Serve() { return impl_->connections.Run(impl_->http.bound_socket()); }

void HttpService::Stop() {
  if (impl_) impl_->connections.Stop();
}

}  // namespace neardup::server
