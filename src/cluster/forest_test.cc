// SPDX-License-Identifier: Apache-2.0
#include "cluster/forest.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace neardup::cluster {
namespace {

// Fingerprints by slot, as the engine keeps them: slot s has s, so that
// between equal clusters the smaller root wins unless a test sets its own.
std::vector<uint64_t> Fingerprints(std::vector<std::pair<Slot, uint64_t>> set = {}) {
  std::vector<uint64_t> fps(1024);
  for (size_t s = 0; s < fps.size(); ++s) fps[s] = s;
  for (const auto& [slot, fp] : set) fps[slot] = fp;
  return fps;
}
const std::vector<uint64_t> kFingerprints = Fingerprints();

std::vector<Slot> Members(const Forest& f, Slot root) {
  std::vector<Slot> m;
  f.Members(root, &m);
  return m;
}

// Names that sort as their slots: "r00000007" < "r00000012".
struct SlotNames : RootNames {
  std::string_view Name(Slot root) const override {
    while (names.size() <= root) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "r%08u", static_cast<unsigned>(names.size()));
      names.emplace_back(buf);
    }
    return names[root];
  }
  mutable std::deque<std::string> names;  // stable addresses as it grows
};

// After a restore's ShrinkToFit the first adds use its headroom: nothing is
// copied (growing the node array to 3/2 of its size on the first add after a
// restart used to copy every node: 0.2-0.8 s at 10M documents).
TEST(ForestTest, FirstAddsAfterShrinkToFitCopyNothing) {
  Forest f;
  constexpr Slot kN = 100000;
  for (Slot s = 0; s < kN; ++s) f.AddRoot(s, 1);
  f.ShrinkToFit();
  const size_t bytes = f.MemoryBytes();
  for (Slot s = kN; s < kN + kN / 16; ++s) f.AddRoot(s, 2);
  EXPECT_EQ(f.MemoryBytes(), bytes);
}

// A restore pauses the orders and ShrinkToFit builds them, the time order
// on a second thread for a forest this large: the same orders as kept live.
TEST(ForestTest, OrdersAndExpiryBuiltAfterAPauseEqualThoseKeptLive) {
  struct Names : RootNames {
    std::string_view Name(Slot root) const override { return names[root]; }
    std::vector<std::string> names;
  } names;
  constexpr Slot kN = 90000;  // 70k clusters: past the threshold for the thread
  for (Slot s = 0; s < kN; ++s) names.names.push_back("r" + std::to_string(s));  // ids are unique
  auto fill = [](Forest* f) {
    std::mt19937 rng(3);
    std::vector<Slot> roots;
    for (Slot s = 0; s < kN; ++s) {
      const int64_t time = static_cast<int64_t>(rng() % 1000);  // ties broken by name
      if (s % 9 < 2 && !roots.empty()) {
        f->AddMember(s, roots[rng() % roots.size()], time);
      } else {
        f->AddRoot(s, time);
        roots.push_back(s);
      }
    }
    // What a restore does next: raise stored times, turn removed roots to
    // ghosts (and drop some members).
    for (Slot s = 0; s < kN; s += 13) f->Touch(s, 1000 + s % 50);
    for (Slot s = 5; s < kN; s += 31) {
      std::vector<Slot> released;
      if (f->IsLive(s)) f->Remove(s, &released);
    }
  };
  // Every expired root, cutoff after cutoff, removing each tree as expiry
  // does, so that later pops meet the heap a removal left.
  auto expire = [](Forest* f) {
    std::vector<Slot> out;
    for (int64_t cutoff : {100, 400, 1010, 1100}) {
      std::vector<Slot> roots;
      f->ExpiredRoots(cutoff, 500, &roots);
      for (Slot r : roots) {
        out.push_back(r);
        std::vector<Slot> members, released;
        f->Members(r, &members);
        for (Slot m : members) f->Remove(m, &released);
      }
    }
    return out;
  };
  auto scan = [](const RootOrder* order) {
    std::vector<std::pair<int64_t, Slot>> out;
    order->Scan(false, std::nullopt, [&](int64_t key, Slot root) {
      out.emplace_back(key, root);
      return true;
    });
    return out;
  };
  Forest live, paused;
  live.OrderBy(&names);
  paused.OrderBy(&names);
  paused.PauseOrders();
  fill(&live);
  fill(&paused);
  EXPECT_EQ(paused.by_size(), nullptr);
  paused.ShrinkToFit();
  ASSERT_NE(paused.by_size(), nullptr);
  ASSERT_GT(live.clusters(), size_t{1} << 16);
  const auto by_size = scan(live.by_size()), by_time = scan(live.by_time());
  EXPECT_EQ(by_size.size(), live.clusters());
  EXPECT_EQ(scan(paused.by_size()), by_size);
  EXPECT_EQ(scan(paused.by_time()), by_time);
  const std::vector<Slot> expired = expire(&live);
  EXPECT_GT(expired.size(), 1000u);
  EXPECT_EQ(expire(&paused), expired);
  // ExpiredRoots before ShrinkToFit builds the paused orders itself.
  Forest early;
  early.OrderBy(&names);
  early.PauseOrders();
  fill(&early);
  Forest kept;
  kept.OrderBy(&names);
  fill(&kept);
  EXPECT_EQ(expire(&early), expire(&kept));
}

TEST(ForestTest, NoNeighboursStartsACluster) {
  Forest f;
  EXPECT_EQ(f.ChooseCluster({}, kFingerprints), kNoSlot);
  f.AddRoot(0, 1);
  EXPECT_EQ(f.RootOf(0), 0u);
  EXPECT_EQ(f.Size(0), 1u);
}

TEST(ForestTest, NearOneClusterJoinsIt) {
  Forest f;
  f.AddRoot(0, 1);
  f.AddMember(1, 0, 2);
  std::vector<Slot> near = {1};  // near a member, not the root: still joins the root's cluster
  EXPECT_EQ(f.ChooseCluster(near, kFingerprints), 0u);
  f.AddMember(2, f.ChooseCluster(near, kFingerprints), 3);
  EXPECT_EQ(f.RootOf(2), 0u);  // height stays <= 2
  EXPECT_EQ(f.Size(0), 3u);
  EXPECT_EQ(Members(f, 0), (std::vector<Slot>{0, 1, 2}));
}

TEST(ForestTest, TieBreakMostMembers) {
  Forest f;
  f.AddRoot(0, 1);  // created first, small
  f.AddRoot(1, 2);  // created later, bigger
  f.AddMember(2, 1, 3);
  std::vector<Slot> near = {0, 2};
  EXPECT_EQ(f.ChooseCluster(near, kFingerprints), 1u);
}

TEST(ForestTest, TieBreakEarliestCreated) {
  Forest f;
  f.AddRoot(0, 1);  // created earlier, larger fingerprint
  f.AddRoot(1, 2);
  std::vector<Slot> near = {1, 0};
  EXPECT_EQ(f.ChooseCluster(near, Fingerprints({{0, 9}, {1, 1}})), 0u);
}

TEST(ForestTest, TieBreakSmallestRootFingerprint) {
  Forest f;
  f.AddRoot(10, 7);  // same size, same creation time
  f.AddRoot(11, 7);
  std::vector<Slot> near = {10, 11};
  EXPECT_EQ(f.ChooseCluster(near, Fingerprints({{10, 0x20}, {11, 0x10}})), 11u);
  EXPECT_EQ(f.ChooseCluster(near, Fingerprints({{10, 0x10}, {11, 0x20}})), 10u);
  EXPECT_EQ(f.CreatedTime(10), f.CreatedTime(11));
}

TEST(ForestTest, TieBreakIsATotalOrder) {
  Forest f;
  f.AddRoot(4, 7);  // identical size, time and fingerprint: first created wins
  f.AddRoot(3, 7);
  const auto same = Fingerprints({{3, 0x10}, {4, 0x10}});
  std::vector<Slot> a = {4, 3}, b = {3, 4};
  EXPECT_EQ(f.ChooseCluster(a, same), 4u);
  EXPECT_EQ(f.ChooseCluster(b, same), 4u);
}

TEST(ForestTest, ClusterIdsNeverChangeAndTreesNeverMerge) {
  Forest f;
  f.AddRoot(0, 1);
  f.AddRoot(1, 1);
  // A document near both clusters joins one; the other keeps its members.
  std::vector<Slot> near = {0, 1};
  const Slot chosen = f.ChooseCluster(near, kFingerprints);
  f.AddMember(2, chosen, 2);
  EXPECT_EQ(f.clusters(), 2u);
  EXPECT_EQ(f.RootOf(0), 0u);
  EXPECT_EQ(f.RootOf(1), 1u);
}

// A cluster of one adopted into another: its own cluster is gone (from the
// count, both orders and the expiry queue), it is the other's newest member,
// and the other's root time rises to its time.
TEST(ForestTest, AdoptMovesALoneRootUnderAnother) {
  struct Names : RootNames {
    std::string_view Name(Slot root) const override { return names[root]; }
    std::vector<std::string> names = {"r0", "r1", "r2", "r3"};
  } names;
  Forest f;
  f.OrderBy(&names);
  f.AddRoot(0, 10);
  f.AddMember(1, 0, 11);
  f.AddRoot(2, 30);  // alone, newer than the cluster it joins
  f.AddRoot(3, 5);
  f.Adopt(2, 0);
  EXPECT_EQ(f.RootOf(2), 0u);
  EXPECT_EQ(f.Size(0), 3u);
  EXPECT_EQ(f.Size(2), 0u);
  EXPECT_EQ(f.clusters(), 2u);
  EXPECT_EQ(f.live(), 4u);
  EXPECT_EQ(Members(f, 0), (std::vector<Slot>{0, 1, 2}));
  EXPECT_EQ(f.TimeOf(0), 30);
  EXPECT_EQ(f.TimeOf(2), 30);
  std::vector<Slot> roots;
  f.Roots(&roots);
  std::sort(roots.begin(), roots.end());
  EXPECT_EQ(roots, (std::vector<Slot>{0, 3}));
  EXPECT_EQ(f.by_size()->size(), 2u);
  EXPECT_EQ(f.by_time()->size(), 2u);
  std::vector<std::pair<int64_t, Slot>> by_size;
  f.by_size()->Scan(true, std::nullopt, [&](int64_t size, Slot root) {
    by_size.emplace_back(size, root);
    return true;
  });
  EXPECT_EQ(by_size, (std::vector<std::pair<int64_t, Slot>>{{3, 0}, {1, 3}}));
  std::vector<Slot> expired;
  f.ExpiredRoots(100, 10, &expired);
  EXPECT_EQ(expired, (std::vector<Slot>{3, 0}));  // 2's own entry is stale
  // Removing the adopted member frees its slot, which may start a cluster.
  std::vector<Slot> released;
  f.Remove(2, &released);
  EXPECT_EQ(released, std::vector<Slot>{2});
  EXPECT_EQ(f.Size(0), 2u);
  f.AddRoot(2, 40);
  EXPECT_EQ(f.clusters(), 3u);
  EXPECT_EQ(f.Size(2), 1u);
}

TEST(ForestTest, RemovingRootLeavesGhostUntilLastMember) {
  Forest f;
  f.AddRoot(0, 1);
  f.AddMember(1, 0, 2);
  f.AddMember(2, 0, 3);
  std::vector<Slot> released;
  f.Remove(0, &released);
  EXPECT_TRUE(released.empty());
  EXPECT_EQ(f.state(0), Forest::State::kGhost);
  EXPECT_EQ(f.Size(0), 2u);
  EXPECT_EQ(f.RootOf(1), 0u);
  EXPECT_EQ(Members(f, 0), (std::vector<Slot>{1, 2}));
  f.Remove(1, &released);
  EXPECT_EQ(released, (std::vector<Slot>{1}));
  f.Remove(2, &released);
  EXPECT_EQ(released, (std::vector<Slot>{1, 2, 0}));
  EXPECT_EQ(f.clusters(), 0u);
  EXPECT_EQ(f.state(0), Forest::State::kFree);
}

TEST(ForestTest, TouchRefreshesRootSoRootNeverExpiresFirst) {
  SlotNames names;
  Forest f;
  f.OrderBy(&names);
  f.AddRoot(0, 100);
  f.AddMember(1, 0, 150);
  f.AddRoot(5, 120);
  EXPECT_EQ(f.TimeOf(0), 150);  // joining refreshed the root
  f.Touch(1, 400);
  EXPECT_EQ(f.TimeOf(0), 400);
  std::vector<Slot> roots;
  f.ExpiredRoots(300, 10, &roots);
  EXPECT_EQ(roots, (std::vector<Slot>{5}));
  roots.clear();
  f.ExpiredRoots(1000, 10, &roots);
  EXPECT_EQ(roots, (std::vector<Slot>{5, 0}));  // oldest first
  roots.clear();
  f.ExpiredRoots(1000, 1, &roots);  // bounded work
  EXPECT_EQ(roots.size(), 1u);
}

}  // namespace
}  // namespace neardup::cluster

namespace neardup::cluster {
namespace {

TEST(ForestTest, TouchingARootMovesItsExpiry) {
  SlotNames names;
  Forest f;
  f.OrderBy(&names);
  f.AddRoot(0, 100);
  f.Touch(0, 500);  // a lookup of the root itself
  std::vector<Slot> roots;
  f.ExpiredRoots(300, 10, &roots);
  EXPECT_TRUE(roots.empty());
  f.ExpiredRoots(600, 10, &roots);
  EXPECT_EQ(roots, (std::vector<Slot>{0}));
}

TEST(ForestTest, ExpiredRootsStayQueuedUntilRemoved) {
  SlotNames names;
  Forest f;
  f.OrderBy(&names);
  f.AddRoot(0, 10);
  f.AddRoot(1, 20);
  std::vector<Slot> roots, released;
  f.ExpiredRoots(100, 10, &roots);
  ASSERT_EQ(roots, (std::vector<Slot>{0, 1}));
  f.Remove(0, &released);  // the caller removed only the first tree
  roots.clear();
  f.ExpiredRoots(100, 10, &roots);
  EXPECT_EQ(roots, (std::vector<Slot>{1}));
  // Slot 0 is reused by a new cluster with the old time: the stale entry
  // must not be reported twice.
  f.AddRoot(0, 10);
  roots.clear();
  f.ExpiredRoots(100, 10, &roots);
  EXPECT_EQ(roots, (std::vector<Slot>{0, 1}));
}

// Random operations against a naive model that scans all clusters (the
// names sort as the slots do, so ties fall as the model's).
TEST(ForestTest, ExpiryMatchesNaiveModel) {
  Forest f;
  SlotNames names;
  f.OrderBy(&names);
  std::mt19937 rng(5);
  std::map<Slot, Slot> root_of;     // live docs
  std::map<Slot, int64_t> time_of;  // live docs and ghost roots
  std::set<Slot> ghosts;
  std::vector<Slot> free_slots;
  Slot next = 0;
  int64_t now = 0;
  auto alloc = [&] {
    if (free_slots.empty()) return next++;
    Slot s = free_slots.back();
    free_slots.pop_back();
    return s;
  };
  for (int step = 0; step < 8000; ++step) {
    if (step % 1000 == 999) f.ShrinkToFit();
    now += rng() % 5;
    // A restore's hint, for any slot at any stage (free, a member, a ghost
    // root, past the end): it changes nothing the model sees.
    f.Prefetch(static_cast<Slot>(rng() % (next + 2)), static_cast<int>(rng() % 3));
    const int op = rng() % 10;
    if (op < 3 || root_of.empty()) {
      Slot s = alloc();
      f.AddRoot(s, now);
      root_of[s] = s;
      time_of[s] = now;
    } else if (op < 6) {
      auto it = std::next(root_of.begin(), rng() % root_of.size());
      Slot s = alloc(), r = it->second;
      f.AddMember(s, r, now);
      root_of[s] = r;
      time_of[s] = now;
      time_of[r] = std::max(time_of[r], now);
    } else if (op < 8) {
      auto it = std::next(root_of.begin(), rng() % root_of.size());
      const Slot s = it->first, r = it->second;
      std::vector<Slot> released;
      f.Remove(s, &released);
      root_of.erase(it);
      bool any = false;
      for (const auto& [d, rr] : root_of) any |= rr == r;
      if (s == r && any) ghosts.insert(s);
      if (s != r) time_of.erase(s);
      if (!any) {
        ghosts.erase(r);
        time_of.erase(r);
      }
      for (Slot x : released) free_slots.push_back(x);
    } else if (op < 9) {
      auto it = std::next(root_of.begin(), rng() % root_of.size());
      f.Touch(it->first, now);
      time_of[it->first] = std::max(time_of[it->first], now);
      time_of[it->second] = std::max(time_of[it->second], now);
    } else {
      const int64_t cutoff = now - static_cast<int64_t>(rng() % 200);
      std::vector<std::pair<int64_t, Slot>> want;
      std::set<Slot> roots;
      for (const auto& [d, r] : root_of) roots.insert(r);
      for (Slot r : roots)
        if (time_of[r] < cutoff) want.push_back({time_of[r], r});
      std::sort(want.begin(), want.end());
      std::vector<Slot> got;
      f.ExpiredRoots(cutoff, SIZE_MAX, &got);
      ASSERT_EQ(got.size(), want.size()) << "step " << step;
      for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i].second) << "step " << step;
    }
    if (!root_of.empty()) {  // a cluster's size and members, records or none
      const Slot r = std::next(root_of.begin(), rng() % root_of.size())->second;
      std::vector<Slot> want;
      for (const auto& [d, rr] : root_of)
        if (rr == r) want.push_back(d);
      std::vector<Slot> got = Members(f, r);
      std::sort(got.begin(), got.end());
      ASSERT_EQ(got, want) << "step " << step;
      ASSERT_EQ(f.Size(r), want.size()) << "step " << step;
    }
  }
}

// A cluster of one keeps no 32-byte record until a second member comes or
// its root's time moves, and with the orders there is no expiry queue
// beside the time order: a forest of lone stories takes its nodes and the
// two orders. Becoming a record keeps what the tie-break reads: the time
// the cluster was created and its creation order.
TEST(ForestTest, AClusterOfOneKeepsNoRecord) {
  SlotNames names;
  Forest f;
  f.OrderBy(&names);
  constexpr Slot kN = 100000;
  for (Slot s = 0; s < kN; ++s) f.AddRoot(s, s);
  f.ShrinkToFit();
  // 24 bytes a node and about 12 an entry of each order, an eighth of
  // headroom; with a record (32) and a queue entry (16) each it was ~100.
  EXPECT_LT(f.MemoryBytes(), kN * 64);
  EXPECT_EQ(f.Size(7), 1u);
  EXPECT_EQ(f.CreatedTime(7), 7);
  EXPECT_EQ(Members(f, 7), (std::vector<Slot>{7}));

  // Created earlier, touched later: still the earlier created.
  Forest g;
  g.AddRoot(0, 5);
  g.AddRoot(1, 3);
  g.Touch(1, 100);
  EXPECT_EQ(g.CreatedTime(1), 3);
  EXPECT_EQ(g.TimeOf(1), 100);
  std::vector<Slot> near = {0, 1};
  EXPECT_EQ(g.ChooseCluster(near, Fingerprints({{0, 1}, {1, 9}})), 1u);
  // Same time and fingerprint: the first created wins, touched or not.
  Forest h;
  h.AddRoot(1, 3);
  h.AddRoot(0, 3);
  h.Touch(1, 50);
  h.Touch(0, 50);
  h.AddMember(2, 0, 60);
  h.AddMember(3, 1, 60);
  EXPECT_EQ(h.ChooseCluster(near, Fingerprints({{0, 4}, {1, 4}})), 1u);
  EXPECT_EQ(Members(h, 1), (std::vector<Slot>{1, 3}));
}

}  // namespace
}  // namespace neardup::cluster
