// SPDX-License-Identifier: Apache-2.0
// Foundation benchmarks: fingerprint throughput (Chinese and English), its
// stages, the Hamming index at 1M fingerprints, and Engine::Add.
// Run: build/foundation_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <random>

#include "bench_corpus.h"
#include "features/char_ngram.h"
#include "index/hamming_index.h"
#include "neardup/engine.h"
#include "normalize/normalizer.h"
#include "pipeline/pipeline.h"
#include "sketch/simhash.h"

namespace neardup {
namespace {

size_t TotalBytes(const std::vector<std::string>& docs) {
  size_t n = 0;
  for (const auto& d : docs) n += d.size();
  return n;
}

void RunFingerprint(benchmark::State& state, const std::vector<std::string>& docs) {
  auto p = pipeline::Pipeline::Create(EngineOptions::FromProfile("simhash").value(), true, false)
               .value();
  uint64_t sink = 0;
  for (auto _ : state) {
    for (const auto& d : docs) sink ^= p->Fingerprint(d).value();
  }
  benchmark::DoNotOptimize(sink);
  state.SetBytesProcessed(state.iterations() * TotalBytes(docs));
  state.counters["docs"] = docs.size();
}

void BM_FingerprintChinese(benchmark::State& state) {
  static const auto docs = bench::ChineseDocs(3000, 2000);
  RunFingerprint(state, docs);
}
BENCHMARK(BM_FingerprintChinese)->Unit(benchmark::kMillisecond);

void BM_FingerprintEnglish(benchmark::State& state) {
  static const auto docs = bench::EnglishDocs(3000);
  RunFingerprint(state, docs);
}
BENCHMARK(BM_FingerprintEnglish)->Unit(benchmark::kMillisecond);

void BM_NormalizeChinese(benchmark::State& state) {
  static const auto docs = bench::ChineseDocs(3000, 2000);
  auto n = normalize::Normalizer::Create({}).value();
  std::string out;
  for (auto _ : state)
    for (const auto& d : docs) benchmark::DoNotOptimize(n->Normalize(d, &out));
  state.SetBytesProcessed(state.iterations() * TotalBytes(docs));
}
BENCHMARK(BM_NormalizeChinese)->Unit(benchmark::kMillisecond);

void BM_ExtractAndSimHashChinese(benchmark::State& state) {
  static const auto docs = bench::ChineseDocs(3000, 2000);
  auto n = normalize::Normalizer::Create({}).value();
  std::vector<std::string> normalized(docs.size());
  for (size_t i = 0; i < docs.size(); ++i) (void)n->Normalize(docs[i], &normalized[i]);
  auto ex = features::CharNgramExtractor::Create({}).value();
  std::vector<features::Feature> f;
  uint64_t sink = 0;
  for (auto _ : state) {
    for (const auto& d : normalized) {
      f.clear();
      (void)ex->Extract(d, &f);
      sink ^= sketch::SimHash(f);
    }
  }
  benchmark::DoNotOptimize(sink);
  state.SetBytesProcessed(state.iterations() * TotalBytes(docs));
}
BENCHMARK(BM_ExtractAndSimHashChinese)->Unit(benchmark::kMillisecond);

// 1M random fingerprints, 10% of queries planted within distance 3.
struct IndexData {
  std::vector<uint64_t> fps, queries;
  IndexData() {
    std::mt19937_64 rng(42);
    for (int i = 0; i < 1000000; ++i) fps.push_back(rng());
    for (int i = 0; i < 100000; ++i) {
      uint64_t q = i % 10 == 0 ? fps[rng() % fps.size()] : rng();
      for (int b = 0; b < 3 && i % 10 == 0; ++b) q ^= 1ULL << (rng() % 64);
      queries.push_back(q);
    }
  }
};
const IndexData& Data() {
  static const IndexData d;
  return d;
}

void BM_IndexInsert1M(benchmark::State& state) {
  const auto& d = Data();
  for (auto _ : state) {
    auto idx = index::HammingIndex::Create({.max_distance = 3}).value();
    for (size_t i = 0; i < d.fps.size(); ++i) (void)idx->Insert(static_cast<uint32_t>(i), d.fps[i]);
    state.counters["bytes_per_doc"] = static_cast<double>(idx->MemoryBytes()) / d.fps.size();
  }
  state.SetItemsProcessed(state.iterations() * d.fps.size());
}
BENCHMARK(BM_IndexInsert1M)->Unit(benchmark::kMillisecond)->Iterations(2);

void BM_IndexQuery1M(benchmark::State& state) {
  const auto& d = Data();
  static auto idx = [&] {
    auto i = index::HammingIndex::Create({.max_distance = 3}).value();
    for (size_t j = 0; j < d.fps.size(); ++j) (void)i->Insert(static_cast<uint32_t>(j), d.fps[j]);
    return i;
  }();
  std::vector<index::HammingHit> hits;
  size_t q = 0, found = 0;
  for (auto _ : state) {
    hits.clear();
    (void)idx->Search(d.queries[q++ % d.queries.size()], 3, &hits);
    found += hits.size();
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["hits_per_query"] = static_cast<double>(found) / state.iterations();
}
BENCHMARK(BM_IndexQuery1M);

void BM_EngineAddChinese(benchmark::State& state) {
  static const auto docs = bench::ChineseDocs(2000, 5000);
  size_t bytes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto e = Engine::Create(EngineOptions{}).value();
    state.ResumeTiming();
    for (size_t i = 0; i < docs.size(); ++i) {
      (void)e->Add({std::to_string(i), docs[i]});
      bytes += docs[i].size();
    }
  }
  state.SetItemsProcessed(state.iterations() * docs.size());
  state.SetBytesProcessed(bytes);
}
BENCHMARK(BM_EngineAddChinese)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace neardup

BENCHMARK_MAIN();
