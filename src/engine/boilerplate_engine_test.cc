// SPDX-License-Identifier: Apache-2.0
// The boilerplate guard in the engine (verify/boilerplate.h): a site's
// footer, learned from the stories that started clusters under it, chains
// nothing, while copies of a story still join.
#include <gtest/gtest.h>

#include <random>

#include "base/random_text.h"
#include "neardup/engine.h"

namespace neardup {
namespace {

using base::RandomHan;

struct Site {
  std::string footer = "来源：晨光新闻。" + RandomHan(280, 99);
  std::string Page(const std::string& story) const { return story + "。" + footer; }
};

// Twelve long stories under the footer start their own clusters (the
// footer's anchors reach the guard's count); then a page of footer alone
// and three short stories under it arrive.
std::vector<AddResult> AddSite(Engine* e, const Site& site) {
  std::vector<AddResult> out;
  for (int i = 0; i < 12; ++i) {
    auto r = e->Add({"long" + std::to_string(i), site.Page(RandomHan(500, 100 + i))});
    EXPECT_TRUE(r.ok());
    EXPECT_FALSE(r->duplicate);
  }
  for (const char* id : {"bare", "short0", "short1", "short2"}) {
    const std::string story = id[0] == 'b' ? "" : RandomHan(60, 200 + id[5]);
    auto r = e->Add({id, site.Page(story)});
    EXPECT_TRUE(r.ok());
    out.push_back(*r);
  }
  return out;
}

TEST(BoilerplateEngineTest, AFooterChainsNothing) {
  auto e = Engine::Create({}).value();
  const Site site;
  for (const AddResult& r : AddSite(e.get(), site)) {
    EXPECT_FALSE(r.duplicate) << r.id << " joined " << r.cluster;
    EXPECT_EQ(r.cluster, r.id);
  }
  // A copy of a story, with its footer, still joins it.
  auto copy = e->Add({"copy", site.Page(RandomHan(500, 103))});
  ASSERT_TRUE(copy.ok());
  EXPECT_TRUE(copy->duplicate);
  EXPECT_EQ(copy->cluster, "long3");
  // explain names the rule.
  auto x = e->Explain(site.Page(RandomHan(60, 200 + '0')), site.Page(""));
  ASSERT_TRUE(x.ok());
  EXPECT_FALSE(x->duplicate);
  EXPECT_EQ(x->rule.rfind("boilerplate guard: ", 0), 0u) << x->rule;
}

// Without the guard the same pages chain through the bare page. (The
// containment rule is off too: with it and without the guard, the bare page
// lies in the first long story and the chain starts there.)
TEST(BoilerplateEngineTest, OffTheFooterChains) {
  EngineOptions o;
  o.verify.boilerplate_documents = 0;
  o.verify.containment = 0;
  auto e = Engine::Create(o).value();
  const std::vector<AddResult> r = AddSite(e.get(), Site());
  for (size_t i = 1; i < r.size(); ++i) {
    EXPECT_TRUE(r[i].duplicate) << r[i].id;
    EXPECT_EQ(r[i].cluster, "bare");
  }
}

// Before the footer has been seen under enough stories, it is text like
// any other: the guard learns, it is not told.
TEST(BoilerplateEngineTest, AFooterSeenRarelyIsText) {
  auto e = Engine::Create({}).value();
  const Site site;
  ASSERT_TRUE(e->Add({"bare", site.Page("")}).ok());
  auto r = e->Add({"short", site.Page(RandomHan(60, 7))});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->duplicate);
}

TEST(BoilerplateEngineTest, BadCountIsRefused) {
  EngineOptions o;
  o.verify.boilerplate_documents = 256;
  EXPECT_FALSE(Engine::Create(o).ok());
  o.verify.boilerplate_documents = -1;
  EXPECT_FALSE(Engine::Create(o).ok());
}

}  // namespace
}  // namespace neardup
