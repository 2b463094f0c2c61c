// SPDX-License-Identifier: Apache-2.0
// Exactness of the Hamming index against brute force, for every layout family,
// on random and skewed data, with inserts, deletes, merges and compaction
// interleaved.
#include "index/hamming_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "base/sanitizers.h"
#include "base/status_macros.h"

namespace neardup::index {
namespace {

using Truth = std::unordered_map<uint32_t, uint64_t>;

std::vector<HammingHit> BruteForce(const Truth& docs, uint64_t q, int k) {
  std::vector<HammingHit> out;
  for (const auto& [doc, fp] : docs) {
    const int d = Distance(fp, q);
    if (d <= k) out.push_back({doc, static_cast<uint32_t>(d)});
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.doc < b.doc; });
  return out;
}

std::vector<HammingHit> Sorted(std::vector<HammingHit> v) {
  std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.doc < b.doc; });
  return v;
}

uint64_t FlipBits(uint64_t fp, int bits, std::mt19937_64& rng) {
  for (int i = 0; i < bits; ++i) fp ^= 1ULL << (rng() % 64);
  return fp;
}

enum Mode { kRandom, kClustered, kSharedBlocks, kAllEqual, kModes };

struct Generator {
  Mode mode;
  std::mt19937_64 rng;
  std::vector<uint64_t> centres;
  Generator(Mode m, uint64_t seed) : mode(m), rng(seed), centres{rng(), rng(), rng()} {}
  uint64_t operator()() {
    switch (mode) {
      case kRandom:
        return rng();
      case kClustered:
        return FlipBits(centres[rng() % 3], rng() % 14, rng);
      case kSharedBlocks:
        return 0xABCDABCDABCD0000ULL ^ (rng() & 0xFFFF) ^ (rng() % 4 << 40);
      default:
        return 42;
    }
  }
};

// Drives an index and a brute-force model with the same random operations.
class Harness {
 public:
  Harness(const HammingIndexOptions& options, Mode mode, uint64_t seed)
      : max_k_(options.max_distance), gen_(mode, seed) {
    auto idx = HammingIndex::Create(options);
    NEARDUP_CHECK(idx.ok());
    idx_ = std::move(idx).value();
  }

  void Insert() {
    const uint32_t doc = NextSlot();
    const uint64_t fp = gen_();
    ASSERT_TRUE(idx_->Insert(doc, fp).ok());
    truth_[doc] = fp;
  }
  void InsertBatch(size_t n) {
    std::vector<uint32_t> docs;
    std::vector<uint64_t> fps;
    for (size_t i = 0; i < n; ++i) {
      docs.push_back(NextSlot());
      fps.push_back(gen_());
      truth_[docs.back()] = fps.back();
    }
    ASSERT_TRUE(idx_->InsertBatch(docs, fps).ok());
  }
  void Remove() {
    if (truth_.empty()) return;
    auto it = truth_.begin();
    std::advance(it, gen_.rng() % std::min<size_t>(truth_.size(), 64));
    ASSERT_TRUE(idx_->Remove(it->first).ok());
    free_.push_back(it->first);
    truth_.erase(it);
  }
  void Query() {
    uint64_t q = gen_();
    if (!truth_.empty() && gen_.rng() % 2) {
      auto it = truth_.begin();
      std::advance(it, gen_.rng() % std::min<size_t>(truth_.size(), 64));
      q = FlipBits(it->second, gen_.rng() % (max_k_ + 2), gen_.rng);
    }
    for (int k : {0, max_k_ / 2, max_k_ - 1, max_k_}) {
      if (k < 0) continue;
      std::vector<HammingHit> got;
      ASSERT_TRUE(idx_->Search(q, k, &got).ok());
      ASSERT_EQ(Sorted(got), BruteForce(truth_, q, k)) << "k=" << k << " max_k=" << max_k_;
    }
  }
  void Check() const {
    EXPECT_EQ(idx_->size(), truth_.size());
    for (const auto& [doc, fp] : truth_) ASSERT_EQ(idx_->Get(doc).value(), fp);
  }
  void RandomOps(int steps, bool batches) {
    for (int step = 0; step < steps && !testing::Test::HasFatalFailure(); ++step) {
      const int op = gen_.rng() % 100;
      if (op < 50)
        Insert();
      else if (op < 72)
        Remove();
      else if (op < 73)
        ASSERT_TRUE(idx_->Compact().ok());
      else if (op < 75 && batches)
        InsertBatch(gen_.rng() % 300);
      else
        Query();
    }
    Check();
  }
  HammingIndex& index() { return *idx_; }
  const Truth& truth() const { return truth_; }

 private:
  uint32_t NextSlot() {  // reuse freed slots half of the time, like the engine
    if (!free_.empty() && gen_.rng() % 2) {
      const uint32_t s = free_.back();
      free_.pop_back();
      return s;
    }
    return next_++;
  }

  int max_k_;
  Generator gen_;
  std::unique_ptr<HammingIndex> idx_;
  Truth truth_;
  std::vector<uint32_t> free_;
  uint32_t next_ = 0;
};

HammingIndexOptions Small(int max_k) {
  HammingIndexOptions o;
  o.max_distance = max_k;
  o.buffer_capacity = 16;  // many runs and merges in a short test
  o.background_merge = false;
  o.threads = 2;
  return o;
}

TEST(HammingIndexTest, ExactAgainstBruteForceEveryK) {
  for (int k = 0; k <= 12; ++k) {
    for (int mode = 0; mode < kModes; ++mode) {
      Harness h(Small(k), static_cast<Mode>(mode), 1000 * k + mode);
      h.RandomOps(base::kSanitized ? 500 : 1500, /*batches=*/true);
      ASSERT_FALSE(HasFatalFailure()) << "k=" << k << " mode=" << mode;
    }
  }
}

TEST(HammingIndexTest, ExactForEveryLayoutFamily) {
  const std::vector<HammingLayout> layouts = {
      {.blocks = 4, .groups = 1, .key_blocks = 1},  // pigeonhole
      {.blocks = 6, .groups = 2, .key_blocks = 2},  // grouped permuted tables
      {.blocks = 5, .groups = 1, .key_blocks = 2},  // Manku permuted tables
      {.blocks = 3, .groups = 3, .key_blocks = 1},  // multi-index hashing, radii
      {.blocks = 2, .groups = 2, .key_blocks = 1},  // two 32-bit tables, big radii
      {.blocks = 1, .groups = 1, .key_blocks = 1},  // one table keyed on everything
      {.linear = true},
  };
  for (const auto& layout : layouts) {
    for (int k : {0, 3, 7}) {
      for (int mode : {kRandom, kClustered, kSharedBlocks}) {
        HammingIndexOptions o = Small(k);
        o.layout = layout;
        Harness h(o, static_cast<Mode>(mode), 77 * k + mode + layout.blocks);
        h.RandomOps(800, /*batches=*/true);
        ASSERT_FALSE(HasFatalFailure()) << "blocks=" << layout.blocks << " k=" << k;
      }
    }
  }
}

TEST(HammingIndexTest, LargeBatchWithPlantedNeighbours) {
  // A bulk-built run big enough for 6-byte packed entries (d >= 16) and
  // second-level binary search inside buckets.
  for (int k : {3, 7}) {
    HammingIndexOptions o;
    o.max_distance = k;
    o.threads = 2;
    auto idx = HammingIndex::Create(o).value();
    std::mt19937_64 rng(k);
    std::vector<uint32_t> docs;
    std::vector<uint64_t> fps;
    Truth truth;
    for (uint32_t i = 0; i < 300000; ++i) {
      docs.push_back(i);
      fps.push_back(i % 10 == 0 && i > 0 ? FlipBits(fps[i - 1], rng() % (k + 1), rng) : rng());
      truth[i] = fps.back();
    }
    ASSERT_TRUE(idx->InsertBatch(docs, fps).ok());
    std::vector<uint64_t> queries;
    for (int i = 0; i < 300; ++i)
      queries.push_back(FlipBits(fps[rng() % fps.size()], rng() % (k + 2), rng));
    std::vector<HammingHit> hits;
    std::vector<uint32_t> offsets;
    ASSERT_TRUE(idx->SearchBatch(queries, k, &hits, &offsets).ok());
    ASSERT_EQ(offsets.size(), queries.size() + 1);
    for (size_t i = 0; i < queries.size(); ++i) {
      std::vector<HammingHit> got(hits.begin() + offsets[i], hits.begin() + offsets[i + 1]);
      ASSERT_EQ(Sorted(got), BruteForce(truth, queries[i], k));
    }
  }
}

TEST(HammingIndexTest, BackgroundMergesStayExact) {
  HammingIndexOptions o;
  o.max_distance = 4;
  o.buffer_capacity = 64;
  o.threads = 2;
  Harness h(o, kClustered, 5);
  h.RandomOps(6000, /*batches=*/true);
  ASSERT_TRUE(h.index().Compact().ok());
  EXPECT_LE(h.index().Stats().runs, 1u);
  for (int i = 0; i < 200; ++i) h.Query();
}

TEST(HammingIndexTest, Errors) {
  EXPECT_FALSE(HammingIndex::Create({.max_distance = -1}).ok());
  EXPECT_FALSE(HammingIndex::Create({.max_distance = 33}).ok());
  HammingIndexOptions bad;
  bad.layout = {.blocks = 4, .groups = 1, .key_blocks = 5};
  EXPECT_TRUE(HammingIndex::Create(bad).status().IsInvalidArgument());
  auto idx = HammingIndex::Create({.max_distance = 3});
  ASSERT_TRUE(idx.ok());
  EXPECT_TRUE((*idx)->Insert(1, 5).ok());
  EXPECT_TRUE((*idx)->Insert(1, 6).IsAlreadyExists());
  EXPECT_TRUE((*idx)->Insert(0xFFFFFFFFu, 6).IsInvalidArgument());
  const std::vector<uint32_t> dup_docs = {7, 7};
  const std::vector<uint64_t> dup_fps = {1, 2};
  EXPECT_TRUE((*idx)->InsertBatch(dup_docs, dup_fps).IsAlreadyExists());
  EXPECT_TRUE((*idx)->Get(7).status().IsNotFound());
  EXPECT_TRUE((*idx)->Remove(2).IsNotFound());
  std::vector<HammingHit> out;
  EXPECT_EQ((*idx)->Search(5, 4, &out).code(), StatusCode::kOutOfRange);
  EXPECT_EQ((*idx)->Search(5, -1, &out).code(), StatusCode::kOutOfRange);
  EXPECT_EQ((*idx)->Get(1).value(), 5u);
  ASSERT_TRUE((*idx)->Remove(1).ok());
  EXPECT_TRUE((*idx)->Get(1).status().IsNotFound());
  EXPECT_TRUE((*idx)->Insert(1, 7).ok());  // slot reuse
  EXPECT_EQ((*idx)->Get(1).value(), 7u);
  ASSERT_TRUE((*idx)->Search(5, 3, &out).ok());
  EXPECT_EQ(out, (std::vector<HammingHit>{{1, 1}}));
}

TEST(HammingIndexTest, ReinsertSameFingerprintIsReportedOnce) {
  // Remove and re-add the same (slot, fingerprint) in the buffer, in a run and
  // across a merge: stale entries must never resurface as duplicates.
  HammingIndexOptions o = Small(3);
  auto idx = HammingIndex::Create(o).value();
  for (uint32_t round = 0; round < 100; ++round) {
    ASSERT_TRUE(idx->Insert(0, 0x1234).ok());
    for (uint32_t j = 0; j < round % 20; ++j)
      ASSERT_TRUE(idx->Insert(1000 + j, 0xFFFF0000u + j).ok());
    std::vector<HammingHit> out;
    ASSERT_TRUE(idx->Search(0x1234, 0, &out).ok());
    ASSERT_EQ(out, (std::vector<HammingHit>{{0, 0}})) << round;
    ASSERT_TRUE(idx->Remove(0).ok());
    for (uint32_t j = 0; j < round % 20; ++j) ASSERT_TRUE(idx->Remove(1000 + j).ok());
  }
}

// Readers search while a writer streams inserts and deletes and the merger
// rebuilds runs. Documents that are never removed must always be found with
// their exact distance; no result may repeat or exceed k. Short by default;
// NEARDUP_STRESS_SECONDS=N runs N seconds (the `tsan` ctest label does, in a
// -DNEARDUP_TSAN=ON build; see docs/index.md).
TEST(HammingIndexTest, ConcurrentReadersDuringMerges) {
  const char* env = std::getenv("NEARDUP_STRESS_SECONDS");
  const double seconds = env != nullptr ? std::atof(env) : 0;
  HammingIndexOptions o;
  o.max_distance = 5;
  o.buffer_capacity = 32;
  o.threads = 2;
  o.max_runs = 8;
  auto idx = HammingIndex::Create(o).value();
  std::mt19937_64 rng(9);
  std::vector<uint64_t> stable(200);
  for (uint32_t i = 0; i < stable.size(); ++i) {
    stable[i] = rng();
    ASSERT_TRUE(idx->Insert(i, stable[i]).ok());
  }
  std::atomic<bool> done{false};
  std::atomic<size_t> searches{0};
  auto reader = [&](uint64_t seed) {
    std::mt19937_64 r(seed);
    std::vector<HammingHit> hits;
    std::vector<uint32_t> offsets;
    while (!done.load()) {
      const uint32_t target = r() % stable.size();
      const uint64_t q = FlipBits(stable[target], r() % 6, r);
      const int k = 5;
      if (r() % 4 == 0) {
        const std::vector<uint64_t> qs = {q, stable[target]};
        ASSERT_TRUE(idx->SearchBatch(qs, k, &hits, &offsets).ok());
        hits.resize(offsets[1]);
      } else {
        hits.clear();
        ASSERT_TRUE(idx->Search(q, k, &hits).ok());
      }
      std::unordered_set<uint32_t> seen;
      bool found = false;
      for (const auto& h : hits) {
        ASSERT_TRUE(seen.insert(h.doc).second) << "duplicate doc " << h.doc;
        ASSERT_LE(h.distance, 5u);
        if (h.doc == target) {
          found = true;
          ASSERT_EQ(h.distance, static_cast<uint32_t>(Distance(q, stable[target])));
        }
      }
      ASSERT_EQ(found, Distance(q, stable[target]) <= k);
      searches.fetch_add(1);
    }
  };
  std::thread r1(reader, 1), r2(reader, 2);
  std::vector<uint32_t> live;
  uint32_t next = 1000;
  const auto start = std::chrono::steady_clock::now();
  for (int step = 0;; ++step) {
    const auto elapsed = std::chrono::steady_clock::now() - start;
    if (seconds > 0 ? elapsed > std::chrono::duration<double>(seconds) : step >= 20000) break;
    if (live.empty() || rng() % 3 != 0) {
      // Near the stable fingerprints, so readers verify many candidates.
      ASSERT_TRUE(
          idx->Insert(next, FlipBits(stable[rng() % stable.size()], 2 + rng() % 4, rng)).ok());
      live.push_back(next++);
    } else {
      const size_t i = rng() % live.size();
      ASSERT_TRUE(idx->Remove(live[i]).ok());
      live[i] = live.back();
      live.pop_back();
    }
    if (step % 5000 == 4999) {
      ASSERT_TRUE(idx->Compact().ok());
    }
  }
  done.store(true);
  r1.join();
  r2.join();
  EXPECT_GT(searches.load(), 0u);
  EXPECT_EQ(idx->size(), stable.size() + live.size());
  EXPECT_GT(idx->Stats().merges, 0u);
}

}  // namespace
}  // namespace neardup::index
