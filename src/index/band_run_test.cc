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

}  // namespace
}  // namespace neardup::index
