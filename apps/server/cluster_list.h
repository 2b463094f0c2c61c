// SPDX-License-Identifier: Apache-2.0
//
// GET /v1/clusters, the list page (docs/api.md): one representative per
// cluster with its title, snippet, meta and arrival, sorted by size or
// recency, paged by cursor, optionally narrowed by keywords in titles.
//
// Cost per call: the engine's O(clusters) scan to pick the page, plus one
// store read per row. With a filter, the scan picks a window of at most
// kFilterWindow clusters after the cursor and reads each representative
// until `limit` match, so a filtered page costs at most kFilterWindow store
// reads; a page may then hold fewer than `limit` rows while `next_cursor`
// is still set (the caller continues from it).
//
// Thread safety: as DurableEngine (any thread).
#ifndef NEARDUP_APPS_SERVER_CLUSTER_LIST_H_
#define NEARDUP_APPS_SERVER_CLUSTER_LIST_H_

#include <optional>
#include <string>
#include <utility>

#include "neardup/durable_engine.h"
#include "server/json_io.h"

namespace neardup::server {

constexpr size_t kFilterWindow = 5000;

struct ClusterListQuery {
  ListOptions page;  // sort, order, limit and cursor
  std::string q;     // keywords; empty = all
};

// Parses "<key>:<id>", a next_cursor. Errors: InvalidArgument.
Result<std::pair<int64_t, std::string>> ParseCursor(const std::string& cursor);

// {"clusters":[...], "next_cursor": string|null} (+ "scanned" with a filter).
Json ListClustersJson(const DurableEngine& eng, const ClusterListQuery& query);

// {"id","title","snippet","arrival","meta"} of a stored document, read
// without refreshing its time; meta null and title empty when unreadable.
Json DocumentSummaryJson(const DurableEngine& eng, const std::string& id);

}  // namespace neardup::server

#endif  // NEARDUP_APPS_SERVER_CLUSTER_LIST_H_
