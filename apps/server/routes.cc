// SPDX-License-Identifier: Apache-2.0
// The endpoints of API version 1 (docs/api.md). Each handler parses and
// validates, calls the DurableEngine, and writes JSON.
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <fstream>

#include "server/cluster_list.h"
#include "server/doc_view.h"
#include "server/server_impl.h"

namespace neardup::server {
namespace {

using Req = httplib::Request;
using Res = httplib::Response;

constexpr char kId[] = R"(/v1/documents/([^/].*))";
constexpr char kSimilar[] = R"(/v1/documents/([^/].*)/similar)";

uint64_t ResidentBytes() {
  std::ifstream f("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  f >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// The value of query parameter `name`, or `def`; InvalidArgument if bad.
Result<size_t> CountParam(const Req& req, const char* name, size_t def, size_t max) {
  if (!req.has_param(name)) return def;
  return ParseCount(req.get_param_value(name), name, max);
}

bool WantsUpsert(const Req& req) {
  if (!req.has_param("upsert")) return false;
  const std::string v = req.get_param_value("upsert");
  return v == "true" || v == "1" || v.empty();
}

}  // namespace

void HttpService::Impl::RegisterRoutes() {
  const Limits& limits = options.limits;
  DurableEngine& eng = *engine;

  Route("POST", "/v1/documents", "add", [&](const Req& req, Res& res) {
    auto body = ParseBody(req.body, limits);
    if (!body.ok()) return Fail(res, body.status());
    auto doc = ParseDocument(*body, limits);
    if (!doc.ok()) return Fail(res, doc.status());
    auto r = eng.Add(*doc, WantsUpsert(req) ? OnConflict::kReturnExisting : OnConflict::kError);
    if (!r.ok()) return Fail(res, r.status());
    Reply(res, r->created ? 201 : 200, IngestJson(*r));
  });
  OtherMethods("/v1/documents", "POST");

  Route("POST", "/v1/documents:batch", "batch", [&](const Req& req, Res& res) {
    std::vector<Result<IncomingDocument>> parsed;
    if (Status s = ParseBatch(req.body, limits, &parsed); !s.ok()) return Fail(res, s);
    std::vector<IncomingDocument> docs;
    std::vector<size_t> where;
    for (size_t i = 0; i < parsed.size(); ++i) {
      if (parsed[i].ok()) {
        docs.push_back(std::move(*parsed[i]));
        where.push_back(i);
      }
    }
    auto results =
        eng.AddBatch(docs, WantsUpsert(req) ? OnConflict::kReturnExisting : OnConflict::kError);
    Json out = Json::array();
    size_t next = 0, failed = 0;
    for (size_t i = 0; i < parsed.size(); ++i) {
      const bool queued = next < where.size() && where[next] == i;
      Status s = queued ? results[next].status() : parsed[i].status();
      if (s.ok()) {
        Json j = IngestJson(*results[next]);
        j["status"] = results[next]->created ? 201 : 200;
        out.push_back(std::move(j));
      } else {
        ++failed;
        Json j = ErrorJson(StatusCodeName(s.code()), s.message());
        j["status"] = HttpStatus(s);
        out.push_back(std::move(j));
      }
      next += queued;
    }
    Reply(res, 200, {{"results", std::move(out)}, {"failed", failed}});
  });
  OtherMethods("/v1/documents:batch", "POST");

  Route("POST", "/v1/query", "query", [&](const Req& req, Res& res) {
    auto body = ParseBody(req.body, limits);
    if (!body.ok()) return Fail(res, body.status());
    if (!body->is_object() || !body->contains("text") || !(*body)["text"].is_string()) {
      return Fail(res, 400, "invalid_argument", "body must be {\"text\": string}");
    }
    const std::string& text = (*body)["text"].get_ref<const std::string&>();
    if (text.size() > limits.max_doc_bytes) {
      return Fail(
          res, Status::OutOfRange("text over " + std::to_string(limits.max_doc_bytes) + " bytes"));
    }
    int k = -1;
    if (auto m = body->find("max_distance"); m != body->end() && !m->is_null()) {
      if (!m->is_number_integer() || m->get<int64_t>() < 0 || m->get<int64_t>() > 64) {
        return Fail(res, 400, "invalid_argument", "'max_distance' must be an integer in [0, 64]");
      }
      k = static_cast<int>(m->get<int64_t>());
    }
    auto q = eng.Query(text, {.max_distance = k});
    if (!q.ok()) return Fail(res, q.status());
    Reply(res, 200,
          {{"cluster", q->cluster ? Json(*q->cluster) : Json(nullptr)},
           {"duplicate", q->cluster.has_value()},
           {"cluster_size", q->cluster_size},
           {"fingerprint", FingerprintHex(q->fingerprint)},
           {"matches", MatchesJson(q->matches)}});
  });
  OtherMethods("/v1/query", "POST");

  Route("POST", "/v1/explain", "explain", [&](const Req& req, Res& res) {
    auto body = ParseBody(req.body, limits);
    if (!body.ok()) return Fail(res, body.status());
    auto text = [&](const char* key) -> const Json* {
      auto it = body->find(key);
      return it != body->end() && it->is_string() ? &*it : nullptr;
    };
    if (!body->is_object() || !text("a") || !text("b")) {
      return Fail(res, 400, "invalid_argument", "body must be {\"a\": string, \"b\": string}");
    }
    const auto& a = text("a")->get_ref<const std::string&>();
    const auto& b = text("b")->get_ref<const std::string&>();
    if (a.size() > limits.max_doc_bytes || b.size() > limits.max_doc_bytes) {
      return Fail(
          res, Status::OutOfRange("text over " + std::to_string(limits.max_doc_bytes) + " bytes"));
    }
    auto x = eng.Explain(a, b);
    if (!x.ok()) return Fail(res, x.status());
    Json j = {{"duplicate", x->duplicate},
              {"rule", x->rule},
              {"similarity", x->similarity},
              {"threshold", x->threshold},
              {"candidate", x->candidate},
              {"jaccard", x->jaccard},
              {"containment", x->containment},
              {"minhash_estimate", x->minhash_estimate},
              {"lsh_bands", x->lsh_bands},
              {"lsh_equal_bands", x->lsh_equal_bands},
              {"simhash_distance", x->simhash_distance},
              {"shared_shingles", x->shared_shingles},
              {"shared_examples", x->shared_examples}};
    if (x->edit_similarity) j["edit_similarity"] = *x->edit_similarity;
    Reply(res, 200, j);
  });
  OtherMethods("/v1/explain", "POST");

  Route("GET", kSimilar, "similar", [&](const Req& req, Res& res) {
    const std::string id = req.matches[1];
    if (Status s = CheckId(id, limits); !s.ok()) return Fail(res, s);
    auto limit = CountParam(req, "limit", 20, 1000);
    if (!limit.ok()) return Fail(res, limit.status());
    auto sim = eng.Similar(id, *limit);
    if (!sim.ok()) return Fail(res, sim.status());
    auto cluster = eng.ClusterOf(id, 0);
    Json list = Json::array();
    for (const auto& s : *sim) {
      Json meta = MetaJson(s.meta);
      Json j = {{"id", s.match.id},
                {"similarity", s.match.similarity},
                {"arrival", s.arrival},
                {"title", MakeDocView(meta, s.text).title},
                {"meta", std::move(meta)}};
      if (s.match.distance >= 0) j["distance"] = s.match.distance;
      if (s.match.verified) j["verified"] = *s.match.verified;
      list.push_back(std::move(j));
    }
    Reply(res, 200, {{"id", id}, {"cluster", cluster.ok() ? cluster->id : ""}, {"similar", list}});
  });
  OtherMethods(kSimilar, "GET");

  Route("GET", kId, "get", [&](const Req& req, Res& res) {
    const std::string id = req.matches[1];
    if (Status s = CheckId(id, limits); !s.ok()) return Fail(res, s);
    auto r = eng.Get(id);
    if (!r.ok()) return Fail(res, r.status());
    Json j = {{"id", r->id},
              {"cluster", r->cluster},
              {"duplicate", r->cluster != r->id},
              {"cluster_size", r->cluster_size},
              {"fingerprint", FingerprintHex(r->fingerprint)},
              {"arrival", r->arrival},
              {"time", r->time},
              {"meta", MetaJson(r->meta)}};
    j["title"] = MakeDocView(j["meta"], r->text).title;
    if (r->text) j["text"] = *r->text;
    Reply(res, 200, j);
  });
  Route("DELETE", kId, "delete", [&](const Req& req, Res& res) {
    const std::string id = req.matches[1];
    if (Status s = CheckId(id, limits); !s.ok()) return Fail(res, s);
    if (Status s = eng.Remove(id); !s.ok()) return Fail(res, s);
    Reply(res, 200, {{"id", id}, {"deleted", true}});
  });
  OtherMethods(kId, "GET, DELETE");

  Route("GET", R"(/v1/clusters/([^/].*))", "cluster", [&](const Req& req, Res& res) {
    const std::string id = req.matches[1];
    if (Status s = CheckId(id, limits); !s.ok()) return Fail(res, s);
    auto limit = CountParam(req, "limit", 100, 10000);
    if (!limit.ok()) return Fail(res, limit.status());
    auto c = eng.GetCluster(id, *limit);
    if (!c.ok()) return Fail(res, c.status());
    Json members = Json::array();
    for (const auto& m : c->members) {
      auto meta = eng.Meta(m);
      members.push_back({{"id", m}, {"meta", meta.ok() ? MetaJson(*meta) : Json(nullptr)}});
    }
    Reply(res, 200,
          {{"id", c->id},
           {"size", c->size},
           {"root_removed", c->root_removed},
           {"time", c->time},
           {"members", members}});
  });
  OtherMethods(R"(/v1/clusters/([^/].*))", "GET");

  Route("GET", "/v1/clusters", "clusters", [&](const Req& req, Res& res) {
    const std::string sort = req.has_param("sort") ? req.get_param_value("sort") : "size";
    const std::string order = req.has_param("order") ? req.get_param_value("order") : "desc";
    if (sort != "size" && sort != "recent") {
      return Fail(res, 400, "invalid_argument", "'sort' must be size or recent");
    }
    if (order != "desc" && order != "asc") {
      return Fail(res, 400, "invalid_argument", "'order' must be desc or asc");
    }
    auto limit = CountParam(req, "limit", 20, 1000);
    if (!limit.ok()) return Fail(res, limit.status());
    ClusterListQuery query;
    query.page = {sort == "size" ? ClusterSort::kSize : ClusterSort::kRecent, order == "desc",
                  *limit, std::nullopt};
    if (req.has_param("cursor") && !req.get_param_value("cursor").empty()) {
      auto after = ParseCursor(req.get_param_value("cursor"));
      if (!after.ok()) return Fail(res, after.status());
      query.page.after = std::move(*after);
    }
    if (req.has_param("q")) query.q = req.get_param_value("q");
    Reply(res, 200, ListClustersJson(eng, query));
  });
  OtherMethods("/v1/clusters", "GET");

  Route("POST", "/v1/expire", "expire", [&](const Req& req, Res& res) {
    int64_t before = 0;
    bool have = false;
    if (!req.body.empty()) {
      auto body = ParseBody(req.body, limits);
      if (!body.ok()) return Fail(res, body.status());
      if (!body->is_object()) return Fail(res, 400, "invalid_argument", "body must be an object");
      if (auto b = body->find("before"); b != body->end() && !b->is_null()) {
        if (!b->is_number_integer()) {
          return Fail(res, 400, "invalid_argument",
                      "'before' must be an integer (ms since the epoch)");
        }
        before = b->get<int64_t>();
        have = true;
      }
    }
    if (!have) {
      if (eng.options().ttl_ms <= 0) {
        return Fail(res, 400, "invalid_argument", "no ttl configured: give 'before'");
      }
      before = std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count() -
               eng.options().ttl_ms;
    }
    auto r = eng.Expire(before);
    if (!r.ok()) return Fail(res, r.status());
    Reply(res, 200, {{"before", before}, {"trees", r->trees}, {"documents", r->documents}});
  });
  OtherMethods("/v1/expire", "POST");

  Route("GET", "/v1/stats", "stats", [&](const Req&, Res& res) {
    const DurableStats s = eng.Stats();
    const uint64_t rss = ResidentBytes();
    const double uptime =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
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
           {"index_bytes", s.engine.index_bytes},
           {"forest_bytes", s.engine.forest_bytes},
           {"id_bytes", s.engine.id_bytes},
           {"resident_bytes", rss},
           {"restore_ms", s.restore_ms},
           {"restored_documents", s.restored_documents},
           {"ttl_ms", s.ttl_ms},
           {"threshold", s.engine.threshold},
           {"text_bytes", s.engine.text_bytes},
           {"profile", eng.options().engine.profile},
           {"uptime_seconds", uptime}});
  });
  OtherMethods("/v1/stats", "GET");

  Route("GET", "/healthz", "healthz", [&](const Req&, Res& res) {
    Reply(res, 200, {{"status", "ok"}});
  });
  OtherMethods("/healthz", "GET");

  Route("GET", "/metrics", "metrics", [&](const Req&, Res& res) {
    const DurableStats s = eng.Stats();
    std::string out;
    char buf[512];
    auto gauge = [&](const char* name, const char* type, const char* help, double v) {
      std::snprintf(buf, sizeof(buf), "# HELP %s %s\n# TYPE %s %s\n%s %.17g\n", name, help, name,
                    type, name, v);
      out.append(buf);
    };
    gauge("neardup_documents", "gauge", "Live documents.", s.engine.documents);
    gauge("neardup_clusters", "gauge", "Clusters with a live member.", s.engine.clusters);
    gauge("neardup_added_total", "counter", "Documents added.", s.engine.added);
    gauge("neardup_duplicates_total", "counter", "Added documents that joined a cluster.",
          s.engine.duplicates);
    gauge("neardup_removed_total", "counter", "Documents deleted.", s.engine.removed);
    gauge("neardup_expired_documents_total", "counter", "Documents expired.", s.expired_documents);
    gauge("neardup_commits_total", "counter", "Group commits.", s.commits);
    gauge("neardup_commit_errors_total", "counter", "Failed group commits.", s.commit_errors);
    gauge("neardup_write_queue_documents", "gauge", "Documents waiting for the writer.",
          s.queue_depth);
    gauge("neardup_store_bytes", "gauge", "Store size on disk.", s.disk_bytes);
    gauge("neardup_resident_bytes", "gauge", "Resident memory.", ResidentBytes());
    metrics.Render(&out);
    res.status = 200;
    res.set_content(out, "text/plain; version=0.0.4");
  });
  OtherMethods("/metrics", "GET");
}

}  // namespace neardup::server
