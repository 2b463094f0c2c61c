// SPDX-License-Identifier: Apache-2.0
// Restart time of the durable engine (issue 5 goal: 10M documents in <= 60 s).
// Writes a store of N documents directly through DocStore (synthetic
// fingerprints: a quarter of the documents join an earlier cluster,
// 1% of the roots are ghosts, ids like "news-0001234"), then times
// DurableEngine::Open(), which rebuilds index and forest by scanning it.
//   server_restore_bench --documents 10000000 --dir /tmp/nd_restore [--keep]
// Prints one JSON line: documents, build seconds, open seconds, resident
// bytes after open and bytes per document.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "neardup/durable_engine.h"
#include "store/doc_store.h"

namespace {

uint64_t ResidentBytes() {
  std::ifstream f("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  f >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

std::string Id(uint64_t i) {
  char b[32];
  std::snprintf(b, sizeof(b), "news-%010llu", static_cast<unsigned long long>(i));
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t n = 1000000;
  std::string dir = "/tmp/neardup_restore_bench";
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--documents") && i + 1 < argc)
      n = std::stoull(argv[++i]);
    else if (!std::strcmp(argv[i], "--dir") && i + 1 < argc)
      dir = argv[++i];
    else if (!std::strcmp(argv[i], "--keep"))
      keep = true;
  }
  using Clock = std::chrono::steady_clock;
  double build_s = 0;
  if (!std::filesystem::exists(dir)) {
    const auto t0 = Clock::now();
    {
      // Create through the engine once so format and options metadata exist.
      neardup::DurableOptions o;
      o.dir = dir;
      auto d = neardup::DurableEngine::Open(o);
      if (!d.ok()) return std::fprintf(stderr, "%s\n", d.status().ToString().c_str()), 1;
    }
    auto st = neardup::store::DocStore::Open(dir, {});
    if (!st.ok()) return std::fprintf(stderr, "%s\n", st.status().ToString().c_str()), 1;
    std::mt19937_64 rng(1);
    neardup::store::DocStore::Batch b;
    (*st)->Prepare(&b);
    std::vector<uint64_t> roots;
    for (uint64_t i = 0; i < n; ++i) {
      neardup::store::NodeRow row{i, Id(i), "", rng(), 1700000000000 + static_cast<int64_t>(i)};
      if (!roots.empty() && rng() % 4 == 0) {
        const uint64_t r = roots[rng() % roots.size()];
        row.root = Id(r);
      } else {
        roots.push_back(i);
      }
      b.PutNode(row);
      b.PutDoc(row.id, {i, row.time, "{\"source\":\"bench\"}", ""});
      if (b.count() >= 20000) {
        if (auto s = (*st)->Write(&b, false); !s.ok()) return 1;
        b.Clear();
      }
    }
    if (auto s = (*st)->Write(&b, false); !s.ok()) return 1;
    // No ghost rows: a ghost needs live members, which random picks do not guarantee.
    (void)(*st)->Flush();
    st->reset();
    build_s = std::chrono::duration<double>(Clock::now() - t0).count();
  }
  const uint64_t rss0 = ResidentBytes();
  const auto t1 = Clock::now();
  neardup::DurableOptions o;
  o.dir = dir;
  o.background_expiry = false;
  auto d = neardup::DurableEngine::Open(o);
  if (!d.ok()) return std::fprintf(stderr, "%s\n", d.status().ToString().c_str()), 1;
  const double open_s = std::chrono::duration<double>(Clock::now() - t1).count();
  const auto stats = (*d)->Stats();
  const uint64_t rss = ResidentBytes();
  std::printf(
      "{\"documents\":%llu,\"clusters\":%llu,\"build_s\":%.1f,\"open_s\":%.2f,\"resident_bytes\":%"
      "llu,"
      "\"bytes_per_document\":%.1f,\"index_bytes\":%zu,\"forest_bytes\":%zu}\n",
      static_cast<unsigned long long>(stats.engine.documents),
      static_cast<unsigned long long>(stats.engine.clusters), build_s, open_s,
      static_cast<unsigned long long>(rss), double(rss - rss0) / std::max<uint64_t>(1, n),
      stats.engine.index_bytes, stats.engine.forest_bytes);
  d->reset();
  if (!keep) std::filesystem::remove_all(dir);
  return 0;
}
