// SPDX-License-Identifier: Apache-2.0
// A page of GET /v1/clusters?sort=size|recent at 10M documents (issue 13
// goal: <= 1 ms). A forest of N documents (NEARDUP_BENCH_DOCS, default 10M;
// 3 in 4 start a cluster, the rest join a random earlier one; ids
// "news-0001234567") keeps its clusters ordered (cluster/root_order.h), as
// the engine's forest does. Each page does what Engine::ListClusters does:
// the seek, 20 entries, each root's first member and both ids.
//   BM_Page/sort/desc/cursor   sort 0 size, 1 recent; cursor 1: from the middle
//   BM_PageByScan/sort         the former way: every root, a bounded heap
//   BM_JoinAndTouch/ordered    an add that joins a cluster plus a time refresh,
//                              with the orders kept (1) or not (0)
// Setup prints how long building the orders took and their bytes.
//   build/bench/cluster_list_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "cluster/forest.h"

namespace {

using neardup::cluster::Forest;
using neardup::cluster::RootOrder;
using neardup::cluster::Slot;

class Names : public neardup::cluster::RootNames {
 public:
  std::string_view Name(Slot s) const override { return ids[s]; }
  std::vector<std::string> ids;
};

struct World {
  Names names;
  Forest forest;
  size_t docs = 0;
  std::vector<Slot> roots;

  World() {
    const char* env = std::getenv("NEARDUP_BENCH_DOCS");
    docs = env ? std::strtoull(env, nullptr, 10) : 10000000;
    names.ids.reserve(docs + 1000000);
    for (size_t i = 0; i < docs + 1000000; ++i) {
      char b[32];
      std::snprintf(b, sizeof(b), "news-%010zu", i);
      names.ids.emplace_back(b);
    }
    std::mt19937_64 rng(1);
    auto t0 = std::chrono::steady_clock::now();
    forest.OrderBy(&names);  // kept from the first document on, as in the engine
    for (Slot s = 0; s < docs; ++s) {
      const int64_t time = 1700000000000 + s;
      if (!roots.empty() && rng() % 4 == 0) {
        forest.AddMember(s, roots[rng() % roots.size()], time);
      } else {
        forest.AddRoot(s, time);
        roots.push_back(s);
      }
    }
    const double incremental =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t0 = std::chrono::steady_clock::now();
    forest.ShrinkToFit();  // packs the orders, as restart does
    const double rebuild =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr,
                 "documents %zu, clusters %zu: adds with orders kept %.2f s; ShrinkToFit "
                 "(repacks) %.2f s; order bytes %zu + %zu (%.1f per cluster)\n",
                 docs, forest.clusters(), incremental, rebuild, forest.by_size()->MemoryBytes(),
                 forest.by_time()->MemoryBytes(),
                 double(forest.by_size()->MemoryBytes() + forest.by_time()->MemoryBytes()) /
                     double(forest.clusters()));
  }
};

World& Get() {
  static World w;
  return w;
}

struct Summary {
  std::string id, representative;
  uint32_t size;
  int64_t time;
};

void BM_Page(benchmark::State& state) {
  World& w = Get();
  const RootOrder* order = state.range(0) == 0 ? w.forest.by_size() : w.forest.by_time();
  const bool desc = true;
  std::optional<std::pair<int64_t, std::string_view>> after;
  if (state.range(1)) {  // a cursor from the middle of the list
    const Slot mid = w.roots[w.roots.size() / 2];
    const int64_t key = state.range(0) == 0 ? int64_t{w.forest.Size(mid)} : w.forest.TimeOf(mid);
    after.emplace(key, w.names.ids[mid]);
  }
  std::vector<Summary> page;
  std::vector<Slot> first;
  for (auto _ : state) {
    page.clear();
    order->Scan(desc, after, [&](int64_t, Slot r) {
      first.clear();
      w.forest.Members(r, &first, 1);
      page.push_back({w.names.ids[r], first.empty() ? "" : w.names.ids[first[0]], w.forest.Size(r),
                      w.forest.TimeOf(r)});
      return page.size() < 20;
    });
    benchmark::DoNotOptimize(page.data());
  }
  state.counters["documents"] = double(w.docs);
}
BENCHMARK(BM_Page)->Args({0, 0})->Args({0, 1})->Args({1, 0})->Args({1, 1})->Unit(
    benchmark::kMicrosecond);

// The former ListClusters: every root through a bounded heap.
void BM_PageByScan(benchmark::State& state) {
  World& w = Get();
  const bool by_size = state.range(0) == 0;
  std::vector<Slot> roots;
  for (auto _ : state) {
    roots.clear();
    w.forest.Roots(&roots);
    using Key = std::pair<int64_t, std::string_view>;
    std::vector<std::pair<Key, Slot>> heap;
    auto less = [](const auto& a, const auto& b) { return a.first > b.first; };
    for (Slot r : roots) {
      const Key k{by_size ? int64_t{w.forest.Size(r)} : w.forest.TimeOf(r), w.names.ids[r]};
      if (heap.size() < 20) {
        heap.emplace_back(k, r);
        std::push_heap(heap.begin(), heap.end(), less);
      } else if (k > heap.front().first) {
        std::pop_heap(heap.begin(), heap.end(), less);
        heap.back() = {k, r};
        std::push_heap(heap.begin(), heap.end(), less);
      }
    }
    benchmark::DoNotOptimize(heap.data());
  }
}
BENCHMARK(BM_PageByScan)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(3);

// What keeping the orders adds to the ingest path: a join (size +1, root
// time raised) and a look-up refresh of the same cluster.
void BM_JoinAndTouch(benchmark::State& state) {
  World& w = Get();
  Forest plain;  // a small forest without orders, for the comparison
  Forest* f = &w.forest;
  if (state.range(0) == 0) f = &plain;
  std::mt19937_64 rng(7);
  Slot next = static_cast<Slot>(w.docs);
  std::vector<Slot> roots = w.roots;
  if (f == &plain) {
    roots.clear();
    for (Slot s = 0; s < 100000; ++s) {
      plain.AddRoot(s, 1);
      roots.push_back(s);
    }
    next = 100000;
  }
  int64_t time = 1800000000000;
  std::vector<Slot> added;
  for (auto _ : state) {
    const Slot r = roots[rng() % roots.size()];
    f->AddMember(next, r, ++time);
    f->Touch(next, ++time);
    added.push_back(next++);
    if (added.size() == 500000) {
      state.PauseTiming();
      std::vector<Slot> released;
      for (Slot s : added) f->Remove(s, &released);
      next -= static_cast<Slot>(added.size());
      added.clear();
      state.ResumeTiming();
    }
  }
  std::vector<Slot> released;
  for (Slot s : added) f->Remove(s, &released);
}
BENCHMARK(BM_JoinAndTouch)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
