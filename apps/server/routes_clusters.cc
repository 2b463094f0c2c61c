// SPDX-License-Identifier: Apache-2.0
// Cluster routes of API v1 (docs/api.md "Clusters"): one cluster with its
// members, and the paged list of clusters by size or recency.
#include "server/cluster_list.h"
#include "server/route.h"

namespace neardup::server {
namespace {

using Req = Request;
using Res = Response;

constexpr char kCluster[] = "/v1/clusters/{id}";

Json MetaOf(const RouteContext& ctx, const std::string& id) {
  auto meta = ctx.engine.Meta(id);
  return meta.ok() ? MetaJson(*meta) : Json(nullptr);
}

void GetCluster(const RouteContext& ctx, const Req& req, Res& res) {
  const std::string id = req.id;
  if (Status s = CheckId(id, ctx.limits); !s.ok()) return Fail(res, s);
  auto limit = CountParam(req, "limit", 100, 10000);
  if (!limit.ok()) return Fail(res, limit.status());
  auto c = ctx.engine.GetCluster(id, *limit);
  if (!c.ok()) return Fail(res, c.status());
  Json members = Json::array();
  for (const auto& m : c->members) members.push_back({{"id", m}, {"meta", MetaOf(ctx, m)}});
  Reply(res, 200,
        {{"id", c->id},
         {"size", c->size},
         {"root_removed", c->root_removed},
         {"time", c->time},
         {"members", members}});
}

// The query of GET /v1/clusters from its parameters.
Result<ClusterListQuery> ListParams(const Req& req) {
  const std::string sort = req.HasParam("sort") ? req.Param("sort") : "size";
  const std::string order = req.HasParam("order") ? req.Param("order") : "desc";
  if (sort != "size" && sort != "recent") {
    return Status::InvalidArgument("'sort' must be size or recent");
  }
  if (order != "desc" && order != "asc")
    return Status::InvalidArgument("'order' must be desc or asc");
  auto limit = CountParam(req, "limit", 20, 1000);
  if (!limit.ok()) return limit.status();
  ClusterListQuery query;
  query.page = {sort == "size" ? ClusterSort::kSize : ClusterSort::kRecent, order == "desc", *limit,
                std::nullopt};
  if (req.HasParam("cursor") && !req.Param("cursor").empty()) {
    auto after = ParseCursor(req.Param("cursor"));
    if (!after.ok()) return after.status();
    query.page.after = std::move(*after);
  }
  if (req.HasParam("q")) query.q = req.Param("q");
  return query;
}

void ListClusters(const RouteContext& ctx, const Req& req, Res& res) {
  auto query = ListParams(req);
  if (!query.ok()) return Fail(res, query.status());
  Reply(res, 200, ListClustersJson(ctx.engine, *query));
}

}  // namespace

std::vector<Route> ClusterRoutes() {
  return {
      {"GET", kCluster, "cluster", GetCluster},
      {"GET", "/v1/clusters", "clusters", ListClusters},
  };
}

}  // namespace neardup::server
