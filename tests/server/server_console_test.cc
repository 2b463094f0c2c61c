// SPDX-License-Identifier: Apache-2.0
// End-to-end tests of what the web console needs from `neardup serve`
// (docs/console.md, docs/api.md): the embedded pages and their headers,
// titles and snippets in the list, the keyword filter and its paging, and
// the fields of the detail page. The pages themselves are tested in a
// browser by tests/browser/console_test.mjs.
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

// A random string of `n` CJK characters: unrelated texts are far apart.
std::string RandomHan(std::mt19937& rng, int n) {
  std::uniform_int_distribution<int> cp(0x4e00, 0x4e00 + 2000);
  std::string s;
  for (int i = 0; i < n; ++i) {
    const int c = cp(rng);
    s += static_cast<char>(0xE0 | (c >> 12));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
  }
  return s;
}

class ConsoleApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = TempPath("console");
    server_ = new ServerProcess(dir_, {"--store-text", "--ttl", "0", "--threads", "8"});
    ASSERT_TRUE(server_->Start());
  }
  static void TearDownTestSuite() {
    EXPECT_EQ(server_->Stop(), 0);
    delete server_;
    std::filesystem::remove_all(dir_);
    std::filesystem::remove(dir_ + ".port");
  }
  void SetUp() override { client_ = server_->Client(); }

  Json Get(const std::string& path, int want = 200) {
    auto r = client_->Get(path.c_str());
    EXPECT_TRUE(r) << path;
    if (!r) return Json();
    EXPECT_EQ(r->status, want) << path << " " << r->body;
    return Json::parse(r->body, nullptr, false);
  }
  Json Add(const Json& doc) {
    auto r = client_->Post("/v1/documents", doc.dump(), "application/json");
    EXPECT_TRUE(r);
    if (!r) return Json();
    EXPECT_EQ(r->status, 201) << r->body;
    return Json::parse(r->body, nullptr, false);
  }

  static inline ServerProcess* server_ = nullptr;
  static inline std::string dir_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(ConsoleApiTest, PagesAreEmbeddedWithCspAndRevalidation) {
  auto page = client_->Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->body.find("<script type=\"module\" src=\"/console/app.js\">"), std::string::npos);
  const std::string csp = page->get_header_value("Content-Security-Policy");
  EXPECT_NE(csp.find("script-src 'self'"), std::string::npos) << csp;
  EXPECT_NE(csp.find("default-src 'none'"), std::string::npos) << csp;
  EXPECT_EQ(csp.find("unsafe"), std::string::npos) << csp;
  EXPECT_EQ(page->get_header_value("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(page->get_header_value("X-Frame-Options"), "DENY");
  EXPECT_EQ(page->get_header_value("Cache-Control"), "no-cache");
  const std::string etag = page->get_header_value("ETag");
  ASSERT_FALSE(etag.empty());

  // A 304 has no body and no Content-Length (RFC 9110 8.6, 9112 6.3);
  // cpp-httplib's client reads such a response to the end of the
  // connection, so this one asks for the connection to close.
  auto once = server_->Client();
  once->set_keep_alive(false);
  auto again = once->Get("/", {{"If-None-Match", etag}});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 304);
  EXPECT_TRUE(again->body.empty());

  for (const char* p : {"/console/app.js", "/console/diff.js", "/console/style.css",
                        "/console/favicon.svg", "/console/index.html"}) {
    auto r = client_->Get(p);
    ASSERT_TRUE(r) << p;
    EXPECT_EQ(r->status, 200) << p;
    EXPECT_FALSE(r->body.empty()) << p;
    EXPECT_EQ(r->get_header_value("Content-Security-Policy"), csp) << p;
  }
  EXPECT_EQ(client_->Get("/console/app.js")->get_header_value("Content-Type"),
            "text/javascript; charset=utf-8");

  // Everything else: JSON with the strict policy, unknown files are 404s.
  auto missing = client_->Get("/console/nope.js");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(Json::parse(missing->body)["error"]["code"], "not_found");
  EXPECT_EQ(missing->get_header_value("Content-Security-Policy"),
            "default-src 'none'; frame-ancestors 'none'");
  auto stats = client_->Get("/v1/stats");
  ASSERT_TRUE(stats);
  EXPECT_EQ(stats->get_header_value("Content-Security-Policy"),
            "default-src 'none'; frame-ancestors 'none'");
  EXPECT_EQ(stats->get_header_value("X-Content-Type-Options"), "nosniff");
}

TEST_F(ConsoleApiTest, ListRowsCarryTitleSnippetArrivalAndMeta) {
  std::mt19937 rng(1);
  const std::string body = RandomHan(rng, 200);
  Add({{"id", "t-meta"},
       {"text", body},
       {"time", 1700000000000},
       {"meta", {{"title", "  Headline   from\tmeta "}, {"source", "wire"}}}});
  Add({{"id", "t-line"}, {"text", "\n  \n第一行 标题\n" + RandomHan(rng, 200)}});
  const std::string long_title(300, 'x');
  Add({{"id", "t-long"}, {"text", "<b>" + long_title + "</b>\nbody"}});
  std::string words;
  for (int i = 0; i < 40; ++i) words += "words ";
  Add({{"id", "t-words"}, {"text", "English title\n" + words}});

  std::map<std::string, Json> reps;
  std::string cursor;
  for (;;) {
    Json page = Get("/v1/clusters?limit=50" + (cursor.empty() ? "" : "&cursor=" + cursor));
    for (const auto& c : page["clusters"]) reps[c["id"]] = c["representative"];
    if (page["next_cursor"].is_null()) break;
    cursor = httplib::detail::encode_query_param(page["next_cursor"].get<std::string>());
  }
  ASSERT_TRUE(reps.count("t-meta"));
  EXPECT_EQ(reps["t-meta"]["title"], "Headline from meta");  // whitespace collapsed
  EXPECT_EQ(reps["t-meta"]["arrival"], 1700000000000);
  EXPECT_EQ(reps["t-meta"]["meta"]["source"], "wire");
  // The snippet is the text's start: 160 code points and an ellipsis.
  EXPECT_EQ(reps["t-meta"]["snippet"], body.substr(0, 160 * 3) + "\xE2\x80\xA6");
  ASSERT_TRUE(reps.count("t-line"));
  EXPECT_EQ(reps["t-line"]["title"], "第一行 标题");  // the first line with text
  EXPECT_TRUE(reps["t-line"]["meta"].is_null());
  ASSERT_TRUE(reps.count("t-long"));
  // 120 code points, markup kept as text for the client to escape.
  EXPECT_EQ(reps["t-long"]["title"], "<b>" + std::string(117, 'x') + "\xE2\x80\xA6");
  EXPECT_EQ(reps["t-long"]["snippet"], "body");
  // A cut inside a Latin word backs up to the word's start.
  ASSERT_TRUE(reps.count("t-words"));
  EXPECT_EQ(reps["t-words"]["snippet"], words.substr(0, 155) + "\xE2\x80\xA6");
}

TEST_F(ConsoleApiTest, FilterMatchesEveryKeywordInTitlesAndPagesByCursor) {
  std::mt19937 rng(2);
  std::set<std::string> alpha, alpha_odd;
  for (int i = 0; i < 30; ++i) {
    const std::string id = "f-" + std::to_string(100 + i);
    const bool is_alpha = i % 3 == 0;
    const std::string title =
        std::string(is_alpha ? "Alpha" : "Beta") + (i % 2 ? " odd" : " even") + " 新闻";
    Add({{"id", id}, {"text", RandomHan(rng, 150)}, {"meta", {{"title", title}}}});
    if (is_alpha) alpha.insert(id);
    if (is_alpha && i % 2) alpha_odd.insert(id);
  }
  // Pages of 4 walk the filtered list in order, each cluster once.
  std::vector<std::string> seen;
  std::string cursor;
  for (int pages = 0; pages < 20; ++pages) {
    Json page = Get("/v1/clusters?sort=size&order=asc&limit=4&q=aLPHA" +
                    (cursor.empty() ? "" : "&cursor=" + cursor));
    EXPECT_LE(page["clusters"].size(), 4u);
    EXPECT_TRUE(page["scanned"].is_number_unsigned());
    for (const auto& c : page["clusters"]) seen.push_back(c["id"]);
    if (page["next_cursor"].is_null()) break;
    cursor = httplib::detail::encode_query_param(page["next_cursor"].get<std::string>());
  }
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()), alpha);
  EXPECT_EQ(seen.size(), alpha.size());
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));  // size ties by id, ascending

  // Every term must match; CJK terms are compared as bytes.
  Json odd =
      Get("/v1/clusters?limit=100&q=" + httplib::detail::encode_query_param("alpha  ODD 新闻"));
  std::set<std::string> got;
  for (const auto& c : odd["clusters"]) got.insert(c["id"]);
  EXPECT_EQ(got, alpha_odd);
  EXPECT_TRUE(odd["next_cursor"].is_null());
  EXPECT_TRUE(Get("/v1/clusters?q=nothing-like-this")["clusters"].empty());
  // An empty filter is no filter.
  EXPECT_FALSE(Get("/v1/clusters?q=%20")["clusters"].empty());
  EXPECT_FALSE(Get("/v1/clusters?q=%20").contains("scanned"));
}

// The diff compares characters as the engine folds them: ?folded=true adds
// the text folded character by character, one code point per code point.
TEST_F(ConsoleApiTest, FoldedTextHasOneFoldedCharacterPerCharacter) {
  Add({{"id", "fold-tw"}, {"text", "國家統計局發佈數據，ＡＢＣ"}});
  Json doc = Get("/v1/documents/fold-tw?folded=true");
  EXPECT_EQ(doc["text"], "國家統計局發佈數據，ＡＢＣ");
  EXPECT_EQ(doc["folded"], "国家统计局发布数据，abc");
  EXPECT_FALSE(Get("/v1/documents/fold-tw").contains("folded"));
  EXPECT_FALSE(Get("/v1/documents/fold-tw?folded=false").contains("folded"));
}

TEST_F(ConsoleApiTest, DetailFieldsAndListReadsLeaveTimesAlone) {
  std::mt19937 rng(3);
  const std::string story = RandomHan(rng, 300);
  std::string reprint = story;
  reprint.replace(30, 3, "的");
  Add({{"id", "d-1"},
       {"text", "原标题\n" + story},
       {"time", 1700000000000},
       {"meta", {{"source", "A"}}}});
  Add({{"id", "d-2"},
       {"text", "新标题\n" + reprint},
       {"time", 1700000001000},
       {"meta", {{"source", "B"}}}});
  // Reading the list (as the console polls it) refreshes nothing.
  for (int i = 0; i < 3; ++i) Get("/v1/clusters?limit=1000");
  Json cluster = Get("/v1/clusters/d-1");
  EXPECT_EQ(cluster["size"], 2);
  EXPECT_EQ(cluster["time"], 1700000001000);

  Json doc = Get("/v1/documents/d-2");
  EXPECT_EQ(doc["title"], "新标题");
  EXPECT_EQ(doc["text"], "新标题\n" + reprint);
  EXPECT_EQ(doc["cluster"], "d-1");
  Json sim = Get("/v1/documents/d-2/similar");
  ASSERT_EQ(sim["similar"].size(), 1u);
  EXPECT_EQ(sim["similar"][0]["id"], "d-1");
  EXPECT_EQ(sim["similar"][0]["title"], "原标题");
  EXPECT_EQ(sim["similar"][0]["arrival"], 1700000000000);
  EXPECT_EQ(sim["similar"][0]["meta"]["source"], "A");
}

TEST(ConsoleAuthTest, PagesNeedNoTokenButDataDoes) {
  const std::string dir = TempPath("console_auth");
  std::filesystem::create_directories(dir + ".d");
  const std::string token_file = dir + ".d/token";
  std::ofstream(token_file) << "s3cret\n";
  ServerProcess server(dir, {"--token-file", token_file});
  ASSERT_TRUE(server.Start());
  auto c = server.Client();
  EXPECT_EQ(c->Get("/")->status, 200);
  EXPECT_EQ(c->Get("/console/app.js")->status, 200);
  EXPECT_EQ(c->Get("/v1/clusters")->status, 401);
  EXPECT_EQ(c->Get("/v1/clusters", {{"Authorization", "Bearer s3cret"}})->status, 200);
  c.reset();  // close the keep-alive connection so that the server stops at once
  EXPECT_EQ(server.Stop(), 0);
  std::filesystem::remove_all(dir);
  std::filesystem::remove_all(dir + ".d");
  std::filesystem::remove(dir + ".port");
}

}  // namespace
}  // namespace neardup::testing
