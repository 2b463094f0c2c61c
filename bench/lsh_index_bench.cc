// SPDX-License-Identifier: Apache-2.0
//
// lsh_index_bench: the online LSH band index at scale (issue 26, part 1).
//
//   lsh_index_bench [--n N] [--bands B] [--queries Q] [--buffer C]
//                   [--removes R] [--old] [--bulk] [--seed X]
//
// Data: N documents with B band keys each (default B: the engine's default
// pipeline, OptimalLshParams(0.5, 128, 0.2, 0.8)). Every 10th document is a
// near-duplicate of an earlier one sharing about half its bands. Keys are
// computed from (doc, band), so the bench holds no key arrays of its own.
// Phases: N streaming inserts, Q queries (half a stored document with a third
// of its bands changed, half random), R removes followed by R re-inserts.
// Reports bytes per document (the index's own count and the process RSS
// growth, allocator included) and rates in CPU time. --old runs the
// linked-list LshIndex on the same data for comparison. --bulk loads the
// compact index as a restore does (BeginBulk, the inserts, EndBulk: one
// sorted run built at the end); insert_per_s then includes the build.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "index/compact_lsh_index.h"
#include "index/lsh_index.h"
#include "sketch/lsh.h"

namespace {

using neardup::index::CompactLshIndex;
using neardup::index::LshIndex;

struct Args {
  size_t n = 1000000, queries = 100000, removes = 10000, buffer = 8192;
  int bands = 0;
  bool old = false, bulk = false;
  uint64_t seed = 1;
};

uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Band b's key of document i: a near-duplicate shares half its parent's keys.
uint64_t Key(uint64_t seed, size_t i, int b) {
  for (;;) {
    const uint64_t h = Mix(seed ^ Mix(i));
    if (i == 0 || h % 10 != 0 || (Mix(h + static_cast<uint64_t>(b)) & 1) == 0) {
      return Mix(h ^ (static_cast<uint64_t>(b) << 48));
    }
    i = (h >> 8) % i;  // the parent
  }
}

void Keys(const Args& a, size_t i, std::vector<uint64_t>* keys) {
  keys->resize(static_cast<size_t>(a.bands));
  for (int b = 0; b < a.bands; ++b) (*keys)[static_cast<size_t>(b)] = Key(a.seed, i, b);
}

double CpuSeconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

size_t RssBytes() {
  std::ifstream f("/proc/self/statm");
  size_t pages = 0, resident = 0;
  f >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

template <typename Index>
void Run(const char* name, const Args& a, Index* index) {
  std::vector<uint64_t> keys;
  const size_t rss0 = RssBytes();
  double t = CpuSeconds();
  if constexpr (requires { index->BeginBulk(); }) {
    if (a.bulk) index->BeginBulk();
  }
  for (size_t i = 0; i < a.n; ++i) {
    Keys(a, i, &keys);
    if (!index->Insert(static_cast<uint32_t>(i), keys).ok()) std::abort();
  }
  if constexpr (requires { index->EndBulk(); }) {
    if (a.bulk) index->EndBulk();
  }
  const double insert_s = CpuSeconds() - t;
  const size_t rss = RssBytes() - rss0;
  std::vector<typename Index::Hit> hits;
  size_t found = 0;
  t = CpuSeconds();
  for (size_t q = 0; q < a.queries; ++q) {
    const uint64_t h = Mix(a.seed + 7 * q);
    if (q % 2 == 0) {
      Keys(a, h % a.n, &keys);
      for (size_t b = 0; b < keys.size(); ++b)
        if (Mix(h + b) % 3 == 0) keys[b] = Mix(h ^ b);
    } else {
      for (size_t b = 0; b < keys.size(); ++b) keys[b] = Mix(h * 31 + b);
    }
    hits.clear();
    if (!index->Query(keys, &hits).ok()) std::abort();
    found += hits.size();
  }
  const double query_s = CpuSeconds() - t;
  t = CpuSeconds();
  for (size_t r = 0; r < a.removes && r < a.n; ++r) {
    const auto slot = static_cast<uint32_t>(Mix(a.seed + 13 * r) % a.n);
    if (!index->Remove(slot).ok()) continue;  // drawn twice
    Keys(a, a.n + r, &keys);
    if (!index->Insert(slot, keys).ok()) std::abort();
  }
  const double churn_s = CpuSeconds() - t;
  std::printf(
      "{\"index\": \"%s\", \"n\": %zu, \"bands\": %d, \"bytes_per_doc\": %.1f, "
      "\"rss_bytes_per_doc\": %.1f, \"insert_per_s\": %.0f, \"query_per_s\": %.0f, "
      "\"candidates_per_query\": %.2f, \"remove_reinsert_per_s\": %.0f}\n",
      name, a.n, a.bands, static_cast<double>(index->MemoryBytes()) / a.n,
      static_cast<double>(rss) / a.n, a.n / insert_s, a.queries / query_s,
      static_cast<double>(found) / a.queries, std::min(a.removes, a.n) / churn_s);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : "0";
    if (arg == "--n")
      a.n = std::strtoull(v, nullptr, 10), ++i;
    else if (arg == "--bands")
      a.bands = std::atoi(v), ++i;
    else if (arg == "--queries")
      a.queries = std::strtoull(v, nullptr, 10), ++i;
    else if (arg == "--removes")
      a.removes = std::strtoull(v, nullptr, 10), ++i;
    else if (arg == "--buffer")
      a.buffer = std::strtoull(v, nullptr, 10), ++i;
    else if (arg == "--bulk")
      a.bulk = true;
    else if (arg == "--seed")
      a.seed = std::strtoull(v, nullptr, 10), ++i;
    else if (arg == "--old")
      a.old = true;
    else {
      std::fprintf(stderr,
                   "usage: lsh_index_bench [--n N] [--bands B] [--queries Q] "
                   "[--buffer C] [--removes R] [--old] [--seed X]\n");
      return 2;
    }
  }
  if (a.n == 0) return 2;
  if (a.bands <= 0) {
    auto p = neardup::sketch::OptimalLshParams(0.5, 128, 0.2, 0.8);
    if (!p.ok()) return 1;
    a.bands = p->bands;
  }
  {
    CompactLshIndex index(a.bands, {.buffer_capacity = a.buffer});
    Run("compact", a, &index);
    const auto st = index.Stats();
    std::printf("{\"runs\": %zu, \"buffered\": %zu, \"runs_built\": %zu}\n", st.runs, st.buffered,
                st.merges);
  }
  if (a.old) {
    LshIndex index(a.bands);
    Run("linked", a, &index);
  }
  return 0;
}
