// SPDX-License-Identifier: Apache-2.0
// The containment rule in the engine (verify/verifier.h): an excerpt joins
// its story in either order of arrival, `explain` names the rule, and a text
// that two unrelated stories contain gathers only one of them.
#include <gtest/gtest.h>

#include "base/random_text.h"
#include "neardup/engine.h"

namespace neardup {
namespace {

using base::RandomHan;

// 250 characters from the middle of `story`, under a headline of its own.
std::string ExcerptOf(const std::string& story) {
  return "节选" + RandomHan(6, 7) + "\n\n" + story.substr(3 * 300, 3 * 250);
}

TEST(ContainmentEngineTest, AnExcerptJoinsItsStoryAfterIt) {
  auto e = Engine::Create({}).value();
  const std::string story = RandomHan(900, 1);
  ASSERT_TRUE(e->Add({"story", story}).ok());
  ASSERT_TRUE(e->Add({"other", RandomHan(900, 2)}).ok());
  auto r = e->Add({"excerpt", ExcerptOf(story)});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->duplicate);
  EXPECT_EQ(r->cluster, "story");
  ASSERT_EQ(r->matches.size(), 1u);
  EXPECT_EQ(r->matches[0].id, "story");
  EXPECT_LT(*r->matches[0].verified, 0.6);  // the Jaccard, under the threshold
  auto x = e->Explain(ExcerptOf(story), story);
  ASSERT_TRUE(x.ok());
  EXPECT_TRUE(x->duplicate);
  EXPECT_EQ(x->rule.rfind("containment rule: ", 0), 0u) << x->rule;
}

TEST(ContainmentEngineTest, AStoryJoinsItsExcerptAfterIt) {
  auto e = Engine::Create({}).value();
  const std::string story = RandomHan(900, 3);
  ASSERT_TRUE(e->Add({"excerpt", ExcerptOf(story)}).ok());
  auto r = e->Add({"story", story});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->duplicate);
  EXPECT_EQ(r->cluster, "excerpt");
}

TEST(ContainmentEngineTest, OffLeavesTheExcerptAlone) {
  EngineOptions o;
  o.verify.containment = 0;
  auto e = Engine::Create(o).value();
  const std::string story = RandomHan(900, 4);
  ASSERT_TRUE(e->Add({"story", story}).ok());
  auto r = e->Add({"excerpt", ExcerptOf(story)});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->duplicate);
}

// An ad page arrives first; the first story that runs the ad joins it (the
// page is alone in its cluster), the second does not: the two stories are
// unrelated. A copy of the second still joins the second.
TEST(ContainmentEngineTest, AContainedPageGathersOneStory) {
  auto e = Engine::Create({}).value();
  const std::string ad = RandomHan(300, 5);
  const std::string one = RandomHan(600, 6) + "。" + ad, two = RandomHan(600, 8) + "。" + ad;
  ASSERT_TRUE(e->Add({"ad", ad}).ok());
  auto r1 = e->Add({"one", one});
  ASSERT_TRUE(r1.ok());
  EXPECT_TRUE(r1->duplicate);
  EXPECT_EQ(r1->cluster, "ad");
  auto r2 = e->Add({"two", two});
  ASSERT_TRUE(r2.ok());
  EXPECT_FALSE(r2->duplicate) << "joined " << r2->cluster;
  EXPECT_EQ(r2->cluster, "two");
  auto copy = e->Add({"two-copy", two});
  ASSERT_TRUE(copy.ok());
  EXPECT_EQ(copy->cluster, "two");
}

}  // namespace
}  // namespace neardup
