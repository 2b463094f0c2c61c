// SPDX-License-Identifier: Apache-2.0
//
// Helpers of the durable engine's tests: a temporary directory, test
// options, synthetic Chinese stories, and a snapshot of everything
// observable about an engine (records, clusters, list pages, counters).
#ifndef NEARDUP_ENGINE_DURABLE_TEST_UTIL_H_
#define NEARDUP_ENGINE_DURABLE_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "base/utf8.h"
#include "engine/engine_internal.h"
#include "neardup/durable_engine.h"

namespace neardup::testing_util {

using engine::EngineInternal;

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("neardup_durable_" + std::to_string(getpid()) + "_" + std::to_string(counter_++));
    std::filesystem::remove_all(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string str() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

inline DurableOptions Opts(const std::string& dir) {
  DurableOptions o;
  o.dir = dir;
  o.background_expiry = false;
  o.sync = false;  // durability across process kills is tested end to end
  o.touch_granularity_ms = 0;
  return o;
}

inline std::unique_ptr<DurableEngine> OpenOrDie(const DurableOptions& o) {
  auto d = DurableEngine::Open(o);
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  return std::move(d).value();
}

// Random Chinese-looking stories and light edits of them.
inline std::string Story(std::mt19937& rng, int len) {
  std::string s;
  std::uniform_int_distribution<int> cp(0x4e00, 0x4e00 + 400);
  for (int i = 0; i < len; ++i) base::AppendUtf8(cp(rng), &s);
  return s;
}
inline std::string Edit(std::mt19937& rng, std::string s, int edits) {
  for (int e = 0; e < edits; ++e) {
    const size_t at = 3 * std::uniform_int_distribution<size_t>(0, s.size() / 3 - 1)(rng);
    s.replace(at, 3, "的");
  }
  return s;
}

// Everything observable about one document and the cluster list.
inline std::string Snapshot(const Engine& e, const std::vector<std::string>& ids) {
  std::string out;
  for (const auto& id : ids) {
    auto r = EngineInternal::Record(e, id);
    out += id + ":";
    if (!r.ok()) {
      out += "absent\n";
      continue;
    }
    out += r->cluster + "," + std::to_string(r->time) + "," + (r->ghost ? "ghost" : "live") + ",";
    auto c = e.GetCluster(r->cluster);
    if (c.ok()) {
      out += std::to_string(c->size) + "[";
      for (const auto& m : c->members) out += m + " ";
      out += "]";
    }
    out += "\n";
  }
  for (auto sort : {ClusterSort::kSize, ClusterSort::kRecent}) {
    for (const auto& c : e.ListClusters({sort, true, SIZE_MAX, std::nullopt})) {
      out += c.id + "/" + c.representative + "/" + std::to_string(c.size) + "/" +
             std::to_string(c.time) + " ";
    }
    out += "\n";
  }
  auto s = e.Stats();
  out += std::to_string(s.documents) + " " + std::to_string(s.clusters) + " " +
         std::to_string(s.added) + " " + std::to_string(s.duplicates) + " " +
         std::to_string(s.removed);
  return out;
}

}  // namespace neardup::testing_util

#endif  // NEARDUP_ENGINE_DURABLE_TEST_UTIL_H_
