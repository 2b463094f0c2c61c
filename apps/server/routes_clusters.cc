// SPDX-License-Identifier: Apache-2.0
// Cluster routes of API v1 (docs/api.md "Clusters"): one cluster with its
// members, and the paged list of clusters by size or recency.
#include <charconv>

#include "server/route.h"

namespace neardup::server {
namespace {

using Req = httplib::Request;
using Res = httplib::Response;

constexpr char kCluster[] = R"(/v1/clusters/([^/].*))";

Json MetaOf(const RouteContext& ctx, const std::string& id) {
  auto meta = ctx.engine.Meta(id);
  return meta.ok() ? MetaJson(*meta) : Json(nullptr);
}

void GetCluster(const RouteContext& ctx, const Req& req, Res& res) {
  const std::string id = req.matches[1];
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

// The page request of GET /v1/clusters from its query parameters.
Result<ListOptions> ListParams(const Req& req) {
  const std::string sort = req.has_param("sort") ? req.get_param_value("sort") : "size";
  const std::string order = req.has_param("order") ? req.get_param_value("order") : "desc";
  if (sort != "size" && sort != "recent") {
    return Status::InvalidArgument("'sort' must be size or recent");
  }
  if (order != "desc" && order != "asc")
    return Status::InvalidArgument("'order' must be desc or asc");
  auto limit = CountParam(req, "limit", 20, 1000);
  if (!limit.ok()) return limit.status();
  ListOptions page{sort == "size" ? ClusterSort::kSize : ClusterSort::kRecent, order == "desc",
                   *limit, std::nullopt};
  if (req.has_param("cursor") && !req.get_param_value("cursor").empty()) {
    // "<key>:<id>", the next_cursor of the previous page.
    const std::string cur = req.get_param_value("cursor");
    const size_t colon = cur.find(':');
    int64_t key = 0;
    auto [p, ec] =
        std::from_chars(cur.data(), cur.data() + (colon == std::string::npos ? 0 : colon), key);
    if (colon == std::string::npos || ec != std::errc() || p != cur.data() + colon) {
      return Status::InvalidArgument("bad cursor");
    }
    page.after.emplace(key, cur.substr(colon + 1));
  }
  return page;
}

void ListClusters(const RouteContext& ctx, const Req& req, Res& res) {
  auto params = ListParams(req);
  if (!params.ok()) return Fail(res, params.status());
  const auto page = ctx.engine.ListClusters(*params);
  Json list = Json::array();
  for (const auto& c : page) {
    list.push_back(
        {{"id", c.id},
         {"size", c.size},
         {"time", c.time},
         {"representative", {{"id", c.representative}, {"meta", MetaOf(ctx, c.representative)}}}});
  }
  Json next = nullptr;
  if (!page.empty() && page.size() == params->limit) {
    const auto& last = page.back();
    const int64_t key = params->sort == ClusterSort::kSize ? int64_t{last.size} : last.time;
    next = std::to_string(key) + ":" + last.id;
  }
  Reply(res, 200, {{"clusters", list}, {"next_cursor", next}});
}

}  // namespace

std::vector<Route> ClusterRoutes() {
  return {
      {"GET", kCluster, "cluster", GetCluster},
      {"GET", "/v1/clusters", "clusters", ListClusters},
  };
}

}  // namespace neardup::server
