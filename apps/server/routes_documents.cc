// SPDX-License-Identifier: Apache-2.0
// Document routes of API v1 (docs/api.md "Documents"): add, batch add,
// get, similar and delete.
#include "server/doc_view.h"
#include "server/route.h"

namespace neardup::server {
namespace {

using Req = Request;
using Res = Response;

constexpr char kId[] = "/v1/documents/{id}";
constexpr char kSimilar[] = "/v1/documents/{id}/similar";

OnConflict ConflictPolicy(const Req& req) {
  return WantsUpsert(req) ? OnConflict::kReturnExisting : OnConflict::kError;
}

void AddDocument(const RouteContext& ctx, const Req& req, Res& res) {
  auto body = ParseBody(req.body, ctx.limits);
  if (!body.ok()) return Fail(res, body.status());
  auto doc = ParseDocument(*body, ctx.limits);
  if (!doc.ok()) return Fail(res, doc.status());
  auto r = ctx.engine.Add(*doc, ConflictPolicy(req));
  if (!r.ok()) return Fail(res, r.status());
  Reply(res, r->created ? 201 : 200, IngestJson(*r));
}

// One result per parsed slot: the engine's answer for queued documents,
// the parse error for the others.
Json BatchResults(const std::vector<Result<IncomingDocument>>& parsed,
                  const std::vector<Result<IngestResult>>& results, size_t* failed) {
  Json out = Json::array();
  size_t next = 0;
  for (const auto& slot : parsed) {
    const Status s = slot.ok() ? results[next].status() : slot.status();
    if (s.ok()) {
      Json j = IngestJson(*results[next]);
      j["status"] = results[next]->created ? 201 : 200;
      out.push_back(std::move(j));
    } else {
      ++*failed;
      Json j = ErrorJson(StatusCodeName(s.code()), s.message());
      j["status"] = HttpStatus(s);
      out.push_back(std::move(j));
    }
    next += slot.ok();
  }
  return out;
}

void AddBatch(const RouteContext& ctx, const Req& req, Res& res) {
  std::vector<Result<IncomingDocument>> parsed;
  if (Status s = ParseBatch(req.body, ctx.limits, &parsed); !s.ok()) return Fail(res, s);
  std::vector<IncomingDocument> docs;
  for (auto& slot : parsed) {
    if (slot.ok()) docs.push_back(std::move(*slot));
  }
  const auto results = ctx.engine.AddBatch(docs, ConflictPolicy(req));
  size_t failed = 0;
  Json out = BatchResults(parsed, results, &failed);
  Reply(res, 200, {{"results", std::move(out)}, {"failed", failed}});
}

void GetDocument(const RouteContext& ctx, const Req& req, Res& res) {
  const std::string id = req.id;
  if (Status s = CheckId(id, ctx.limits); !s.ok()) return Fail(res, s);
  auto r = ctx.engine.Get(id);
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
  if (r->text && FlagParam(req, "folded")) {
    // Each character as the engine folds it (T2S, NFKC, case), for diffs.
    std::string folded;
    if (Status s = ctx.engine.FoldCharacters(*r->text, &folded); !s.ok()) return Fail(res, s);
    j["folded"] = std::move(folded);
  }
  Reply(res, 200, j);
}

void DeleteDocument(const RouteContext& ctx, const Req& req, Res& res) {
  const std::string id = req.id;
  if (Status s = CheckId(id, ctx.limits); !s.ok()) return Fail(res, s);
  if (Status s = ctx.engine.Remove(id); !s.ok()) return Fail(res, s);
  Reply(res, 200, {{"id", id}, {"deleted", true}});
}

void SimilarDocuments(const RouteContext& ctx, const Req& req, Res& res) {
  const std::string id = req.id;
  if (Status s = CheckId(id, ctx.limits); !s.ok()) return Fail(res, s);
  auto limit = CountParam(req, "limit", 20, 1000);
  if (!limit.ok()) return Fail(res, limit.status());
  auto sim = ctx.engine.Similar(id, *limit);
  if (!sim.ok()) return Fail(res, sim.status());
  auto cluster = ctx.engine.ClusterOf(id, 0);
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
}

}  // namespace

std::vector<Route> DocumentRoutes() {
  return {
      {"POST", "/v1/documents", "add", AddDocument, true},
      {"POST", "/v1/documents:batch", "batch", AddBatch, true},
      // Before kId, which also matches ".../similar".
      {"GET", kSimilar, "similar", SimilarDocuments},
      {"GET", kId, "get", GetDocument},
      {"DELETE", kId, "delete", DeleteDocument, true},
  };
}

}  // namespace neardup::server
