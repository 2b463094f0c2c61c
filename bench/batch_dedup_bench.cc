// SPDX-License-Identifier: Apache-2.0
//
// End-to-end batch dedup (neardup/batch.h, what `neardup dedup` runs) on 2 KB
// Chinese articles: Tang poems joined into ~2 KB documents (bench_corpus.h),
// each with 0-3 reprints (a changed character, a dropped sentence, a tag
// line), written as JSONL; MB/s counts input bytes. Args: threads, then 1 to
// force spilling (--memory 32M) or 0 (in memory). The 10M / 100M question-bank
// runs are CLI commands (docs/benchmarks.md, "Batch dedup at scale").
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>

#include "bench_corpus.h"
#include "neardup/batch.h"

namespace {

std::string Escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    o += c;
  }
  return o;
}

// The first UTF-8 character boundary at or after `i`.
size_t Boundary(const std::string& s, size_t i) {
  while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
  return i;
}

// The corpus file, made once.
const std::string& CorpusPath(size_t* bytes) {
  static std::string path;
  static size_t size = 0;
  if (path.empty()) {
    path = "/tmp/neardup_batch_bench_" + std::to_string(getpid()) + ".jsonl";
    std::ofstream out(path, std::ios::binary);
    std::mt19937 rng(1);
    int id = 0;
    for (const std::string& doc : neardup::bench::ChineseDocs(2048, 14000)) {
      const int copies = 1 + static_cast<int>(rng() % 4);
      for (int c = 0; c < copies; ++c) {
        std::string t = doc;
        if (c >= 1) {  // a changed character
          const size_t at = Boundary(t, rng() % t.size());
          t.replace(at, Boundary(t, at + 1) - at, "改");
        }
        if (c >= 2) t = t.substr(0, Boundary(t, t.size() * 9 / 10));  // truncated
        if (c >= 3) t += "（本文转载自网络）";                        // a tag line
        const std::string line =
            "{\"id\":" + std::to_string(id++) + ",\"text\":\"" + Escape(t) + "\"}\n";
        out << line;
        size += line.size();
      }
    }
  }
  *bytes = size;
  return path;
}

void BM_BatchDedup2KB(benchmark::State& state) {
  size_t bytes = 0;
  const std::string& path = CorpusPath(&bytes);
  neardup::BatchOptions o;
  o.engine.threads = static_cast<int>(state.range(0));
  if (state.range(1) != 0) o.memory_bytes = 32 << 20;
  uint64_t records = 0, dups = 0;
  for (auto _ : state) {
    auto run = neardup::BatchDedup::Run({path}, o);
    if (!run.ok()) {
      state.SkipWithError(run.status().ToString().c_str());
      return;
    }
    uint64_t kept = 0;
    (void)(*run)->ForEachRecord([&](const neardup::BatchRecord& r) {
      kept += r.is_kept;
      return neardup::Status::OK();
    });
    records = (*run)->stats().records;
    dups = records - kept;
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["records"] = static_cast<double>(records);
  state.counters["duplicates"] = static_cast<double>(dups);
}
BENCHMARK(BM_BatchDedup2KB)
    ->Args({1, 0})
    ->Args({2, 0})
    ->Args({2, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  size_t bytes = 0;
  if (std::getenv("NEARDUP_BENCH_KEEP") == nullptr) std::remove(CorpusPath(&bytes).c_str());
  return 0;
}
