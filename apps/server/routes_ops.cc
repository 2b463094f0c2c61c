// SPDX-License-Identifier: Apache-2.0
// Operation routes of API v1 (docs/api.md "Expiry", "Operations"): expiry
// by hand, stats, health and Prometheus metrics.
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "server/route.h"

namespace neardup::server {
namespace {

using Req = Request;
using Res = Response;

uint64_t ResidentBytes() {
  std::ifstream f("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  f >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The cutoff of POST /v1/expire: the body's "before", else now - ttl.
Result<int64_t> ExpiryCutoff(const RouteContext& ctx, const Req& req) {
  if (!req.body.empty()) {
    auto body = ParseBody(req.body, ctx.limits);
    if (!body.ok()) return body.status();
    if (!body->is_object()) return Status::InvalidArgument("body must be an object");
    if (auto b = body->find("before"); b != body->end() && !b->is_null()) {
      if (!b->is_number_integer()) {
        return Status::InvalidArgument("'before' must be an integer (ms since the epoch)");
      }
      return b->get<int64_t>();
    }
  }
  if (ctx.engine.options().ttl_ms <= 0) {
    return Status::InvalidArgument("no ttl configured: give 'before'");
  }
  return NowMs() - ctx.engine.options().ttl_ms;
}

void Expire(const RouteContext& ctx, const Req& req, Res& res) {
  auto before = ExpiryCutoff(ctx, req);
  if (!before.ok()) return Fail(res, before.status());
  auto r = ctx.engine.Expire(*before);
  if (!r.ok()) return Fail(res, r.status());
  Reply(res, 200, {{"before", *before}, {"trees", r->trees}, {"documents", r->documents}});
}

void Stats(const RouteContext& ctx, const Req&, Res& res) {
  const DurableStats s = ctx.engine.Stats();
  const double uptime =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - ctx.started).count();
  Reply(res, 200,
        {{"documents", s.engine.documents},
         {"clusters", s.engine.clusters},
         {"added", s.engine.added},
         {"duplicates", s.engine.duplicates},
         {"removed", s.engine.removed},
         {"expired_documents", s.expired_documents},
         {"expired_trees", s.expired_trees},
         {"commits", s.commits},
         {"committed_documents", s.committed_docs},
         {"commit_errors", s.commit_errors},
         {"queue_depth", s.queue_depth},
         {"disk_bytes", s.disk_bytes},
         {"store_cache_bytes", s.store_cache_bytes},
         {"store_memtable_bytes", s.store_memtable_bytes},
         {"index_bytes", s.engine.index_bytes},
         {"forest_bytes", s.engine.forest_bytes},
         {"id_bytes", s.engine.id_bytes},
         {"resident_bytes", ResidentBytes()},
         {"restore_ms", s.restore_ms},
         {"restored_documents", s.restored_documents},
         {"ttl_ms", s.ttl_ms},
         {"threshold", s.engine.threshold},
         {"text_bytes", s.engine.text_bytes},
         {"verified_from_forms", s.engine.verified_from_forms},
         {"verified_from_texts", s.engine.verified_from_texts},
         {"verified_doubted", s.engine.verified_doubted},
         {"profile", ctx.engine.options().engine.profile},
         {"uptime_seconds", uptime}});
}

void Healthz(const RouteContext&, const Req&, Res& res) { Reply(res, 200, {{"status", "ok"}}); }

void AppendMetric(std::string* out, const char* name, const char* type, const char* help,
                  double v) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), "# HELP %s %s\n# TYPE %s %s\n%s %.17g\n", name, help, name, type,
                name, v);
  out->append(buf);
}

void Metrics(const RouteContext& ctx, const Req&, Res& res) {
  const DurableStats s = ctx.engine.Stats();
  std::string out;
  auto gauge = [&](const char* name, const char* help, double v) {
    AppendMetric(&out, name, "gauge", help, v);
  };
  auto counter = [&](const char* name, const char* help, double v) {
    AppendMetric(&out, name, "counter", help, v);
  };
  gauge("neardup_documents", "Live documents.", s.engine.documents);
  gauge("neardup_clusters", "Clusters with a live member.", s.engine.clusters);
  counter("neardup_added_total", "Documents added.", s.engine.added);
  counter("neardup_duplicates_total", "Added documents that joined a cluster.",
          s.engine.duplicates);
  counter("neardup_removed_total", "Documents deleted.", s.engine.removed);
  counter("neardup_expired_documents_total", "Documents expired.", s.expired_documents);
  counter("neardup_commits_total", "Group commits.", s.commits);
  counter("neardup_commit_errors_total", "Failed group commits.", s.commit_errors);
  gauge("neardup_write_queue_documents", "Documents waiting for the writer.", s.queue_depth);
  gauge("neardup_store_bytes", "Store size on disk.", s.disk_bytes);
  gauge("neardup_resident_bytes", "Resident memory.", ResidentBytes());
  gauge("neardup_store_cache_bytes", "RocksDB block cache in use.", s.store_cache_bytes);
  gauge("neardup_store_memtable_bytes", "RocksDB memtables.", s.store_memtable_bytes);
  ctx.metrics.Render(&out);
  res.status = 200;
  res.SetContent(out, "text/plain; version=0.0.4");
}

}  // namespace

std::vector<Route> OperationRoutes() {
  return {
      {"POST", "/v1/expire", "expire", Expire, true},
      {"GET", "/v1/stats", "stats", Stats},
      {"GET", "/healthz", "healthz", Healthz},
      {"GET", "/metrics", "metrics", Metrics},
  };
}

}  // namespace neardup::server
