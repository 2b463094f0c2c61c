// SPDX-License-Identifier: Apache-2.0
#include "neardup/durable_engine.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "base/random_text.h"
#include "base/utf8.h"
#include "engine/durable_access.h"
#include "engine/durable_test_util.h"
#include "engine/engine_internal.h"
#include "store/doc_store.h"

namespace neardup {
namespace {

using engine::EngineInternal;
using engine::EngineOf;
using testing_util::Edit;
using testing_util::OpenOrDie;
using testing_util::Opts;
using testing_util::Snapshot;
using testing_util::Story;
using testing_util::TempDir;
namespace fs = std::filesystem;

// Stored forms keep a short text's expressions: another operator is not a
// duplicate of a stored question, before and after a restart.
TEST(DurableEngineTest, StoredFormsKeepExpressions) {
  TempDir dir;
  const std::string q = "已知 x+y=60，x-y=31，求 y 的值。（本题满分十分）";
  const std::string op = "已知 x+y=60，x+y=31，求 y 的值。（本题满分十分）";
  for (int run = 0; run < 2; ++run) {
    auto d = OpenOrDie(Opts(dir.str()));
    if (run == 0) {
      IncomingDocument doc{"q", q, 1000, "{}"};
      ASSERT_TRUE(d->Add(doc, OnConflict::kError).ok());
    }
    auto same = d->Query(q);
    ASSERT_TRUE(same.ok());
    ASSERT_TRUE(same->cluster.has_value()) << run;
    auto other = d->Query(op);
    ASSERT_TRUE(other.ok());
    EXPECT_FALSE(other->cluster.has_value()) << run;
  }
}

TEST(DurableEngineTest, RestartRestoresIndexForestTimesAndGhostsExactly) {
  TempDir dir;
  std::mt19937 rng(7);
  std::vector<std::string> ids, texts;
  std::string before;
  std::vector<std::string> query_answers, query_texts;
  {
    auto d = OpenOrDie(Opts(dir.str()));
    std::vector<std::string> bases;
    for (int i = 0; i < 40; ++i) bases.push_back(Story(rng, 200));
    for (int i = 0; i < 300; ++i) {
      const auto& base = bases[rng() % bases.size()];
      IncomingDocument doc{"d" + std::to_string(i), Edit(rng, base, rng() % 3),
                           1000 + static_cast<int64_t>(rng() % 100000),
                           "{\"n\":" + std::to_string(i) + "}"};
      auto r = d->Add(doc, OnConflict::kError);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ids.push_back(doc.id);
      texts.push_back(doc.text);
    }
    // Remove some documents, roots among them (ghosts), and refresh others.
    int ghosts = 0;
    for (int i = 0; i < 300; i += 7) {
      auto rec = EngineInternal::Record(EngineOf(*d), ids[i]);
      if (!rec.ok() || rec->ghost) continue;
      ghosts += rec->cluster == ids[i] && EngineOf(*d).GetCluster(ids[i])->size > 1;
      ASSERT_TRUE(d->Remove(ids[i]).ok());
    }
    EXPECT_GT(ghosts, 0);
    for (int i = 3; i < 300; i += 11) (void)d->Get(ids[i]);
    ASSERT_TRUE(d->Remove("no-such-id").IsNotFound());  // also flushes the queued touches
    before = Snapshot(EngineOf(*d), ids);
    for (int i = 0; i < 300; i += 13) {
      query_texts.push_back(Edit(rng, texts[i], 1));
      auto q = EngineOf(*d).Query(query_texts.back());
      ASSERT_TRUE(q.ok());
      query_answers.push_back(q->cluster.value_or("-") + std::to_string(q->matches.size()));
    }
    ASSERT_TRUE(d->Close().ok());
  }
  auto d = OpenOrDie(Opts(dir.str()));
  EXPECT_EQ(Snapshot(EngineOf(*d), ids), before);
  for (size_t i = 0; i < query_texts.size(); ++i) {
    auto q = EngineOf(*d).Query(query_texts[i]);
    ASSERT_TRUE(q.ok());
    EXPECT_EQ(q->cluster.value_or("-") + std::to_string(q->matches.size()), query_answers[i]);
  }
  // Meta survives; removed documents have none.
  auto rec = d->Get(ids[1]);
  ASSERT_TRUE(rec.ok());
  EXPECT_EQ(rec->meta, "{\"n\":1}");
  EXPECT_TRUE(d->Get(ids[0]).status().IsNotFound());
}

TEST(DurableEngineTest, ExpiryRemovesWholeTreesOldestFirstAndRootsFollowMembers) {
  TempDir dir;
  std::mt19937 rng(11);
  const std::string a = Story(rng, 200), c = Story(rng, 200), e = Story(rng, 200);
  {
    auto d = OpenOrDie(Opts(dir.str()));
    ASSERT_TRUE(d->Add({"A", a, 1000, ""}, OnConflict::kError).ok());
    auto b = d->Add({"B", a, 5000, ""}, OnConflict::kError);  // joins A: A's tree is at 5000
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b->add.cluster, "A");
    ASSERT_TRUE(d->Add({"C", c, 2000, ""}, OnConflict::kError).ok());
    ASSERT_TRUE(d->Add({"E", e, 1500, ""}, OnConflict::kError).ok());
    ASSERT_TRUE(d->Add({"F", e, 1500, ""}, OnConflict::kError).ok());
    // Looking F up refreshes F and its root E to now.
    ASSERT_TRUE(d->Get("F").ok());
    ASSERT_TRUE(d->Remove("nothing").IsNotFound());  // the touch is applied before this
    EXPECT_GT(EngineInternal::Record(EngineOf(*d), "E")->time, 1000000);

    auto r = d->Expire(3000);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->trees, 1u);  // only C: A's tree was refreshed by B, E's by the look-up of F
    EXPECT_EQ(r->documents, 1u);
    EXPECT_TRUE(EngineInternal::Record(EngineOf(*d), "C").status().IsNotFound());
    EXPECT_TRUE(
        EngineInternal::Record(EngineOf(*d), "A").ok());  // Record() reads without refreshing
    r = d->Expire(6000);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->trees, 1u);
    EXPECT_EQ(r->documents, 2u);
    EXPECT_TRUE(d->Get("A").status().IsNotFound());
    EXPECT_TRUE(d->Get("B").status().IsNotFound());
    EXPECT_TRUE(d->Meta("B").status().IsNotFound());  // gone from the store too
    EXPECT_TRUE(d->Get("F").ok());
    EXPECT_EQ(d->Stats().expired_documents, 3u);
    // Looking up a root refreshes its tree: D survives a cutoff past its arrival.
    ASSERT_TRUE(d->Add({"D", c, 7000, ""}, OnConflict::kError).ok());
    ASSERT_TRUE(d->Get("D").ok());
    ASSERT_TRUE(d->Remove("nothing").IsNotFound());
    r = d->Expire(8000);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->trees, 0u);
    EXPECT_TRUE(EngineInternal::Record(EngineOf(*d), "D").ok());
  }
  auto d = OpenOrDie(Opts(dir.str()));
  EXPECT_TRUE(EngineInternal::Record(EngineOf(*d), "A").status().IsNotFound());
  EXPECT_TRUE(EngineInternal::Record(EngineOf(*d), "C").status().IsNotFound());
  EXPECT_TRUE(d->Get("E").ok());
  EXPECT_EQ(d->Stats().expired_documents, 3u);
  EXPECT_EQ(EngineOf(*d).Stats().documents, 3u);
  // The id of an expired document is free again.
  EXPECT_TRUE(d->Add({"A", a, 0, ""}, OnConflict::kError).ok());
}

TEST(DurableEngineTest, ExpiryInvariantsUnderRandomWorkload) {
  TempDir dir;
  std::mt19937 rng(3);
  auto o = Opts(dir.str());
  o.expire_trees_per_step = 3;  // many small steps
  auto d = OpenOrDie(o);
  std::vector<std::string> bases;
  for (int i = 0; i < 30; ++i) bases.push_back(Story(rng, 150));
  std::vector<std::string> ids;
  for (int i = 0; i < 200; ++i) {
    IncomingDocument doc{"x" + std::to_string(i), Edit(rng, bases[rng() % 30], rng() % 2),
                         1 + static_cast<int64_t>(rng() % 10000), ""};
    ASSERT_TRUE(d->Add(doc, OnConflict::kError).ok());
    ids.push_back(doc.id);
  }
  // Look up some documents (roots among them): their trees become recent.
  std::set<std::string> looked_up;
  for (int i = 0; i < 200; i += 17) {
    ASSERT_TRUE(d->Get(ids[i]).ok());
    looked_up.insert(ids[i]);
  }
  ASSERT_TRUE(d->Remove("nothing").IsNotFound());  // touches are applied before this
  for (int64_t cutoff : {500, 2000, 4000, 7000, 9000}) {
    const uint64_t live_before = EngineOf(*d).Stats().documents;
    auto r = d->Expire(cutoff);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(EngineOf(*d).Stats().documents, live_before - r->documents);
    // No tree older than the cutoff survives; every root is at least as
    // recent as each of its members; whole trees go or stay.
    auto oldest = EngineOf(*d).ListClusters({ClusterSort::kRecent, false, 1, std::nullopt});
    if (!oldest.empty()) {
      EXPECT_GE(oldest[0].time, cutoff);
    }
    for (const auto& id : ids) {
      auto rec = EngineInternal::Record(EngineOf(*d), id);
      if (looked_up.count(id)) {
        EXPECT_TRUE(rec.ok()) << "looked-up " << id << " expired";
      }
      if (!rec.ok()) {
        EXPECT_TRUE(d->Meta(id).status().IsNotFound()) << id;
        continue;
      }
      auto root = EngineInternal::Record(EngineOf(*d), rec->cluster);
      ASSERT_TRUE(root.ok()) << "member " << id << " outlived its root";
      EXPECT_GE(root->time, rec->time);
      EXPECT_GE(root->time, cutoff);
    }
  }
}

// A story gathers an excerpt that is alone in its cluster (AddResult::
// gathered). The store moves the excerpt's node row after the story's, so a
// restart restores the same clusters, whether the excerpt was committed
// before the story or added in the story's own group; the store checks
// clean, and a gathered member is then removed like any other.
TEST(DurableEngineTest, GatheredDocumentsSurviveARestart) {
  TempDir dir;
  std::mt19937 rng(41);
  const std::string s1 = Story(rng, 900), s2 = Story(rng, 900);
  auto excerpt = [](const std::string& s, size_t from) {
    return "节选\n\n" + s.substr(3 * from, 3 * 250);
  };
  const std::vector<std::string> ids = {"a1", "a2", "s1", "b1", "b2", "s2"};
  std::string before;
  {
    auto d = OpenOrDie(Opts(dir.str()));
    ASSERT_TRUE(d->Add({"a1", excerpt(s1, 0), 1000, ""}, OnConflict::kError).ok());
    ASSERT_TRUE(d->Add({"a2", excerpt(s1, 600), 1001, ""}, OnConflict::kError).ok());
    auto r = d->Add({"s1", s1, 1002, ""}, OnConflict::kError);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->add.cluster, "a1");
    EXPECT_EQ(r->add.gathered, std::vector<std::string>{"a2"});
    EXPECT_EQ(r->add.cluster_size, 3u);
    const std::vector<IncomingDocument> docs = {
        {"b1", excerpt(s2, 0), 1003, ""}, {"b2", excerpt(s2, 600), 1004, ""}, {"s2", s2, 1005, ""}};
    const auto group = d->AddBatch(docs, OnConflict::kError);
    ASSERT_TRUE(group[2].ok()) << group[2].status().ToString();
    EXPECT_EQ(group[2]->add.gathered, std::vector<std::string>{"b2"});
    before = Snapshot(EngineOf(*d), ids);
    EXPECT_NE(before.find("b2:b1,"), std::string::npos) << before;
    ASSERT_TRUE(d->Close().ok());
  }
  auto check = CheckStore(dir.str());
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  EXPECT_TRUE(check->damage.empty()) << check->damage[0];
  {
    auto d = OpenOrDie(Opts(dir.str()));
    EXPECT_EQ(Snapshot(EngineOf(*d), ids), before);
    ASSERT_TRUE(d->Remove("a2").ok());
    ASSERT_TRUE(d->Remove("b2").ok());
    before = Snapshot(EngineOf(*d), ids);
    EXPECT_NE(before.find("a2:absent"), std::string::npos) << before;
    ASSERT_TRUE(d->Close().ok());
  }
  auto d = OpenOrDie(Opts(dir.str()));
  EXPECT_EQ(Snapshot(EngineOf(*d), ids), before);
}

// AddBatch prepares its documents on several threads: the answers, their
// order, the errors of bad documents among good ones and the store are those
// of one thread.
TEST(DurableEngineTest, AddBatchOnSeveralThreadsAnswersAsOneThread) {
  std::mt19937 rng(43);
  std::vector<IncomingDocument> docs;
  std::vector<std::string> stories;
  for (int i = 0; i < 240; ++i) {
    const std::string id = "d" + std::to_string(i);
    if (i % 37 == 5) {
      docs.push_back({"", Story(rng, 300), 1000 + i, ""});  // no id
    } else if (i % 41 == 7) {
      docs.push_back({id, std::string("\xff\xfe bad") + Story(rng, 50), 1000 + i, ""});
    } else if (i % 43 == 11) {
      docs.push_back({id, Story(rng, 3000), 1000 + i, ""});  // over max_document_bytes
    } else if (!stories.empty() && i % 3 == 0) {
      docs.push_back({id, Edit(rng, stories[rng() % stories.size()], 3), 1000 + i, ""});
    } else {
      stories.push_back(Story(rng, 400));
      docs.push_back({id, stories.back(), 1000 + i, ""});
    }
  }
  auto run = [&](int threads, std::string* answers) {
    TempDir dir;
    DurableOptions o = Opts(dir.str());
    o.engine.threads = threads;
    o.engine.max_document_bytes = 6000;
    auto d = OpenOrDie(o);
    for (size_t at = 0; at < docs.size(); at += 60) {
      const std::span<const IncomingDocument> batch(docs.data() + at, 60);
      for (const auto& r : d->AddBatch(batch, OnConflict::kError)) {
        if (!r.ok()) {
          *answers += "error " + std::string(StatusCodeName(r.status().code())) + "\n";
          continue;
        }
        *answers += r->add.id + " " + r->add.cluster + " " + std::to_string(r->add.cluster_size) +
                    (r->add.duplicate ? " dup" : " new") + "\n";
      }
    }
    std::vector<std::string> ids;
    for (const auto& doc : docs) ids.push_back(doc.id);
    *answers += Snapshot(EngineOf(*d), ids);
  };
  std::string one, four;
  run(1, &one);
  run(4, &four);
  EXPECT_EQ(four, one);
  EXPECT_NE(one.find("error invalid_argument"), std::string::npos) << one;
  EXPECT_NE(one.find("error out_of_range"), std::string::npos) << one;
  EXPECT_NE(one.find(" dup\n"), std::string::npos) << one;
}

TEST(DurableEngineTest, GhostRootSurvivesRestartAndItsIdIsFreedWithTheLastMember) {
  TempDir dir;
  std::mt19937 rng(5);
  const std::string t = Story(rng, 200);
  {
    auto d = OpenOrDie(Opts(dir.str()));
    ASSERT_TRUE(d->Add({"A", t, 0, ""}, OnConflict::kError).ok());
    ASSERT_TRUE(d->Add({"B", t, 0, ""}, OnConflict::kError).ok());
    ASSERT_TRUE(d->Remove("A").ok());
    EXPECT_TRUE(d->Add({"A", t, 0, ""}, OnConflict::kError).status().IsAlreadyExists());
  }
  {
    auto d = OpenOrDie(Opts(dir.str()));
    auto c = EngineOf(*d).GetCluster("A");
    ASSERT_TRUE(c.ok());
    EXPECT_TRUE(c->root_removed);
    EXPECT_EQ(c->size, 1u);
    auto n = d->Add({"N", t, 0, ""}, OnConflict::kError);  // still joins the ghost's cluster
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(n->add.cluster, "A");
    ASSERT_TRUE(d->Remove("B").ok());
    ASSERT_TRUE(d->Remove("N").ok());
  }
  auto d = OpenOrDie(Opts(dir.str()));
  EXPECT_TRUE(EngineOf(*d).GetCluster("A").status().IsNotFound());
  EXPECT_EQ(EngineOf(*d).Stats().documents, 0u);
  EXPECT_TRUE(d->Add({"A", t, 0, ""}, OnConflict::kError).ok());
}

TEST(DurableEngineTest, IdempotentRetryReturnsTheStoredAnswer) {
  TempDir dir;
  auto d = OpenOrDie(Opts(dir.str()));
  std::mt19937 rng(9);
  const std::string t = Story(rng, 200);
  ASSERT_TRUE(d->Add({"A", t, 0, ""}, OnConflict::kError).ok());
  auto b = d->Add({"B", t, 0, ""}, OnConflict::kError);
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(d->Add({"B", t, 0, ""}, OnConflict::kError).status().IsAlreadyExists());
  auto again = d->Add({"B", t, 0, ""}, OnConflict::kReturnExisting);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->created);
  EXPECT_EQ(again->add.cluster, "A");
  EXPECT_TRUE(again->add.duplicate);
  EXPECT_EQ(again->add.cluster_size, 2u);
  ASSERT_EQ(again->add.matches.size(), 1u);
  EXPECT_EQ(again->add.matches[0].id, "A");
  EXPECT_EQ(EngineOf(*d).Stats().documents, 2u);
}

TEST(DurableEngineTest, PeekReadsWithoutRefreshingAndSimilarCarriesArrivalAndText) {
  TempDir dir;
  DurableOptions o = Opts(dir.str());
  o.store_text = true;
  o.ttl_ms = 0;
  std::mt19937 rng(11);
  const std::string t = Story(rng, 200);
  {
    auto d = OpenOrDie(o);
    ASSERT_TRUE(d->Add({"A", t, 1000, R"({"source":"a"})"}, OnConflict::kError).ok());
    ASSERT_TRUE(d->Add({"B", Edit(rng, t, 1), 2000, ""}, OnConflict::kError).ok());
    auto p = d->Peek("A");
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p->arrival, 1000);
    EXPECT_EQ(p->time, 2000);  // the root's time, raised by B joining
    EXPECT_EQ(p->meta, R"({"source":"a"})");
    ASSERT_TRUE(p->text.has_value());
    EXPECT_EQ(*p->text, t);
    EXPECT_EQ(p->cluster_size, 2u);
    auto sim = d->Similar("B", 10);  // refreshes B only
    ASSERT_TRUE(sim.ok());
    ASSERT_EQ(sim->size(), 1u);
    EXPECT_EQ((*sim)[0].match.id, "A");
    EXPECT_EQ((*sim)[0].arrival, 1000);
    EXPECT_EQ((*sim)[0].meta, R"({"source":"a"})");
    ASSERT_TRUE((*sim)[0].text.has_value());
    EXPECT_EQ(*(*sim)[0].text, t);
    EXPECT_TRUE(d->Peek("nope").status().IsNotFound());
  }
  {
    auto d = OpenOrDie(o);
    auto a = EngineInternal::Record(EngineOf(*d), "A");
    ASSERT_TRUE(a.ok());
    const int64_t before = a->time;
    ASSERT_TRUE(d->Peek("A").ok());
    d.reset();  // closes, draining queued refreshes
    d = OpenOrDie(o);
    EXPECT_EQ(EngineInternal::Record(EngineOf(*d), "A")->time, before);  // Peek left the time alone
    ASSERT_TRUE(d->Get("A").ok());
    d.reset();
    d = OpenOrDie(o);
    EXPECT_GT(EngineInternal::Record(EngineOf(*d), "A")->time, before);  // Get refreshed it
  }
}

TEST(DurableEngineTest, StoreWrittenWithAnotherPipelineIsRefused) {
  TempDir dir;
  { auto d = OpenOrDie(Opts(dir.str())); }
  auto o = Opts(dir.str());
  o.engine.shingles.char_ngram = 2;
  auto d = DurableEngine::Open(o);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kFailedPrecondition);
  o.engine.shingles.char_ngram = 3;
  o.engine.threshold = 0.9;
  EXPECT_EQ(DurableEngine::Open(o).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(DurableEngine::Open(Opts(dir.str())).ok());
}

// Stores written before the MinHash scheme was recorded used independent
// permutations, and their identity does not name a scheme: they open with
// --minhash-scheme permutations, keep finding near-duplicates (old and new
// sketches agree), and the one-permutation default refuses them with a
// message naming the option.
TEST(DurableEngineTest, StoreOfAnotherMinHashSchemeIsRefusedWithTheOptionToOpenIt) {
  TempDir dir;
  std::mt19937 rng(11);
  const std::string story = Story(rng, 300);
  auto old = Opts(dir.str());
  old.engine.minhash.scheme = MinHashScheme::kPermutations;
  EXPECT_EQ(PipelineIdentity(old.engine).find("permutations"), std::string::npos);
  EXPECT_NE(PipelineIdentity(Opts(dir.str()).engine).find(":oph"), std::string::npos);
  {
    auto d = OpenOrDie(old);
    ASSERT_TRUE(d->Add({"a", story, 1000, ""}, OnConflict::kError).ok());
  }
  auto refused = DurableEngine::Open(Opts(dir.str()));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("--minhash-scheme permutations"), std::string::npos)
      << refused.status().ToString();
  {
    auto d = OpenOrDie(old);
    auto r = d->Add({"b", Edit(rng, story, 4), 2000, ""}, OnConflict::kError);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->add.duplicate);
    EXPECT_EQ(r->add.cluster, "a");
  }
  // And the other way round: a one-permutation store names "oph".
  TempDir dir2;
  { auto d = OpenOrDie(Opts(dir2.str())); }
  auto o = Opts(dir2.str());
  o.engine.minhash.scheme = MinHashScheme::kCirculant;
  auto other = DurableEngine::Open(o);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("--minhash-scheme oph"), std::string::npos)
      << other.status().ToString();
  // A pipeline without MinHash does not depend on the scheme.
  TempDir dir3;
  auto sim = Opts(dir3.str());
  sim.engine.signals = {SignalKind::kSimHash};
  { auto d = OpenOrDie(sim); }
  sim.engine.minhash.scheme = MinHashScheme::kPermutations;
  EXPECT_TRUE(DurableEngine::Open(sim).ok());
}

// Stores written before containment joined the default signals (exact,
// minhash) are refused by the default with the flag that opens them, and
// open with it.
TEST(DurableEngineTest, StoreWithoutTheContainmentSignalIsRefusedWithTheSignalsToOpenIt) {
  TempDir dir;
  std::mt19937 rng(12);
  auto old = Opts(dir.str());
  old.engine.signals = {SignalKind::kExact, SignalKind::kMinHash};
  {
    auto d = OpenOrDie(old);
    ASSERT_TRUE(d->Add({"a", Story(rng, 300), 1000, ""}, OnConflict::kError).ok());
  }
  auto refused = DurableEngine::Open(Opts(dir.str()));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("--signals exact,minhash"), std::string::npos)
      << refused.status().ToString();
  EXPECT_TRUE(DurableEngine::Open(old).ok());
}

// Stores written before the default LSH design dropped its last ten bands
// (sketch::TrimBands) recorded default bands and rows ("0x0") for a design
// of 30 x 4. The default refuses them and names --bands 30 --rows 4; with
// those they open (the same sketches) and keep finding near-duplicates.
TEST(DurableEngineTest, StoreOfTheUntrimmedDefaultDesignOpensWithItsBands) {
  TempDir dir;
  std::mt19937 rng(12);
  const std::string story = Story(rng, 300);
  auto old = Opts(dir.str());
  old.engine.minhash.bands = 30;
  old.engine.minhash.rows = 4;
  {
    auto d = OpenOrDie(old);
    ASSERT_TRUE(d->Add({"a", story, 1000, ""}, OnConflict::kError).ok());
  }
  // What the default wrote then: today's default identity without its design.
  std::string legacy = PipelineIdentity(Opts(dir.str()).engine);
  const size_t at = legacy.find("/20x4");
  ASSERT_NE(at, std::string::npos) << legacy;
  legacy.erase(at, 5);
  {
    auto st = store::DocStore::Open(dir.str(), {});
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    store::DocStore::Batch b;
    (*st)->Prepare(&b);
    b.PutMeta("pipeline", legacy);
    ASSERT_TRUE((*st)->Write(&b, true).ok());
  }
  auto refused = DurableEngine::Open(Opts(dir.str()));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("--bands 30 --rows 4"), std::string::npos)
      << refused.status().ToString();
  auto other = old;
  other.engine.minhash.rows = 3;  // another explicit design is not the old default
  EXPECT_EQ(DurableEngine::Open(other).status().code(), StatusCode::kFailedPrecondition);
  auto d = OpenOrDie(old);
  auto r = d->Add({"b", Edit(rng, story, 4), 2000, ""}, OnConflict::kError);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->add.duplicate);
  EXPECT_EQ(r->add.cluster, "a");
}

// A store already open (its lock held) is an error, not a crash of the
// half-opened engine.
TEST(DurableEngineTest, StoreOpenTwiceIsAnError) {
  TempDir dir;
  auto first = OpenOrDie(Opts(dir.str()));
  auto second = DurableEngine::Open(Opts(dir.str()));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kIOError) << second.status().ToString();
  first.reset();
  EXPECT_TRUE(DurableEngine::Open(Opts(dir.str())).ok());
}

TEST(DurableEngineTest, ConcurrentIdenticalAddsMakeOneClusterWithOneOriginal) {
  TempDir dir;
  auto o = Opts(dir.str());
  o.sync = true;
  auto d = OpenOrDie(o);
  std::mt19937 rng(1);
  const std::string t = Story(rng, 300);
  std::vector<std::thread> threads;
  std::vector<Result<IngestResult>> results(32, Status::Internal("unset"));
  for (int i = 0; i < 32; ++i) {
    threads.emplace_back([&, i] {
      results[i] = d->Add({"c" + std::to_string(i), t, 0, ""}, OnConflict::kError);
    });
  }
  for (auto& th : threads) th.join();
  int originals = 0;
  std::set<std::string> clusters;
  for (const auto& r : results) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    originals += !r->add.duplicate;
    clusters.insert(r->add.cluster);
  }
  EXPECT_EQ(originals, 1);
  EXPECT_EQ(clusters.size(), 1u);
  EXPECT_EQ(EngineOf(*d).GetCluster(*clusters.begin())->size, 32u);
  EXPECT_GE(d->Stats().commits, 1u);
}

TEST(DurableEngineTest, LearnedIdfIsRefusedUntilPersisted) {
  TempDir dir;
  DurableOptions o = Opts(dir.str());
  o.engine = EngineOptions::FromProfile("zh-news").value();
  o.engine.features.idf = IdfSource::kLearned;
  auto d = DurableEngine::Open(o);
  EXPECT_EQ(d.status().code(), StatusCode::kFailedPrecondition);
}

TEST(DurableEngineTest, StatsCountRocksDbMemory) {
  TempDir dir;
  auto d = OpenOrDie(Opts(dir.str()));
  std::mt19937 rng(3);
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(
        d->Add({"m" + std::to_string(i), Story(rng, 300), 1000, ""}, OnConflict::kError).ok());
  }
  const DurableStats s = d->Stats();
  EXPECT_GT(s.store_memtable_bytes, 200u * 300 * 3);  // the texts, at least, are in memtables
  EXPECT_LT(s.store_memtable_bytes, 80u << 20);
  EXPECT_LE(s.store_cache_bytes, 64u << 20);
}

}  // namespace
}  // namespace neardup

namespace neardup {
namespace {

// The boilerplate guard's counts survive a restart (a clean close writes
// them beside the store); without them the guard starts afresh.
TEST(DurableEngineTest, TheBoilerplateGuardRemembersAcrossARestart) {
  TempDir dir;
  const std::string footer = "。" + base::RandomHan(280, 99);
  {
    auto d = OpenOrDie(Opts(dir.str()));
    for (int i = 0; i < 12; ++i) {
      ASSERT_TRUE(
          d->Add({"long" + std::to_string(i), base::RandomHan(500, 100 + i) + footer, 0, ""},
                 OnConflict::kError)
              .ok());
    }
    ASSERT_TRUE(d->Add({"bare", footer, 0, ""}, OnConflict::kError).ok());
    ASSERT_TRUE(d->Close().ok());
  }
  const std::string shorter = base::RandomHan(60, 7) + footer;
  {
    auto d = OpenOrDie(Opts(dir.str()));
    auto r = d->Add({"short", shorter, 0, ""}, OnConflict::kError);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_FALSE(r->add.duplicate) << "joined " << r->add.cluster;
    ASSERT_TRUE(d->Remove("short").ok());
    ASSERT_TRUE(d->Close().ok());
  }
  // A damaged counts file is not the store's: the engine opens, warns and
  // starts afresh, as without one.
  std::ofstream(dir.str() + "/boilerplate.counts", std::ios::binary | std::ios::trunc)
      << "NDBOILERPLATE1\n garbled";
  std::vector<std::string> warnings;
  DurableOptions o = Opts(dir.str());
  o.engine.info_log = [&](LogLevel level, std::string_view m) {
    if (level == LogLevel::kWarning) warnings.emplace_back(m);
  };
  auto d = OpenOrDie(o);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("boilerplate.counts"), std::string::npos) << warnings[0];
  auto r = d->Add({"short2", shorter, 0, ""}, OnConflict::kError);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->add.duplicate);  // afresh: the footer is text like any other
}

}  // namespace
}  // namespace neardup
