// SPDX-License-Identifier: Apache-2.0
// Chinese text benchmarks: jieba-compatible segmentation throughput (and the
// python3-jieba oracle's on the same text, measured in the same run), the
// dictionary load (cached image and from scratch), and a zh-news style
// fingerprint (the zh-news profile: T2S + words + stop words + TF-IDF +
// SimHash) of a 3 KB article.
//
// Text: real prose from manpages-zh and chinese-poetry via scripts/zh_corpus
// (or the file in $NEARDUP_ZH_CORPUS). Run:
//   build/segment_bench [--benchmark_filter=...] [--no-jieba]
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "features/tfidf.h"
#include "features/word_extractor.h"
#include "neardup/options.h"
#include "normalize/normalizer.h"
#include "normalize/t2s.h"
#include "pipeline/pipeline.h"
#include "resources/data_dir.h"
#include "sketch/simhash.h"
#include "tokenize/dictionary.h"
#include "tokenize/segmenter.h"

namespace neardup {
namespace {

std::string CorpusPath() {
  if (const char* p = std::getenv("NEARDUP_ZH_CORPUS"); p != nullptr && *p) return p;
  static const std::string path =
      (std::filesystem::temp_directory_path() / "neardup_segment_bench_corpus.txt").string();
  if (!std::filesystem::exists(path)) {
    const std::string script = std::string(NEARDUP_DEFAULT_DATA_DIR) + "/../scripts/zh_corpus";
    const std::string cmd =
        "/usr/bin/python3 " + script + " --man-chars 1500000 --every 1 --poems 3000 -o " + path;
    if (std::system(cmd.c_str()) != 0)
      std::fprintf(stderr, "corpus command failed: %s\n", cmd.c_str());
  }
  return path;
}

const std::vector<std::string>& Lines() {
  static const std::vector<std::string> lines = [] {
    std::vector<std::string> v;
    std::ifstream in(CorpusPath());
    for (std::string l; std::getline(in, l);) v.push_back(l);
    return v;
  }();
  return lines;
}

size_t Bytes(const std::vector<std::string>& v) {
  size_t n = 0;
  for (const auto& s : v) n += s.size();
  return n;
}

std::shared_ptr<const tokenize::Segmenter> Seg(bool hmm = true) {
  tokenize::SegmenterOptions o;
  o.hmm = hmm;
  return tokenize::Segmenter::Shared(o).value();
}

double SegmentSeconds(const tokenize::Segmenter& seg, const std::vector<std::string>& lines) {
  std::vector<std::string_view> tokens;
  // CPU time of this thread, so other load on the machine does not count.
  timespec t0, t1;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  size_t sink = 0;
  for (const auto& l : lines) {
    tokens.clear();
    (void)seg.Cut(l, &tokens);
    sink += tokens.size();
  }
  benchmark::DoNotOptimize(sink);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
  return static_cast<double>(t1.tv_sec - t0.tv_sec) +
         1e-9 * static_cast<double>(t1.tv_nsec - t0.tv_nsec);
}

void BM_Segment(benchmark::State& state) {
  const auto& lines = Lines();
  auto seg = Seg(state.range(0) != 0);
  std::vector<std::string_view> tokens;
  size_t n = 0;
  for (auto _ : state) {
    for (const auto& l : lines) {
      tokens.clear();
      benchmark::DoNotOptimize(seg->Cut(l, &tokens));
      n += tokens.size();
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * Bytes(lines)));
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Segment)->Arg(1)->ArgName("hmm")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Segment)->Arg(0)->ArgName("hmm")->Unit(benchmark::kMillisecond);

void BM_DictionaryLoadCached(benchmark::State& state) {
  tokenize::DictionaryOptions o;
  o.dict_path = resources::JiebaDir() + "/jieba.dict.utf8";
  (void)tokenize::Dictionary::Load(o);  // make sure the image exists
  for (auto _ : state) {
    auto d = tokenize::Dictionary::Load(o);
    if (!d.ok() || !(*d)->loaded_from_cache()) state.SkipWithError("cache not used");
  }
}
BENCHMARK(BM_DictionaryLoadCached)->Unit(benchmark::kMillisecond);

void BM_SegmenterCreateCached(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(tokenize::Segmenter::Create({}).value());
}
BENCHMARK(BM_SegmenterCreateCached)->Unit(benchmark::kMillisecond);

void BM_DictionaryBuildNoCache(benchmark::State& state) {
  tokenize::DictionaryOptions o;
  o.dict_path = resources::JiebaDir() + "/jieba.dict.utf8";
  o.use_cache = false;
  for (auto _ : state) benchmark::DoNotOptimize(tokenize::Dictionary::Load(o).value());
}
BENCHMARK(BM_DictionaryBuildNoCache)->Unit(benchmark::kMillisecond)->Iterations(2);

void BM_T2SLoad(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(normalize::T2SFolder::Load().value());
}
BENCHMARK(BM_T2SLoad)->Unit(benchmark::kMillisecond);

// 3 KB articles cut from the corpus's man-page prose.
const std::vector<std::string>& Articles() {
  static const std::vector<std::string> docs = [] {
    std::vector<std::string> v;
    std::string cur;
    for (const auto& l : Lines()) {
      cur += l;
      cur += '\n';
      if (cur.size() >= 3072) {
        v.push_back(cur.substr(0, cur.rfind('\n', 3072)));
        cur.clear();
        if (v.size() == 200) break;
      }
    }
    return v;
  }();
  return docs;
}

void BM_ZhNewsFingerprint3KB(benchmark::State& state) {
  // The zh-news profile as the engine runs it: NFKC + T2S (Taiwan usage, then
  // t2s) + jieba words + stop words + TF-IDF + SimHash-64.
  auto p = pipeline::Pipeline::Create(EngineOptions::FromProfile("zh-news").value(), true, false)
               .value();
  const auto& docs = Articles();
  size_t i = 0, bytes = 0;
  for (auto _ : state) {
    const std::string& d = docs[i++ % docs.size()];
    bytes += d.size();
    benchmark::DoNotOptimize(p->Fingerprint(d).value());
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["articles"] = static_cast<double>(docs.size());
}
BENCHMARK(BM_ZhNewsFingerprint3KB)->Unit(benchmark::kMicrosecond);

// python3-jieba on the same lines, timed inside Python in CPU time (load
// excluded), best of 2.
double JiebaMBps(const std::string& corpus) {
  const std::string script =
      "import sys,time,jieba\n"
      "jieba.setLogLevel(60)\n"
      "jieba.set_dictionary(sys.argv[1])\n"
      "jieba.initialize()\n"
      "lines=open(sys.argv[2],encoding='utf-8').read().split('\\n')\n"
      "b=sum(len(l.encode('utf-8')) for l in lines)\n"
      "best=1e9\n"
      "for r in range(2):\n"
      "  t=time.process_time()\n"
      "  for l in lines: jieba.lcut(l, HMM=True)\n"
      "  best=min(best,time.process_time()-t)\n"
      "print(b/best/1e6)\n";
  const std::string py =
      (std::filesystem::temp_directory_path() / "neardup_jieba_speed.py").string();
  std::ofstream(py) << script;
  const std::string cmd =
      "/usr/bin/python3 " + py + " " + resources::JiebaDir() + "/jieba.dict.utf8 " + corpus;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return 0;
  char buf[128] = {0};
  const bool got = std::fgets(buf, sizeof buf, p) != nullptr;
  pclose(p);
  return got ? std::atof(buf) : 0.0;
}

}  // namespace
}  // namespace neardup

int main(int argc, char** argv) {
  bool jieba = true;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-jieba") == 0) {
      jieba = false;
    } else {
      args.push_back(argv[i]);
    }
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (jieba) {
    using namespace neardup;
    const auto& lines = Lines();
    const double mb = static_cast<double>(Bytes(lines)) / 1e6;
    auto seg = Seg();
    double best = 1e9;
    for (int r = 0; r < 3; ++r) best = std::min(best, SegmentSeconds(*seg, lines));
    const double ours = mb / best;
    const double theirs = JiebaMBps(CorpusPath());
    std::printf(
        "\nsame-run comparison (thread CPU time) on %.2f MB (%zu lines): neardup %.1f MB/s, "
        "python3-jieba %.2f MB/s, "
        "ratio %.0fx\n",
        mb, lines.size(), ours, theirs, theirs > 0 ? ours / theirs : 0.0);
  }
  return 0;
}
