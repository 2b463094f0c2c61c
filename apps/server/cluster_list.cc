// SPDX-License-Identifier: Apache-2.0
#include "server/cluster_list.h"

#include <charconv>

#include "server/doc_view.h"

namespace neardup::server {
namespace {

std::string CursorOf(ClusterSort sort, const ClusterSummary& c) {
  return std::to_string(sort == ClusterSort::kSize ? int64_t{c.size} : c.time) + ":" + c.id;
}

Json RowJson(const ClusterSummary& c, Json representative) {
  return {{"id", c.id},
          {"size", c.size},
          {"time", c.time},
          {"representative", std::move(representative)}};
}

}  // namespace

Result<std::pair<int64_t, std::string>> ParseCursor(const std::string& cur) {
  const size_t colon = cur.find(':');
  int64_t key = 0;
  auto [p, ec] =
      std::from_chars(cur.data(), cur.data() + (colon == std::string::npos ? 0 : colon), key);
  if (colon == std::string::npos || ec != std::errc() || p != cur.data() + colon) {
    return Status::InvalidArgument("bad cursor");
  }
  return std::make_pair(key, cur.substr(colon + 1));
}

Json DocumentSummaryJson(const DurableEngine& eng, const std::string& id) {
  Json out = {{"id", id}};
  auto rec = eng.Peek(id);
  if (!rec.ok()) {
    out["title"] = "";
    out["snippet"] = "";
    out["arrival"] = nullptr;
    out["meta"] = nullptr;
    return out;
  }
  Json meta = MetaJson(rec->meta);
  DocView v = MakeDocView(meta, rec->text);
  out["title"] = std::move(v.title);
  out["snippet"] = std::move(v.snippet);
  out["arrival"] = rec->arrival;
  out["meta"] = std::move(meta);
  return out;
}

Json ListClustersJson(const DurableEngine& eng, const ClusterListQuery& query) {
  const std::vector<std::string> terms = FilterTerms(query.q);
  Json list = Json::array();
  Json next = nullptr;
  const ListOptions& want = query.page;
  if (terms.empty()) {
    auto page = eng.ListClusters(want);
    for (const auto& c : page)
      list.push_back(RowJson(c, DocumentSummaryJson(eng, c.representative)));
    if (!page.empty() && page.size() == want.limit) next = CursorOf(want.sort, page.back());
    return Json{{"clusters", std::move(list)}, {"next_cursor", std::move(next)}};
  }
  // Filtered: walk a bounded window in list order, keep the rows whose
  // representative's title has every term.
  ListOptions scan = want;
  scan.limit = kFilterWindow;
  auto window = eng.ListClusters(scan);
  size_t scanned = 0;
  for (const auto& c : window) {
    if (list.size() == want.limit) break;
    ++scanned;
    Json rep = DocumentSummaryJson(eng, c.representative);
    if (!MatchesTerms(rep["title"].get_ref<const std::string&>(), terms)) continue;
    list.push_back(RowJson(c, std::move(rep)));
  }
  // More may follow when the page filled up or the window was exhausted.
  if (scanned > 0 && (list.size() == want.limit || window.size() == kFilterWindow)) {
    next = CursorOf(want.sort, window[scanned - 1]);
  }
  return Json{
      {"clusters", std::move(list)}, {"next_cursor", std::move(next)}, {"scanned", scanned}};
}

}  // namespace neardup::server
