// SPDX-License-Identifier: Apache-2.0
#include "engine/id_table.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_map>

namespace neardup::engine {
namespace {

TEST(IdTableTest, InsertFindGetErase) {
  IdTable t;
  EXPECT_EQ(t.Find("a"), IdTable::kNone);
  t.Insert(3, "a");
  t.Insert(0, "");
  t.Insert(7, std::string(300, 'x'));  // multi-byte length prefix
  EXPECT_EQ(t.Find("a"), 3u);
  EXPECT_EQ(t.Find(""), 0u);
  EXPECT_EQ(t.Get(7), std::string(300, 'x'));
  EXPECT_EQ(t.Find(std::string(300, 'x')), 7u);
  EXPECT_FALSE(t.Bound(1));
  t.Erase(3);
  EXPECT_EQ(t.Find("a"), IdTable::kNone);
  EXPECT_FALSE(t.Bound(3));
  t.Insert(3, "b");  // slot reuse
  EXPECT_EQ(t.Find("b"), 3u);
  EXPECT_EQ(t.size(), 3u);
}

TEST(IdTableTest, TryInsertRefusesABoundIdAndChangesNothing) {
  IdTable t;
  EXPECT_TRUE(t.TryInsert(2, "a"));
  const size_t bytes = t.MemoryBytes();
  EXPECT_FALSE(t.TryInsert(5, "a"));
  EXPECT_FALSE(t.Bound(5));
  EXPECT_EQ(t.Find("a"), 2u);
  EXPECT_EQ(t.size(), 1u);
  EXPECT_EQ(t.MemoryBytes(), bytes);  // the arena did not take the refused id
  t.Erase(2);                         // a tombstone on "a"'s probe path
  EXPECT_TRUE(t.TryInsert(5, "a"));
  EXPECT_EQ(t.Find("a"), 5u);
}

// Random operations against std::unordered_map, through growth, tombstones
// and arena compaction.
// A restore reserves for the ids to come: binding them rehashes nothing,
// and ShrinkToFit keeps a table already of its size unless it has tombs.
TEST(IdTableTest, ReservedTableBindsWithoutRehashAndShrinksOnlyWhenItMust) {
  IdTable t;
  t.Reserve(5000);
  const size_t reserved = t.MemoryBytes();
  for (IdTable::Slot s = 0; s < 5000; ++s) t.Insert(s, "id" + std::to_string(s));
  // Only the arena of id bytes grew: the table and the offsets did not.
  EXPECT_LE(t.MemoryBytes(), reserved + 16 * 5000);
  t.ShrinkToFit();
  for (IdTable::Slot s = 0; s < 5000; ++s) ASSERT_EQ(t.Find("id" + std::to_string(s)), s);
  for (IdTable::Slot s = 0; s < 5000; s += 2) t.Erase(s);  // tombs: the table must be rebuilt
  t.ShrinkToFit();
  for (IdTable::Slot s = 0; s < 5000; ++s) {
    ASSERT_EQ(t.Find("id" + std::to_string(s)), s % 2 ? s : IdTable::kNone) << s;
  }
}

TEST(IdTableTest, MatchesReferenceMap) {
  IdTable t;
  std::unordered_map<std::string, uint32_t> ref;
  std::vector<uint32_t> free_slots;
  uint32_t next = 0;
  std::mt19937 rng(11);
  for (int step = 0; step < 200000; ++step) {
    if (step % 30000 == 29999) t.ShrinkToFit();
    const std::string id = "id-" + std::to_string(rng() % 20000) + std::string(rng() % 40, 'q');
    // A restore's hint, at every stage, empty table and tombs included:
    // it changes nothing the reference map sees.
    t.Prefetch(IdTable::HashOf(id), step % 3);
    auto it = ref.find(id);
    if (it == ref.end() && rng() % 3 != 0) {
      uint32_t s = free_slots.empty() ? next++ : free_slots.back();
      if (!free_slots.empty() && s == free_slots.back()) free_slots.pop_back();
      if (step % 2) {
        t.Insert(s, id);
      } else {
        ASSERT_TRUE(t.TryInsert(s, id, IdTable::HashOf(id)));  // a restore's form
      }
      ref[id] = s;
    } else if (it != ref.end()) {
      ASSERT_EQ(t.Find(id), it->second);
      ASSERT_EQ(t.Get(it->second), id);
      if (rng() % 2) {
        t.Erase(it->second);
        free_slots.push_back(it->second);
        ref.erase(it);
      }
    } else {
      ASSERT_EQ(t.Find(id), IdTable::kNone);
      ASSERT_EQ(t.Find(id, IdTable::HashOf(id)), IdTable::kNone);
    }
  }
  EXPECT_EQ(t.size(), ref.size());
  for (const auto& [id, s] : ref) ASSERT_EQ(t.Find(id), s);
}

}  // namespace
}  // namespace neardup::engine
