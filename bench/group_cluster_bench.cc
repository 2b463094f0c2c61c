// SPDX-License-Identifier: Apache-2.0
// Batch clustering of external candidate groups (`neardup cluster`'s engine):
// Tang poem couplets stand in for short exam questions; 1 in 4 gets a
// one-character variant, and groups of 10 mix each question's variant with
// random others, as a search log's top results would.
// Run: build/bench/group_cluster_bench
#include <benchmark/benchmark.h>

#include <fstream>
#include <random>

#include "base/utf8.h"
#include "bench_corpus.h"
#include "neardup/group_cluster.h"

namespace neardup {
namespace {

struct Bank {
  std::vector<std::string> ids, texts;
  std::vector<std::vector<std::string>> groups;
  size_t bytes = 0;
};

const Bank& MakeBank() {
  static const Bank bank = [] {
    Bank b;
    std::mt19937_64 rng(1);
    for (const auto& doc : bench::ChineseDocs(400, 60000)) {
      // Split at the ideographic full stop: one couplet per "question".
      for (size_t start = 0; start < doc.size();) {
        size_t end = doc.find("。", start);
        end = end == std::string::npos ? doc.size() : end + 3;
        if (end - start >= 15) {
          b.texts.push_back(doc.substr(start, end - start));
          b.ids.push_back(std::to_string(b.ids.size()));
        }
        start = end;
        if (b.texts.size() >= 200000) break;
      }
      if (b.texts.size() >= 200000) break;
    }
    const size_t n = b.texts.size();
    for (size_t i = 0; i < n; i += 4) {  // a variant: replace the first character
      std::string v = b.texts[i];
      size_t pos = 0;
      base::DecodeUtf8(v, &pos);
      v.replace(0, pos, "又");
      b.ids.push_back(std::to_string(b.ids.size()));
      b.texts.push_back(std::move(v));
      std::vector<std::string> g = {b.ids[i], b.ids.back()};
      while (g.size() < 10) g.push_back(b.ids[rng() % n]);
      b.groups.push_back(std::move(g));
    }
    for (const auto& t : b.texts) b.bytes += t.size();
    return b;
  }();
  return bank;
}

size_t RssKb() {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == "VmRSS:") {
      size_t kb;
      in >> kb;
      return kb;
    }
  }
  return 0;
}

void BM_GroupCluster(benchmark::State& state, VerifyKind verify, double threshold) {
  const Bank& b = MakeBank();
  GroupClustering r;
  size_t rss = 0;
  for (auto _ : state) {
    const size_t before = RssKb();
    auto gc =
        GroupClusterer::Create({.verify = verify, .threshold = threshold, .max_cluster_size = 100})
            .value();
    for (const auto& g : b.groups) gc->Want(g);
    for (size_t i = 0; i < b.texts.size(); ++i) (void)gc->AddText(b.ids[i], b.texts[i]);
    (void)gc->AddGroups(b.groups);
    r = gc->Finish();
    rss = RssKb() - before;
  }
  state.counters["texts"] = static_cast<double>(b.texts.size());
  state.counters["groups"] = static_cast<double>(b.groups.size());
  state.counters["pairs_verified"] = static_cast<double>(r.stats.pairs_verified);
  state.counters["pairs_passed"] = static_cast<double>(r.stats.pairs_passed);
  state.counters["pairs/s"] =
      benchmark::Counter(static_cast<double>(r.stats.pairs_verified) * state.iterations(),
                         benchmark::Counter::kIsRate);
  state.counters["rss_MB"] = static_cast<double>(rss) / 1024;  // growth; first run is honest
  state.counters["text_MB"] = static_cast<double>(b.bytes) / (1 << 20);
}
// Wall time (UseRealTime): verification runs on all cores.
BENCHMARK_CAPTURE(BM_GroupCluster, qbank, VerifyKind::kQbank, 0.8)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_GroupCluster, levenshtein, VerifyKind::kLevenshtein, 0.8)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime();

}  // namespace
}  // namespace neardup

BENCHMARK_MAIN();
