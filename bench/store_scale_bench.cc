// SPDX-License-Identifier: Apache-2.0
//
// The real-time engine at scale without HTTP (issue 26): builds an
// N-document durable store through DurableEngine::AddBatch on the default
// pipeline (or --profile), with the documents neardup_loadgen sends (random
// common Han characters; --dup-rate of them one-character edits of one of
// --pool base articles), then times queries and a restart.
//
//   store_scale_bench --documents 1000000 --dir /tmp/nd_scale [--batch 100]
//     [--doc-bytes 2048] [--dup-rate 0.3] [--pool 2000] [--queries 20000]
//     [--report 100000] [--nosync] [--profile P] [--verify-per-cluster K]
//     [--keep] [--reuse | --open-once] [--boilerplate-documents N]
//     [--signals LIST] [--containment C]
//
// --reuse opens an existing store at --dir and skips the build; it opens it
// twice and times the second (warm page cache). --open-once opens it once, so
// the resident bytes after it are the whole engine's, not a difference that
// memory freed by the first open (kept by malloc) shrinks. The restart line
// gives both: the growth over the process before the open
// (resident_after_open) and the whole process (process_resident).
// Prints one JSON line per --report documents (the interval's rate, the
// resident bytes, index and forest), then one for the queries (one thread)
// and one for the restart (Open() time, the first Add after it, resident
// bytes after it).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "neardup/durable_engine.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Flags {
  uint64_t documents = 1000000, queries = 20000, report = 100000;
  size_t batch = 100;
  int doc_bytes = 2048, pool = 2000;
  double dup_rate = 0.3;
  int64_t verify_per_cluster = -1;  // -1: the engine's default
  int boilerplate = -1;             // --boilerplate-documents; -1: the profile's
  double containment = -1;          // --containment; -1: the profile's
  std::string signals;              // --signals; empty: the profile's
  std::string dir = "/tmp/nd_scale", profile;
  bool sync = true, keep = false, reuse = false, open_once = false;
};

uint64_t ResidentBytes() {
  std::ifstream f("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  f >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

std::string Article(std::mt19937_64& rng, int bytes) {
  std::string s;
  std::uniform_int_distribution<int> cp(0x4e00, 0x4e00 + 3500);
  while (static_cast<int>(s.size()) + 3 <= bytes) {
    const int c = cp(rng);
    s += static_cast<char>(0xe0 | (c >> 12));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    s += static_cast<char>(0x80 | (c & 0x3f));
  }
  return s;
}

// Article or a one-character edit of a pooled base, as neardup_loadgen does.
class Docs {
 public:
  explicit Docs(const Flags& f) : f_(f), rng_(7) {
    for (int i = 0; i < f.pool; ++i) pool_.push_back(Article(rng_, f.doc_bytes));
  }
  std::string Next() {
    if (static_cast<double>(rng_() % 1000) < f_.dup_rate * 1000) {
      std::string s = pool_[rng_() % pool_.size()];
      s.replace(3 * (rng_() % (s.size() / 3)), 3, "的");
      return s;
    }
    return Article(rng_, f_.doc_bytes);
  }

 private:
  const Flags& f_;
  std::mt19937_64 rng_;
  std::vector<std::string> pool_;
};

bool Parse(int argc, char** argv, Flags* f) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--nosync")
      f->sync = false;
    else if (a == "--keep")
      f->keep = true;
    else if (a == "--open-once")
      f->reuse = f->keep = f->open_once = true;
    else if (a == "--reuse")
      f->reuse = f->keep = true;
    else if ((v = next()) == nullptr)
      return false;
    else if (a == "--documents")
      f->documents = std::stoull(v);
    else if (a == "--queries")
      f->queries = std::stoull(v);
    else if (a == "--report")
      f->report = std::max<uint64_t>(1, std::stoull(v));
    else if (a == "--batch")
      f->batch = std::max<size_t>(1, std::stoul(v));
    else if (a == "--doc-bytes")
      f->doc_bytes = std::stoi(v);
    else if (a == "--pool")
      f->pool = std::max(1, std::stoi(v));
    else if (a == "--dup-rate")
      f->dup_rate = std::stod(v);
    else if (a == "--dir")
      f->dir = v;
    else if (a == "--profile")
      f->profile = v;
    else if (a == "--verify-per-cluster")
      f->verify_per_cluster = std::stoll(v);
    else if (a == "--boilerplate-documents")
      f->boilerplate = std::stoi(v);
    else if (a == "--containment")
      f->containment = std::stod(v);
    else if (a == "--signals")
      f->signals = v;
    else
      return false;
  }
  return true;
}

neardup::Result<std::unique_ptr<neardup::DurableEngine>> OpenStore(const Flags& f) {
  neardup::DurableOptions o;
  o.dir = f.dir;
  o.ttl_ms = 0;
  o.sync = f.sync;
  o.background_expiry = false;
  if (!f.profile.empty()) {
    auto engine = neardup::EngineOptions::FromProfile(f.profile);
    if (!engine.ok()) return engine.status();
    o.engine = *engine;
  }
  if (f.verify_per_cluster >= 0) o.engine.verify_per_cluster = f.verify_per_cluster;
  if (f.boilerplate >= 0) o.engine.verify.boilerplate_documents = f.boilerplate;
  if (f.containment >= 0) o.engine.verify.containment = f.containment;
  if (!f.signals.empty()) {
    auto parsed = neardup::ParseSignals(f.signals);
    if (!parsed.ok()) return parsed.status();
    o.engine.signals = *parsed;
  }
  return neardup::DurableEngine::Open(o);
}

void PrintProgress(neardup::DurableEngine& e, uint64_t done, uint64_t interval, double secs,
                   uint64_t rss0) {
  const auto s = e.Stats();
  const double docs = static_cast<double>(std::max<uint64_t>(1, s.engine.documents));
  std::printf(
      "{\"documents\":%llu,\"docs_per_s\":%.0f,\"bytes_per_document\":%.0f,"
      "\"index_plus_forest_per_document\":%.0f,\"disk_bytes_per_document\":%.0f}\n",
      static_cast<unsigned long long>(done), static_cast<double>(interval) / secs,
      static_cast<double>(ResidentBytes() - rss0) / docs,
      static_cast<double>(s.engine.index_bytes + s.engine.forest_bytes) / docs,
      static_cast<double>(s.disk_bytes) / docs);
  std::fflush(stdout);
}

int Build(neardup::DurableEngine& e, const Flags& f, Docs& docs, uint64_t rss0) {
  std::vector<neardup::IncomingDocument> batch;
  auto t = Clock::now();
  uint64_t since = 0;
  for (uint64_t i = 0; i < f.documents;) {
    batch.clear();
    for (; batch.size() < f.batch && i < f.documents; ++i) {
      batch.push_back({"d" + std::to_string(i), docs.Next(), 0, ""});
    }
    for (auto& r : e.AddBatch(batch, neardup::OnConflict::kError)) {
      if (!r.ok()) return std::fprintf(stderr, "%s\n", r.status().ToString().c_str()), 1;
    }
    since += batch.size();
    if (since >= f.report || i == f.documents) {
      const auto now = Clock::now();
      PrintProgress(e, i, since, std::chrono::duration<double>(now - t).count(), rss0);
      t = now;
      since = 0;
    }
  }
  return 0;
}

void Queries(const neardup::DurableEngine& e, const Flags& f, Docs& docs) {
  std::vector<double> ms;
  ms.reserve(f.queries);
  uint64_t matched = 0;
  const auto t0 = Clock::now();
  for (uint64_t i = 0; i < f.queries; ++i) {
    const std::string text = docs.Next();
    const auto t = Clock::now();
    auto r = e.Query(text);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
    if (r.ok() && !r->matches.empty()) ++matched;
  }
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  std::sort(ms.begin(), ms.end());
  auto pct = [&](double p) { return ms.empty() ? 0.0 : ms[size_t(p * double(ms.size() - 1))]; };
  std::printf(
      "{\"queries\":%llu,\"queries_per_s_one_thread\":%.0f,\"p50_ms\":%.3f,\"p99_ms\":%.3f,"
      "\"matched\":%llu}\n",
      static_cast<unsigned long long>(f.queries), double(f.queries) / secs, pct(0.5), pct(0.99),
      static_cast<unsigned long long>(matched));
}

double PerDoc(size_t bytes, const neardup::DurableStats& s) {
  return double(bytes) / double(std::max<uint64_t>(1, s.engine.documents));
}

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  if (!Parse(argc, argv, &f)) {
    std::fprintf(stderr, "usage: see the comment at the top of bench/store_scale_bench.cc\n");
    return 2;
  }
  if (!f.reuse) std::filesystem::remove_all(f.dir);
  Docs docs(f);
  const uint64_t rss0 = ResidentBytes();
  if (!f.open_once) {
    auto e = OpenStore(f);
    if (!e.ok()) return std::fprintf(stderr, "%s\n", e.status().ToString().c_str()), 1;
    if (!f.reuse && Build(**e, f, docs, rss0) != 0) return 1;
    Queries(**e, f, docs);
    if (auto s = (*e)->Close(); !s.ok()) return std::fprintf(stderr, "%s\n", s.ToString().c_str());
  }
  const uint64_t rss1 = ResidentBytes();
  const auto t = Clock::now();
  auto e = OpenStore(f);
  if (!e.ok()) return std::fprintf(stderr, "%s\n", e.status().ToString().c_str()), 1;
  const double open_s = std::chrono::duration<double>(Clock::now() - t).count();
  const auto s = (*e)->Stats();
  // The first write after a restore (it used to grow every array trimmed to
  // size), then two more, to tell a one-time stall from a slow add.
  double add_ms[3];
  for (double& ms : add_ms) {
    const auto t2 = Clock::now();
    auto added =
        (*e)->Add({"after-restart-" + std::to_string(Clock::now().time_since_epoch().count()),
                   docs.Next(), 0, ""},
                  neardup::OnConflict::kReturnExisting);
    ms = std::chrono::duration<double, std::milli>(Clock::now() - t2).count();
    if (!added.ok()) return std::fprintf(stderr, "%s\n", added.status().ToString().c_str()), 1;
  }
  std::printf(
      "{\"restart_documents\":%llu,\"open_s\":%.2f,\"first_add_ms\":%.1f,"
      "\"next_adds_ms\":[%.1f,%.1f],"
      "\"resident_after_open_per_document\":%.1f,\"process_resident_per_document\":%.1f,"
      "\"disk_bytes_per_document\":%.0f,"
      "\"per_document\":{\"index\":%.0f,\"forest\":%.0f,\"ids\":%.0f},"
      "\"store_cache_mib\":%.0f,\"store_memtable_mib\":%.0f}\n",
      static_cast<unsigned long long>(s.engine.documents), open_s, add_ms[0], add_ms[1], add_ms[2],
      PerDoc(ResidentBytes() - std::min(rss1, ResidentBytes()), s), PerDoc(ResidentBytes(), s),
      PerDoc(s.disk_bytes, s), PerDoc(s.engine.index_bytes, s), PerDoc(s.engine.forest_bytes, s),
      PerDoc(s.engine.id_bytes, s), double(s.store_cache_bytes) / 1048576.0,
      double(s.store_memtable_bytes) / 1048576.0);
  e->reset();
  if (!f.keep) std::filesystem::remove_all(f.dir);
  return 0;
}
