// SPDX-License-Identifier: Apache-2.0
#include "batch/key_filter.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace neardup::batch {
namespace {

std::vector<KeySpace> Spaces(std::vector<int> slots) {
  std::vector<KeySpace> out;
  for (int s : slots) out.push_back({"s", -1, false, s});
  return out;
}

TEST(KeyFilterTest, InactiveWhenItCannotHelp) {
  EXPECT_EQ(KeyFilter::For(Spaces({1, 31}), 1, 128).width(), 0u);  // m = 1: every pair counts
  EXPECT_EQ(KeyFilter::For(Spaces({1, 0}), 2, 128).width(), 0u);   // a variable space
  EXPECT_EQ(KeyFilter::For(Spaces({200}), 2, 128).width(), 0u);    // too wide
  EXPECT_EQ(KeyFilter::For(Spaces({1}), 2, 128).width(), 0u);      // m above every slot
  EXPECT_EQ(KeyFilter::For({}, 2, 128).width(), 0u);
  EXPECT_EQ(KeyFilter::For(Spaces({1, 31}), 2, 128).width(), 32u);
  EXPECT_EQ(KeyFilter::For(Spaces({1, 20}), 2, 128).width(), 24u);  // padded to 8
}

TEST(KeyFilterTest, CountsEqualSlotsNotPadding) {
  const KeyFilter f = KeyFilter::For(Spaces({1, 4}), 2, 128);  // 5 slots, 3 bytes of padding
  ASSERT_EQ(f.width(), 8u);
  std::vector<uint64_t> a = {MakeKey(0, 100), MakeKey(1, 1), MakeKey(1, 2), MakeKey(1, 3),
                             MakeKey(1, 4)};
  std::vector<uint64_t> b = a;
  std::vector<uint8_t> x(8), y(8);
  f.Fill(a, x.data());
  f.Fill(b, y.data());
  EXPECT_EQ(f.EqualSlots(x.data(), y.data()), 5);
  // Another exact key and two other bands: 2 slots left equal.
  b[0] = MakeKey(0, 777);
  b[2] = MakeKey(1, 0x5555);
  b[4] = MakeKey(1, 0x6666);
  f.Fill(b, y.data());
  EXPECT_EQ(f.EqualSlots(x.data(), y.data()), 2);
  EXPECT_TRUE(f.MayShare(x.data(), y.data()));
  b[1] = MakeKey(1, 0x7777);
  f.Fill(b, y.data());
  EXPECT_EQ(f.EqualSlots(x.data(), y.data()), 1);
  EXPECT_FALSE(f.MayShare(x.data(), y.data()));
}

TEST(KeyFilterTest, MissingKeysKeepTheirSlots) {
  // A record without band keys (no shingles) still has its exact key in
  // slot 0, and the second space's keys stay in their slots.
  const KeyFilter f = KeyFilter::For(Spaces({1, 3, 2}), 2, 128);
  std::vector<uint64_t> full = {MakeKey(0, 9), MakeKey(1, 1), MakeKey(1, 2),
                                MakeKey(1, 3), MakeKey(2, 5), MakeKey(2, 6)};
  std::vector<uint64_t> no_bands = {MakeKey(0, 9), MakeKey(2, 5), MakeKey(2, 6)};
  std::vector<uint8_t> x(f.width()), y(f.width());
  f.Fill(full, x.data());
  f.Fill(no_bands, y.data());
  EXPECT_GE(f.EqualSlots(x.data(), y.data()), 3);
}

// The filter's promise: it never counts fewer equal slots than the keys two
// records share, so no pair with min_shared keys in common is dropped.
TEST(KeyFilterTest, NeverBelowTheSharedKeys) {
  const KeyFilter f = KeyFilter::For(Spaces({1, 31}), 2, 128);
  std::mt19937_64 rng(7);
  int dropped = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<uint64_t> a, b;
    int shared = 0;
    for (int slot = 0; slot < 32; ++slot) {
      const uint32_t sp = slot == 0 ? 0 : 1;
      const uint64_t ka = MakeKey(sp, rng());
      const bool same = rng() % 16 == 0;
      shared += same;
      a.push_back(ka);
      b.push_back(same ? ka : MakeKey(sp, rng()));
    }
    std::vector<uint8_t> x(32), y(32);
    f.Fill(a, x.data());
    f.Fill(b, y.data());
    ASSERT_GE(f.EqualSlots(x.data(), y.data()), shared);
    if (shared < 2) dropped += !f.MayShare(x.data(), y.data());
  }
  // Most pairs with fewer than 2 shared keys are dropped (a byte in 256 by chance).
  EXPECT_GT(dropped, 20000 * 0.3 * 0.8);
}

}  // namespace
}  // namespace neardup::batch
