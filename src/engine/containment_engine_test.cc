// SPDX-License-Identifier: Apache-2.0
// The containment rule in the engine (verify/verifier.h): an excerpt joins
// its story in either order of arrival, `explain` names the rule, and a text
// that two unrelated stories contain gathers only one of them.
#include <gtest/gtest.h>

#include "base/random_text.h"
#include "engine/engine_internal.h"
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
// story is near every member of the page's cluster, the page), the second
// does not: it is not near the first story. The two stories are
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

// Two excerpts of one passage arrive first and form a cluster of two; the
// story that holds both joins it. A story that holds an ad and its copy (a
// cluster of two ad pages) joins them; a second story holding the ad does
// not, since it is not near the first story.
TEST(ContainmentEngineTest, AStoryJoinsAClusterItHoldsWhole) {
  auto e = Engine::Create({}).value();
  const std::string story = RandomHan(900, 21);
  const std::string one = "节选" + RandomHan(6, 22) + "\n\n" + story.substr(3 * 300, 3 * 250);
  const std::string two = "节选" + RandomHan(6, 23) + "\n\n" + story.substr(3 * 310, 3 * 250);
  ASSERT_TRUE(e->Add({"one", one}).ok());
  auto r2 = e->Add({"two", two});
  ASSERT_TRUE(r2.ok());
  ASSERT_EQ(r2->cluster, "one");  // near-duplicates of each other
  auto r = e->Add({"story", story});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->duplicate);
  EXPECT_EQ(r->cluster, "one");
  EXPECT_EQ(r->cluster_size, 3u);

  auto f = Engine::Create({}).value();
  const std::string ad = RandomHan(300, 24);
  ASSERT_TRUE(f->Add({"ad", ad}).ok());
  ASSERT_EQ(f->Add({"ad-copy", ad}).value().cluster, "ad");
  auto a = f->Add({"a", RandomHan(400, 25) + "。" + ad});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->cluster, "ad");
  auto b = f->Add({"b", RandomHan(400, 26) + "。" + ad});
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->duplicate) << "joined " << b->cluster;
}

// Two excerpts of one story that share no passage arrive before it, and
// each starts a cluster. The story joins one and gathers the other, which
// AddResult::gathered lists. A cluster of two is not gathered. A story that
// the new text lies in is not gathered either: an ad page that arrives after
// two stories that run the ad joins one of them and leaves the other alone.
TEST(ContainmentEngineTest, AStoryGathersAnExcerptAloneInItsCluster) {
  auto e = Engine::Create({}).value();
  const std::string story = RandomHan(900, 31);
  const std::string one = "节选" + RandomHan(6, 32) + "\n\n" + story.substr(0, 3 * 250);
  const std::string two = "节选" + RandomHan(6, 33) + "\n\n" + story.substr(3 * 600, 3 * 250);
  ASSERT_FALSE(e->Add({"one", one, 1000}).value().duplicate);
  ASSERT_FALSE(e->Add({"two", two, 1002}).value().duplicate);
  auto r = e->Add({"story", story, 1004});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->cluster, "one");  // two clusters of one: the earlier created
  EXPECT_EQ(r->gathered, std::vector<std::string>{"two"});
  EXPECT_EQ(r->cluster_size, 3u);
  EXPECT_EQ(e->ClusterOf("two").value().id, "one");
  EXPECT_TRUE(e->GetCluster("two").status().IsNotFound());
  EXPECT_EQ(e->Stats().clusters, 1u);

  auto f = Engine::Create({}).value();
  ASSERT_FALSE(f->Add({"one", one, 1000}).value().duplicate);
  ASSERT_EQ(f->Add({"one-copy", one, 1001}).value().cluster, "one");
  ASSERT_FALSE(f->Add({"two", two, 1002}).value().duplicate);
  ASSERT_EQ(f->Add({"two-copy", two, 1003}).value().cluster, "two");
  auto s = f->Add({"story", story, 1004});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->cluster, "one");
  EXPECT_TRUE(s->gathered.empty());
  EXPECT_EQ(f->ClusterOf("two-copy").value().id, "two");

  auto g = Engine::Create({}).value();
  const std::string ad = RandomHan(300, 34);
  ASSERT_FALSE(g->Add({"a", RandomHan(400, 35) + "。" + ad, 1000}).value().duplicate);
  ASSERT_FALSE(g->Add({"b", RandomHan(400, 36) + "。" + ad, 1001}).value().duplicate);
  auto p = g->Add({"ad", ad, 1002});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->cluster, "a");
  EXPECT_TRUE(p->gathered.empty());
  EXPECT_EQ(g->ClusterOf("b").value().id, "b");
}

// How many of a prepared document's sketches AddPrepared turned
// non-indexable (SignalSet::DropCopyKeys), and the result.
struct Added {
  Result<AddResult> result;
  int dropped;
};
Added AddCounting(Engine& e, const std::string& id, const std::string& text) {
  engine::PreparedDocument p;
  EXPECT_TRUE(engine::EngineInternal::Prepare(e, text, &p).ok());
  const auto before = p.sketches;
  Added a{engine::EngineInternal::AddPrepared(e, {id, text, 0}, &p), 0};
  for (size_t i = 0; i < before.size(); ++i) {
    if (before[i].indexable && !p.sketches[i].indexable) {
      EXPECT_TRUE(p.sketches[i].u32.empty() && p.sketches[i].u64.empty());
      ++a.dropped;
    }
  }
  return a;
}

// A copy of a member (identical, verified at 0.9 or more, or lying in it)
// keeps no containment keys, since the member's find the cluster; a text
// that joins as a near-duplicate under 0.9, or by containing a text, keeps
// them. Excerpts of the story still join, through its keys.
TEST(ContainmentEngineTest, CopiesKeepNoPassageKeys) {
  auto e = Engine::Create({}).value();
  const std::string story = RandomHan(900, 11);
  Added root = AddCounting(*e, "story", story);
  ASSERT_TRUE(root.result.ok());
  EXPECT_EQ(root.dropped, 0);

  std::string copy = story;
  copy.replace(3 * 400, 3, "改");  // one character: J about 0.99
  Added c = AddCounting(*e, "copy", copy);
  ASSERT_TRUE(c.result.ok());
  EXPECT_EQ(c.result->cluster, "story");
  EXPECT_EQ(c.dropped, 1);  // the containment signal's, of exact, minhash, containment
  Added same = AddCounting(*e, "same", story);
  ASSERT_TRUE(same.result.ok());
  EXPECT_EQ(same.dropped, 1);

  // A quarter more text of its own: J about 0.8, a near-duplicate that keeps
  // its keys (an excerpt of its new part lies in it alone).
  Added longer = AddCounting(*e, "longer", story + "。" + RandomHan(225, 12));
  ASSERT_TRUE(longer.result.ok());
  EXPECT_EQ(longer.result->cluster, "story");
  EXPECT_EQ(longer.dropped, 0);

  Added excerpt = AddCounting(*e, "excerpt", ExcerptOf(story));
  ASSERT_TRUE(excerpt.result.ok());
  EXPECT_EQ(excerpt.result->cluster, "story");
  EXPECT_EQ(excerpt.dropped, 1);  // it lies in the story

  // A story that joins its excerpt's cluster by containing it keeps them.
  auto f = Engine::Create({}).value();
  const std::string other = RandomHan(900, 13);
  ASSERT_TRUE(AddCounting(*f, "excerpt", ExcerptOf(other)).result.ok());
  Added holder = AddCounting(*f, "story", other);
  ASSERT_TRUE(holder.result.ok());
  EXPECT_EQ(holder.result->cluster, "excerpt");
  EXPECT_EQ(holder.dropped, 0);
}

}  // namespace
}  // namespace neardup
