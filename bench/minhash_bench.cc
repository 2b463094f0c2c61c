// SPDX-License-Identifier: Apache-2.0
// MinHash, LSH and super-shingle benchmarks. Throughput is in bytes of the
// original text per second: "sketch only" starts from extracted shingles,
// "end to end" starts from raw text (normalize + char 5-grams + sketch).
// Run: build/bench/minhash_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <random>

#include "bench_corpus.h"
#include "features/char_ngram.h"
#include "index/lsh_index.h"
#include "normalize/normalizer.h"
#include "normalize/t2s.h"
#include "pipeline/pipeline.h"
#include "sketch/lsh.h"
#include "sketch/minhash.h"
#include "sketch/supershingle.h"

namespace neardup {
namespace {

using sketch::MinHashFamily;
using sketch::MinHashScheme;

struct Corpus {
  std::vector<std::string> raw;
  std::vector<std::vector<uint64_t>> shingles;  // char 5-grams (words for English)
  size_t bytes = 0;
  size_t shingle_count = 0;
};

Corpus MakeCorpus(std::vector<std::string> raw) {
  Corpus c;
  c.raw = std::move(raw);
  auto n = normalize::Normalizer::Create({}).value();
  auto ex = features::CharNgramExtractor::Create({.ngram = 5}).value();
  std::string norm;
  std::vector<features::Feature> f;
  for (const auto& d : c.raw) {
    c.bytes += d.size();
    (void)n->Normalize(d, &norm);
    f.clear();
    (void)ex->Extract(norm, &f);
    std::vector<uint64_t> s;
    for (const auto& x : f) s.push_back(x.hash);
    c.shingle_count += s.size();
    c.shingles.push_back(std::move(s));
  }
  return c;
}

const Corpus& Chinese() {
  static const Corpus c = MakeCorpus(bench::ChineseDocs(3000, 2000));
  return c;
}
const Corpus& English() {
  static const Corpus c = MakeCorpus(bench::EnglishDocs(3000));
  return c;
}
// The Chinese corpus in Simplified characters (OpenCC's t2s of it): the
// same text as mainland news would give the T2S stages, few keys in it.
const Corpus& Simplified() {
  static const Corpus c = [] {
    auto t2s = normalize::T2SFolder::Shared().value();
    std::vector<std::string> docs;
    for (const std::string& d : Chinese().raw) {
      std::string s;
      t2s->Fold(d, &s);
      docs.push_back(std::move(s));
    }
    return MakeCorpus(std::move(docs));
  }();
  return c;
}

sketch::MinHashOptions Options(int64_t variant, int num_perm) {
  sketch::MinHashOptions o{.num_perm = num_perm};
  if (variant == 1) o.family = MinHashFamily::kMersenne61;
  if (variant == 2) o.scheme = MinHashScheme::kOnePermutation;
  if (variant == 3) o.scheme = MinHashScheme::kCirculant;
  return o;
}
const char* VariantName(int64_t v) {
  return v == 0   ? "multiply-shift"
         : v == 1 ? "mersenne61"
         : v == 2 ? "one-permutation"
                  : "c-minhash";
}

void SketchOnly(benchmark::State& state, const Corpus& c) {
  auto h = sketch::MinHasher::Create(Options(state.range(0), 128)).value();
  std::vector<uint32_t> sig(128);
  for (auto _ : state) {
    for (const auto& s : c.shingles) h.Sketch(s, sig);
    benchmark::DoNotOptimize(sig.data());
  }
  state.SetBytesProcessed(state.iterations() * c.bytes);
  state.counters["shingles/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * c.shingle_count), benchmark::Counter::kIsRate);
  state.SetLabel(VariantName(state.range(0)));
}
void BM_MinHashSketchOnlyChinese(benchmark::State& s) { SketchOnly(s, Chinese()); }
void BM_MinHashSketchOnlyEnglish(benchmark::State& s) { SketchOnly(s, English()); }
BENCHMARK(BM_MinHashSketchOnlyChinese)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MinHashSketchOnlyEnglish)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

// The kernels this CPU supports, P=128, Chinese shingles: multiply-shift
// permutations, then C-MinHash.
void KernelChinese(benchmark::State& state, MinHashScheme scheme) {
  const Corpus& c = Chinese();
  const auto kernels = sketch::MinHasher::Kernels();
  if (static_cast<size_t>(state.range(0)) >= kernels.size()) {
    state.SkipWithError("kernel not supported on this CPU");
    return;
  }
  const std::string_view kernel = kernels[state.range(0)];
  auto h = sketch::MinHasher::Create({.num_perm = 128, .scheme = scheme}).value();
  std::vector<uint32_t> sig(128);
  for (auto _ : state) {
    for (const auto& s : c.shingles) (void)h.SketchWithKernel(kernel, s, sig);
    benchmark::DoNotOptimize(sig.data());
  }
  state.SetBytesProcessed(state.iterations() * c.bytes);
  state.SetLabel(std::string(kernel));
}
void BM_MinHashKernelChinese(benchmark::State& s) {
  KernelChinese(s, MinHashScheme::kPermutations);
}
void BM_CMinHashKernelChinese(benchmark::State& s) { KernelChinese(s, MinHashScheme::kCirculant); }
BENCHMARK(BM_MinHashKernelChinese)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CMinHashKernelChinese)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

// Sketch only, by number of permutations.
void BM_MinHashSketchOnlyChineseByP(benchmark::State& state) {
  const Corpus& c = Chinese();
  const int p = static_cast<int>(state.range(0));
  auto h = sketch::MinHasher::Create({.num_perm = p}).value();
  std::vector<uint32_t> sig(p);
  for (auto _ : state) {
    for (const auto& s : c.shingles) h.Sketch(s, sig);
    benchmark::DoNotOptimize(sig.data());
  }
  state.SetBytesProcessed(state.iterations() * c.bytes);
}
BENCHMARK(BM_MinHashSketchOnlyChineseByP)
    ->Arg(32)
    ->Arg(64)
    ->Arg(256)
    ->Unit(benchmark::kMillisecond);

void EndToEnd(benchmark::State& state, const Corpus& c) {
  auto n = normalize::Normalizer::Create({}).value();
  auto ex = features::CharNgramExtractor::Create({.ngram = 5}).value();
  auto h = sketch::MinHasher::Create(Options(state.range(0), 128)).value();
  std::string norm;
  std::vector<features::Feature> f;
  std::vector<uint64_t> s;
  std::vector<uint32_t> sig(128);
  for (auto _ : state) {
    for (const auto& d : c.raw) {
      (void)n->Normalize(d, &norm);
      f.clear();
      (void)ex->Extract(norm, &f);
      s.clear();
      for (const auto& x : f) s.push_back(x.hash);
      h.Sketch(s, sig);
    }
    benchmark::DoNotOptimize(sig.data());
  }
  state.SetBytesProcessed(state.iterations() * c.bytes);
  state.SetLabel(VariantName(state.range(0)));
}
void BM_MinHashEndToEndChinese(benchmark::State& s) { EndToEnd(s, Chinese()); }
void BM_MinHashEndToEndEnglish(benchmark::State& s) { EndToEnd(s, English()); }
BENCHMARK(BM_MinHashEndToEndChinese)->Arg(0)->Arg(2)->Arg(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MinHashEndToEndEnglish)->Arg(0)->Arg(2)->Arg(3)->Unit(benchmark::kMillisecond);

// Normalize + extract only: the part of end to end that is not MinHash.
void BM_NormalizeAndExtract5gramChinese(benchmark::State& state) {
  const Corpus& c = Chinese();
  auto n = normalize::Normalizer::Create({}).value();
  auto ex = features::CharNgramExtractor::Create({.ngram = 5}).value();
  std::string norm;
  std::vector<features::Feature> f;
  for (auto _ : state) {
    for (const auto& d : c.raw) {
      (void)n->Normalize(d, &norm);
      f.clear();
      (void)ex->Extract(norm, &f);
    }
    benchmark::DoNotOptimize(f.data());
  }
  state.SetBytesProcessed(state.iterations() * c.bytes);
}
BENCHMARK(BM_NormalizeAndExtract5gramChinese)->Unit(benchmark::kMillisecond);

// The default pipeline's per-document sketch cost, as batch dedup's sketch
// phase and the engine pay it: normalization (NFKC casefold, Taiwan T2S,
// punctuation), script:3,2 shingles sorted and deduplicated, and the MinHash
// signature of the scheme (0 permutations, 2 one-permutation, 3 C-MinHash).
// Tang poems are Traditional Chinese: every document goes through T2S.
void DefaultPipeline(benchmark::State& state, const Corpus& c) {
  EngineOptions o;
  auto p = pipeline::Pipeline::Create(o, false, true).value();
  auto h = sketch::MinHasher::Create(Options(state.range(0), 128)).value();
  pipeline::Processed doc;
  std::vector<uint32_t> sig(128);
  for (auto _ : state) {
    for (const auto& d : c.raw) {
      (void)p->Process(d, &doc);
      h.Sketch(doc.shingles, sig);
    }
    benchmark::DoNotOptimize(sig.data());
  }
  state.SetBytesProcessed(state.iterations() * c.bytes);
  state.SetLabel(VariantName(state.range(0)));
}
void BM_DefaultPipelineChinese(benchmark::State& s) { DefaultPipeline(s, Chinese()); }
void BM_DefaultPipelineEnglish(benchmark::State& s) { DefaultPipeline(s, English()); }
BENCHMARK(BM_DefaultPipelineChinese)->Arg(0)->Arg(2)->Arg(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DefaultPipelineEnglish)->Arg(0)->Arg(2)->Arg(3)->Unit(benchmark::kMillisecond);

// The default pipeline's normalization alone, by T2S mode (Arg 0: off; 1:
// Taiwan, the default, two stages; 2: phrases; 3: characters only), of
// Traditional (the Tang corpus) and Simplified text.
void DefaultNormalize(benchmark::State& state, const Corpus& c) {
  EngineOptions o;
  if (state.range(0) == 0) o.normalize.t2s = T2S::kOff;
  if (state.range(0) == 2) o.normalize.t2s = T2S::kPhrases;
  if (state.range(0) == 3) o.normalize.t2s = T2S::kCharacters;
  auto p = pipeline::Pipeline::Create(o, false, true).value();
  std::string norm;
  for (auto _ : state) {
    for (const auto& d : c.raw) (void)p->Normalize(d, &norm);
    benchmark::DoNotOptimize(norm.data());
  }
  state.SetBytesProcessed(state.iterations() * c.bytes);
}
void BM_DefaultNormalizeChinese(benchmark::State& s) { DefaultNormalize(s, Chinese()); }
void BM_DefaultNormalizeSimplified(benchmark::State& s) { DefaultNormalize(s, Simplified()); }
BENCHMARK(BM_DefaultNormalizeSimplified)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DefaultNormalizeChinese)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Arg(3)
    ->Unit(benchmark::kMillisecond);

void BM_SuperShingleChinese(benchmark::State& state) {
  const Corpus& c = Chinese();
  auto ss = sketch::SuperShingler::Create({}).value();
  for (auto _ : state) {
    for (const auto& s : c.shingles) benchmark::DoNotOptimize(ss.Sketch(s));
  }
  state.SetBytesProcessed(state.iterations() * c.bytes);
}
BENCHMARK(BM_SuperShingleChinese)->Unit(benchmark::kMillisecond);

// LSH at 200k random signatures (P=128, 16x8 bands): insert, then query.
const std::vector<std::vector<uint32_t>>& Signatures() {
  static const auto sigs = [] {
    std::mt19937_64 rng(1);
    std::vector<std::vector<uint32_t>> s(200000, std::vector<uint32_t>(128));
    for (auto& v : s)
      for (auto& x : v) x = static_cast<uint32_t>(rng());
    return s;
  }();
  return sigs;
}

void BM_LshInsert200k(benchmark::State& state) {
  const auto& sigs = Signatures();
  for (auto _ : state) {
    index::LshIndex idx(16);
    std::vector<uint64_t> keys;
    for (size_t i = 0; i < sigs.size(); ++i) {
      sketch::LshBandKeys(sigs[i], {16, 8}, &keys);
      (void)idx.Insert(static_cast<uint32_t>(i), keys);
    }
    benchmark::DoNotOptimize(idx.size());
  }
  state.SetItemsProcessed(state.iterations() * sigs.size());
}
BENCHMARK(BM_LshInsert200k)->Unit(benchmark::kMillisecond)->Iterations(2);

void BM_LshQuery200k(benchmark::State& state) {
  const auto& sigs = Signatures();
  static auto idx = [&] {
    auto i = std::make_unique<index::LshIndex>(16);
    std::vector<uint64_t> keys;
    for (size_t j = 0; j < sigs.size(); ++j) {
      sketch::LshBandKeys(sigs[j], {16, 8}, &keys);
      (void)i->Insert(static_cast<uint32_t>(j), keys);
    }
    return i;
  }();
  std::mt19937_64 rng(2);
  size_t q = 0, found = 0;
  std::vector<uint32_t> query(128);
  std::vector<uint64_t> keys;
  std::vector<index::LshIndex::Hit> hits;
  for (auto _ : state) {
    // Half the queries are a stored signature with 20% of values changed.
    query = sigs[(q * 7919) % sigs.size()];
    if (q++ % 2)
      for (auto& x : query)
        if (rng() % 5 == 0) x = static_cast<uint32_t>(rng());
    sketch::LshBandKeys(query, {16, 8}, &keys);
    hits.clear();
    (void)idx->Query(keys, &hits);
    found += hits.size();
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["candidates/query"] = static_cast<double>(found) / state.iterations();
}
BENCHMARK(BM_LshQuery200k);

void BM_OptimalLshParams(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(sketch::OptimalLshParams(0.8, 128).value());
}
BENCHMARK(BM_OptimalLshParams)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace neardup

BENCHMARK_MAIN();
