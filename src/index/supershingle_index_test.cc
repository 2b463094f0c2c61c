// SPDX-License-Identifier: Apache-2.0
#include "index/supershingle_index.h"

#include <gtest/gtest.h>

#include <random>

#include "sketch/supershingle.h"

namespace neardup::index {
namespace {

using sketch::CountEqualSuperShingles;
using sketch::MinHasher;
using sketch::SuperShingler;

class SuperShingleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = SuperShingler::Create({});
    ASSERT_TRUE(s.ok());
    shingler_.emplace(std::move(*s));
    hasher_.emplace(*MinHasher::Create({.num_perm = 84, .seed = 1}));
  }
  std::optional<SuperShingler> shingler_;
  std::optional<MinHasher> hasher_;
};

TEST_F(SuperShingleTest, GroupsMinHashesOfFourteen) {
  std::vector<uint64_t> set = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const auto mins = hasher_->Sketch(set);
  const auto supers = shingler_->Sketch(set);
  ASSERT_EQ(supers.size(), 6u);
  EXPECT_EQ(supers, shingler_->FromMinHashes(mins));
  // Changing one min-hash changes exactly its group's super-shingle.
  for (int pos : {0, 13, 14, 50, 83}) {
    auto changed = mins;
    changed[pos] ^= 1;
    const auto other = shingler_->FromMinHashes(changed);
    EXPECT_EQ(CountEqualSuperShingles(supers, other), 5) << pos;
    EXPECT_NE(supers[pos / 14], other[pos / 14]);
  }
}

TEST_F(SuperShingleTest, ConstructedEqualityCases) {
  std::vector<uint32_t> base(84);
  for (int i = 0; i < 84; ++i) base[i] = 1000 + i;
  const auto a = shingler_->FromMinHashes(base);
  // Differ in groups 0..3 only: two equal super-shingles -> near-duplicate.
  auto two_equal = base;
  for (int g = 0; g < 4; ++g) two_equal[g * 14 + 3] = 7;
  EXPECT_EQ(CountEqualSuperShingles(a, shingler_->FromMinHashes(two_equal)), 2);
  // Differ in groups 0..4: one equal -> not a near-duplicate at min_equal 2.
  auto one_equal = two_equal;
  one_equal[4 * 14] = 7;
  EXPECT_EQ(CountEqualSuperShingles(a, shingler_->FromMinHashes(one_equal)), 1);
  // Same values in a different order inside a group is a different super-shingle.
  auto swapped = base;
  std::swap(swapped[0], swapped[1]);
  EXPECT_EQ(CountEqualSuperShingles(a, shingler_->FromMinHashes(swapped)), 5);

  SuperShingleIndex index(6, 2);
  ASSERT_TRUE(index.Insert(1, shingler_->FromMinHashes(two_equal)).ok());
  ASSERT_TRUE(index.Insert(2, shingler_->FromMinHashes(one_equal)).ok());
  ASSERT_TRUE(index.Insert(3, a).ok());
  auto got = index.Query(a);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0].id, 3u);
  EXPECT_EQ((*got)[0].equal, 6);
  EXPECT_EQ((*got)[1].id, 1u);
  EXPECT_EQ((*got)[1].equal, 2);
  ASSERT_TRUE(index.Remove(3).ok());
  EXPECT_TRUE(index.Remove(3).IsNotFound());
  EXPECT_EQ(index.Query(a)->size(), 1u);
  EXPECT_TRUE(index.Insert(1, a).IsAlreadyExists());
  EXPECT_TRUE(index.Insert(9, std::vector<uint64_t>(5)).IsInvalidArgument());
}

TEST_F(SuperShingleTest, NearCopiesMatchAndUnrelatedDoNot) {
  std::mt19937_64 rng(3);
  std::vector<uint64_t> doc(1000);
  for (auto& v : doc) v = rng();
  auto near = doc;
  near[10] = rng();  // J = 999/1001
  std::vector<uint64_t> other(1000);
  for (auto& v : other) v = rng();
  const auto a = shingler_->Sketch(doc);
  EXPECT_GE(CountEqualSuperShingles(a, shingler_->Sketch(near)), 2);
  EXPECT_EQ(CountEqualSuperShingles(a, shingler_->Sketch(other)), 0);
  EXPECT_FALSE(SuperShingler::Create({.min_equal = 7}).ok());
  EXPECT_FALSE(SuperShingler::Create({.group_size = 0}).ok());
}

}  // namespace
}  // namespace neardup::index
