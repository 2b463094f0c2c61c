// SPDX-License-Identifier: Apache-2.0
//
// The durable engine verifies candidates from the compact verification
// forms its document rows keep (verify/form.h), and from the texts of rows
// written before forms. Either way its decisions are those of the in-memory
// engine, which verifies from the texts: the same clusters and the same
// matches. A value from a form's cut shingles is within about 0.01 of the
// exact one, up to about 0.03 (the test allows that), so
// the order of matches with close values may differ.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "base/random_text.h"
#include "engine/durable_access.h"
#include "engine/durable_test_util.h"
#include "neardup/engine.h"
#include "store/doc_store.h"

namespace neardup {
namespace {

using testing_util::Edit;
using testing_util::OpenOrDie;
using testing_util::Opts;
using testing_util::Story;
using testing_util::TempDir;

// Short and long stories (both sides of the verifier's short_chars), light
// edits of them, and some unrelated ones.
std::vector<std::string> Corpus() {
  std::mt19937 rng(17);
  std::vector<std::string> bases, out;
  for (int i = 0; i < 30; ++i) bases.push_back(Story(rng, 60 + static_cast<int>(rng() % 500)));
  for (int i = 0; i < 400; ++i) {
    out.push_back(rng() % 5 == 0
                      ? Story(rng, 300)
                      : Edit(rng, bases[rng() % bases.size()], static_cast<int>(rng() % 6)));
  }
  return out;
}

// The matched ids, sorted; their values into *values.
std::string Ids(const std::vector<Match>& matches, std::map<std::string, double>* values) {
  std::vector<std::string> ids;
  for (const Match& m : matches) {
    ids.push_back(m.id);
    (*values)[m.id] = m.verified.value_or(-1);
  }
  std::sort(ids.begin(), ids.end());
  std::string s;
  for (const std::string& id : ids) s += " " + id;
  return s;
}

// Two results decide alike: the same cluster, duplicate flag and matches,
// with values within 0.03.
template <typename R, typename C>
void ExpectAlike(const R& want, const R& got, const C& cluster_want, const C& cluster_got,
                 double within = 0.03) {
  EXPECT_EQ(cluster_want, cluster_got);
  std::map<std::string, double> a, b;
  ASSERT_EQ(Ids(want.matches, &a), Ids(got.matches, &b));
  for (const auto& [id, v] : a) EXPECT_NEAR(v, b[id], within) << id;
}

void ExpectAlike(const AddResult& want, const AddResult& got, double within = 0.03) {
  EXPECT_EQ(want.duplicate, got.duplicate);
  ExpectAlike(want, got, want.cluster, got.cluster, within);
}

void ExpectAlike(const QueryResult& want, const QueryResult& got) {
  ExpectAlike(want, got, want.cluster, got.cluster);
}

// Adds `texts` to a durable engine in `dir` and to an in-memory one, and
// checks after each that they decide alike (values within `within`). Returns
// how many were duplicates; the durable engine into *durable.
int AddAlike(const std::vector<std::string>& texts, const std::string& dir, double within,
             std::unique_ptr<DurableEngine>* durable) {
  *durable = OpenOrDie(Opts(dir));
  auto memory = Engine::Create(Opts(dir).engine);
  EXPECT_TRUE(memory.ok());
  int duplicates = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::string id = "d" + std::to_string(i);
    auto a =
        (*durable)->Add({id, texts[i], 1000 + static_cast<int64_t>(i), ""}, OnConflict::kError);
    auto b = (*memory)->Add({id, texts[i], 1000 + static_cast<int64_t>(i)});
    EXPECT_TRUE(a.ok() && b.ok());
    if (!a.ok() || !b.ok()) break;
    SCOPED_TRACE(i);
    ExpectAlike(*b, a->add, within);
    duplicates += b->duplicate;
  }
  return duplicates;
}

TEST(DurableFormsTest, DecisionsFromStoredFormsEqualThoseFromTexts) {
  TempDir dir;
  std::unique_ptr<DurableEngine> durable;
  EXPECT_GT(AddAlike(Corpus(), dir.str(), 0.03, &durable), 200);
  // Every row carries a form.
  auto form = engine::DurableAccess::StoreOf(*durable).GetForm("d7");
  ASSERT_TRUE(form.ok());
  EXPECT_FALSE(form->empty());
}

// The same with the boilerplate guard at work: sites whose footers it learns,
// pages of footer alone, short and long stories under them and copies. The
// guard leaves the footers out of the narrow forms' sets as of the texts'.
TEST(DurableFormsTest, DecisionsWithTheBoilerplateGuardEqualThoseFromTexts) {
  TempDir dir;
  std::unique_ptr<DurableEngine> durable;
  // What is left of two sets after their boilerplate is smaller, and a
  // coincidence of cut hashes moves its Jaccard further (0.033 seen): the
  // values are estimates within 0.06, the decisions exact.
  const int duplicates = AddAlike(base::FooterSitePages(3, 5), dir.str(), 0.06, &durable);
  EXPECT_GT(duplicates, 30);
  EXPECT_LT(duplicates, 120);  // the footer pages do not gather the short stories
}

// Rows without forms (a store from before them), or with forms that do not
// parse (damage `neardup store check` names), are verified from their texts.
class DurableFormsFallbackTest : public ::testing::TestWithParam<bool> {};

TEST_P(DurableFormsFallbackTest, RowsAreVerifiedFromTheirTexts) {
  const bool garble = GetParam();
  const auto texts = Corpus();
  TempDir dir;
  std::vector<QueryResult> expected;
  {
    auto durable = OpenOrDie(Opts(dir.str()));
    for (size_t i = 0; i < texts.size(); ++i) {
      auto r = durable->Add({"d" + std::to_string(i), texts[i], 1000, ""}, OnConflict::kError);
      ASSERT_TRUE(r.ok());
    }
    for (size_t i = 0; i < texts.size(); i += 9) {
      auto q = durable->Query(texts[i]);
      ASSERT_TRUE(q.ok());
      expected.push_back(*q);
    }
  }
  {  // Drops every form, as in a store from before forms, or garbles it.
    auto store = store::DocStore::Open(dir.str(), {});
    ASSERT_TRUE(store.ok());
    store::DocStore::Batch b;
    (*store)->Prepare(&b);
    ASSERT_TRUE((*store)
                    ->ScanDocs([&](std::string_view id, const store::DocRow&) {
                      if (garble) {
                        b.PutForm(id, "\x7f not a form");
                      } else {
                        b.DeleteFormRow(id);
                      }
                      return Status::OK();
                    })
                    .ok());
    ASSERT_TRUE((*store)->Write(&b, true).ok());
  }
  auto durable = OpenOrDie(Opts(dir.str()));
  EXPECT_EQ(engine::DurableAccess::StoreOf(*durable).GetForm("d7").status().IsNotFound(), !garble);
  size_t k = 0;
  for (size_t i = 0; i < texts.size(); i += 9) {
    auto q = durable->Query(texts[i]);
    ASSERT_TRUE(q.ok());
    SCOPED_TRACE(i);
    ExpectAlike(expected[k++], *q);
  }
}

INSTANTIATE_TEST_SUITE_P(MissingOrGarbled, DurableFormsFallbackTest, ::testing::Bool());

}  // namespace
}  // namespace neardup
