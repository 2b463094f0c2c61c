// SPDX-License-Identifier: Apache-2.0
// End-to-end durability and ordering: SIGKILL mid-stream then restart keeps
// every acknowledged document in its cluster; 32 connections sending the
// same document at once make one cluster with exactly one original.
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

#include "server/server_process.h"

namespace neardup::testing {
namespace {

using Json = nlohmann::json;

std::string Story(std::mt19937& rng, int len) {
  std::string s;
  std::uniform_int_distribution<int> cp(0x4e00, 0x4e00 + 2000);
  for (int i = 0; i < len; ++i) {
    const int c = cp(rng);
    s += static_cast<char>(0xe0 | (c >> 12));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    s += static_cast<char>(0x80 | (c & 0x3f));
  }
  return s;
}

TEST(ServerDurabilityTest, SigkillMidStreamLosesNoAcknowledgedDocument) {
  const std::string dir = TempPath("kill");
  std::mt19937 rng(123);
  std::vector<std::string> bases;
  for (int i = 0; i < 40; ++i) bases.push_back(Story(rng, 300));
  std::map<std::string, std::string> acked;  // id -> cluster
  std::mutex mu;
  // scripts/crashtest runs the long version (NEARDUP_CRASH_ROUNDS=20).
  const char* env = std::getenv("NEARDUP_CRASH_ROUNDS");
  const int rounds = env ? std::max(1, std::atoi(env)) : 2;
  for (int round = 0; round < rounds; ++round) {
    ServerProcess server(dir);
    ASSERT_TRUE(server.Start());
    // Everything acknowledged before is still there, in the same cluster.
    {
      auto c = server.Client();
      for (const auto& [id, cluster] : acked) {
        auto r = c->Get(("/v1/documents/" + id).c_str());
        ASSERT_TRUE(r);
        ASSERT_EQ(r->status, 200) << "lost acknowledged " << id << " in round " << round;
        EXPECT_EQ(Json::parse(r->body)["cluster"], cluster) << id;
      }
    }
    std::atomic<bool> stop{false};
    std::atomic<int> sent{0};
    std::vector<std::thread> clients;
    for (int t = 0; t < 8; ++t) {
      clients.emplace_back([&, t] {
        auto c = server.Client();
        std::mt19937 r(round * 100 + t);
        for (int i = 0; !stop; ++i) {
          std::string text = bases[r() % bases.size()];
          text.replace(3 * (r() % 300), 3, "的");
          const std::string id =
              "r" + std::to_string(round) + "-t" + std::to_string(t) + "-" + std::to_string(i);
          // Batches and single documents both.
          if (i % 5 == 0) {
            Json arr =
                Json::array({{{"id", id}, {"text", text}}, {{"id", id + "b"}, {"text", text}}});
            auto res = c->Post("/v1/documents:batch", arr.dump(), "application/json");
            if (!res || res->status != 200) continue;
            auto j = Json::parse(res->body);
            std::lock_guard lock(mu);
            for (const auto& x : j["results"]) {
              if (x["status"] == 201) acked[x["id"]] = x["cluster"];
            }
          } else {
            auto res = c->Post("/v1/documents", Json{{"id", id}, {"text", text}}.dump(),
                               "application/json");
            if (!res || res->status != 201) continue;
            auto j = Json::parse(res->body);
            std::lock_guard lock(mu);
            acked[id] = j["cluster"];
          }
          ++sent;
        }
      });
    }
    // Kill at a varying point of the stream.
    const int kill_after = 150 + static_cast<int>(rng() % 300);
    // A server that dies on its own would stall the stream: give up after 2 minutes.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (sent < kill_after && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    const bool stalled = sent < kill_after;
    server.Kill();  // SIGKILL while the clients are still sending
    stop = true;
    for (auto& th : clients) th.join();
    ASSERT_FALSE(stalled) << "the stream stalled in round " << round;
  }
  ServerProcess server(dir);
  ASSERT_TRUE(server.Start());
  auto c = server.Client();
  size_t found = 0;
  for (const auto& [id, cluster] : acked) {
    auto r = c->Get(("/v1/documents/" + id).c_str());
    ASSERT_TRUE(r);
    if (r->status == 200 && Json::parse(r->body)["cluster"] == cluster) ++found;
  }
  EXPECT_EQ(found, acked.size());
  std::printf(
      "crash rounds: %d, acknowledged: %zu, present with the same cluster: %zu, lost: %zu\n",
      rounds, acked.size(), found, acked.size() - found);
  EXPECT_GT(acked.size(), 500u);
  EXPECT_EQ(server.Stop(), 0);  // graceful SIGTERM exits 0
  std::filesystem::remove_all(dir);
  std::filesystem::remove(dir + ".port");
}

TEST(ServerOrderingTest, ThirtyTwoConnectionsSameDocumentOneClusterOneOriginal) {
  const std::string dir = TempPath("race");
  ServerProcess server(dir);
  ASSERT_TRUE(server.Start());
  std::mt19937 rng(5);
  const std::string text = Story(rng, 400);
  for (int variant = 0; variant < 2; ++variant) {
    // variant 0: distinct ids, same text; variant 1: same id and text.
    std::barrier sync(32);
    std::vector<std::pair<int, Json>> results(32);
    std::vector<std::thread> threads;
    for (int i = 0; i < 32; ++i) {
      threads.emplace_back([&, i] {
        auto c = server.Client();
        c->Get("/healthz");  // connect first so the sends overlap
        const std::string id = variant == 0 ? "same-" + std::to_string(i) : "one-id";
        const std::string body = Json{{"id", id}, {"text", text + (variant ? "二" : "")}}.dump();
        sync.arrive_and_wait();
        auto r = c->Post("/v1/documents", body, "application/json");
        if (r) results[i] = {r->status, Json::parse(r->body)};
      });
    }
    for (auto& t : threads) t.join();
    int originals = 0, created = 0, conflicts = 0;
    std::set<std::string> clusters;
    for (const auto& [status, j] : results) {
      if (status == 201) {
        ++created;
        originals += !j["duplicate"].get<bool>();
        clusters.insert(j["cluster"]);
      } else {
        EXPECT_EQ(status, 409) << j.dump();
        ++conflicts;
      }
    }
    if (variant == 0) {
      EXPECT_EQ(created, 32);
      EXPECT_EQ(originals, 1);
      EXPECT_EQ(clusters.size(), 1u);
    } else {
      EXPECT_EQ(created, 1);
      EXPECT_EQ(conflicts, 31);
      // The same text as variant 0 plus a char: it joins that cluster.
      EXPECT_EQ(originals, 0);
    }
  }
  EXPECT_EQ(server.Stop(), 0);
  std::filesystem::remove_all(dir);
  std::filesystem::remove(dir + ".port");
}

}  // namespace
}  // namespace neardup::testing
