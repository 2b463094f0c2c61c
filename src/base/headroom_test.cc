// SPDX-License-Identifier: Apache-2.0
#include "base/headroom.h"

#include <gtest/gtest.h>

#include <string>

namespace neardup::base {
namespace {

TEST(HeadroomTest, TrimsToAnEighthMoreAndKeepsTheElements) {
  std::vector<std::string> v;
  v.reserve(10000);
  for (int i = 0; i < 1000; ++i) v.push_back(std::to_string(i));
  TrimWithHeadroom(&v);
  EXPECT_EQ(v.capacity(), WithHeadroom(1000));
  EXPECT_EQ(v.capacity(), 1000u + 125u + 64u);
  ASSERT_EQ(v.size(), 1000u);
  EXPECT_EQ(v[999], "999");
  // An eighth more fits without growing.
  const auto* data = v.data();
  for (int i = 0; i < 125; ++i) v.push_back("x");
  EXPECT_EQ(v.data(), data);
}

TEST(HeadroomTest, LeavesATightVectorAlone) {
  std::vector<int> v(100, 7);
  v.shrink_to_fit();
  const size_t capacity = v.capacity();
  TrimWithHeadroom(&v);
  EXPECT_EQ(v.capacity(), capacity);
  EXPECT_EQ(v.size(), 100u);
}

}  // namespace
}  // namespace neardup::base
