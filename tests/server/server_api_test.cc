// SPDX-License-Identifier: Apache-2.0
// End-to-end API tests: every endpoint and error path of `neardup serve`
// against a real server process on 127.0.0.1 (docs/api.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "server/server_process.h"

namespace neardup::testing {
namespace {

using Json = nlohmann::json;

constexpr char kStory[] =
    "国家统计局今天发布数据显示，十月份全国居民消费价格同比上涨百分之二点一，其中城市上涨百分之二点"
    "零，"
    "农村上涨百分之二点三；食品价格上涨百分之三点八，非食品价格上涨百分之一点七。";
constexpr char kReprint[] =
    "国家统计局今天发布数据显示：十月份全国居民消费价格同比上涨百分之二点一，其中城市上涨百分之二点"
    "零，"
    "农村上涨百分之二点三；食品价格上涨百分之三点八，非食品价格上涨百分之一点七";
constexpr char kOther[] =
    "北京时间昨晚，中国女排在世界杯比赛中以三比零战胜对手，取得开门红，主教练赛后表示球队状态良好"
    "。";

class ApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = TempPath("api");
    server_ = new ServerProcess(dir_, {"--max-body", "65536", "--max-doc-bytes", "8192",
                                       "--max-batch", "10", "--threads", "8"});
    ASSERT_TRUE(server_->Start());
  }
  static void TearDownTestSuite() {
    EXPECT_EQ(server_->Stop(), 0);
    delete server_;
    std::filesystem::remove_all(dir_);
    std::filesystem::remove(dir_ + ".port");
  }
  void SetUp() override { client_ = server_->Client(); }

  // Sends and parses; the body of every response must be JSON.
  std::pair<int, Json> Call(const std::string& method, const std::string& path,
                            const std::string& body = "") {
    httplib::Result r = method == "GET"      ? client_->Get(path.c_str())
                        : method == "DELETE" ? client_->Delete(path.c_str())
                        : method == "PUT"    ? client_->Put(path.c_str(), body, "application/json")
                                          : client_->Post(path.c_str(), body, "application/json");
    EXPECT_TRUE(r) << method << " " << path;
    if (!r) return {0, Json()};
    Json j = Json::parse(r->body, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r->body;
    return {r->status, j};
  }
  void ExpectError(const std::pair<int, Json>& r, int status, const std::string& code) {
    EXPECT_EQ(r.first, status) << r.second.dump();
    ASSERT_TRUE(r.second.contains("error")) << r.second.dump();
    EXPECT_EQ(r.second["error"]["code"], code) << r.second.dump();
    EXPECT_TRUE(r.second["error"]["message"].is_string());
  }
  static std::string Doc(const std::string& id, const std::string& text,
                         const Json& meta = nullptr) {
    Json j = {{"id", id}, {"text", text}};
    if (!meta.is_null()) j["meta"] = meta;
    return j.dump();
  }

  static inline ServerProcess* server_ = nullptr;
  static inline std::string dir_;
  std::unique_ptr<httplib::Client> client_;
};

// Two excerpts of a story arrive before it and start two clusters; the
// story joins one and gathers the other, which its answer lists.
TEST_F(ApiTest, AStoryGathersAnExcerptAloneInItsCluster) {
  std::mt19937 rng(31);
  std::string story;  // 900 random Han characters
  for (int i = 0; i < 900; ++i) {
    const uint32_t c = 0x4E00 + rng() % 2000;
    story += {static_cast<char>(0xE0 | c >> 12), static_cast<char>(0x80 | (c >> 6 & 0x3F)),
              static_cast<char>(0x80 | (c & 0x3F))};
  }
  const std::string one = "节选\n\n" + story.substr(0, 3 * 250);
  const std::string two = "节选\n\n" + story.substr(3 * 600, 3 * 250);
  ASSERT_EQ(Call("POST", "/v1/documents", Doc("gx-one", one)).first, 201);
  ASSERT_EQ(Call("POST", "/v1/documents", Doc("gx-two", two)).first, 201);
  auto r = Call("POST", "/v1/documents", Doc("gx-story", story));
  ASSERT_EQ(r.first, 201) << r.second.dump();
  ASSERT_EQ(r.second["gathered"].size(), 1u) << r.second.dump();
  const std::string joined = r.second["cluster"], gathered = r.second["gathered"][0];
  EXPECT_EQ(std::set<std::string>({joined, gathered}), std::set<std::string>({"gx-one", "gx-two"}));
  EXPECT_EQ(r.second["cluster_size"], 3);
  auto g = Call("GET", "/v1/documents/" + gathered);
  EXPECT_EQ(g.second["cluster"], joined) << g.second.dump();
}

TEST_F(ApiTest, AddReprintQueryGetSimilarClusterDelete) {
  auto a =
      Call("POST", "/v1/documents", Doc("add-a", kStory, {{"title", "CPI"}, {"source", "xinhua"}}));
  ASSERT_EQ(a.first, 201) << a.second.dump();
  EXPECT_EQ(a.second["cluster"], "add-a");
  EXPECT_EQ(a.second["duplicate"], false);
  EXPECT_EQ(a.second["cluster_size"], 1);
  EXPECT_EQ(a.second["gathered"], Json::array());

  auto b = Call("POST", "/v1/documents", Doc("add-b", kReprint, {{"source", "sina"}}));
  ASSERT_EQ(b.first, 201);
  EXPECT_EQ(b.second["cluster"], "add-a");
  EXPECT_EQ(b.second["duplicate"], true);
  EXPECT_EQ(b.second["cluster_size"], 2);
  ASSERT_EQ(b.second["matches"].size(), 1u);
  EXPECT_EQ(b.second["matches"][0]["id"], "add-a");
  EXPECT_LE(b.second["matches"][0]["distance"].get<int>(), 3);
  EXPECT_GT(b.second["matches"][0]["similarity"].get<double>(), 0.9);

  auto q = Call("POST", "/v1/query", Json{{"text", kReprint}}.dump());
  ASSERT_EQ(q.first, 200);
  EXPECT_EQ(q.second["cluster"], "add-a");
  EXPECT_EQ(q.second["cluster_size"], 2);
  auto q2 = Call("POST", "/v1/query", Json{{"text", kReprint}}.dump());
  EXPECT_EQ(q2.second["cluster_size"], 2);  // a query inserts nothing

  auto g = Call("GET", "/v1/documents/add-b");
  ASSERT_EQ(g.first, 200);
  EXPECT_EQ(g.second["cluster"], "add-a");
  EXPECT_EQ(g.second["meta"]["source"], "sina");
  EXPECT_EQ(g.second["fingerprint"].get<std::string>().size(), 16u);
  EXPECT_GT(g.second["arrival"].get<int64_t>(), 0);
  EXPECT_GE(g.second["time"].get<int64_t>(), g.second["arrival"].get<int64_t>());

  auto s = Call("GET", "/v1/documents/add-a/similar?limit=5");
  ASSERT_EQ(s.first, 200);
  ASSERT_EQ(s.second["similar"].size(), 1u);
  EXPECT_EQ(s.second["similar"][0]["id"], "add-b");
  EXPECT_EQ(s.second["similar"][0]["meta"]["source"], "sina");

  auto c = Call("GET", "/v1/clusters/add-a");
  ASSERT_EQ(c.first, 200);
  EXPECT_EQ(c.second["size"], 2);
  EXPECT_EQ(c.second["members"][0]["id"], "add-a");
  EXPECT_EQ(c.second["members"][1]["id"], "add-b");

  // Deleting the root leaves a ghost: the cluster keeps its id.
  auto d = Call("DELETE", "/v1/documents/add-a");
  ASSERT_EQ(d.first, 200);
  EXPECT_EQ(d.second["deleted"], true);
  ExpectError(Call("DELETE", "/v1/documents/add-a"), 404, "not_found");
  ExpectError(Call("GET", "/v1/documents/add-a"), 404, "not_found");
  c = Call("GET", "/v1/clusters/add-a");
  ASSERT_EQ(c.first, 200);
  EXPECT_EQ(c.second["root_removed"], true);
  EXPECT_EQ(c.second["size"], 1);
  ExpectError(Call("POST", "/v1/documents", Doc("add-a", kStory)), 409, "already_exists");
  ASSERT_EQ(Call("DELETE", "/v1/documents/add-b").first, 200);
  ExpectError(Call("GET", "/v1/clusters/add-a"), 404, "not_found");
}

TEST_F(ApiTest, ExplainSaysWhichRuleDecided) {
  auto x = Call("POST", "/v1/explain", Json{{"a", kStory}, {"b", kReprint}}.dump());
  ASSERT_EQ(x.first, 200) << x.second.dump();
  EXPECT_EQ(x.second["duplicate"], true);
  EXPECT_EQ(x.second["candidate"], true);
  EXPECT_GE(x.second["similarity"].get<double>(), x.second["threshold"].get<double>());
  EXPECT_NE(x.second["rule"].get<std::string>().find("threshold"), std::string::npos);
  EXPECT_GT(x.second["shared_shingles"].get<int>(), 0);
  auto y = Call("POST", "/v1/explain", Json{{"a", kStory}, {"b", "完全不同的一句话"}}.dump());
  ASSERT_EQ(y.first, 200);
  EXPECT_EQ(y.second["duplicate"], false);
  EXPECT_LT(y.second["jaccard"].get<double>(), 0.1);
  ExpectError(Call("POST", "/v1/explain", Json{{"a", kStory}}.dump()), 400, "invalid_argument");
  ExpectError(Call("GET", "/v1/explain"), 405, "method_not_allowed");
}

TEST_F(ApiTest, RepeatedIdIsConflictUnlessUpsertWhichReturnsTheStoredAnswer) {
  ASSERT_EQ(Call("POST", "/v1/documents", Doc("up-1", kOther)).first, 201);
  ExpectError(Call("POST", "/v1/documents", Doc("up-1", kOther)), 409, "already_exists");
  auto r = Call("POST", "/v1/documents?upsert=true", Doc("up-1", kOther));
  ASSERT_EQ(r.first, 200);
  EXPECT_EQ(r.second["created"], false);
  EXPECT_EQ(r.second["cluster"], "up-1");
  auto n = Call("POST", "/v1/documents?upsert=true", Doc("up-2", kOther));
  ASSERT_EQ(n.first, 201);
  EXPECT_EQ(n.second["cluster"], "up-1");
}

TEST_F(ApiTest, BatchAcceptsArrayAndNdjsonWithOneResultPerDocumentInOrder) {
  Json arr = Json::array({Json::parse(Doc("bat-1", std::string(kStory) + "批")),
                          Json::parse(Doc("bat-2", std::string(kStory) + "批")),
                          Json{{"id", 5.5}, {"text", "x"}}, Json::parse(Doc("bat-1", "dup id"))});
  auto r = Call("POST", "/v1/documents:batch", arr.dump());
  ASSERT_EQ(r.first, 200) << r.second.dump();
  auto& res = r.second["results"];
  ASSERT_EQ(res.size(), 4u);
  EXPECT_EQ(res[0]["status"], 201);
  EXPECT_EQ(res[1]["status"], 201);
  EXPECT_EQ(res[1]["cluster"], "bat-1");
  EXPECT_EQ(res[2]["status"], 400);
  EXPECT_EQ(res[2]["error"]["code"], "invalid_argument");
  EXPECT_EQ(res[3]["status"], 409);
  EXPECT_EQ(r.second["failed"], 2);

  const std::string nd =
      Doc("bat-3", kOther) + "\n\n{broken\n" + Doc("bat-4", "第四篇文章的内容") + "\n";
  r = Call("POST", "/v1/documents:batch", nd);
  ASSERT_EQ(r.first, 200);
  ASSERT_EQ(r.second["results"].size(), 3u);
  EXPECT_EQ(r.second["results"][0]["status"], 201);
  EXPECT_EQ(r.second["results"][1]["status"], 400);
  EXPECT_EQ(r.second["results"][2]["id"], "bat-4");

  std::string eleven;
  for (int i = 0; i < 11; ++i) eleven += Doc("big-" + std::to_string(i), "t") + "\n";
  ExpectError(Call("POST", "/v1/documents:batch", eleven), 413, "out_of_range");
  ExpectError(Call("POST", "/v1/documents:batch", "  "), 400, "invalid_argument");
  // An empty array is an empty batch too (found by the json_io fuzzer).
  ExpectError(Call("POST", "/v1/documents:batch", " [] "), 400, "invalid_argument");
  r = Call("POST", "/v1/documents:batch", "{\"a\":1}x");  // NDJSON: a bad line is that slot's error
  ASSERT_EQ(r.first, 200);
  EXPECT_EQ(r.second["failed"], 1);
  EXPECT_EQ(r.second["results"][0]["status"], 400);
}

// Integer ids work as in the CLI and Python: 7 is the id "7".
TEST_F(ApiTest, IntegerIdsAreTheirDecimalText) {
  auto r = Call("POST", "/v1/documents", R"({"id":9001,"text":"整数编号的第一篇文章内容"})");
  ASSERT_EQ(r.first, 201) << r.second.dump();
  EXPECT_EQ(r.second["id"], "9001");
  EXPECT_EQ(Call("GET", "/v1/documents/9001").first, 200);
  ExpectError(Call("POST", "/v1/documents", Doc("9001", "同一个编号")), 409, "already_exists");
  r = Call("POST", "/v1/documents", R"({"id":-12,"text":"负数编号的文章"})");
  ASSERT_EQ(r.first, 201) << r.second.dump();
  EXPECT_EQ(r.second["id"], "-12");
  Json arr = Json::array({Json{{"id", 9002}, {"text", "批量里的整数编号"}},
                          Json{{"id", 9003}, {"text", "批量里的另一个整数编号"}}});
  r = Call("POST", "/v1/documents:batch", arr.dump());
  ASSERT_EQ(r.first, 200) << r.second.dump();
  EXPECT_EQ(r.second["failed"], 0);
  EXPECT_EQ(r.second["results"][1]["id"], "9003");
}

TEST_F(ApiTest, BadInputsGetClearErrorsAndNeverCrashTheServer) {
  ExpectError(Call("POST", "/v1/documents", "{not json"), 400, "invalid_argument");
  ExpectError(Call("POST", "/v1/documents", "[]"), 400, "invalid_argument");
  ExpectError(Call("POST", "/v1/documents", R"({"text":"no id"})"), 400, "invalid_argument");
  ExpectError(Call("POST", "/v1/documents", R"({"id":"","text":"x"})"), 400, "invalid_argument");
  ExpectError(Call("POST", "/v1/documents", R"({"id":7.5,"text":"x"})"), 400, "invalid_argument");
  ExpectError(Call("POST", "/v1/documents", R"({"id":true,"text":"x"})"), 400, "invalid_argument");
  ExpectError(Call("POST", "/v1/documents", R"({"id":1e30,"text":"x"})"), 400, "invalid_argument");
  ExpectError(Call("POST", "/v1/documents", R"({"id":"a\u0001b","text":"x"})"), 400,
              "invalid_argument");
  ExpectError(Call("POST", "/v1/documents", R"({"id":"t","text":"x","time":1e400})"), 400,
              "invalid_argument");
  ExpectError(Call("POST", "/v1/documents",
                   R"({"id":"t","text":"x","time":123456789012345678901234567890})"),
              400, "invalid_argument");
  ExpectError(Call("POST", "/v1/documents", R"({"id":"t","text":"x","time":-5})"), 400,
              "invalid_argument");
  ExpectError(Call("POST", "/v1/documents", R"({"id":"t","text":"x","meta":[1]})"), 400,
              "invalid_argument");
  ExpectError(Call("POST", "/v1/documents", "{\"id\":\"u\",\"text\":\"\xff\xfe\"}"), 400,
              "invalid_argument");  // ill-formed UTF-8
  std::string deep = "{\"id\":\"d\",\"text\":\"x\",\"meta\":";
  for (int i = 0; i < 30000; ++i) deep += "[";
  ExpectError(Call("POST", "/v1/documents", deep), 400, "invalid_argument");
  ExpectError(Call("POST", "/v1/documents", Doc("long", std::string(9000, 'a'))), 413,
              "out_of_range");
  ExpectError(Call("POST", "/v1/documents", Doc("huge", std::string(70000, 'a'))), 413,
              "payload_too_large");
  ExpectError(Call("POST", "/v1/query", R"({"txt":"x"})"), 400, "invalid_argument");
  ExpectError(Call("POST", "/v1/query", R"({"text":"x","max_distance":99})"), 400,
              "invalid_argument");
  ExpectError(Call("GET", "/v1/documents/nope"), 404, "not_found");
  ExpectError(Call("GET", "/v1/documents/nope/similar"), 404, "not_found");
  ExpectError(Call("GET", "/v1/documents/x/similar?limit=abc"), 400, "invalid_argument");
  ExpectError(Call("GET", "/v1/clusters?sort=color"), 400, "invalid_argument");
  ExpectError(Call("GET", "/v1/clusters?order=up"), 400, "invalid_argument");
  ExpectError(Call("GET", "/v1/clusters?cursor=zzz"), 400, "invalid_argument");
  ExpectError(Call("GET", "/v1/clusters?limit=-1"), 400, "invalid_argument");
  ExpectError(Call("POST", "/v1/expire", R"({"before":"yesterday"})"), 400, "invalid_argument");
  ExpectError(Call("GET", "/v1/nothing-here"), 404, "not_found");
  ExpectError(Call("PUT", "/v1/stats", "{}"), 405, "method_not_allowed");
  ExpectError(Call("GET", "/v1/documents"), 405, "method_not_allowed");
  ExpectError(Call("POST", "/v1/documents/x", "{}"), 405, "method_not_allowed");
  // Random bytes at every endpoint.
  std::mt19937 rng(42);
  for (int i = 0; i < 200; ++i) {
    std::string junk(rng() % 300, '\0');
    for (auto& c : junk) c = static_cast<char>(rng());
    for (const char* path : {"/v1/documents", "/v1/documents:batch", "/v1/query", "/v1/expire"}) {
      auto r = client_->Post(path, junk, "application/json");
      ASSERT_TRUE(r) << "server died on junk";
      // Batches answer 200 with per-line errors; the rest reject the body.
      if (std::string(path) == "/v1/documents" || std::string(path) == "/v1/query") {
        EXPECT_GE(r->status, 400);
      }
      EXPECT_LT(r->status, 500) << r->body;
    }
  }
  EXPECT_EQ(Call("GET", "/healthz").first, 200);
}

TEST_F(ApiTest, WrongMethodIs405WithTheAllowedMethods) {
  auto r = client_->Delete("/v1/documents/x/similar");  // not a delete of id "x/similar"
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
  EXPECT_EQ(r->get_header_value("Allow"), "GET, HEAD, OPTIONS");
  r = client_->Put("/v1/documents/x", "{}", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
  EXPECT_EQ(r->get_header_value("Allow"), "GET, HEAD, DELETE, OPTIONS");
  r = client_->Get("/v1/documents:batch");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
  EXPECT_EQ(r->get_header_value("Allow"), "POST, OPTIONS");
}

TEST_F(ApiTest, ClusterListPagesCoverEveryClusterOnceInOrder) {
  // Three families of sizes 3, 2, 1 plus whatever other tests added.
  const std::string f1 =
      "第一组新闻：央行宣布下调存款准备金率零点五个百分点，释放长期资金约一万亿元，支持实体经济发展"
      "。";
  const std::string f2 =
      "第二组新闻：气象台发布暴雨橙色预警，预计未来三小时内城区将出现五十毫米以上的强降水，请注意防"
      "范。";
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(Call("POST", "/v1/documents", Doc("p1-" + std::to_string(i), f1)).first, 201);
  for (int i = 0; i < 2; ++i)
    ASSERT_EQ(Call("POST", "/v1/documents", Doc("p2-" + std::to_string(i), f2)).first, 201);
  for (const char* sort : {"size", "recent"}) {
    for (const char* order : {"desc", "asc"}) {
      std::vector<std::pair<int64_t, std::string>> keys;
      std::string cursor;
      for (int page = 0; page < 100; ++page) {
        std::string path = std::string("/v1/clusters?limit=2&sort=") + sort + "&order=" + order;
        if (!cursor.empty()) path += "&cursor=" + httplib::detail::encode_query_param(cursor);
        auto r = Call("GET", path);
        ASSERT_EQ(r.first, 200) << r.second.dump();
        for (const auto& c : r.second["clusters"]) {
          keys.emplace_back(
              std::string(sort) == "size" ? c["size"].get<int64_t>() : c["time"].get<int64_t>(),
              c["id"].get<std::string>());
          EXPECT_TRUE(c["representative"]["id"].is_string());
        }
        if (r.second["next_cursor"].is_null()) break;
        cursor = r.second["next_cursor"];
      }
      std::set<std::string> ids;
      for (const auto& k : keys)
        EXPECT_TRUE(ids.insert(k.second).second) << "repeated " << k.second;
      auto sorted = keys;
      std::sort(sorted.begin(), sorted.end());
      if (std::string(order) == "desc") std::reverse(sorted.begin(), sorted.end());
      EXPECT_EQ(keys, sorted);
      EXPECT_TRUE(ids.count("p1-0") && ids.count("p2-0"));
      auto stats = Call("GET", "/v1/stats");
      EXPECT_EQ(ids.size(), stats.second["clusters"].get<size_t>());
    }
  }
  auto top = Call("GET", "/v1/clusters?sort=size&limit=1");
  EXPECT_GE(top.second["clusters"][0]["size"].get<int>(), 3);
}

TEST_F(ApiTest, ExpireByHandRemovesOldTreesOnly) {
  const std::string old_text =
      "很久以前的一条旧闻：某地举办了传统庙会活动，吸引了大量游客前来参观游玩，现场热闹非凡。";
  ASSERT_EQ(Call("POST", "/v1/documents",
                 Json{{"id", "old-1"}, {"text", old_text}, {"time", 1000}}.dump())
                .first,
            201);
  ASSERT_EQ(Call("POST", "/v1/documents",
                 Json{{"id", "old-2"}, {"text", old_text}, {"time", 2000}}.dump())
                .first,
            201);
  auto r = Call("POST", "/v1/expire", R"({"before": 1500})");
  ASSERT_EQ(r.first, 200);
  EXPECT_EQ(r.second["trees"], 0);  // old-2 joined at 2000 and refreshed the root
  r = Call("POST", "/v1/expire", R"({"before": 2500})");
  ASSERT_EQ(r.first, 200);
  EXPECT_EQ(r.second["trees"], 1);
  EXPECT_EQ(r.second["documents"], 2);
  ExpectError(Call("GET", "/v1/documents/old-1"), 404, "not_found");
  ExpectError(Call("GET", "/v1/documents/old-2"), 404, "not_found");
  EXPECT_EQ(Call("POST", "/v1/expire", "").first, 200);  // default cutoff: now - ttl
}

TEST_F(ApiTest, StatsHealthAndMetrics) {
  auto s = Call("GET", "/v1/stats");
  ASSERT_EQ(s.first, 200);
  for (const char* k : {"documents", "clusters", "added", "commits", "disk_bytes", "resident_bytes",
                        "queue_depth", "restore_ms", "ttl_ms"}) {
    EXPECT_TRUE(s.second.contains(k)) << k;
  }
  auto h = Call("GET", "/healthz");
  EXPECT_EQ(h.first, 200);
  EXPECT_EQ(h.second["status"], "ok");
  auto m = client_->Get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->status, 200);
  EXPECT_NE(m->body.find("# TYPE neardup_documents gauge"), std::string::npos);
  EXPECT_NE(m->body.find("neardup_http_requests_total{route=\"stats\",status=\"200\"}"),
            std::string::npos);
  EXPECT_NE(m->body.find("neardup_http_request_duration_seconds_bucket"), std::string::npos);
}

TEST(ServerAuthTest, TokenRequiredEverywhereButHealthz) {
  const std::string dir = TempPath("auth");
  const std::string token_file = dir + ".token";
  { std::ofstream(token_file) << "s3cret-token\n"; }
  ServerProcess server(dir, {"--token-file", token_file});
  ASSERT_TRUE(server.Start());
  auto c = server.Client();
  auto r = c->Get("/v1/stats");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_NE(r->body.find("unauthorized"), std::string::npos);
  r = c->Get("/v1/stats", {{"Authorization", "Bearer s3cret-tokeN"}});
  EXPECT_EQ(r->status, 401);
  r = c->Get("/v1/stats", {{"Authorization", "Bearer s3cret-token"}});
  EXPECT_EQ(r->status, 200);
  r = c->Post("/v1/documents", {{"Authorization", "Bearer s3cret"}}, "{}", "application/json");
  EXPECT_EQ(r->status, 401);
  r = c->Get("/healthz");
  EXPECT_EQ(r->status, 200);
  c.reset();  // close the keep-alive connection so shutdown need not wait for it
  EXPECT_EQ(server.Stop(), 0);
  std::filesystem::remove_all(dir);
  std::filesystem::remove(token_file);
}

TEST(ServerCliTest, BadFlagsAreUsageErrors) {
  const std::string cmd =
      std::string(NEARDUP_BINARY) + " serve --data /tmp/x --ttl 5parsecs 2>/dev/null";
  EXPECT_EQ(WEXITSTATUS(std::system(cmd.c_str())), 2);
  const std::string cmd2 =
      std::string(NEARDUP_BINARY) + " serve --data /tmp/x --listen nohost 2>/dev/null";
  EXPECT_EQ(WEXITSTATUS(std::system(cmd2.c_str())), 2);
  // Once an overflow that turned expiry off without a word.
  // (Such a server would run: the timeout ends it with 124.)
  const std::string cmd3 = "timeout 30 " + std::string(NEARDUP_BINARY) +
                           " serve --data /tmp/x --listen 127.0.0.1:0 --ttl 999999999999d "
                           "2>/dev/null";
  EXPECT_EQ(WEXITSTATUS(std::system(cmd3.c_str())), 2);
  const std::string cmd4 =
      std::string(NEARDUP_BINARY) + " serve --data /tmp/x --threads 100000 2>/dev/null";
  EXPECT_EQ(WEXITSTATUS(std::system(cmd4.c_str())), 2);
}

}  // namespace
}  // namespace neardup::testing
