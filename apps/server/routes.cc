// SPDX-License-Identifier: Apache-2.0
// The route table of API v1 (docs/api.md) and the helpers every handler
// shares (route.h).
#include "server/route.h"

namespace neardup::server {

std::vector<Route> ApiRoutes() {
  std::vector<Route> all;
  for (auto group : {DocumentRoutes, QueryRoutes, ClusterRoutes, OperationRoutes}) {
    for (const Route& r : group()) all.push_back(r);
  }
  return all;
}

void Reply(Response& res, int status, const Json& body) {
  res.status = status;
  res.SetContent(Dump(body), "application/json");
}

void Fail(Response& res, const Status& s) {
  Reply(res, HttpStatus(s), ErrorJson(StatusCodeName(s.code()), s.message()));
}

void Fail(Response& res, int status, std::string_view code, std::string_view message) {
  Reply(res, status, ErrorJson(code, message));
}

Result<size_t> CountParam(const Request& req, const char* name, size_t def, size_t max) {
  if (!req.HasParam(name)) return def;
  return ParseCount(req.Param(name), name, max);
}

bool FlagParam(const Request& req, const char* name) {
  if (!req.HasParam(name)) return false;
  const std::string v = req.Param(name);
  return v == "true" || v == "1" || v.empty();
}

bool WantsUpsert(const Request& req) { return FlagParam(req, "upsert"); }

}  // namespace neardup::server
