// SPDX-License-Identifier: Apache-2.0
// Verification and the other signals: pair verification rates for each
// verifier on Chinese near-copies, bit-parallel edit distance by length,
// SpotSig and I-Match signatures, exact hashes, and the online store's
// compact verification forms (made from a document's shingles, read back).
// Run: build/bench/verify_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <map>
#include <random>

#include "base/utf8.h"
#include "bench_corpus.h"
#include "features/char_ngram.h"
#include "normalize/normalizer.h"
#include "sketch/exact_hash.h"
#include "sketch/imatch.h"
#include "sketch/spotsig.h"
#include "verify/edit_distance.h"
#include "verify/form.h"
#include "verify/verifier.h"

namespace neardup {
namespace {

// Pairs (doc, doc with ~5% of characters replaced), normalized.
struct Pairs {
  std::vector<std::string> a, b;
  size_t bytes = 0;
};

const Pairs& ChinesePairs(size_t doc_bytes) {
  static std::map<size_t, Pairs> cache;
  auto it = cache.find(doc_bytes);
  if (it != cache.end()) return it->second;
  Pairs p;
  auto n = normalize::Normalizer::Create({}).value();
  std::mt19937_64 rng(3);
  for (const auto& d : bench::ChineseDocs(doc_bytes, 500)) {
    std::string x;
    (void)n->Normalize(d, &x);
    std::u32string cps = verify::DecodeCodePoints(x);
    for (auto& c : cps)
      if (rng() % 20 == 0) c = U'改';
    std::string y;
    for (char32_t c : cps) base::AppendUtf8(static_cast<int32_t>(c), &y);
    p.bytes += x.size() + y.size();
    p.a.push_back(std::move(x));
    p.b.push_back(std::move(y));
  }
  return cache.emplace(doc_bytes, std::move(p)).first->second;
}

using K = verify::VerifierSpec::Kind;

void BM_Verify(benchmark::State& state, K kind, double threshold, size_t doc_bytes) {
  const Pairs& p = ChinesePairs(doc_bytes);
  auto v = verify::Verifier::Create({.kind = kind, .threshold = threshold}).value();
  size_t passed = 0;
  for (auto _ : state) {
    for (size_t i = 0; i < p.a.size(); ++i) passed += v->Verify(p.a[i], p.b[i]).passed;
  }
  state.SetItemsProcessed(state.iterations() * p.a.size());
  state.SetBytesProcessed(state.iterations() * p.bytes);
  state.counters["pass_rate"] = static_cast<double>(passed) / (state.iterations() * p.a.size());
}
BENCHMARK_CAPTURE(BM_Verify, jaccard_300B, K::kJaccard, 0.5, 300)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Verify, cosine_300B, K::kCosine, 0.8, 300)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Verify, levenshtein_300B, K::kLevenshtein, 0.8, 300)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Verify, lcs_300B, K::kLcs, 0.8, 300)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Verify, qbank_300B, K::kQbank, 0.8, 300)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Verify, jaccard_3KB, K::kJaccard, 0.5, 3000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Verify, similarity_3KB, K::kSimilarity, 0.6, 3000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Verify, levenshtein_3KB, K::kLevenshtein, 0.8, 3000)
    ->Unit(benchmark::kMillisecond);

// Edit distance alone by pattern length (code points): 1 block up to 64.
void BM_LevenshteinByLength(benchmark::State& state) {
  std::mt19937_64 rng(5);
  const size_t len = static_cast<size_t>(state.range(0));
  std::u32string a, b;
  for (size_t i = 0; i < len; ++i) a.push_back(0x4E00 + rng() % 3000);
  b = a;
  for (auto& c : b)
    if (rng() % 10 == 0) c = 0x4E00 + rng() % 3000;
  for (auto _ : state) benchmark::DoNotOptimize(verify::LevenshteinDistance(a, b));
  state.SetItemsProcessed(state.iterations());
  state.counters["cells/s"] = benchmark::Counter(
      static_cast<double>(len * len) * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_LevenshteinByLength)->Arg(32)->Arg(64)->Arg(200)->Arg(1000)->Arg(5000);

void BM_SpotSigChinese(benchmark::State& state) {
  const Pairs& p = ChinesePairs(3000);
  auto o = sketch::ChineseSpotSigOptions(bench::DataDir() +
                                         "/nodejieba/submodules/cppjieba/dict/stop_words.utf8");
  if (!o.ok()) {
    state.SkipWithError("stop words missing; run scripts/setup");
    return;
  }
  auto ex = sketch::SpotSigExtractor::Create(*o).value();
  size_t sigs = 0;
  for (auto _ : state)
    for (const auto& d : p.a) sigs += ex.Extract(d).size();
  state.SetBytesProcessed(state.iterations() * p.bytes / 2);
  state.counters["sigs/doc"] = static_cast<double>(sigs) / (state.iterations() * p.a.size());
}
BENCHMARK(BM_SpotSigChinese)->Unit(benchmark::kMillisecond);

void BM_IMatchChinese(benchmark::State& state) {
  const Pairs& p = ChinesePairs(3000);
  auto ex = features::CharNgramExtractor::Create({.ngram = 2}).value();
  std::vector<std::vector<uint64_t>> terms;
  sketch::DocumentFrequencies df;
  for (const auto& d : p.a) {
    std::vector<features::Feature> f;
    (void)ex->Extract(d, &f);
    std::vector<uint64_t> t;
    for (const auto& x : f) t.push_back(x.hash);
    df.AddDocument(t);
    terms.push_back(std::move(t));
  }
  auto m = sketch::IMatcher::FromDocumentFrequencies(df, {.extra_lexicons = 4}).value();
  for (auto _ : state)
    for (const auto& t : terms) benchmark::DoNotOptimize(m.Signatures(t));
  state.SetBytesProcessed(state.iterations() * p.bytes / 2);
}
BENCHMARK(BM_IMatchChinese)->Unit(benchmark::kMillisecond);

void BM_ExactHash(benchmark::State& state) {
  const Pairs& p = ChinesePairs(3000);
  uint64_t sink = 0;
  for (auto _ : state)
    for (const auto& d : p.a) sink ^= sketch::ExactHash(d).lo;
  benchmark::DoNotOptimize(sink);
  state.SetBytesProcessed(state.iterations() * p.bytes / 2);
}
BENCHMARK(BM_ExactHash)->Unit(benchmark::kMillisecond);

// The default verifier's shingles of 500 normalized 2 KB Chinese articles.
struct Shingled {
  std::unique_ptr<verify::Verifier> verifier;
  std::vector<std::vector<uint64_t>> shingles;
};

const Shingled& ArticleShingles() {
  static const Shingled* s = [] {
    auto* out = new Shingled{verify::Verifier::Create({}).value(), {}};
    for (const auto& d : ChinesePairs(2048).a) {
      out->shingles.emplace_back();
      out->verifier->shingler().Shingle(d, &out->shingles.back());
    }
    return out;
  }();
  return *s;
}

// What the engine pays per added document for its form: cut the shingles to
// NarrowWidth bits and Rice-code them (MakeCompactForm with the shingles).
void BM_MakeCompactForm(benchmark::State& state) {
  const Shingled& s = ArticleShingles();
  const Pairs& p = ChinesePairs(2048);
  std::string form;
  size_t bytes = 0;
  for (auto _ : state) {
    for (size_t i = 0; i < s.shingles.size(); ++i) {
      verify::MakeCompactForm(s.verifier.get(), p.a[i], &form, &s.shingles[i]);
      bytes += form.size();
    }
  }
  benchmark::DoNotOptimize(bytes);
  state.SetItemsProcessed(state.iterations() * s.shingles.size());
}
BENCHMARK(BM_MakeCompactForm)->Unit(benchmark::kMicrosecond);

// What a query pays per candidate before comparing: decode a stored form.
void BM_ReadCompactForm(benchmark::State& state) {
  const Shingled& s = ArticleShingles();
  const Pairs& p = ChinesePairs(2048);
  std::vector<std::string> forms(s.shingles.size());
  for (size_t i = 0; i < forms.size(); ++i) {
    verify::MakeCompactForm(s.verifier.get(), p.a[i], &forms[i], &s.shingles[i]);
  }
  std::vector<uint64_t> back;
  size_t n = 0;
  for (auto _ : state) {
    for (const auto& f : forms) n += verify::ReadForm(f, &back)->side.shingles->size();
  }
  benchmark::DoNotOptimize(n);
  state.SetItemsProcessed(state.iterations() * forms.size());
}
BENCHMARK(BM_ReadCompactForm)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace neardup

BENCHMARK_MAIN();
