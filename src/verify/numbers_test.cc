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

TEST(NumbersTest, LatinWordsAreLowerCaseRunsOfAsciiLetters) {
  using W = std::vector<std::string>;
  EXPECT_EQ(LatinWords("求 X 的值"), (W{"x"}));
  EXPECT_EQ(LatinWords("27km/h"), (W{"km", "h"}));  // digits and symbols split words
  EXPECT_EQ(LatinWords("tsort -v 39"), (W{"tsort", "v"}));
  EXPECT_EQ(LatinWords("没有字母 123"), W{});
  EXPECT_EQ(LatinWords("café"), (W{"caf"}));  // ASCII letters only
}

TEST(NumbersTest, MostlyHanCountsHanAgainstAsciiLetters) {
  EXPECT_TRUE(MostlyHan("解方程组 x+y=10 求 x"));
  EXPECT_FALSE(MostlyHan("the cat sat on the mat 猫"));
  EXPECT_FALSE(MostlyHan("ab 中"));    // 1 Han, 2 letters
  EXPECT_FALSE(MostlyHan("ab 中文"));  // a tie is not mostly Han
  EXPECT_TRUE(MostlyHan("a 中文"));
  EXPECT_FALSE(MostlyHan(""));
  EXPECT_TRUE(MostlyHan("\xff中"));  // a bad byte counts as neither
}

TEST(NumbersTest, ChangedFactNumbersFirstThenWordsOfMostlyHanTexts) {
  EXPECT_EQ(ChangedFact("求 x 的值是多少", "求 y 的值是多少", true, true), Fact::kWord);
  EXPECT_EQ(ChangedFact("求 x 的值是多少", "求 y 的值是多少", true, false), Fact::kNone);
  EXPECT_EQ(ChangedFact("速度是 27 km/h 呢", "速度是 27 m/s 呢", true, true), Fact::kWord);
  EXPECT_EQ(ChangedFact("速度是 27 km/h 呢", "速度是 28 m/s 呢", true, true), Fact::kNumber);
  EXPECT_EQ(ChangedFact("速度是 27 km/h 呢", "速度是 28 m/s 呢", false, true), Fact::kWord);
  // Case, spacing and order are not changes; an added word is an edit.
  EXPECT_EQ(ChangedFact("命令 tsort -v 的作用", "命令TSORT-V的作用", true, true), Fact::kNone);
  EXPECT_EQ(ChangedFact("选项 A 是 x 选项 B 是 y", "选项 B 是 y 选项 A 是 x", true, true),
            Fact::kNone);
  EXPECT_EQ(ChangedFact("求 x 的值", "求 x 和 y 的值", true, true), Fact::kNone);
  // English (or a tie) keeps its typos to the similarity.
  EXPECT_EQ(ChangedFact("the quick brown fox", "the quick brown fix", true, true), Fact::kNone);
  EXPECT_EQ(ChangedFact("中文 ab", "中文 ac", true, true), Fact::kNone);
  EXPECT_EQ(ChangedFact("中文字 ab", "中文字 ac", true, true), Fact::kWord);
  EXPECT_EQ(ChangedFact("中文字 ab", "中 ac", true, true), Fact::kNone);  // one side is not
}

TEST(NumbersTest, ExpressionsAreOperandsJoinedByOperators) {
  EXPECT_EQ(Expressions("若 a+b=49 且 a-b=56，则 b 等于多少？"), "a+b=49\na-b=56\n");
  // White space and full-width forms do not matter; digits and letters are
  // separate operands.
  EXPECT_EQ(Expressions("已知 ｘ＋ｙ ＝ ６０"), Expressions("已知x+y=60"));
  EXPECT_EQ(Expressions("速度是 77 m/s"), Expressions("速度是77m/s"));
  EXPECT_EQ(Expressions("3 × 4 ÷ 2 − 1 ≠ 7"), "3\u00d74\u00f72-1\u22607\n");
  // '-' and '/' between words are not operators; next to a number or a
  // one-letter operand they are.
  EXPECT_EQ(Expressions("Wi-Fi 和 TCP/IP"), "");
  EXPECT_EQ(Expressions("2024-06-01 与 I/O"), "2024-06-01\nI/O\n");
  // Operators with no operand on a side are punctuation.
  EXPECT_EQ(Expressions("+ 5 = 和 = x"), "");
  EXPECT_EQ(Expressions(""), "");
  EXPECT_EQ(Expressions("\xff+\xfe"), "");  // bad bytes are not operands
}

TEST(NumbersTest, ChangedExpressionIsAFactWhenBothAreKnown) {
  const std::string plus = Expressions("已知 x+y=60，x-y=31"),
                    minus = Expressions("已知 x+y=60，x+y=31");
  const FactSide a{"已知 x y 60 x y 31", plus}, b{"已知 x y 60 x y 31", minus};
  EXPECT_EQ(ChangedFact(a, b, true, true), Fact::kExpression);
  EXPECT_EQ(ChangedFact(a, b, false, true), Fact::kNone);  // the rule is off
  // Unknown on one side (a form stored before expressions were kept).
  EXPECT_EQ(ChangedFact(a, FactSide{"已知 x y 60 x y 31"}, true, true), Fact::kNone);
  // Reordered expressions are the same facts; an added one is an edit.
  // (A FactSide views its strings: they must outlive it.)
  const std::string swapped_e = Expressions("已知 x-y=31，x+y=60");
  const std::string more_e = Expressions("已知 x+y=60，x-y=31，z=1");
  const std::string other_e = Expressions("已知 x+y=61，x-y=31");
  const FactSide swapped{"已知 x y 31 x y 60", swapped_e};
  EXPECT_EQ(ChangedFact(a, swapped, true, true), Fact::kNone);
  const FactSide more{"已知 x y 60 x y 31 z 1", more_e};
  EXPECT_EQ(ChangedFact(a, more, true, true), Fact::kNone);
  // A changed number is named first.
  const FactSide other{"已知 x y 61 x y 31", other_e};
  EXPECT_EQ(ChangedFact(a, other, true, true), Fact::kNumber);
  EXPECT_EQ(FactList(a, Fact::kExpression), "[x+y=60, x-y=31]");
  EXPECT_EQ(FactName(Fact::kExpression), std::string("an expression"));
}

TEST(NumbersTest, FactListShowsAtMostEight) {
  EXPECT_EQ(FactList("3+5", Fact::kNumber), "[3, 5]");
  EXPECT_EQ(FactList("求 X 和 y", Fact::kWord), "[x, y]");
  EXPECT_EQ(FactList("1 2 3 4 5 6 7 8 9", Fact::kNumber), "[1, 2, 3, 4, 5, 6, 7, 8, ...]");
  EXPECT_EQ(FactList("", Fact::kWord), "[]");
  EXPECT_EQ(FactName(Fact::kWord), std::string("a Latin word"));
}

}  // namespace
}  // namespace neardup::verify
