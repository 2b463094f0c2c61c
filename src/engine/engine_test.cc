// SPDX-License-Identifier: Apache-2.0
#include "neardup/engine.h"

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>

#include "base/random_text.h"

namespace neardup {
namespace {

constexpr char kStory[] =
    "国家统计局今天发布数据显示，十月份全国居民消费价格同比上涨百分之二点一，其中城市上涨百分之二点"
    "零，"
    "农村上涨百分之二点三；食品价格上涨百分之三点八，非食品价格上涨百分之一点七。"
    "一至十月平均，全国居民消费价格比去年同期上涨百分之二点零。";
constexpr char kReprint[] =
    "国家统计局今天发布数据显示：十月份全国居民消费价格同比上涨百分之二点一，其中城市上涨百分之二点"
    "零，"
    "农村上涨百分之二点三；食品价格上涨百分之三点八，非食品价格上涨百分之一点七。"
    "一至十月平均，全国居民消费价格比去年同期上涨百分之二点零";
constexpr char kOther[] =
    "北京时间昨晚，中国女排在世界杯比赛中以三比零战胜对手，取得开门红，主教练赛后表示球队状态良好，"
    "将全力备战下一场比赛。";

std::unique_ptr<Engine> NewEngine(EngineOptions o = {}) {
  auto e = Engine::Create(o);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return std::move(e).value();
}

EngineOptions Profile(std::string_view name) { return EngineOptions::FromProfile(name).value(); }

TEST(EngineTest, ReprintJoinsTheOriginalsCluster) {
  auto e = NewEngine();
  auto a = e->Add({"a", kStory});
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a->duplicate);
  EXPECT_EQ(a->cluster, "a");
  EXPECT_EQ(a->cluster_size, 1u);
  EXPECT_TRUE(a->matches.empty());

  auto b = e->Add({"b", kReprint});
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->duplicate);
  EXPECT_EQ(b->cluster, "a");
  EXPECT_EQ(b->cluster_size, 2u);
  ASSERT_EQ(b->matches.size(), 1u);
  EXPECT_EQ(b->matches[0].id, "a");
  // Only punctuation differs: the normalized texts are equal.
  EXPECT_EQ(b->matches[0].signal, "exact");
  EXPECT_EQ(b->matches[0].verified, 1.0);

  auto c = e->Add({"c", kOther});
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->duplicate);
  EXPECT_EQ(c->cluster, "c");

  auto sim = e->Similar("a");
  ASSERT_TRUE(sim.ok());
  ASSERT_EQ(sim->size(), 1u);
  EXPECT_EQ((*sim)[0].id, "b");
  EXPECT_EQ((*sim)[0].verified, b->matches[0].verified);

  auto cl = e->ClusterOf("b");
  ASSERT_TRUE(cl.ok());
  EXPECT_EQ(cl->id, "a");
  EXPECT_EQ(cl->members, (std::vector<std::string>{"a", "b"}));

  EngineStats st = e->Stats();
  EXPECT_EQ(st.documents, 3u);
  EXPECT_EQ(st.clusters, 2u);
  EXPECT_EQ(st.duplicates, 1u);
}

// The default's fact rule of short texts: another operator makes another
// question ("x+y" is not "x-y"), spacing and full-width forms do not.
TEST(EngineTest, ShortTextsWithAnotherOperatorAreNotDuplicates) {
  auto e = NewEngine();
  ASSERT_TRUE(e->Add({"q", "已知 x+y=60，x-y=31，求 y 的值。（本题满分十分）"}).ok());
  auto op = e->Add({"op", "已知 x+y=60，x+y=31，求 y 的值。（本题满分十分）"});
  ASSERT_TRUE(op.ok());
  EXPECT_FALSE(op->duplicate);
  auto wide = e->Add({"wide", "已知ｘ＋ｙ＝６０，ｘ－ｙ＝３１，求ｙ的值。（本题满分十分）"});
  ASSERT_TRUE(wide.ok());
  EXPECT_TRUE(wide->duplicate);
  EXPECT_EQ(wide->cluster, "q");
  auto x = e->Explain("已知 x+y=60，x-y=31，求 y。", "已知 x+y=60，x+y=31，求 y。");
  ASSERT_TRUE(x.ok());
  EXPECT_FALSE(x->duplicate);
  EXPECT_NE(x->rule.find("an expression differs ([x+y=60, x-y=31] vs [x+y=60, x+y=31])"),
            std::string::npos)
      << x->rule;
}

TEST(EngineTest, QueryInsertsNothing) {
  auto e = NewEngine();
  ASSERT_TRUE(e->Add({"a", kStory}).ok());
  auto q = e->Query(kReprint);
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(q->cluster.has_value());
  EXPECT_EQ(*q->cluster, "a");
  auto q2 = e->Query(kOther);
  ASSERT_TRUE(q2.ok());
  EXPECT_FALSE(q2->cluster.has_value());
  EXPECT_EQ(e->Stats().documents, 1u);
}

TEST(EngineTest, SimHashProfileDecidesByHammingDistance) {
  auto e = NewEngine(Profile("simhash"));
  ASSERT_TRUE(e->Add({"a", kStory}).ok());
  auto b = e->Add({"b", kReprint});
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->duplicate);
  ASSERT_EQ(b->matches.size(), 1u);
  EXPECT_EQ(b->matches[0].signal, "simhash");
  EXPECT_LE(b->matches[0].distance, 3);
  EXPECT_FALSE(b->matches[0].verified.has_value());
  // A query may not ask for a larger k than the index was built for.
  EXPECT_EQ(e->Query(kStory, {.max_distance = 4}).status().code(), StatusCode::kOutOfRange);
  EngineOptions wide = Profile("simhash");
  wide.simhash.index_max_distance = 6;
  auto w = NewEngine(wide);
  ASSERT_TRUE(w->Add({"a", kStory}).ok());
  EXPECT_TRUE(w->Query(kStory, {.max_distance = 6}).ok());
}

TEST(EngineTest, Errors) {
  auto e = NewEngine();
  ASSERT_TRUE(e->Add({"a", kStory}).ok());
  EXPECT_TRUE(e->Add({"a", kOther}).status().IsAlreadyExists());
  EXPECT_TRUE(e->Add({"", kOther}).status().IsInvalidArgument());
  EXPECT_TRUE(e->Add({"x", "bad \xC3\x28 utf8"}).status().IsInvalidArgument());
  EXPECT_TRUE(e->Similar("nope").status().IsNotFound());
  EXPECT_TRUE(e->Remove("nope").IsNotFound());
  EngineOptions small;
  small.max_document_bytes = 10;
  auto e2 = NewEngine(small);
  EXPECT_EQ(e2->Add({"big", std::string(11, 'a')}).status().code(), StatusCode::kOutOfRange);
  EXPECT_TRUE(e2->Add({"empty", ""}).ok());  // empty text is a valid (empty) document
  EngineOptions bad = Profile("simhash");
  bad.simhash.max_distance = 40;
  EXPECT_FALSE(Engine::Create(bad).ok());
  bad = EngineOptions{};
  bad.shingles.char_ngram = 0;
  EXPECT_FALSE(Engine::Create(bad).ok());
  bad = EngineOptions{};
  bad.threshold = 1.5;
  EXPECT_FALSE(Engine::Create(bad).ok());
  bad = EngineOptions{};
  bad.signals.clear();
  EXPECT_FALSE(Engine::Create(bad).ok());
  bad = EngineOptions{};
  bad.minhash.bands = 20;
  bad.minhash.rows = 20;  // 400 > 128 permutations
  EXPECT_FALSE(Engine::Create(bad).ok());
}

TEST(EngineTest, RemovedRootKeepsClusterId) {
  auto e = NewEngine();
  ASSERT_TRUE(e->Add({"a", kStory}).ok());
  ASSERT_TRUE(e->Add({"b", kReprint}).ok());
  ASSERT_TRUE(e->Remove("a").ok());
  EXPECT_TRUE(e->Get("a").status().IsNotFound());
  auto cl = e->ClusterOf("b");
  ASSERT_TRUE(cl.ok());
  EXPECT_EQ(cl->id, "a");
  EXPECT_TRUE(cl->root_removed);
  EXPECT_EQ(cl->size, 1u);
  // The ghost's id stays reserved while its cluster lives.
  EXPECT_TRUE(e->Add({"a", kOther}).status().IsAlreadyExists());
  // A new reprint still joins cluster "a" through member "b".
  auto c = e->Add({"c", kStory});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->cluster, "a");
  ASSERT_TRUE(e->Remove("b").ok());
  ASSERT_TRUE(e->Remove("c").ok());
  EXPECT_EQ(e->Stats().clusters, 0u);
  EXPECT_TRUE(e->Add({"a", kOther}).ok());  // the id is free again
}

TEST(EngineTest, ConcurrentIdenticalAddsMakeOneCluster) {
  auto e = NewEngine();
  constexpr int kThreads = 16;
  std::atomic<int> non_duplicates{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < 20; ++i) {
        auto r = e->Add({"t" + std::to_string(t) + "_" + std::to_string(i), kStory});
        ASSERT_TRUE(r.ok());
        if (!r->duplicate) non_duplicates.fetch_add(1);
        (void)e->Query(kStory);
      }
    });
  }
  go = true;
  for (auto& th : threads) th.join();
  EXPECT_EQ(non_duplicates.load(), 1);
  EXPECT_EQ(e->Stats().clusters, 1u);
  EXPECT_EQ(e->Stats().documents, static_cast<uint64_t>(kThreads * 20));
}

TEST(EngineTest, AddBatchMatchesSequentialAdds) {
  std::vector<Document> docs;
  for (int i = 0; i < 300; ++i) {
    docs.push_back(
        {"d" + std::to_string(i), i % 3 == 0 ? kStory : (i % 3 == 1 ? kReprint : kOther)});
  }
  docs.push_back({"d5", kOther});  // duplicate id fails alone
  auto batch = NewEngine();
  auto seq = NewEngine();
  auto results = batch->AddBatch(docs);
  ASSERT_EQ(results.size(), docs.size());
  for (size_t i = 0; i + 1 < docs.size(); ++i) {
    auto s = seq->Add(docs[i]);
    ASSERT_TRUE(results[i].ok());
    EXPECT_EQ(results[i]->cluster, s->cluster);
    EXPECT_EQ(results[i]->cluster_size, s->cluster_size);
  }
  EXPECT_TRUE(results.back().status().IsAlreadyExists());
}

// An in-memory engine keeps the compact verification form of a long text
// beside the text and verifies candidates from it, without shingling their
// texts again: every match is one that the texts decide alike (Explain), at
// a similarity within 0.03 of theirs (narrow shingles, verify/form.h), and
// texts near the threshold cover both sides of it.
TEST(EngineTest, LongTextsAreVerifiedFromTheFormsKept) {
  auto e = NewEngine();
  const std::string story = base::RandomHan(600, 71);
  ASSERT_TRUE(e->Add({"story", story}).ok());
  std::mt19937 rng(72);
  int near = 0, far = 0;
  for (int i = 0; i < 60; ++i) {
    std::string text = story;
    const int edits = 10 + 2 * i;  // Jaccard from about 0.9 to 0.3
    for (int k = 0; k < edits; ++k) text.replace(3 * (rng() % 600), 3, "的");
    auto r = e->Add({"v" + std::to_string(i), text});
    ASSERT_TRUE(r.ok());
    auto x = e->Explain(text, story);
    ASSERT_TRUE(x.ok());
    for (const Match& m : r->matches) {
      if (m.id != "story") continue;
      EXPECT_TRUE(x->duplicate) << i;
      EXPECT_NEAR(*m.verified, x->similarity, 0.03) << i;
    }
    (x->duplicate ? near : far)++;
  }
  EXPECT_GT(near, 5);
  EXPECT_GT(far, 5);
  const EngineStats s = e->Stats();
  EXPECT_GT(s.verified_from_forms, 60u);
  EXPECT_LT(s.verified_from_texts, s.verified_from_forms / 10);

  // keep_forms = false: the texts only, fewer bytes, the same clusters.
  EngineOptions o;
  o.keep_forms = false;
  auto t = NewEngine(o);
  ASSERT_TRUE(t->Add({"story", story}).ok());
  std::mt19937 again(72);
  for (int i = 0; i < 60; ++i) {
    std::string text = story;
    for (int k = 0; k < 10 + 2 * i; ++k) text.replace(3 * (again() % 600), 3, "的");
    const std::string id = "v" + std::to_string(i);
    auto r = t->Add({id, text});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->cluster, e->ClusterOf(id).value().id) << i;
  }
  const EngineStats u = t->Stats();
  EXPECT_EQ(u.verified_from_forms, 0u);
  EXPECT_GT(u.verified_from_texts, 60u);
  EXPECT_LT(u.text_bytes, s.text_bytes);

  // A short text's form would be the text again: none is kept.
  auto short_forms = NewEngine(), short_texts = NewEngine(o);
  for (int i = 0; i < 20; ++i) {
    const std::string text = base::RandomHan(60, 80 + static_cast<uint32_t>(i));
    ASSERT_TRUE(short_forms->Add({"s" + std::to_string(i), text}).ok());
    ASSERT_TRUE(short_texts->Add({"s" + std::to_string(i), text}).ok());
  }
  EXPECT_EQ(short_forms->Stats().text_bytes, short_texts->Stats().text_bytes);
}

TEST(EngineTest, FingerprintIsStableAcrossVersions) {
  // The fingerprint is part of the on-disk format (docs/design.md). If this
  // changes, stored fingerprints become incompatible: bump the format version.
  auto e = NewEngine(Profile("simhash"));
  EXPECT_EQ(FingerprintHex(e->Fingerprint("hello world").value()),
            FingerprintHex(e->Fingerprint("Hello,  WORLD!").value()));
  // Value computed independently by scripts/reference_simhash.py (Python, xxhash).
  EXPECT_EQ(FingerprintHex(e->Fingerprint(kStory).value()), "85fcee3c861174c1");
}

}  // namespace
}  // namespace neardup
