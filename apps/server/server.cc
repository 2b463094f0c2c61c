// SPDX-License-Identifier: Apache-2.0
// HttpService setup: thread pool, limits, authentication, JSON errors for
// every status httplib produces itself, and timed, exception-safe routes.
#include "server/server.h"

#include <algorithm>
#include <cstdio>

#include "base/status_macros.h"
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
      context{*engine, this->options.limits, metrics, std::chrono::steady_clock::now()} {}

httplib::Server::Handler HttpService::Impl::Wrap(std::string name, httplib::Server::Handler h) {
  return [this, name = std::move(name), h = std::move(h)](const httplib::Request& req,
                                                          httplib::Response& res) {
    const auto start = std::chrono::steady_clock::now();
    // Authentication happens here, after httplib has read the body, so a
    // rejected request leaves the keep-alive connection in a clean state.
    if (!Authorized(req)) {
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

bool HttpService::Impl::Authorized(const httplib::Request& req) const {
  if (options.token.empty() || req.path == "/healthz") return true;
  const std::string auth = req.get_header_value("Authorization");
  constexpr std::string_view kBearer = "Bearer ";
  return auth.size() > kBearer.size() && auth.compare(0, kBearer.size(), kBearer) == 0 &&
         ConstantTimeEquals(std::string_view(auth).substr(kBearer.size()), options.token);
}

HttpService::HttpService(DurableEngine* engine, ServerOptions options)
    : impl_(std::make_unique<Impl>(engine, std::move(options))) {
  Impl* impl = impl_.get();
  const int threads = std::max(2, impl->options.threads);
  impl->http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  impl->http.set_payload_max_length(impl->options.limits.max_body_bytes);
  impl->http.set_keep_alive_max_count(100000);
  impl->http.set_tcp_nodelay(true);
  impl->http.set_read_timeout(30, 0);
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

void HttpService::Serve() { impl_->http.listen_after_bind(); }

void HttpService::Stop() {
  if (impl_) impl_->http.stop();
}

}  // namespace neardup::server
