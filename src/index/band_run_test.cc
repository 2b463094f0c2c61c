// SPDX-License-Identifier: Apache-2.0
#include "index/band_run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <random>

namespace neardup::index {
namespace {

// Gather() gives back every entry sorted by (key, slot), whatever order the
// source gave: small inputs (std::sort) and large ones (the radix sort, with
// and without slot order), keys with many equal values among them.
void ExpectSortedRoundTrip(size_t n, bool slot_order, uint64_t seed, int bands = 2,
                           int threads = 1) {
  std::mt19937_64 rng(seed);
  std::vector<BandEntry> entries(n);
  for (size_t i = 0; i < n; ++i) {
    const auto key = static_cast<uint32_t>(rng() % 3 == 0 ? rng() % 50 : rng());
    entries[i] = {key, static_cast<uint32_t>(i * 7 + 3)};
  }
  if (!slot_order) std::shuffle(entries.begin(), entries.end(), rng);
  const uint32_t max_slot = static_cast<uint32_t>(n * 7 + 3);
  // Odd bands get their keys inverted, band b > 1 its keys rotated by b.
  auto keys_of = [](int band, std::vector<BandEntry>* v) {
    for (auto& e : *v) e.key = band % 2 == 1 ? ~e.key : std::rotl(e.key, band);
  };
  auto run = BandRun::Build(
      bands, max_slot, 1, 1,
      [&](int band, std::vector<BandEntry>* out) {
        *out = entries;
        keys_of(band, out);
      },
      threads);
  TierIds run_of;
  for (const BandEntry& e : entries) run_of.Set(e.slot, 1);
  for (int band = 0; band < bands; ++band) {
    std::vector<BandEntry> want = entries, got;
    keys_of(band, &want);
    std::sort(want.begin(), want.end());
    run->Gather(band, run_of, &got);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(got[i].key, want[i].key) << i;
      ASSERT_EQ(got[i].slot, want[i].slot) << i;
    }
  }
}

TEST(BandRunTest, SortsSmallInputs) { ExpectSortedRoundTrip(5000, false, 1); }
TEST(BandRunTest, RadixSortsLargeShuffledInputs) { ExpectSortedRoundTrip(200000, false, 2); }
TEST(BandRunTest, RadixSortsLargeInputsInSlotOrder) { ExpectSortedRoundTrip(200000, true, 3); }
// Bands built on several threads are those built on one.
TEST(BandRunTest, BuildsBandsOnSeveralThreads) {
  ExpectSortedRoundTrip(100000, false, 4, 7, 3);
  ExpectSortedRoundTrip(3000, true, 5, 5, 8);
}

// Find() of every key (and of keys absent from the run) gives exactly the
// slots a scan of the entries gives, on the two-level directory (uniform
// keys) and on the plain one a band falls back to when 70k entries share a
// key, so that one group of 64 cells spans more than 2^16 entries.
void ExpectFindIsAScan(size_t n, size_t copies, uint64_t seed, bool wide) {
  std::mt19937_64 rng(seed);
  std::vector<BandEntry> entries(n);
  for (size_t i = 0; i < n; ++i) {
    const auto key = static_cast<uint32_t>(i < copies ? 0x12345678u : rng() % (n / 2));
    entries[i] = {key << 13 | static_cast<uint32_t>(rng() % 3), static_cast<uint32_t>(i)};
  }
  std::shuffle(entries.begin(), entries.end(), rng);
  auto run = BandRun::Build(1, static_cast<uint32_t>(n), 1, 1,
                            [&](int, std::vector<BandEntry>* out) { *out = entries; });
  EXPECT_EQ(run->WideDirectory(0), wide);
  TierIds run_of;
  for (const BandEntry& e : entries) run_of.Set(e.slot, e.slot % 5 == 0 ? 0 : 1);  // some dead
  std::vector<BandEntry> sorted = entries;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < n; i += 97) {
    for (uint32_t key : {sorted[i].key, sorted[i].key + 3, sorted[i].key ^ 0x80000000u}) {
      std::vector<uint32_t> want, got;
      for (const BandEntry& e : sorted) {
        if (e.key == key && e.slot % 5 != 0) want.push_back(e.slot);
      }
      run->Find(0, key, run_of, &got);
      ASSERT_EQ(got, want) << key;
    }
  }
}

TEST(BandRunTest, FindOnTheNarrowDirectoryIsAScan) { ExpectFindIsAScan(100000, 0, 6, false); }
TEST(BandRunTest, FindOnTheWideDirectoryIsAScan) { ExpectFindIsAScan(100000, 70000, 7, true); }

// The two-level directory takes about 2 bytes a cell, not 4: a run of 2^20
// uniform entries (2^17 cells, 4.5 bytes an entry at 21 slot bits and 15 key
// bits) stays under 5 bytes an entry.
TEST(BandRunTest, NarrowDirectoryHalvesItsBytes) {
  const size_t n = size_t{1} << 20;
  std::mt19937_64 rng(8);
  std::vector<BandEntry> entries(n);
  for (size_t i = 0; i < n; ++i) entries[i] = {static_cast<uint32_t>(rng()), uint32_t(i)};
  auto run = BandRun::Build(1, static_cast<uint32_t>(n), 1, 1,
                            [&](int, std::vector<BandEntry>* out) { *out = entries; });
  ASSERT_FALSE(run->WideDirectory(0));
  EXPECT_LT(run->MemoryBytes(), 5 * n);
  EXPECT_GT(run->MemoryBytes(), 4 * n);
}

}  // namespace
}  // namespace neardup::index
