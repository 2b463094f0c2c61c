// SPDX-License-Identifier: Apache-2.0
// HttpService setup: the access policy on heads, routing, timed and
// exception-safe handlers, and JSON errors for every status the service
// produces itself.
#include "server/server.h"

#include <chrono>

#include "server/console.h"
#include "server/server_impl.h"

namespace neardup::server {
namespace {

// The path of an origin-form target.
std::string_view PathOf(std::string_view target) {
  return target.substr(0, target.find_first_of("?#"));
}

AccessOptions AccessOf(const ServerOptions& o) {
  return AccessOptions{o.token, o.cors_origins, o.allowed_hosts, o.limits.max_body_bytes};
}

ConnectionOptions ConnectionOf(const ServerOptions& o) {
  ConnectionOptions c = o.connection;
  c.max_body_bytes = o.limits.max_body_bytes;
  return c;
}

TransportHooks HooksOf(HttpService::Impl* impl) {
  return TransportHooks{
      [impl](const Request& head, const RequestReader& framing, const LocalAddress& local) {
        return impl->Admit(head, framing, local);
      },
      [impl](Request& req) { return impl->Handle(req); },
      [impl](const Refusal& r) { return impl->Render(r); },
      [impl](const Request& req) { return impl->Waits(req); }};
}

}  // namespace

HttpService::Impl::Impl(DurableEngine* engine, ServerOptions options)
    : engine(engine),
      options(std::move(options)),
      context{*engine, this->options.limits, metrics, std::chrono::steady_clock::now()},
      policy(AccessOf(this->options)),
      transport(ConnectionOf(this->options), HooksOf(this), &metrics.connections) {}

void HttpService::Impl::Register(const std::vector<Route>& routes) {
  for (const Route& r : routes) {
    RouteHandler handler = r.handler;
    router.Add({std::string(r.method), std::string(r.pattern), std::string(r.name),
                [this, handler](const Request& req, Response& res) { handler(context, req, res); },
                r.waits});
  }
}

std::optional<Refusal> HttpService::Impl::Admit(const Request& head, const RequestReader& framing,
                                                const LocalAddress& local) {
  return policy.Check(head, framing.content_length(), framing.chunked(), local);
}

bool HttpService::Impl::Waits(const Request& req) const {
  const RouteMatch m = router.Match(req.method, req.target);
  return m.kind == RouteMatch::Kind::kFound && m.entry->waits;
}

Response HttpService::Impl::Render(const Refusal& r) {
  Response res;
  Fail(res, r.status, r.code, r.message);
  for (const HeaderField& f : r.headers) res.SetHeader(f.name, f.value);
  AddSecurityHeaders(res);
  metrics.Record(r.code, r.status, 0);
  return res;
}

Response HttpService::Impl::Handle(Request& req) {
  const auto start = std::chrono::steady_clock::now();
  Response res;
  std::string name;
  RouteMatch m = router.Match(req.method, req.target);
  using Kind = RouteMatch::Kind;
  if (m.kind == Kind::kFound &&
      !policy.Authorized(req.method, PathOf(req.target), req.Header("Authorization"))) {
    // Admit() refused unauthenticated heads already; this guards the rest.
    res.SetHeader("WWW-Authenticate", "Bearer realm=\"neardup\"");
    Fail(res, 401, "unauthorized", "a valid 'Authorization: Bearer <token>' header is required");
    name = "unauthorized";
  } else if (m.kind == Kind::kFound) {
    req.id = std::move(m.id);
    req.params = std::move(m.params);
    name = m.entry->name;
    try {
      m.entry->handler(req, res);
    } catch (const std::exception& e) {
      res = Response();
      Fail(res, 500, "internal", std::string("unexpected error: ") + e.what());
    } catch (...) {
      res = Response();
      Fail(res, 500, "internal", "unexpected error");
    }
  } else if (m.kind == Kind::kOptions) {
    res.status = 204;
    res.SetHeader("Allow", m.allow);
    name = "options";
  } else if (m.kind == Kind::kMethodNotAllowed) {
    res.SetHeader("Allow", m.allow);
    Fail(res, 405, "method_not_allowed", req.method + " is not allowed here; use " + m.allow);
    name = "method_not_allowed";
  } else if (m.kind == Kind::kNotImplemented) {
    Fail(res, 501, "not_implemented", "method '" + req.method.substr(0, 64) + "' is not supported");
    name = "not_implemented";
  } else if (m.kind == Kind::kBadTarget) {
    Fail(res, 400, "bad_request", "malformed request target (a bad percent-escape?)");
    name = "bad_request";
  } else {
    Fail(res, 404, "not_found",
         "no route for " + req.method + " " + std::string(PathOf(req.target)));
    name = "not_found";
  }
  policy.AddCorsHeaders(req, m.allow.empty() ? "GET, HEAD, POST, DELETE, OPTIONS" : m.allow, &res);
  AddSecurityHeaders(res);
  metrics.Record(name, res.status,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return res;
}

HttpService::HttpService(DurableEngine* engine, ServerOptions options)
    : impl_(std::make_unique<Impl>(engine, std::move(options))) {
  impl_->Register(ApiRoutes());
  RegisterConsole(impl_->router);
}

HttpService::~HttpService() { Stop(); }

Status HttpService::Bind() {
  return impl_->transport.Bind(impl_->options.host, impl_->options.port);
}

int HttpService::port() const { return impl_->transport.port(); }

Status HttpService::Serve() { return impl_->transport.Run(); }

void HttpService::Stop() {
  if (impl_) impl_->transport.Stop();
}

}  // namespace neardup::server
