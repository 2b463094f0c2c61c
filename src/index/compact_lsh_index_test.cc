// SPDX-License-Identifier: Apache-2.0
#include "index/compact_lsh_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

namespace neardup::index {
namespace {

using Hit = CompactLshIndex::Hit;

uint32_t Fold(uint64_t k) { return static_cast<uint32_t>(k ^ (k >> 32)); }

// Brute force: every stored slot sharing a folded band key, most bands first.
std::vector<Hit> Oracle(const std::map<uint32_t, std::vector<uint64_t>>& docs,
                        const std::vector<uint64_t>& q) {
  std::vector<Hit> hits;
  for (const auto& [slot, keys] : docs) {
    uint32_t equal = 0;
    for (size_t b = 0; b < q.size(); ++b) equal += Fold(keys[b]) == Fold(q[b]);
    if (equal > 0) hits.push_back({slot, equal});
  }
  std::sort(hits.begin(), hits.end(), [](const Hit& x, const Hit& y) {
    return x.bands != y.bands ? x.bands > y.bands : x.slot < y.slot;
  });
  return hits;
}

void ExpectSame(const std::vector<Hit>& got, const std::vector<Hit>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].slot, want[i].slot) << i;
    EXPECT_EQ(got[i].bands, want[i].bands) << i;
  }
}

// Keys from a small universe (shared buckets), some differing only where
// the 32-bit fold hides it, some full 64-bit.
std::vector<uint64_t> RandomKeys(std::mt19937_64& rng, int bands) {
  std::vector<uint64_t> k(static_cast<size_t>(bands));
  for (auto& v : k) {
    const uint64_t small = rng() % 40;
    switch (rng() % 3) {
      case 0:
        v = small;
        break;
      case 1:
        v = small ^ 0x0000000100000001ULL;
        break;  // folds like small ^ 0
      default:
        v = rng();
    }
  }
  return k;
}

TEST(CompactLshIndexTest, InsertQueryRemove) {
  CompactLshIndex index(4, {.buffer_capacity = 2});
  ASSERT_TRUE(index.Insert(1, {{10, 20, 30, 40}}).ok());
  ASSERT_TRUE(index.Insert(2, {{10, 21, 31, 40}}).ok());
  ASSERT_TRUE(index.Insert(3, {{11, 22, 32, 42}}).ok());  // 1 and 2 become a run
  EXPECT_TRUE(index.Insert(1, {{1, 2, 3, 4}}).IsAlreadyExists());
  EXPECT_TRUE(index.Insert(4, {{1, 2, 3}}).IsInvalidArgument());
  EXPECT_TRUE(index.Insert(0xFFFFFFFFu, {{1, 2, 3, 4}}).IsInvalidArgument());
  std::vector<Hit> hits;
  ASSERT_TRUE(index.Query({{10, 20, 99, 40}}, &hits).ok());
  ExpectSame(hits, {{1, 3}, {2, 2}});
  ASSERT_TRUE(index.Remove(1).ok());
  EXPECT_TRUE(index.Remove(1).IsNotFound());
  EXPECT_TRUE(index.Remove(77).IsNotFound());
  hits.clear();
  ASSERT_TRUE(index.Query({{10, 20, 99, 40}}, &hits).ok());
  ExpectSame(hits, {{2, 2}});
  EXPECT_EQ(index.size(), 2u);
  ASSERT_TRUE(index.Insert(1, {{11, 0, 0, 0}}).ok());  // the slot comes back, new keys
  hits.clear();
  ASSERT_TRUE(index.Query({{11, 20, 99, 40}}, &hits).ok());
  ExpectSame(hits, {{1, 1}, {2, 1}, {3, 1}});
  EXPECT_TRUE(index.Query({{1}}, &hits).IsInvalidArgument());
}

// Random inserts, removes, re-inserts and queries against the brute-force
// oracle and against LshIndex, through flushes, merges and compactions.
// Queries keep memos, and each query asks an earlier one again
// (QueryAgain), checked against the oracle now.
void RunRandom(int bands, CompactLshOptions opt, int ops, uint64_t seed) {
  std::mt19937_64 rng(seed);
  CompactLshIndex index(bands, opt);
  LshIndex reference(bands);
  std::map<uint32_t, std::vector<uint64_t>> docs;
  std::vector<Hit> got, ref;
  std::vector<std::pair<std::vector<uint64_t>, CompactLshIndex::Memo>> asked;  // the last 8
  int from_memo = 0, whole = 0;
  for (int op = 0; op < ops; ++op) {
    const uint64_t r = rng() % 10;
    const auto slot = static_cast<uint32_t>(rng() % 600);
    if (r < 5) {
      auto keys = RandomKeys(rng, bands);
      const Status s = index.Insert(slot, keys);
      ASSERT_EQ(s.IsAlreadyExists(), docs.count(slot) == 1) << op;
      ASSERT_TRUE(s.ok() || s.IsAlreadyExists());
      ASSERT_EQ(reference.Insert(slot, keys).ok(), s.ok());
      if (s.ok()) docs[slot] = std::move(keys);
    } else if (r < 8) {
      const Status s = index.Remove(slot);
      ASSERT_EQ(s.ok(), docs.erase(slot) == 1) << op;
      ASSERT_EQ(reference.Remove(slot).ok(), s.ok());
    } else if (r == 8 && op % 50 == 0) {
      index.Compact();
    } else {
      // Half the queries are a stored document's keys with some bands changed.
      std::vector<uint64_t> q = RandomKeys(rng, bands);
      if (!docs.empty() && rng() % 2) {
        auto it = docs.lower_bound(slot);
        if (it == docs.end()) it = docs.begin();
        for (size_t b = 0; b < q.size(); ++b)
          if (rng() % 3) q[b] = it->second[b];
      }
      got.clear();
      ref.clear();
      CompactLshIndex::Memo memo;
      ASSERT_TRUE(index.Query(q, &got, &memo).ok());
      ASSERT_TRUE(reference.Query(q, &ref).ok());
      ASSERT_NO_FATAL_FAILURE(ExpectSame(got, Oracle(docs, q))) << "op " << op;
      ASSERT_NO_FATAL_FAILURE(ExpectSame(got, ref)) << "op " << op;
      if (!asked.empty()) {
        const auto& [old_q, old_memo] = asked[rng() % asked.size()];
        (old_memo.generation == index.Stats().merges + 1 ? from_memo : whole)++;
        got.clear();
        ASSERT_TRUE(index.QueryAgain(old_q, old_memo, &got).ok());
        ASSERT_NO_FATAL_FAILURE(ExpectSame(got, Oracle(docs, old_q))) << "again, op " << op;
      }
      if (asked.size() == 8) asked.erase(asked.begin());
      asked.emplace_back(q, std::move(memo));
    }
    ASSERT_EQ(index.size(), docs.size());
  }
  EXPECT_GT(index.Stats().merges, 0u);
  EXPECT_GT(from_memo, 0);
  EXPECT_GT(whole, 0);
}

TEST(CompactLshIndexTest, MatchesOracleTinyBuffer) {
  RunRandom(5, {.buffer_capacity = 3}, 20000, 1);
}

TEST(CompactLshIndexTest, MatchesOracleFewRuns) {
  RunRandom(8, {.buffer_capacity = 16, .max_runs = 2}, 20000, 2);
}

TEST(CompactLshIndexTest, MatchesOracleOneBand) { RunRandom(1, {.buffer_capacity = 64}, 20000, 3); }

// Every flush and merge built on several threads.
TEST(CompactLshIndexTest, MatchesOracleParallelBuilds) {
  RunRandom(9, {.buffer_capacity = 8, .max_runs = 3, .parallel_build_documents = 1}, 20000, 4);
}

TEST(CompactLshIndexTest, LargeSlotsAndCompaction) {
  // Slots near 2^32 use 32 slot bits; removing most documents compacts runs.
  CompactLshIndex index(3, {.buffer_capacity = 4});
  std::map<uint32_t, std::vector<uint64_t>> docs;
  std::mt19937_64 rng(4);
  for (uint32_t i = 0; i < 200; ++i) {
    const uint32_t slot = i % 2 ? 0xFFFFFFF0u - i : i * 1000;
    std::vector<uint64_t> keys = RandomKeys(rng, 3);
    ASSERT_TRUE(index.Insert(slot, keys).ok());
    docs[slot] = keys;
  }
  for (auto it = docs.begin(); it != docs.end();) {
    if (rng() % 4) {
      ASSERT_TRUE(index.Remove(it->first).ok());
      it = docs.erase(it);
    } else {
      ++it;
    }
  }
  for (int i = 0; i < 50; ++i) {
    const std::vector<uint64_t> q = RandomKeys(rng, 3);
    std::vector<Hit> got;
    ASSERT_TRUE(index.Query(q, &got).ok());
    ASSERT_NO_FATAL_FAILURE(ExpectSame(got, Oracle(docs, q)));
  }
  index.Compact();
  EXPECT_EQ(index.Stats().runs, 1u);
  EXPECT_EQ(index.Stats().buffered, 0u);
  EXPECT_EQ(index.size(), docs.size());
}

TEST(CompactLshIndexTest, BulkLoadMatchesOracleAndThenInsertsAndRemoves) {
  CompactLshIndex index(4, {.buffer_capacity = 16});
  std::map<uint32_t, std::vector<uint64_t>> docs;
  std::mt19937_64 rng(8);
  auto add = [&](uint32_t slot) {
    std::vector<uint64_t> keys = RandomKeys(rng, 4);
    ASSERT_TRUE(index.Insert(slot, keys).ok());
    docs[slot] = keys;
  };
  auto check = [&] {
    for (int i = 0; i < 40; ++i) {
      const std::vector<uint64_t> q = RandomKeys(rng, 4);
      std::vector<Hit> got;
      ASSERT_TRUE(index.Query(q, &got).ok());
      ASSERT_NO_FATAL_FAILURE(ExpectSame(got, Oracle(docs, q)));
    }
  };
  for (uint32_t i = 0; i < 30; ++i) add(i);  // runs and a mutable tier before
  index.BeginBulk();
  for (uint32_t i = 30; i < 3000; ++i) add(i);
  EXPECT_EQ(index.Insert(100, RandomKeys(rng, 4)).code(), StatusCode::kAlreadyExists);
  index.EndBulk();
  EXPECT_EQ(index.size(), docs.size());
  ASSERT_NO_FATAL_FAILURE(check());
  const size_t merges = index.Stats().merges;
  for (uint32_t i = 3000; i < 3100; ++i) add(i);
  for (uint32_t i = 0; i < 3100; i += 3) {
    ASSERT_TRUE(index.Remove(i).ok());
    docs.erase(i);
  }
  ASSERT_NO_FATAL_FAILURE(check());
  // A remove in the middle of a bulk load ends it first.
  index.BeginBulk();
  for (uint32_t i = 5000; i < 5100; ++i) add(i);
  ASSERT_TRUE(index.Remove(5050).ok());
  docs.erase(5050);
  ASSERT_NO_FATAL_FAILURE(check());
  EXPECT_GT(index.Stats().merges, merges);
}

TEST(CompactLshIndexTest, BulkLoadBuildsOneRun) {
  CompactLshIndex index(2, {.buffer_capacity = 8});
  std::mt19937_64 rng(9);
  index.BeginBulk();
  for (uint32_t i = 0; i < 1000; ++i) ASSERT_TRUE(index.Insert(i, RandomKeys(rng, 2)).ok());
  index.EndBulk();
  EXPECT_EQ(index.Stats().runs, 1u);  // not 1000 / 8 flushes and their merges
  EXPECT_EQ(index.Stats().merges, 1u);
}

TEST(CompactLshIndexTest, BulkLoadGivesBackItsStagingMemory) {
  // A restore stages every document's band keys (4 bytes a band); once the
  // run is built, only the run's ~5 bytes a band remain. Keeping the staging
  // capacity cost 120 bytes a document at 30 bands after a restart.
  constexpr int kBands = 30;
  constexpr uint32_t kDocs = 100000;
  CompactLshIndex index(kBands, {});
  std::mt19937_64 rng(10);
  index.BeginBulk();
  for (uint32_t i = 0; i < kDocs; ++i) ASSERT_TRUE(index.Insert(i, RandomKeys(rng, kBands)).ok());
  index.EndBulk();
  EXPECT_LT(index.MemoryBytes(), size_t{kDocs} * kBands * 6 + (size_t{4} << 20));
}

}  // namespace
}  // namespace neardup::index
