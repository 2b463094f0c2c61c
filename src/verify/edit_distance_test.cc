// SPDX-License-Identifier: Apache-2.0
#include "verify/edit_distance.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace neardup::verify {
namespace {

size_t NaiveLevenshtein(std::u32string_view a, std::u32string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

size_t NaiveLcs(std::u32string_view a, std::u32string_view b) {
  std::vector<size_t> prev(b.size() + 1, 0), cur(b.size() + 1, 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], cur[j - 1]);
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// Random strings over a small alphabet mixing ASCII, Han and astral code points.
std::u32string RandomString(std::mt19937_64& rng, size_t len, size_t alphabet) {
  static const char32_t kAlphabet[] = {U'a',  U'b',  U'1', U'+', U'的', U'是',
                                       U'题', U'数', U'é', U'😀', U'𠀀', U'x'};
  std::u32string s;
  for (size_t i = 0; i < len; ++i) s.push_back(kAlphabet[rng() % alphabet]);
  return s;
}

std::u32string Mutate(std::mt19937_64& rng, std::u32string s, int edits) {
  for (int e = 0; e < edits; ++e) {
    const size_t pos = s.empty() ? 0 : rng() % s.size();
    switch (rng() % 3) {
      case 0:
        s.insert(s.begin() + pos, U'数');
        break;
      case 1:
        if (!s.empty()) s.erase(s.begin() + pos);
        break;
      default:
        if (!s.empty()) s[pos] = U'z';
    }
  }
  return s;
}

TEST(EditDistanceTest, KnownValues) {
  EXPECT_EQ(LevenshteinDistance(U"kitten", U"sitting"), 3u);
  EXPECT_EQ(LevenshteinDistance(U"", U"abc"), 3u);
  EXPECT_EQ(LevenshteinDistance(U"abc", U""), 3u);
  EXPECT_EQ(LevenshteinDistance(U"", U""), 0u);
  EXPECT_EQ(LevenshteinDistance(U"下列计算正确的是", U"下列运算正确的是"), 1u);
  EXPECT_EQ(LcsLength(U"ABCBDAB", U"BDCABA"), 4u);
  EXPECT_DOUBLE_EQ(LevenshteinSimilarity(U"", U""), 1.0);
  EXPECT_DOUBLE_EQ(LevenshteinSimilarity(U"abcd", U"abce"), 0.75);
  EXPECT_DOUBLE_EQ(LcsRatio(U"abcd", U"abce"), 0.75);
  EXPECT_EQ(DecodeCodePoints("a的😀"), U"a的😀");
  EXPECT_EQ(DecodeCodePoints("a\xFF"), U"a\uFFFD");
}

TEST(EditDistanceTest, MatchesNaiveOnRandomStrings) {
  std::mt19937_64 rng(42);
  // Lengths cross the 64- and 128-code-point block boundaries.
  for (int t = 0; t < 600; ++t) {
    const size_t alphabet = 2 + rng() % 11;
    const size_t la = rng() % 200, lb = rng() % 200;
    const std::u32string a = RandomString(rng, la, alphabet);
    const std::u32string b =
        t % 2 ? RandomString(rng, lb, alphabet) : Mutate(rng, a, static_cast<int>(rng() % 12));
    ASSERT_EQ(LevenshteinDistance(a, b), NaiveLevenshtein(a, b)) << "trial " << t;
    ASSERT_EQ(LcsLength(a, b), NaiveLcs(a, b)) << "trial " << t;
  }
}

TEST(EditDistanceTest, LargeAlphabetsGrowTheMaskTable) {
  // Many distinct code points (Han) rehash the pattern table several times.
  std::mt19937_64 rng(11);
  auto RandomHan = [&](size_t len, size_t alphabet) {
    std::u32string s;
    for (size_t i = 0; i < len; ++i) s.push_back(static_cast<char32_t>(0x4E00 + rng() % alphabet));
    return s;
  };
  for (int t = 0; t < 20; ++t) {
    const size_t alphabet = 20 + rng() % 600;
    const std::u32string a = RandomHan(100 + rng() % 300, alphabet);
    const std::u32string b =
        t % 2 ? RandomHan(rng() % 300, alphabet) : Mutate(rng, a, static_cast<int>(rng() % 30));
    ASSERT_EQ(LevenshteinDistance(a, b), NaiveLevenshtein(a, b)) << "trial " << t;
    ASSERT_EQ(LcsLength(a, b), NaiveLcs(a, b)) << "trial " << t;
  }
}

TEST(EditDistanceTest, ExactBlockBoundaries) {
  std::mt19937_64 rng(7);
  for (size_t len : {63u, 64u, 65u, 127u, 128u, 129u, 200u}) {
    for (int t = 0; t < 10; ++t) {
      const std::u32string a = RandomString(rng, len, 4);
      const std::u32string b = Mutate(rng, a, 1 + t);
      EXPECT_EQ(LevenshteinDistance(a, b), NaiveLevenshtein(a, b)) << len;
      EXPECT_EQ(LcsLength(a, b), NaiveLcs(a, b)) << len;
      const std::u32string far = RandomString(rng, 3 * len, 3);  // pattern a, longer text
      EXPECT_EQ(LevenshteinDistance(a, far), NaiveLevenshtein(a, far)) << len;
      EXPECT_EQ(LcsLength(far, a), NaiveLcs(far, a)) << len;
    }
  }
}

}  // namespace
}  // namespace neardup::verify
