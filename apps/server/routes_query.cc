// SPDX-License-Identifier: Apache-2.0
// Read-only text routes of API v1 (docs/api.md): query and explain. Both
// insert nothing.
#include "json_views.h"
#include "server/route.h"

namespace neardup::server {
namespace {

using Req = Request;
using Res = Response;

Status CheckTextSize(const std::string& text, const Limits& limits) {
  if (text.size() <= limits.max_doc_bytes) return Status::OK();
  return Status::OutOfRange("text over " + std::to_string(limits.max_doc_bytes) + " bytes");
}

// The optional "max_distance" of a query body: -1 when absent.
Result<int> MaxDistance(const Json& body) {
  auto m = body.find("max_distance");
  if (m == body.end() || m->is_null()) return -1;
  if (!m->is_number_integer() || m->get<int64_t>() < 0 || m->get<int64_t>() > 64) {
    return Status::InvalidArgument("'max_distance' must be an integer in [0, 64]");
  }
  return static_cast<int>(m->get<int64_t>());
}

void Query(const RouteContext& ctx, const Req& req, Res& res) {
  auto body = ParseBody(req.body, ctx.limits);
  if (!body.ok()) return Fail(res, body.status());
  if (!body->is_object() || !body->contains("text") || !(*body)["text"].is_string()) {
    return Fail(res, 400, "invalid_argument", "body must be {\"text\": string}");
  }
  const std::string& text = (*body)["text"].get_ref<const std::string&>();
  if (Status s = CheckTextSize(text, ctx.limits); !s.ok()) return Fail(res, s);
  auto k = MaxDistance(*body);
  if (!k.ok()) return Fail(res, k.status());
  auto q = ctx.engine.Query(text, {.max_distance = *k});
  if (!q.ok()) return Fail(res, q.status());
  Reply(res, 200,
        {{"cluster", q->cluster ? Json(*q->cluster) : Json(nullptr)},
         {"duplicate", q->cluster.has_value()},
         {"cluster_size", q->cluster_size},
         {"fingerprint", FingerprintHex(q->fingerprint)},
         {"matches", MatchesJson(q->matches)}});
}

void Explain(const RouteContext& ctx, const Req& req, Res& res) {
  auto body = ParseBody(req.body, ctx.limits);
  if (!body.ok()) return Fail(res, body.status());
  auto text = [&](const char* key) -> const std::string* {
    if (!body->is_object()) return nullptr;
    auto it = body->find(key);
    return it != body->end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
  };
  const std::string* a = text("a");
  const std::string* b = text("b");
  if (a == nullptr || b == nullptr) {
    return Fail(res, 400, "invalid_argument", "body must be {\"a\": string, \"b\": string}");
  }
  for (const std::string* t : {a, b}) {
    if (Status s = CheckTextSize(*t, ctx.limits); !s.ok()) return Fail(res, s);
  }
  auto x = ctx.engine.Explain(*a, *b);
  if (!x.ok()) return Fail(res, x.status());
  Reply(res, 200, apps::ExplanationJson(*x));
}

}  // namespace

std::vector<Route> QueryRoutes() {
  return {
      {"POST", "/v1/query", "query", Query},
      {"POST", "/v1/explain", "explain", Explain},
  };
}

}  // namespace neardup::server
