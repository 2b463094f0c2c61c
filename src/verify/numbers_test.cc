// SPDX-License-Identifier: Apache-2.0
#include "verify/numbers.h"

#include <gtest/gtest.h>

namespace neardup::verify {
namespace {

using V = std::vector<std::string_view>;

TEST(NumbersTest, RunsOfAsciiDigitsInOrder) {
  EXPECT_EQ(Numbers("计算3+15等于多少"), (V{"3", "15"}));
  EXPECT_EQ(Numbers("3.14"), (V{"3", "14"}));
  EXPECT_EQ(Numbers("007 and 7"), (V{"007", "7"}));
  EXPECT_EQ(Numbers("没有数字"), V{});
  EXPECT_EQ(Numbers(""), V{});
  EXPECT_EQ(Numbers("x9"), V{"9"});
  EXPECT_EQ(Numbers("三加五"), V{});  // Han numerals are words, not digits
}

TEST(NumbersTest, ChangedNumbersIgnoresOrderAndWhatLiesBetween) {
  EXPECT_FALSE(ChangedNumbers("3 + 5", "3 + 5 = ?"));
  EXPECT_FALSE(ChangedNumbers("A. 3 B. 5", "A. 5 B. 3"));  // options reordered
  EXPECT_FALSE(ChangedNumbers("没有数字", "也没有"));
  EXPECT_TRUE(ChangedNumbers("3+5", "3+6"));
  EXPECT_TRUE(ChangedNumbers("3+5+5", "3+3+5"));  // multisets: counts of a value matter
  EXPECT_TRUE(ChangedNumbers("售价12元", "售价120元"));
  EXPECT_TRUE(ChangedNumbers("07", "7"));
}

TEST(NumbersTest, AnAddedOrRemovedNumberIsNotAChange) {
  // One edition of a poem carries a second footnote mark; a sentence with a
  // year was cut. Those are edits; the similarity decides them.
  EXPECT_FALSE(ChangedNumbers("詩〖1〗", "詩〖1〗注〖2〗"));
  EXPECT_FALSE(ChangedNumbers("3+5", "3+5+5"));
  EXPECT_FALSE(ChangedNumbers("1 2", "12"));
}

}  // namespace
}  // namespace neardup::verify
