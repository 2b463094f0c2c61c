// SPDX-License-Identifier: Apache-2.0
#include "distributed/shuffle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "distributed/in_process_comm.h"

namespace neardup::distributed {
namespace {

struct Rec {
  uint64_t value;
  uint32_t from;
};

// Rank r's records: a rank-dependent count (rank 1 has none), values spread.
std::vector<Rec> RecordsOf(int rank) {
  std::vector<Rec> v;
  std::mt19937_64 rng(rank + 1);
  const int count = rank == 1 ? 0 : 300 + 250 * rank;
  for (int i = 0; i < count; ++i) v.push_back({rng(), static_cast<uint32_t>(rank)});
  return v;
}

class ShuffleTest : public ::testing::TestWithParam<int> {};

// Every record reaches its owner exactly once, in rounds far smaller than
// the stream; the bytes sent away are those of records owned elsewhere.
TEST_P(ShuffleTest, RecordsReachTheirOwnersInBoundedRounds) {
  const int n = GetParam();
  std::vector<std::vector<uint64_t>> got(n);
  std::vector<uint64_t> sent(n, 0);
  std::vector<size_t> max_round(n, 0);
  std::vector<Status> status(n);
  RunInProcess(n, [&](Comm& c) {
    const std::vector<Rec> mine = RecordsOf(c.rank());
    size_t next = 0;
    status[c.rank()] = Shuffle<Rec>(
        c, /*round_bytes=*/64 * sizeof(Rec),
        [&](Rec* out) -> Result<bool> {
          if (next == mine.size()) return false;
          *out = mine[next++];
          return true;
        },
        [&](const Rec& r) { return static_cast<int>(r.value % n); },
        [&](std::span<const Rec> in) {
          max_round[c.rank()] = std::max(max_round[c.rank()], in.size());
          for (const Rec& r : in) got[c.rank()].push_back(r.value);
          return Status::OK();
        },
        &sent[c.rank()]);
  });
  uint64_t away = 0;
  std::vector<std::vector<uint64_t>> want(n);
  for (int r = 0; r < n; ++r) {
    for (const Rec& x : RecordsOf(r)) {
      want[x.value % n].push_back(x.value);
      away += static_cast<int>(x.value % n) != r ? sizeof(Rec) : 0;
    }
  }
  uint64_t sent_total = 0;
  for (int r = 0; r < n; ++r) {
    EXPECT_TRUE(status[r].ok()) << status[r].ToString();
    std::sort(got[r].begin(), got[r].end());
    std::sort(want[r].begin(), want[r].end());
    EXPECT_EQ(got[r], want[r]) << "rank " << r;
    EXPECT_LE(max_round[r], 64u) << "rank " << r;
    sent_total += sent[r];
  }
  EXPECT_EQ(sent_total, away);
}

// A rank whose stream fails stops sending but keeps taking part: no rank
// hangs, the failing rank returns its error, Agree spreads it.
TEST_P(ShuffleTest, AnErrorOnOneRankEndsTheShuffleEverywhere) {
  const int n = GetParam();
  std::vector<Status> local(n), agreed(n);
  RunInProcess(n, [&](Comm& c) {
    const std::vector<Rec> mine = RecordsOf(c.rank());
    size_t next = 0;
    uint64_t sent = 0;
    local[c.rank()] = Shuffle<Rec>(
        c, 16 * sizeof(Rec),
        [&](Rec* out) -> Result<bool> {
          if (c.rank() == 0 && next == 40) return Status::IOError("disk gone");
          if (next == mine.size()) return false;
          *out = mine[next++];
          return true;
        },
        [&](const Rec& r) { return static_cast<int>(r.value % n); },
        [&](std::span<const Rec>) { return Status::OK(); }, &sent);
    agreed[c.rank()] = Agree(c, local[c.rank()], 0);
  });
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(local[r].ok(), r != 0) << r;
    EXPECT_EQ(agreed[r].message(), "disk gone") << r;
  }
}

uint64_t PairKey(const batch::Pair& p) { return p; }

// Sorted runs (in memory and spilled) to owners, collected into sorted
// runs spilled past a small buffer: each owner's merge is its share of the
// union, in order.
TEST_P(ShuffleTest, RunsArriveAsSortedRunsOfTheOwnersShare) {
  const int n = GetParam();
  auto tmp = batch::TempDir::Create("");
  ASSERT_TRUE(tmp.ok());
  std::vector<std::vector<batch::Pair>> got(n);
  std::vector<Status> status(n);
  std::vector<uint64_t> spilled(n);
  auto owner = [n](const batch::Pair& p) { return static_cast<int>(batch::PairB(p) % n); };
  auto pairs_of = [](int rank) {
    std::mt19937 rng(rank + 7);
    std::vector<batch::Pair> v;
    for (int i = 0; i < 10000; ++i) {
      const uint32_t a = rng() % 5000, b = a + 1 + rng() % 100;
      v.push_back(batch::MakePair(a, b, rng() % 5 == 0));
    }
    return v;
  };
  RunInProcess(n, [&](Comm& c) {
    const std::string prefix = "r" + std::to_string(c.rank());
    batch::PairRuns from((*tmp).get(), prefix + "from"), to((*tmp).get(), prefix + "to");
    std::vector<batch::Pair> mine = pairs_of(c.rank());
    // Three runs, the first spilled.
    for (int part = 0; part < 3; ++part) {
      batch::SpillBuffer<batch::Pair> buf(mine.size());
      ASSERT_TRUE(buf.Room(mine.size()));
      for (size_t i = part; i < mine.size(); i += 3) buf.push_back(mine[i]);
      std::sort(buf.begin(), buf.end());
      Status s = from.AddRun(&buf, part == 0);
      if (!s.ok()) status[c.rank()] = s;
    }
    uint64_t sent = 0;
    Status s = ShuffleRuns<batch::Pair, std::less<batch::Pair>, batch::Pair>(
        c, &from, &to, {.round_bytes = 4096, .buffer_bytes = 8192},
        [](const batch::Pair& p, batch::Pair* out) { *out = p; }, owner,
        [](const batch::Pair& p) { return p; }, PairKey, &sent);
    if (!s.ok()) status[c.rank()] = s;
    spilled[c.rank()] = to.spilled_runs();
    auto merger = to.Merge(1 << 16);
    if (!merger.ok()) {
      status[c.rank()] = merger.status();
      return;
    }
    batch::Pair p;
    while (true) {
      auto more = (*merger)->Next(&p);
      if (!more.ok() || !*more) break;
      got[c.rank()].push_back(p);
    }
  });
  std::vector<batch::Pair> all;
  for (int r = 0; r < n; ++r) {
    const auto v = pairs_of(r);
    all.insert(all.end(), v.begin(), v.end());
  }
  std::sort(all.begin(), all.end());
  for (int r = 0; r < n; ++r) {
    EXPECT_TRUE(status[r].ok()) << status[r].ToString();
    std::vector<batch::Pair> want;
    for (batch::Pair p : all) {
      if (owner(p) == r) want.push_back(p);
    }
    EXPECT_EQ(got[r], want) << "rank " << r;
    EXPECT_GT(spilled[r], 0u) << "rank " << r;  // 4096 records at most in memory
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, ShuffleTest, ::testing::Values(1, 2, 3, 4));

}  // namespace
}  // namespace neardup::distributed
