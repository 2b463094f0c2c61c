// SPDX-License-Identifier: Apache-2.0
//
// hamming_bench: the Hamming index at scale, beside FAISS on the same data.
//
//   hamming_bench --n N --k K [--queries Q] [--threads T] [--json]
//                 [--compact] [--budget BYTES] [--layout M,G,T | --linear]
//                 [--stream S] [--faiss-queries F] [--no-faiss] [--seed X]
//
// Data: N random 64-bit fingerprints; every 100th is a planted near-duplicate
// of an earlier one at distance 0..K. Queries: half are stored fingerprints
// with 0..K+1 bits flipped, half random. Phases: bulk build (InsertBatch),
// single-threaded queries (throughput pass, then a latency pass), batched
// queries on T threads, a SIMD linear scan for reference, FAISS
// IndexBinaryMultiHash (nhash=K+1, b=64/(K+1)) and, for N <= 2M,
// IndexBinaryFlat, each single-threaded with range_search radius K+1 (FAISS's
// radius is strict), the result sets compared; then S streaming inserts and
// S deletes with one concurrent reader thread.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "index/hamming_index.h"
#include "index/run.h"
#include "index/scan.h"

#ifdef NEARDUP_HAVE_FAISS
#include <faiss/IndexBinaryFlat.h>
#include <faiss/IndexBinaryHash.h>
#include <faiss/impl/AuxIndexStructures.h>
extern "C" void omp_set_num_threads(int);
#endif

namespace {

using neardup::index::HammingHit;
using neardup::index::HammingIndex;
using Clock = std::chrono::steady_clock;

// CPU seconds of this process (all threads) or of the calling thread: less
// sensitive than wall time to the other jobs sharing the machine.
double CpuSeconds(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

struct Args {
  size_t n = 1000000, queries = 100000, stream = 0, faiss_queries = 0;
  int k = 3, threads = 2;
  bool json = false, compact = false, faiss = true, linear = false;
  double budget = 0;
  int layout[3] = {0, 1, 1};
  uint64_t seed = 42;
};

int Usage() {
  std::fprintf(stderr,
               "usage: hamming_bench --n N --k K [--queries Q] [--threads T] [--json] [--compact]\n"
               "       [--budget BYTES] [--layout M,G,T | --linear] [--stream S]\n"
               "       [--faiss-queries F] [--no-faiss] [--seed X]\n");
  return 2;
}

bool Parse(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    const std::string f = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (f == "--json")
      a->json = true;
    else if (f == "--compact")
      a->compact = true;
    else if (f == "--no-faiss")
      a->faiss = false;
    else if (f == "--linear")
      a->linear = true;
    else if ((v = next()) == nullptr)
      return false;
    else if (f == "--n")
      a->n = std::strtoull(v, nullptr, 10);
    else if (f == "--k")
      a->k = std::atoi(v);
    else if (f == "--queries")
      a->queries = std::strtoull(v, nullptr, 10);
    else if (f == "--threads")
      a->threads = std::atoi(v);
    else if (f == "--stream")
      a->stream = std::strtoull(v, nullptr, 10);
    else if (f == "--faiss-queries")
      a->faiss_queries = std::strtoull(v, nullptr, 10);
    else if (f == "--budget")
      a->budget = std::atof(v);
    else if (f == "--seed")
      a->seed = std::strtoull(v, nullptr, 10);
    else if (f == "--layout") {
      if (std::sscanf(v, "%d,%d,%d", &a->layout[0], &a->layout[1], &a->layout[2]) != 3)
        return false;
    } else
      return false;
  }
  return a->n > 0 && a->k >= 0 && a->k <= 32 && a->queries > 0;
}

uint64_t FlipBits(uint64_t fp, int bits, std::mt19937_64& rng) {
  for (int i = 0; i < bits; ++i) fp ^= 1ULL << (rng() % 64);
  return fp;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * v.size()));
  std::nth_element(v.begin(), v.begin() + i, v.end());
  return v[i];
}

std::string LoadAvg() {
  std::ifstream f("/proc/loadavg");
  std::string a;
  f >> a;
  return a;
}

using ResultSets = std::vector<std::vector<std::pair<uint32_t, uint32_t>>>;

ResultSets Normalise(const std::vector<HammingHit>& hits, const std::vector<uint32_t>& offsets) {
  ResultSets out(offsets.size() - 1);
  for (size_t q = 0; q + 1 < offsets.size(); ++q) {
    for (uint32_t i = offsets[q]; i < offsets[q + 1]; ++i)
      out[q].push_back({hits[i].doc, hits[i].distance});
    std::sort(out[q].begin(), out[q].end());
  }
  return out;
}

#ifdef NEARDUP_HAVE_FAISS
// Runs FAISS range_search one query at a time; returns q/s and the result sets.
template <typename Index>
double FaissQuery(Index& index, const std::vector<uint64_t>& queries, size_t count, int k,
                  ResultSets* sets) {
  sets->assign(count, {});
  const auto t0 = Clock::now();
  for (size_t q = 0; q < count; ++q) {
    faiss::RangeSearchResult res(1);
    index.range_search(1, reinterpret_cast<const uint8_t*>(&queries[q]), k + 1, &res);
    for (size_t i = res.lims[0]; i < res.lims[1]; ++i)
      (*sets)[q].push_back(
          {static_cast<uint32_t>(res.labels[i]), static_cast<uint32_t>(res.distances[i])});
  }
  const double s = Seconds(t0, Clock::now());
  for (auto& v : *sets) std::sort(v.begin(), v.end());
  return count / s;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!Parse(argc, argv, &a)) return Usage();
  nlohmann::json out;
  out["n"] = a.n;
  out["k"] = a.k;
  out["queries"] = a.queries;
  out["threads"] = a.threads;
  out["loadavg_start"] = LoadAvg();
  out["scan_impl"] = neardup::index::ScanLinearImplementation();

  // ---- data ----
  std::mt19937_64 rng(a.seed);
  std::vector<uint64_t> fps(a.n);
  std::vector<uint32_t> docs(a.n);
  for (size_t i = 0; i < a.n; ++i) {
    docs[i] = static_cast<uint32_t>(i);
    fps[i] = (i % 100 == 99) ? FlipBits(fps[rng() % i], rng() % (a.k + 1), rng) : rng();
  }
  std::vector<uint64_t> queries(a.queries);
  for (auto& q : queries)
    q = rng() % 2 ? FlipBits(fps[rng() % a.n], rng() % (a.k + 2), rng) : rng();

  // ---- build ----
  neardup::index::HammingIndexOptions opt;
  opt.max_distance = a.k;
  opt.threads = a.threads;
  opt.compact = a.compact;
  opt.bytes_per_doc = a.budget;
  opt.layout = {
      .blocks = a.layout[0], .groups = a.layout[1], .key_blocks = a.layout[2], .linear = a.linear};
  auto created = HammingIndex::Create(opt);
  if (!created.ok()) {
    std::fprintf(stderr, "%s\n", created.status().ToString().c_str());
    return 2;
  }
  std::unique_ptr<HammingIndex> index = std::move(created).value();
  auto t0 = Clock::now();
  double c0 = CpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
  if (!index->InsertBatch(docs, fps).ok()) return 1;
  out["build_s"] = Seconds(t0, Clock::now());
  out["build_cpu_s"] = CpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
  out["bytes_per_doc"] = static_cast<double>(index->MemoryBytes()) / a.n;
  out["layout"] = index->Stats().layout;

  // ---- single-threaded queries: throughput pass, then latency pass ----
  std::vector<HammingHit> hits;
  size_t total_hits = 0;
  neardup::index::CandidateCounter() = 0;
  t0 = Clock::now();
  c0 = CpuSeconds(CLOCK_THREAD_CPUTIME_ID);
  for (uint64_t q : queries) {
    hits.clear();
    (void)index->Search(q, a.k, &hits);
    total_hits += hits.size();
  }
  const double qs = Seconds(t0, Clock::now());
  out["qps"] = a.queries / qs;
  out["qps_cpu"] = a.queries / (CpuSeconds(CLOCK_THREAD_CPUTIME_ID) - c0);
  out["candidates_per_query"] = static_cast<double>(neardup::index::CandidateCounter()) / a.queries;
  out["hits_per_query"] = static_cast<double>(total_hits) / a.queries;
  std::vector<double> lat(a.queries);
  for (size_t i = 0; i < a.queries; ++i) {
    hits.clear();
    const auto s = Clock::now();
    (void)index->Search(queries[i], a.k, &hits);
    lat[i] = Seconds(s, Clock::now()) * 1e6;
  }
  out["p50_us"] = Percentile(lat, 0.5);
  out["p99_us"] = Percentile(lat, 0.99);

  // ---- batched queries on T threads ----
  std::vector<HammingHit> batch_hits;
  std::vector<uint32_t> offsets;
  t0 = Clock::now();
  (void)index->SearchBatch(queries, a.k, &batch_hits, &offsets);
  out["batch_qps"] = a.queries / Seconds(t0, Clock::now());
  const ResultSets ours = Normalise(batch_hits, offsets);

  // ---- SIMD linear scan reference (a few queries) ----
  {
    const size_t nq = std::max<size_t>(1, std::min<size_t>(a.queries, 2e8 / a.n));
    std::vector<uint32_t> idx(a.n);
    size_t found = 0;
    t0 = Clock::now();
    for (size_t q = 0; q < nq; ++q)
      found += neardup::index::ScanLinear(fps.data(), a.n, queries[q], a.k, idx.data());
    out["linear_scan_qps"] = nq / Seconds(t0, Clock::now());
    out["linear_scan_hits"] = found;
  }

  // ---- FAISS on the same data ----
  out["identical"] = nullptr;
  out["faiss_qps"] = nullptr;
#ifdef NEARDUP_HAVE_FAISS
  if (a.faiss) {
    omp_set_num_threads(1);
    const size_t fq = std::min(a.queries, a.faiss_queries > 0 ? a.faiss_queries : a.queries);
    const int b = 64 / (a.k + 1);
    faiss::IndexBinaryMultiHash mh(64, a.k + 1, b);
    t0 = Clock::now();
    mh.add(a.n, reinterpret_cast<const uint8_t*>(fps.data()));
    out["faiss_build_s"] = Seconds(t0, Clock::now());
    out["faiss_index"] =
        "IndexBinaryMultiHash nhash=" + std::to_string(a.k + 1) + " b=" + std::to_string(b);
    ResultSets theirs;
    const double fqps = FaissQuery(mh, queries, fq, a.k, &theirs);
    out["faiss_qps"] = fqps;
    out["faiss_queries"] = fq;
    out["ratio"] = out["qps"].get<double>() / fqps;
    bool same = true;
    for (size_t q = 0; q < fq; ++q) same = same && theirs[q] == ours[q];
    if (a.n <= 2000000) {
      faiss::IndexBinaryFlat flat(64);
      flat.add(a.n, reinterpret_cast<const uint8_t*>(fps.data()));
      ResultSets flat_sets;
      const size_t ff = std::min<size_t>(fq, 2000);
      out["faiss_flat_qps"] = FaissQuery(flat, queries, ff, a.k, &flat_sets);
      for (size_t q = 0; q < ff; ++q) same = same && flat_sets[q] == ours[q];
    }
    out["identical"] = same;
  }
#endif

  // ---- streaming inserts and deletes with a concurrent reader ----
  if (a.stream > 0) {
    std::atomic<bool> stop{false};
    std::vector<double> rlat;
    size_t rq = 0;
    std::thread reader([&] {
      std::vector<HammingHit> h;
      for (size_t i = 0; !stop.load(std::memory_order_relaxed); ++i, ++rq) {
        h.clear();
        const auto s = Clock::now();
        (void)index->Search(queries[i % queries.size()], a.k, &h);
        rlat.push_back(Seconds(s, Clock::now()) * 1e6);
      }
    });
    std::vector<uint64_t> fresh(a.stream);
    for (auto& f : fresh) f = rng();
    const auto s0 = Clock::now();
    for (size_t i = 0; i < a.stream; ++i)
      (void)index->Insert(static_cast<uint32_t>(a.n + i), fresh[i]);
    const auto s1 = Clock::now();
    for (size_t i = 0; i < a.stream; ++i) (void)index->Remove(static_cast<uint32_t>(i));
    const auto s2 = Clock::now();
    stop.store(true);
    reader.join();
    out["stream"] = a.stream;
    out["insert_per_s"] = a.stream / Seconds(s0, s1);
    out["delete_per_s"] = a.stream / Seconds(s1, s2);
    out["stream_reader_qps"] = rq / Seconds(s0, s2);
    out["stream_reader_p99_us"] = Percentile(rlat, 0.99);
    out["stream_reader_max_us"] = rlat.empty() ? 0 : *std::max_element(rlat.begin(), rlat.end());
    const auto st = index->Stats();
    out["stream_runs_after"] = st.runs;
    out["stream_merges"] = st.merges;
    // Exactness after streaming, against a brute-force scan of the live set.
    size_t bad = 0;
    std::vector<uint64_t> live(fps.begin() + a.stream, fps.end());
    std::vector<uint32_t> live_ids(docs.begin() + a.stream, docs.end());
    live.insert(live.end(), fresh.begin(), fresh.end());
    for (size_t i = 0; i < a.stream; ++i) live_ids.push_back(static_cast<uint32_t>(a.n + i));
    std::vector<uint32_t> idx(live.size());
    for (size_t q = 0; q < 20; ++q) {
      hits.clear();
      (void)index->Search(queries[q], a.k, &hits);
      const size_t c =
          neardup::index::ScanLinear(live.data(), live.size(), queries[q], a.k, idx.data());
      bad += c != hits.size();
    }
    out["stream_exact"] = bad == 0;
  } else {
    out["insert_per_s"] = nullptr;
  }
  out["loadavg_end"] = LoadAvg();

  if (a.json) {
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf("%s\n", out.dump(2).c_str());
  }
  return 0;
}
