// SPDX-License-Identifier: Apache-2.0
#include "distributed/ranges.h"

#include <gtest/gtest.h>

namespace neardup::distributed {
namespace {

// An index's corpus (file 0, 5 lines), then two files split over 3 ranks:
// rank 0 has 4 lines of file 1, rank 1 the other 2 and 3 of file 2, rank 2
// the other 6.
TEST(LineNumberingTest, NumbersLinesFromEveryRanksCounts) {
  const std::vector<uint64_t> counts = {0, 4, 0,   // rank 0
                                        0, 2, 3,   // rank 1
                                        0, 0, 6};  // rank 2
  const LineNumbering n(counts, 3, /*first_file=*/1, /*first_line=*/5);
  EXPECT_EQ(n.total, 20u);
  EXPECT_EQ(n.file_first, (std::vector<uint64_t>{0, 5, 11}));
  EXPECT_EQ(n.file_lines, (std::vector<uint64_t>{0, 6, 9}));
  EXPECT_EQ(n.before, (std::vector<uint64_t>{0, 0, 0, 0, 4, 0, 0, 6, 3}));
  ASSERT_EQ(n.ranges.ranks(), 3);
  EXPECT_EQ(n.ranges.begin(0), 0u);  // the corpus is rank 0's
  EXPECT_EQ(n.ranges.begin(1), 9u);
  EXPECT_EQ(n.ranges.begin(2), 14u);
  EXPECT_EQ(n.ranges.end(2), 20u);
  EXPECT_EQ(n.first(0), 5u);
  EXPECT_EQ(n.first(1), 9u);
  EXPECT_EQ(n.first(2), 14u);
  EXPECT_EQ(n.ranges.Owner(4), 0);
  EXPECT_EQ(n.ranges.Owner(13), 1);
  EXPECT_EQ(n.ranges.Owner(19), 2);
}

// A rank whose bytes hold no line start owns no line.
TEST(LineNumberingTest, ARankWithoutLinesOwnsNone) {
  const LineNumbering n({7, 0, 0, 0, 2}, 5, 0, 0);
  EXPECT_EQ(n.total, 9u);
  for (int r = 1; r < 4; ++r) EXPECT_EQ(n.ranges.begin(r), n.ranges.end(r)) << r;
  EXPECT_EQ(n.ranges.begin(4), 7u);
  EXPECT_EQ(n.ranges.Owner(8), 4);
  EXPECT_EQ(n.ranges.Owner(6), 0);
}

}  // namespace
}  // namespace neardup::distributed
