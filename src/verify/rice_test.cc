// SPDX-License-Identifier: Apache-2.0
#include "verify/rice.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "verify/varint.h"

namespace neardup::verify {
namespace {

std::vector<uint64_t> RandomSet(std::mt19937_64* rng, size_t n) {
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = (*rng)() & 0xFFFFFFFFull;
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

TEST(RiceTest, RoundTripsSetsOfEverySize) {
  std::mt19937_64 rng(5);
  for (size_t n : {0, 1, 2, 3, 10, 100, 700, 5000, 100000}) {
    SCOPED_TRACE(n);
    const auto set = RandomSet(&rng, n);
    std::string coded = "prefix";
    RiceEncode(set, &coded);
    coded += "tail";
    std::string_view in(coded);
    in.remove_prefix(6);
    std::vector<uint64_t> back;
    ASSERT_TRUE(RiceDecode(&in, &back));
    EXPECT_EQ(back, set);
    EXPECT_EQ(in, "tail");
    if (n >= 100) {  // about log2(2^32 / n) + 2 bits a value, plus a small header
      const double m = static_cast<double>(set.size());
      EXPECT_LT(static_cast<double>(coded.size() - 10),
                m * (std::log2(4294967296.0 / m) + 2.2) / 8 + 12);
    }
  }
}

// The bits are those of the layout in rice.h, written one at a time here:
// stores hold coded forms, so a faster coder must write the same bytes.
TEST(RiceTest, WritesTheLayoutBitByBit) {
  std::mt19937_64 rng(9);
  for (int width : {32, 17, 9, 3}) {
    for (size_t n : {0, 1, 2, 5, 700, 3000}) {
      auto set = RandomSet(&rng, n);
      const uint64_t mask = (uint64_t{1} << width) - 1;
      for (auto& x : set) x &= mask;
      std::sort(set.begin(), set.end());
      set.erase(std::unique(set.begin(), set.end()), set.end());
      if (width == 17 && n == 5) {  // a gap of ~2^17 at k ~ 7: a quotient of ~1,000 ones
        set.clear();
        for (uint64_t x = 1; x < 700; ++x) set.push_back(x);
        set.push_back(mask);
      }
      std::string coded;
      RiceEncode(set, &coded, width);
      std::string_view in(coded);
      uint64_t count = 0;
      ASSERT_TRUE(GetVarint(&in, &count));
      ASSERT_EQ(count, set.size());
      const int k = static_cast<uint8_t>(in.front());
      std::vector<bool> bits;
      uint64_t prev = 0;
      for (uint64_t x : set) {
        const uint64_t gap = x - prev;
        prev = x;
        for (uint64_t q = gap >> k; q > 0; --q) bits.push_back(true);
        bits.push_back(false);
        for (int b = 0; b < k; ++b) bits.push_back((gap >> b) & 1);
      }
      std::string want((bits.size() + 7) / 8, '\0');
      for (size_t i = 0; i < bits.size(); ++i) {
        if (bits[i]) want[i / 8] = static_cast<char>(want[i / 8] | (1 << (i % 8)));
      }
      std::string expect;
      PutVarint(set.size(), &expect);
      expect.push_back(static_cast<char>(k));
      PutVarint(want.size(), &expect);
      expect += want;
      EXPECT_EQ(coded, expect) << width << " " << n;
    }
  }
}

// Narrow forms code sets of `width` < 32 bits: n values of 17 bits take
// about log2(2^17 / n) + 1.5 bits each; a value past the width is refused.
TEST(RiceTest, RoundTripsNarrowSets) {
  std::mt19937_64 rng(9);
  for (const int width : {17, 12, 1}) {
    SCOPED_TRACE(width);
    std::vector<uint64_t> set;
    for (int i = 0; i < 700; ++i) set.push_back(rng() & ((uint64_t{1} << width) - 1));
    std::sort(set.begin(), set.end());
    set.erase(std::unique(set.begin(), set.end()), set.end());
    std::string coded;
    RiceEncode(set, &coded, width);
    std::string_view in(coded);
    std::vector<uint64_t> back;
    ASSERT_TRUE(RiceDecode(&in, &back, width));
    EXPECT_EQ(back, set);
    if (width == 17) {
      const double m = static_cast<double>(set.size());
      EXPECT_LT(static_cast<double>(coded.size()), m * (std::log2(131072.0 / m) + 1.7) / 8 + 8);
    }
  }
  std::string coded;
  RiceEncode(std::vector<uint64_t>{5, 4000}, &coded, 12);
  std::string_view in(coded);
  std::vector<uint64_t> back;
  EXPECT_FALSE(RiceDecode(&in, &back, 11));  // 4000 >= 2^11
  EXPECT_FALSE(RiceDecode(&in, &back, 33));
}

TEST(RiceTest, RoundTripsTheExtremes) {
  for (const std::vector<uint64_t>& set : {std::vector<uint64_t>{0},
                                           {0xFFFFFFFFull},
                                           {0, 0xFFFFFFFFull},
                                           {5, 6, 7, 8},
                                           {1, 0x80000000ull, 0xFFFFFFFEull}}) {
    std::string coded;
    RiceEncode(set, &coded);
    std::string_view in(coded);
    std::vector<uint64_t> back;
    ASSERT_TRUE(RiceDecode(&in, &back));
    EXPECT_EQ(back, set);
    EXPECT_TRUE(in.empty());
  }
}

TEST(RiceTest, RejectsEveryTruncationAndBadHeaders) {
  std::mt19937_64 rng(9);
  std::string coded;
  RiceEncode(RandomSet(&rng, 300), &coded);
  std::vector<uint64_t> back;
  for (size_t cut = 0; cut < coded.size(); ++cut) {
    std::string_view in(coded.data(), cut);
    EXPECT_FALSE(RiceDecode(&in, &back)) << cut;
  }
  std::string_view k_too_big("\x01\x20\x01\x00", 4);
  EXPECT_FALSE(RiceDecode(&k_too_big, &back));
  // A million values claimed in one byte of bits: refused before any allocation.
  std::string_view too_many("\xc0\x84\x3d\x00\x01\x00", 6);
  EXPECT_FALSE(RiceDecode(&too_many, &back));
  // Two zero gaps (a repeated value) are not a set.
  std::string_view repeated("\x02\x00\x01\x00", 4);
  EXPECT_FALSE(RiceDecode(&repeated, &back));
}

TEST(RiceTest, RandomBytesNeverCrash) {
  std::mt19937_64 rng(13);
  std::vector<uint64_t> back;
  for (int i = 0; i < 20000; ++i) {
    std::string bytes(rng() % 24, '\0');
    for (auto& c : bytes) c = static_cast<char>(rng());
    std::string_view in(bytes);
    if (RiceDecode(&in, &back)) {
      EXPECT_TRUE(std::is_sorted(back.begin(), back.end()));
      for (uint64_t v : back) EXPECT_LE(v, 0xFFFFFFFFull);
    }
  }
}

}  // namespace
}  // namespace neardup::verify
