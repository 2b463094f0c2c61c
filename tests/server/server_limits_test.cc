// SPDX-License-Identifier: Apache-2.0
// End-to-end tests of the service's limits and abuse handling (docs/api.md
// "Limits"): connection limit, header/request/idle timeouts (slowloris),
// head and body sizes, authentication before the body, framing (no
// Content-Length, chunked, pipelining), against a real server process over
// raw sockets.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "server/raw_client.h"
#include "server/server_fixture.h"

namespace neardup::testing {
namespace {

using Json = nlohmann::json;

using Raw = RawClient;

class LimitsTest : public ServerFixture {
 protected:
  void Start(std::vector<std::string> flags) { ServerFixture::Start(std::move(flags), "limits"); }
};

TEST_F(LimitsTest, ConnectionsOverTheLimitGet503AndRoomComesBack) {
  Start({"--max-connections", "4"});
  std::vector<std::unique_ptr<Raw>> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(std::make_unique<Raw>(port()));
    ASSERT_TRUE(held.back()->Send(Get("/healthz")));
    ASSERT_EQ(StatusOf(held.back()->ReadResponse()), 200);  // open, idle, kept alive
  }
  Raw extra(port());
  ASSERT_TRUE(extra.ok());
  const std::string r = extra.ReadAll();
  EXPECT_EQ(StatusOf(r), 503) << r;
  EXPECT_EQ(BodyOf(r)["error"]["code"], "unavailable");
  EXPECT_TRUE(extra.closed());
  held.pop_back();  // one leaves; a new client gets in
  for (int attempt = 0; attempt < 100; ++attempt) {
    Raw again(port());
    if (!again.Send(Get("/healthz"))) continue;
    const int status = StatusOf(again.ReadResponse());
    if (status == 200) return;
    ASSERT_EQ(status, 503);  // the server has not seen the close yet
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  FAIL() << "no room after a connection closed";
}

TEST_F(LimitsTest, SlowHeadersTimeOutWith408AndHoldNoThread) {
  Start({"--header-timeout", "1s", "--threads", "2"});
  // Ten slowloris connections, each dribbling a header byte every 200 ms.
  std::vector<std::unique_ptr<Raw>> slow;
  for (int i = 0; i < 10; ++i) {
    slow.push_back(std::make_unique<Raw>(port()));
    ASSERT_TRUE(slow.back()->Send("GET /v1/stats HTTP/1.1\r\nX-Slow: "));
  }
  // Meanwhile a normal client is served at once by one of the 2 threads.
  auto c = server_->Client();
  c->set_read_timeout(5, 0);
  auto h = c->Get("/healthz");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
  std::string answer;
  for (int tick = 0; tick < 100 && answer.empty(); ++tick) {
    for (auto& s : slow) s->Send("a");
    answer = slow[0]->ReadResponse(200);
  }
  EXPECT_EQ(StatusOf(answer), 408) << answer;
  EXPECT_EQ(BodyOf(answer)["error"]["code"], "request_timeout");
  for (auto& s : slow) {
    s->ReadAll(5000);
    EXPECT_TRUE(s->closed());
  }
}

TEST_F(LimitsTest, SlowBodyTimesOutAndIdleConnectionsClose) {
  Start({"--request-timeout", "1s", "--idle-timeout", "1s"});
  Raw body(port());
  ASSERT_TRUE(
      body.Send("POST /v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                "application/json\r\nContent-Length: 100\r\n\r\n{\"te"));
  const std::string r = body.ReadAll();
  EXPECT_EQ(StatusOf(r), 408) << r;
  EXPECT_TRUE(body.closed());
  Raw idle(port());
  ASSERT_TRUE(idle.ok());
  EXPECT_EQ(idle.ReadAll(), "");  // closed without a word
  EXPECT_TRUE(idle.closed());
}

TEST_F(LimitsTest, OversizedHeadAndDeclaredBodyAreRefusedBeforeReading) {
  Start({"--max-header-bytes", "2048", "--max-body", "1000"});
  Raw head(port());
  ASSERT_TRUE(head.Send(Get("/v1/stats", "X-Big: " + std::string(3000, 'x') + "\r\n")));
  std::string r = head.ReadAll();
  EXPECT_EQ(StatusOf(r), 431) << r;
  EXPECT_EQ(BodyOf(r)["error"]["code"], "header_too_large");
  // The body is never sent: the refusal comes from the head alone.
  Raw body(port());
  ASSERT_TRUE(
      body.Send("POST /v1/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                "application/json\r\nContent-Length: 5000000000\r\n\r\n"));
  r = body.ReadAll();
  EXPECT_EQ(StatusOf(r), 413) << r;
  EXPECT_EQ(BodyOf(r)["error"]["code"], "payload_too_large");
  Raw bad(port());
  ASSERT_TRUE(
      bad.Send("POST /v1/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: "
               "1\r\nContent-Length: 2\r\n\r\n"));
  EXPECT_EQ(StatusOf(bad.ReadAll()), 400);
  Raw te(port());
  ASSERT_TRUE(
      te.Send("POST /v1/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
              "application/json\r\nTransfer-Encoding: gzip\r\n\r\n"));
  EXPECT_EQ(StatusOf(te.ReadAll()), 400);
}

TEST_F(LimitsTest, TokenIsCheckedBeforeTheBodyIsRead) {
  StartWithToken("t0ken");
  Raw r(port());
  // A huge declared body that is never sent: 401 comes from the head.
  ASSERT_TRUE(
      r.Send("POST /v1/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 30000000\r\n\r\n"));
  const std::string a = r.ReadAll();
  EXPECT_EQ(StatusOf(a), 401) << a;
  EXPECT_NE(a.find("WWW-Authenticate: Bearer"), std::string::npos);
  EXPECT_TRUE(r.closed());
  // Expect: 100-continue gets the 401 instead of the go-ahead.
  Raw e(port());
  ASSERT_TRUE(
      e.Send("POST /v1/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n"
             "Expect: 100-continue\r\nAuthorization: Bearer nope\r\n\r\n"));
  EXPECT_EQ(StatusOf(e.ReadAll()), 401);
  Raw ok(port());
  ASSERT_TRUE(ok.Send(Get("/v1/stats", "Authorization: Bearer t0ken\r\n")));
  EXPECT_EQ(StatusOf(ok.ReadResponse()), 200);
  Raw health(port());
  ASSERT_TRUE(health.Send(Get("/healthz")));
  EXPECT_EQ(StatusOf(health.ReadResponse()), 200);
}

TEST_F(LimitsTest, FramingWithoutLengthChunkedAndPipelined) {
  Start({});
  // DELETE without Content-Length has no body: answered at once.
  Raw del(port());
  ASSERT_TRUE(del.Send("DELETE /v1/documents/none HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  EXPECT_EQ(StatusOf(del.ReadResponse(5000)), 404);
  // A chunked document.
  const std::string doc = R"({"id":"chunked-1","text":"分块传输的一篇文档"})";
  char size[16];
  std::snprintf(size, sizeof(size), "%zx", doc.size());
  Raw chunked(port());
  ASSERT_TRUE(
      chunked.Send("POST /v1/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                   "application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
                   std::string(size) + "\r\n" + doc + "\r\n0\r\n\r\n"));
  const std::string c = chunked.ReadResponse();
  EXPECT_EQ(StatusOf(c), 201) << c;
  // Two requests in one write: two answers, in order, on one connection.
  Raw pipe(port());
  ASSERT_TRUE(pipe.Send(Get("/v1/documents/chunked-1") + Get("/v1/documents/none")));
  EXPECT_EQ(StatusOf(pipe.ReadResponse()), 200);
  EXPECT_EQ(StatusOf(pipe.ReadResponse()), 404);
  // A body labelled as a form (`curl -d` without a type) is refused from the
  // head: a page elsewhere could send one without a CORS preflight.
  const std::string small = Json{{"id", "form-1"}, {"text", "长文"}}.dump();
  Raw form(port());
  ASSERT_TRUE(
      form.Send("POST /v1/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                "application/x-www-form-urlencoded\r\nContent-Length: " +
                std::to_string(small.size()) + "\r\n\r\n" + small));
  const std::string f = form.ReadAll();
  EXPECT_EQ(StatusOf(f), 415) << f;
  EXPECT_EQ(BodyOf(f)["error"]["code"], "unsupported_media_type");
  // Garbage instead of a request line.
  Raw junk(port());
  ASSERT_TRUE(junk.Send("\x16\x03\x01 not http\r\n\r\n"));
  EXPECT_EQ(StatusOf(junk.ReadAll()), 400);
}

}  // namespace
}  // namespace neardup::testing
