// SPDX-License-Identifier: Apache-2.0
#include "cluster/root_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>

namespace neardup::cluster {
namespace {

class Names : public RootNames {
 public:
  std::string_view Name(Slot root) const override { return names.at(root); }
  std::map<Slot, std::string> names;
};

using Key = std::pair<int64_t, std::string>;

// The reference: (key, name) pairs in a std::set.
using Ref = std::set<std::pair<Key, Slot>>;
std::vector<Slot> Expected(const Ref& ref, bool desc, const std::optional<Key>& after,
                           size_t limit) {
  std::vector<Slot> out;
  if (!desc) {
    auto it = after ? ref.upper_bound({*after, UINT32_MAX}) : ref.begin();
    for (; it != ref.end() && out.size() < limit; ++it) out.push_back(it->second);
  } else {
    auto it = after ? ref.lower_bound({*after, 0}) : ref.end();
    while (it != ref.begin() && out.size() < limit) out.push_back((--it)->second);
  }
  return out;
}

std::vector<Slot> Page(const RootOrder& o, bool desc, const std::optional<Key>& after,
                       size_t limit) {
  std::vector<Slot> out;
  std::optional<std::pair<int64_t, std::string_view>> a;
  if (after) a.emplace(after->first, after->second);
  o.Scan(desc, a, [&](int64_t, Slot s) {
    if (out.size() == limit) return false;
    out.push_back(s);
    return true;
  });
  return out;
}

// Erased roots lose their names and their slots come back under other
// names, as the engine releases and reuses slots: the tree must never read
// a name it was not given now (Names::Name throws for a released slot).
TEST(RootOrderTest, MatchesAnOrderedSetUnderRandomInsertsErasesAndPages) {
  Names names;
  RootOrder order(&names);
  Ref ref;
  std::map<Slot, int64_t> key_of;
  std::vector<Slot> released;
  Slot next = 0;
  std::mt19937 rng(1);
  for (int step = 0; step < 30000; ++step) {
    const int op = rng() % 10;
    if (op < 6 || key_of.empty()) {
      Slot s = next;
      if (!released.empty() && rng() % 2) {
        s = released.back();
        released.pop_back();
      } else {
        ++next;
      }
      names.names[s] = "id" + std::to_string(rng() % 100000) + "-" + std::to_string(step);
      const int64_t k = rng() % 50;  // many ties: names decide
      order.Insert(k, s);
      ref.insert({{k, names.names[s]}, s});
      key_of[s] = k;
    } else if (op < 9) {
      auto it = key_of.begin();
      std::advance(it, rng() % key_of.size());
      order.Erase(it->second, it->first);
      ref.erase({{it->second, names.names[it->first]}, it->first});
      if (op == 8) {  // re-key, as a size or time change does
        const int64_t k = it->second + 1;
        order.Insert(k, it->first);
        ref.insert({{k, names.names[it->first]}, it->first});
        it->second = k;
      } else {
        names.names.erase(it->first);
        released.push_back(it->first);
        key_of.erase(it);
      }
    } else {
      const bool desc = rng() % 2;
      std::optional<Key> after;
      if (rng() % 3)
        after = Key{static_cast<int64_t>(rng() % 52) - 1, "id" + std::to_string(rng() % 100000)};
      const size_t limit = rng() % 40;
      ASSERT_EQ(Page(order, desc, after, limit), Expected(ref, desc, after, limit)) << step;
    }
    ASSERT_EQ(order.size(), ref.size());
  }
  // Everything, both ways, then erase it all.
  EXPECT_EQ(Page(order, false, std::nullopt, SIZE_MAX),
            Expected(ref, false, std::nullopt, SIZE_MAX));
  EXPECT_EQ(Page(order, true, std::nullopt, SIZE_MAX), Expected(ref, true, std::nullopt, SIZE_MAX));
  for (const auto& [s, k] : key_of) order.Erase(k, s);
  EXPECT_EQ(order.size(), 0u);
  EXPECT_TRUE(Page(order, false, std::nullopt, 10).empty());
  order.Insert(3, 0);
  EXPECT_EQ(Page(order, true, std::nullopt, 10), std::vector<Slot>{0});
}

TEST(RootOrderTest, RebuildPacksAndKeepsTheOrder) {
  Names names;
  RootOrder order(&names);
  Ref ref;
  std::vector<std::pair<int64_t, Slot>> entries;
  std::mt19937 rng(2);
  for (Slot s = 0; s < 20000; ++s) {
    names.names[s] = "n" + std::to_string(rng());
    const int64_t k = rng() % 7;
    entries.emplace_back(k, s);
    ref.insert({{k, names.names[s]}, s});
  }
  for (size_t n : {size_t{0}, size_t{1}, size_t{57}, size_t{3249}, entries.size()}) {
    std::vector<std::pair<int64_t, Slot>> part(entries.begin(), entries.begin() + n);
    Ref part_ref;
    for (const auto& [k, s] : part) part_ref.insert({{k, names.names[s]}, s});
    order.Rebuild(part);
    EXPECT_EQ(order.size(), n);
    EXPECT_EQ(Page(order, false, std::nullopt, SIZE_MAX),
              Expected(part_ref, false, std::nullopt, SIZE_MAX));
    EXPECT_EQ(Page(order, true, Key{3, "n5"}, 100), Expected(part_ref, true, Key{3, "n5"}, 100));
  }
  // Still a working tree after a rebuild.
  for (const auto& [k, s] : entries) {
    if (s % 3 == 0) order.Erase(k, s);
  }
  order.Insert(100, 0);
  EXPECT_EQ(Page(order, true, std::nullopt, 1), std::vector<Slot>{0});
  EXPECT_LT(order.MemoryBytes(), entries.size() * 24);
}

// Rebuild sorts names 8 bytes at a time: names with long common prefixes,
// prefixes of each other, bytes >= 0x80, zero bytes and trailing zero bytes
// must still come out in std::string_view order within each key.
TEST(RootOrderTest, RebuildOrdersNamesThatTieForManyBytes) {
  Names names;
  RootOrder order(&names);
  Ref ref;
  std::vector<std::pair<int64_t, Slot>> entries;
  std::mt19937 rng(9);
  std::set<std::string> seen;
  const std::string prefixes[] = {"", "doc-000000", "doc-0000000000000000000000",
                                  std::string("\xff\xfe\x80", 3), std::string("a\0b", 3)};
  for (Slot s = 0; s < 30000; ++s) {
    std::string name = prefixes[rng() % 5];
    const int tail = static_cast<int>(rng() % 12);
    for (int i = 0; i < tail; ++i) {
      const uint32_t r = rng() % 6;
      name.push_back(r == 0   ? '\0'
                     : r == 1 ? static_cast<char>(0x80 + rng() % 128)
                              : static_cast<char>('0' + rng() % 3));
    }
    name += std::to_string(s % 7 == 0 ? 0 : s);  // some names differ only at the end
    if (s % 11 == 0) name.push_back('\0');       // and some by a trailing zero byte
    if (!seen.insert(name).second) continue;     // ids are unique
    names.names[s] = name;
    const int64_t k = rng() % 3;
    entries.emplace_back(k, s);
    ref.insert({{k, name}, s});
    if (ref.size() >= 3000) break;
  }
  std::shuffle(entries.begin(), entries.end(), rng);
  order.Rebuild(entries);
  EXPECT_EQ(Page(order, false, std::nullopt, SIZE_MAX),
            Expected(ref, false, std::nullopt, SIZE_MAX));
}

}  // namespace
}  // namespace neardup::cluster
