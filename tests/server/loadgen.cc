// SPDX-License-Identifier: Apache-2.0
// neardup_loadgen: a small HTTP load generator for `neardup serve`
// (scripts/loadtest). Each connection is a thread with a keep-alive
// httplib client. Closed loop by default; with --rate, requests are paced
// on a fixed schedule and latency is measured from the scheduled send time
// (no coordinated omission). Prints one JSON line of results.
//
// Documents are synthetic Chinese articles of --doc-bytes bytes (random
// common Han characters); --dup-rate of them are light edits of an earlier
// article, so clusters form.
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

struct Flags {
  std::string host = "127.0.0.1";
  int port = 8080;
  std::string mode = "ingest";  // ingest | query | get
  int connections = 32;
  double duration = 10;
  double rate = 0;  // total requests/s; 0 = as fast as possible
  int batch = 1;    // documents per ingest request (>1 uses :batch)
  int doc_bytes = 2048;
  double dup_rate = 0.3;
  std::string prefix = "lg";
  std::string token;
  int pool = 2000;     // distinct base articles
  uint64_t count = 0;  // stop once this many documents were sent (0: no limit)
};

std::string Article(std::mt19937_64& rng, int bytes) {
  std::string s;
  s.reserve(bytes + 3);
  std::uniform_int_distribution<int> cp(0x4e00, 0x4e00 + 3500);
  while (static_cast<int>(s.size()) + 3 <= bytes) {
    const int c = cp(rng);
    s += static_cast<char>(0xe0 | (c >> 12));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    s += static_cast<char>(0x80 | (c & 0x3f));
  }
  return s;
}

std::string Edit(std::mt19937_64& rng, std::string s) {
  s.replace(3 * (rng() % (s.size() / 3)), 3, "的");
  return s;
}

// The documents a :batch answer lists as failed: its top-level "failed"
// count, which comes first (the answer's keys are sorted). Without one (an
// answer of another shape), all n.
uint64_t FailedInBatch(const std::string& body, int n) {
  const size_t at = body.find("\"failed\":");
  if (at == std::string::npos) return static_cast<uint64_t>(n);
  return std::min<uint64_t>(std::strtoull(body.c_str() + at + 9, nullptr, 10),
                            static_cast<uint64_t>(n));
}

bool Parse(int argc, char** argv, Flags* f) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--host")
      f->host = v;
    else if (k == "--port")
      f->port = std::stoi(v);
    else if (k == "--mode")
      f->mode = v;
    else if (k == "--connections")
      f->connections = std::stoi(v);
    else if (k == "--duration")
      f->duration = std::stod(v);
    else if (k == "--rate")
      f->rate = std::stod(v);
    else if (k == "--batch")
      f->batch = std::stoi(v);
    else if (k == "--doc-bytes")
      f->doc_bytes = std::stoi(v);
    else if (k == "--dup-rate")
      f->dup_rate = std::stod(v);
    else if (k == "--prefix")
      f->prefix = v;
    else if (k == "--token")
      f->token = v;
    else if (k == "--pool")
      f->pool = std::stoi(v);
    else if (k == "--count")
      f->count = std::stoull(v);
    else
      return false;
  }
  return (argc % 2) == 1;
}

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  if (!Parse(argc, argv, &f)) {
    std::fprintf(stderr,
                 "usage: neardup_loadgen [--host H] [--port P] [--mode ingest|query|get] "
                 "[--connections N] [--duration S] [--rate R] [--batch N] [--doc-bytes B] "
                 "[--dup-rate F] [--prefix P] [--token T] [--pool N] [--count N]\n");
    return 2;
  }
  std::mt19937_64 seed_rng(42);
  std::vector<std::string> pool;
  for (int i = 0; i < f.pool; ++i) pool.push_back(Article(seed_rng, f.doc_bytes));

  // docs: documents the server took; failed_docs: those a :batch answer
  // (200) lists as failed, which count neither as taken nor as requests that failed.
  std::atomic<uint64_t> requests{0}, docs{0}, errors{0}, failed_docs{0};
  std::mutex kinds_mu;
  std::map<std::string, uint64_t> error_kinds;  // "status 503", "Connection", ...
  std::vector<std::vector<double>> latencies(f.connections);
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(f.duration));
  std::vector<std::thread> threads;
  for (int t = 0; t < f.connections; ++t) {
    threads.emplace_back([&, t] {
      httplib::Client c(f.host, f.port);
      c.set_keep_alive(true);
      c.set_tcp_nodelay(true);
      c.set_read_timeout(60, 0);
      httplib::Headers headers;
      if (!f.token.empty()) headers.emplace("Authorization", "Bearer " + f.token);
      std::mt19937_64 rng(1000 + t);
      const double interval = f.rate > 0 ? f.connections / f.rate : 0;
      auto next = start + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(interval * rng() / 1.8e19));
      uint64_t seq = 0;
      auto& lat = latencies[t];
      while (true) {
        auto now = Clock::now();
        if (interval > 0) {
          if (next > now) std::this_thread::sleep_until(next);
        } else {
          next = now;
        }
        if (next >= end) break;
        if (f.count > 0 && docs.load() >= f.count) break;
        auto text = [&] {
          const std::string& base = pool[rng() % pool.size()];
          return (rng() % 1000) < f.dup_rate * 1000 ? Edit(rng, base) : Article(rng, f.doc_bytes);
        };
        httplib::Result r{nullptr, httplib::Error::Unknown};
        int n = 1;
        if (f.mode == "ingest" && f.batch <= 1) {
          Json j = {{"id", f.prefix + "-" + std::to_string(t) + "-" + std::to_string(seq++)},
                    {"text", text()},
                    {"meta", {{"source", "loadgen"}}}};
          r = c.Post("/v1/documents", headers, j.dump(), "application/json");
        } else if (f.mode == "ingest") {
          std::string body;
          for (int i = 0; i < f.batch; ++i) {
            body += Json{{"id", f.prefix + "-" + std::to_string(t) + "-" + std::to_string(seq++)},
                         {"text", text()}}
                        .dump();
            body += "\n";
          }
          n = f.batch;
          r = c.Post("/v1/documents:batch", headers, body, "application/x-ndjson");
        } else if (f.mode == "query") {
          r = c.Post("/v1/query", headers,
                     Json{{"text", pool[rng() % pool.size()].substr(0, f.doc_bytes)}}.dump(),
                     "application/json");
        } else {  // get: ids of an earlier ingest run with the same prefix and connections
          const std::string id = f.prefix + "-" + std::to_string(rng() % f.connections) + "-" +
                                 std::to_string(rng() % 100);
          r = c.Get(("/v1/documents/" + id).c_str(), headers);
        }
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - next).count();
        const bool ok =
            r && (r->status == 200 || r->status == 201 || (f.mode == "get" && r->status == 404));
        if (ok) {
          lat.push_back(ms);
          ++requests;
          const uint64_t failed = f.mode == "ingest" && f.batch > 1 ? FailedInBatch(r->body, n) : 0;
          docs += n - failed;
          if (failed > 0) {
            failed_docs += failed;
            std::lock_guard lock(kinds_mu);
            error_kinds["documents failed in a :batch answer"] += failed;
          }
        } else {
          ++errors;
          {
            std::lock_guard lock(kinds_mu);
            ++error_kinds[r ? "status " + std::to_string(r->status)
                            : httplib::to_string(r.error())];
          }
          if (!r) c.stop();
        }
        if (interval > 0) {
          next +=
              std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval));
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<double> all;
  for (auto& v : latencies) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  auto pct = [&](double p) {
    return all.empty() ? 0.0 : all[std::min(all.size() - 1, size_t(p * all.size()))];
  };
  Json out = {{"mode", f.mode},
              {"connections", f.connections},
              {"target_rate", f.rate},
              {"batch", f.batch},
              {"doc_bytes", f.doc_bytes},
              {"seconds", secs},
              {"requests", requests.load()},
              {"documents", docs.load()},
              {"errors", errors.load()},
              {"failed_documents", failed_docs.load()},
              {"requests_per_s", requests / secs},
              {"documents_per_s", docs / secs},
              {"p50_ms", pct(0.50)},
              {"p90_ms", pct(0.90)},
              {"p99_ms", pct(0.99)},
              {"p999_ms", pct(0.999)},
              {"max_ms", all.empty() ? 0.0 : all.back()},
              {"error_kinds", error_kinds}};
  std::printf("%s\n", out.dump().c_str());
  return errors > 0 && requests == 0 ? 1 : 0;
}
