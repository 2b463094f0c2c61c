// SPDX-License-Identifier: Apache-2.0
#include "neardup/ids.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace neardup {
namespace {

// Random canonical ids: integers of 1-25 digits (some negative, some with
// leading zeros, "0" and "-0"), and JSON strings sharing prefixes.
std::string RandomId(std::mt19937_64* rng) {
  const int kind = static_cast<int>((*rng)() % 3);
  if (kind < 2) {
    std::string s = (*rng)() % 4 == 0 ? "-" : "";
    const int digits = 1 + static_cast<int>((*rng)() % (kind == 0 ? 4 : 25));
    for (int i = 0; i < digits; ++i) s += static_cast<char>('0' + (*rng)() % 10);
    return s;
  }
  std::string s = "\"q";
  const int len = static_cast<int>((*rng)() % 12);
  for (int i = 0; i < len; ++i) s += static_cast<char>("0a1Z\\/"[(*rng)() % 6]);
  return s + "\"";
}

TEST(IdOrderKeyTest, AgreesWithIdLessWheneverKeysDiffer) {
  std::mt19937_64 rng(5);
  std::vector<std::string> ids = {"0",
                                  "-0",
                                  "7",
                                  "007",
                                  "-7",
                                  "999999999999999999",
                                  "1000000000000000000",
                                  "-1000000000000000000",
                                  "\"\"",
                                  "\"7\"",
                                  "\"a\""};
  for (int i = 0; i < 3000; ++i) ids.push_back(RandomId(&rng));
  size_t decided = 0;
  for (const std::string& a : ids) {
    for (size_t j = 0; j < 200; ++j) {
      const std::string& b = ids[rng() % ids.size()];
      const uint64_t ka = IdOrderKey(a), kb = IdOrderKey(b);
      if (ka < kb) {
        ASSERT_TRUE(IdLess(a, b)) << a << " " << b;
        ++decided;
      } else if (kb < ka) {
        ASSERT_TRUE(IdLess(b, a)) << a << " " << b;
        ++decided;
      }
    }
  }
  EXPECT_GT(decided, ids.size() * 150);  // keys decide most comparisons
  // Exact for integers of up to 18 digits.
  EXPECT_EQ(IdOrderKey("007"), IdOrderKey("7"));
  EXPECT_LT(IdOrderKey("-8"), IdOrderKey("-7"));
  EXPECT_LT(IdOrderKey("999999999999999998"), IdOrderKey("999999999999999999"));
  EXPECT_LT(IdOrderKey("999999999999999999"), IdOrderKey("1000000000000000000"));
  EXPECT_LT(IdOrderKey("99999999999999999999999"), IdOrderKey("\"\""));
}

// The id rule (ids.h, jsonl.h): ids from JSON are canonical JSON texts, so
// the integer 7 and the string "7" are different ids, the integer first.
TEST(IdLessTest, JsonIntegerAndStringIdsAreDifferent) {
  EXPECT_TRUE(IsIntegerId("7"));
  EXPECT_FALSE(IsIntegerId("\"7\""));
  EXPECT_TRUE(IdLess("7", "\"7\""));
  EXPECT_FALSE(IdLess("\"7\"", "7"));
  EXPECT_TRUE(IdLess("100", "\"7\""));     // every integer before every string
  EXPECT_TRUE(IdLess("\"10\"", "\"7\""));  // strings by bytes
  EXPECT_LT(IdOrderKey("7"), IdOrderKey("\"7\""));
  EXPECT_TRUE(IdLess("-2", "7"));
  EXPECT_TRUE(IdLess("9", "10"));  // integers by value, not bytes
}

TEST(IdOrderKeyTest, IntegerIdsComeBackFromExactKeys) {
  std::string out;
  for (const char* id : {"0", "7", "-7", "123456789012345678", "-999999999999999999"}) {
    ASSERT_TRUE(IntegerIdOfOrderKey(IdOrderKey(id), &out)) << id;
    EXPECT_EQ(out, id);
  }
  for (const char* id : {"1000000000000000000", "-1000000000000000000", "\"7\"", "\"a\""}) {
    EXPECT_FALSE(IntegerIdOfOrderKey(IdOrderKey(id), &out)) << id;
  }
  EXPECT_FALSE(IntegerIdOfOrderKey(0, &out));
}

}  // namespace
}  // namespace neardup
