// SPDX-License-Identifier: Apache-2.0
// The Engine with each signal (EngineOptions::signals) alone and together,
// with and without a verifier: selection, evidence, verification, removal
// and concurrency.
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <filesystem>
#include <string>
#include <thread>

#include "neardup/durable_engine.h"
#include "neardup/engine.h"
#include "resources/data_dir.h"
#include "tokenize/segmenter.h"

namespace neardup {
namespace {

constexpr char kSignalsEngineStory[] =
    "The harbour office said on Friday that the north pier will stay closed until the spring "
    "because a storm damaged its wooden deck. Fishing boats will use the south pier, where the "
    "council has added two cranes and a new fuel pump. The harbour master said that the repairs "
    "will cost more than last year and that the work should be finished before the summer "
    "festival, when the ferries from the islands are busiest. A spokesman for the fishermen said "
    "that the crews were worried about the longer trips to the south pier and about the price "
    "of fuel, which has risen every month since the autumn. The council said that it is talking "
    "to the ferry company about a shared timetable, so that the boats and the ferries do not "
    "wait for the same berth in the mornings. The deck of the north pier is more than sixty years "
    "old and the engineers who inspected it after the storm found that a third of its beams had "
    "to be replaced. The new beams will come from a yard on the mainland and should arrive in "
    "the first week of the new year, if the weather allows the barge to cross.";
constexpr char kSignalsEngineOther[] =
    "The school choir won the regional contest on Sunday with a programme of folk songs. The "
    "conductor said that the children had practised every morning for three months and that the "
    "prize money will pay for a trip to the national final in the capital. Parents who travelled "
    "with the choir said that the hall was full and that the audience asked for two more songs "
    "at the end of the evening. The head teacher thanked the music teachers and a local bakery, "
    "which paid for the bus, and said that the school will hold a concert for the town before "
    "the final. The choir has forty members between nine and twelve years old, and this is the "
    "first time that a school from the valley has reached the national final.";

// kSignalsEngineStory with two words changed: Jaccard of 5-gram shingles about 0.98, and
// SimHash 2 bits away (default pipeline).
std::string Edited() {
  std::string s(kSignalsEngineStory);
  s.replace(s.find("sixty"), 5, "seventy");
  s.replace(s.find("barge"), 5, "boat");
  return s;
}

// kSignalsEngineStory with its second half replaced: shares much, but far from 0.9 similar.
std::string HalfRewritten() {
  std::string s(kSignalsEngineStory);
  const size_t cut = s.find("The council said");
  return s.substr(0, cut) + kSignalsEngineOther;
}

std::unique_ptr<Engine> NewEngine(const EngineOptions& o) {
  auto e = Engine::Create(o);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? std::move(e).value() : nullptr;
}

// Signals "exact,minhash", verifier "levenshtein:0.9" (kind:threshold) or
// none; without a verifier the signals decide (MinHash bands aim at 0.8).
EngineOptions With(std::string_view signals, std::string_view verify = "none") {
  EngineOptions o;
  o.signals = ParseSignals(signals).value();
  const size_t colon = verify.find(':');
  o.verify.kind = ParseVerifyKind(verify.substr(0, colon)).value();
  o.threshold =
      colon == std::string_view::npos ? 0.8 : std::stod(std::string(verify.substr(colon + 1)));
  if (o.verify.kind == VerifyKind::kNone) o.minhash.candidate_threshold = 0.8;
  o.simhash.max_distance = 3;  // Manku's k unless a test sets another
  return o;
}

bool HaveData() { return std::filesystem::exists(resources::JiebaDir() + "/idf.utf8"); }

TEST(SignalsEngineTest, EachAlgorithmFindsThePlantedDuplicateOnly) {
  for (const char* alg : {"exact", "simhash", "minhash", "supershingle", "spotsig"}) {
    SCOPED_TRACE(alg);
    auto e = NewEngine(With(alg));
    ASSERT_NE(e, nullptr);
    ASSERT_TRUE(e->Add({"story", kSignalsEngineStory}).ok());
    auto other = e->Add({"other", kSignalsEngineOther});
    ASSERT_TRUE(other.ok());
    EXPECT_FALSE(other->duplicate);
    EXPECT_TRUE(other->matches.empty());
    // exact only sees copies that normalize to the same text.
    const std::string copy =
        std::string(alg) == "exact" ? "  " + std::string(kSignalsEngineStory) + "!!" : Edited();
    auto r = e->Add({"copy", copy});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->duplicate);
    EXPECT_EQ(r->cluster, "story");
    ASSERT_EQ(r->matches.size(), 1u);
    EXPECT_EQ(r->matches[0].id, "story");
    EXPECT_EQ(r->matches[0].signal, alg);
    EXPECT_GE(r->matches[0].similarity, std::string(alg) == "supershingle" ? 2 / 6.0 : 0.8);
    EXPECT_FALSE(r->matches[0].verified.has_value());
    auto q = e->Query(kSignalsEngineOther);
    ASSERT_TRUE(q.ok());
    ASSERT_EQ(q->matches.size(), 1u);
    EXPECT_EQ(q->matches[0].id, "other");
  }
}

TEST(SignalsEngineTest, IMatchFindsTheReprintWithWordFeatures) {
  if (!HaveData()) GTEST_SKIP() << "run scripts/setup";
  constexpr char kNews[] =
      "国家统计局今天发布数据显示，十月份全国居民消费价格同比上涨，其中城市和农村价格均有上涨；"
      "食品价格上涨明显，非食品价格上涨较少。专家认为，物价总体保持稳定，经济运行平稳，"
      "居民消费需求继续恢复，市场供应充足。";
  constexpr char kSport[] =
      "北京时间昨晚，中国女排在世界杯比赛中以三比零战胜对手，取得开门红，主教练赛后表示球队"
      "状态良好，将全力备战下一场比赛，队员们信心十足。";
  auto o = EngineOptions::FromProfile("zh-news").value();
  o.signals = {SignalKind::kIMatch};
  auto e = NewEngine(o);
  ASSERT_NE(e, nullptr);
  ASSERT_TRUE(e->Add({"news", kNews}).ok());
  auto sport = e->Add({"sport", kSport});
  ASSERT_TRUE(sport.ok());
  EXPECT_FALSE(sport->duplicate);
  // I-Match ignores order and punctuation: the same terms, sentences swapped.
  std::string reordered(kNews);
  const size_t cut = reordered.find("专家");
  reordered = reordered.substr(cut) + reordered.substr(0, cut);
  auto r = e->Add({"copy", reordered});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->cluster, "news");
  ASSERT_FALSE(r->matches.empty());
  EXPECT_EQ(r->matches[0].signal, "imatch");
}

TEST(SignalsEngineTest, ZhShortVerifiesCandidatesByEditDistance) {
  if (!HaveData()) GTEST_SKIP() << "run scripts/setup";
  auto o = EngineOptions::FromProfile("zh-short").value();
  auto e = NewEngine(o);
  ASSERT_NE(e, nullptr);
  constexpr char kPoem[] = "床前明月光，疑是地上霜。举头望明月，低头思故乡。";
  ASSERT_TRUE(e->Add({"poem", kPoem}).ok());
  ASSERT_FALSE(e->Add({"other", "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。"})->duplicate);
  // The Traditional copy folds to the same text: exact.
  auto trad = e->Add({"trad", "床前明月光，疑是地上霜。舉頭望明月，低頭思故鄉。"});
  ASSERT_TRUE(trad.ok());
  EXPECT_EQ(trad->cluster, "poem");
  ASSERT_FALSE(trad->matches.empty());
  EXPECT_EQ(trad->matches[0].signal, "exact");
  EXPECT_EQ(trad->matches[0].verified, 1.0);
  // One character changed: MinHash proposes, edit distance passes (the
  // normalized text is 23 code points: punctuation became 3 separators).
  auto edited = e->Add({"edited", "床前明月光，疑是地上霜。举头望明月，低头思家乡。"});
  ASSERT_TRUE(edited.ok());
  EXPECT_EQ(edited->cluster, "poem");
  ASSERT_FALSE(edited->matches.empty());
  EXPECT_EQ(edited->matches[0].signal, "minhash");
  EXPECT_DOUBLE_EQ(*edited->matches[0].verified, 1 - 1 / 23.0);
}

TEST(SignalsEngineTest, SeveralSignalsReportTheFirstThatFound) {
  for (int k : {0, 3}) {
    SCOPED_TRACE(k);
    EngineOptions o = With("exact,simhash,minhash");
    o.simhash.max_distance = k;
    auto e = NewEngine(o);
    ASSERT_NE(e, nullptr);
    ASSERT_TRUE(e->Add({"story", kSignalsEngineStory}).ok());
    auto same = e->Add({"same", std::string(kSignalsEngineStory) + " "});
    ASSERT_TRUE(same.ok());
    ASSERT_EQ(same->matches.size(), 1u);
    EXPECT_EQ(same->matches[0].signal, "exact");
    EXPECT_EQ(same->matches[0].distance, 0);
    EXPECT_EQ(same->matches[0].similarity, 1.0);

    const std::string edited = Edited();
    const int d =
        std::popcount(e->Fingerprint(kSignalsEngineStory).value() ^ e->Fingerprint(edited).value());
    ASSERT_GT(d, 0);
    ASSERT_LE(d, 3);  // so k=0 misses it and k=3 finds it
    auto r = e->Add({"edited", edited});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->cluster, "story");
    ASSERT_EQ(r->matches.size(), 2u);  // story and same
    for (const Match& m : r->matches) {
      if (k == 0) {
        EXPECT_EQ(m.signal, "minhash");
        EXPECT_EQ(m.distance, -1);
        EXPECT_GE(m.similarity, 0.8);
      } else {
        EXPECT_EQ(m.signal, "simhash");
        EXPECT_EQ(m.distance, d);
        EXPECT_DOUBLE_EQ(m.similarity, 1.0 - d / 64.0);
      }
    }
  }
  // Precedence follows the list.
  auto e = NewEngine(With("minhash,simhash"));
  ASSERT_TRUE(e->Add({"story", kSignalsEngineStory}).ok());
  auto r = e->Add({"edited", Edited()});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->matches.size(), 1u);
  EXPECT_EQ(r->matches[0].signal, "minhash");
}

TEST(SignalsEngineTest, VerifierRejectsWhatSimHashProposes) {
  // SimHash at a large k proposes the half-rewritten story...
  EngineOptions loose = With("simhash");
  loose.simhash.max_distance = 24;
  auto plain = NewEngine(loose);
  ASSERT_TRUE(plain->Add({"story", kSignalsEngineStory}).ok());
  auto proposed = plain->Add({"half", HalfRewritten()});
  ASSERT_TRUE(proposed.ok());
  ASSERT_TRUE(proposed->duplicate) << "SimHash at k=24 no longer proposes the pair";

  // ...and levenshtein:0.9 rejects it, while the two-word edit passes.
  loose.verify.kind = VerifyKind::kLevenshtein;
  loose.threshold = 0.9;
  auto e = NewEngine(loose);
  ASSERT_NE(e, nullptr);
  ASSERT_TRUE(e->Add({"story", kSignalsEngineStory}).ok());
  auto half = e->Add({"half", HalfRewritten()});
  ASSERT_TRUE(half.ok());
  EXPECT_FALSE(half->duplicate);
  EXPECT_TRUE(half->matches.empty());
  auto r = e->Add({"edited", Edited()});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->cluster, "story");
  ASSERT_EQ(r->matches.size(), 1u);
  EXPECT_EQ(r->matches[0].signal, "simhash");
  ASSERT_TRUE(r->matches[0].verified.has_value());
  EXPECT_GE(*r->matches[0].verified, 0.9);
  EXPECT_LT(*r->matches[0].verified, 1.0);
  // Query verifies too, and a per-query k still reaches the index.
  auto q = e->Query(HalfRewritten(), {.max_distance = 20});
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->cluster, "half");
  for (const Match& m : q->matches) EXPECT_NE(m.id, "story");
  auto q2 = e->Query(kSignalsEngineStory, {.max_distance = 0});
  ASSERT_TRUE(q2.ok());
  ASSERT_EQ(q2->matches.size(), 1u);  // edited is at distance > 0
  EXPECT_EQ(q2->matches[0].id, "story");
  EXPECT_EQ(q2->matches[0].verified, 1.0);
}

TEST(SignalsEngineTest, RemoveRemovesFromEverySignal) {
  auto e = NewEngine(With("exact,simhash,minhash,supershingle,spotsig", "jaccard:0.5"));
  ASSERT_NE(e, nullptr);
  ASSERT_TRUE(e->Add({"story", kSignalsEngineStory}).ok());
  ASSERT_TRUE(e->Add({"other", kSignalsEngineOther}).ok());
  ASSERT_EQ(e->Query(kSignalsEngineStory)->matches.size(), 1u);
  ASSERT_TRUE(e->Remove("story").ok());
  auto q = e->Query(kSignalsEngineStory);
  ASSERT_TRUE(q.ok());
  EXPECT_TRUE(q->matches.empty());
  // The freed slot is reused by an unrelated text, which old sketches must not match.
  auto third = e->Add({"third", "A short note about the weather on the coast, which was mild."});
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE(third->duplicate);
  auto again = e->Add({"again", kSignalsEngineStory});
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->duplicate);
  EXPECT_EQ(again->cluster, "again");
  EXPECT_TRUE(e->Remove("other").ok());
  EXPECT_TRUE(e->Query(kSignalsEngineOther)->matches.empty());
}

TEST(SignalsEngineTest, ConcurrentIdenticalAddsMakeOneCluster) {
  auto e = NewEngine(With("exact,simhash,minhash", "levenshtein:0.8"));
  ASSERT_NE(e, nullptr);
  constexpr int kThreads = 6;
  std::atomic<int> non_duplicates{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < 8; ++i) {
        auto r = e->Add({"t" + std::to_string(t) + "_" + std::to_string(i),
                         i % 2 ? Edited() : std::string(kSignalsEngineStory)});
        ASSERT_TRUE(r.ok());
        if (!r->duplicate) non_duplicates.fetch_add(1);
        (void)e->Query(kSignalsEngineStory);
      }
    });
  }
  go = true;
  for (auto& th : threads) th.join();
  EXPECT_EQ(non_duplicates.load(), 1);
  EXPECT_EQ(e->Stats().clusters, 1u);
  EXPECT_EQ(e->Stats().documents, static_cast<uint64_t>(kThreads * 8));
}

TEST(SignalsEngineTest, AddBatchMatchesSequentialAdds) {
  const EngineOptions o = With("exact,minhash", "levenshtein:0.8");
  std::vector<Document> docs;
  for (int i = 0; i < 60; ++i) {
    docs.push_back({"d" + std::to_string(i), i % 3 == 0 ? std::string(kSignalsEngineStory)
                                             : i % 3 == 1
                                                 ? Edited()
                                                 : kSignalsEngineOther + std::to_string(i)});
  }
  auto a = NewEngine(o);
  auto b = NewEngine(o);
  auto batch = a->AddBatch(docs);
  for (size_t i = 0; i < docs.size(); ++i) {
    auto one = b->Add(docs[i]);
    ASSERT_TRUE(batch[i].ok() && one.ok());
    EXPECT_EQ(batch[i]->cluster, one->cluster);
    EXPECT_EQ(batch[i]->fingerprint, one->fingerprint);
    EXPECT_EQ(batch[i]->matches.size(), one->matches.size());
  }
  EXPECT_EQ(a->Stats().clusters,
            2u);  // kSignalsEngineOther + a number: verified 0.8 similar to each other
}

TEST(SignalsEngineTest, FingerprintsDependOnlyOnTheFeatures) {
  auto plain = NewEngine(EngineOptions::FromProfile("simhash").value());
  EngineOptions mixed_options = With("minhash,simhash", "cosine:0.5");
  mixed_options.normalize.t2s = T2S::kOff;
  auto mixed = NewEngine(mixed_options);
  ASSERT_TRUE(plain->Add({"a", kSignalsEngineStory}).ok());
  ASSERT_TRUE(mixed->Add({"a", kSignalsEngineStory}).ok());
  EXPECT_EQ(plain->Get("a")->fingerprint, mixed->Get("a")->fingerprint);
  auto r = plain->Add({"b", Edited()});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->matches.size(), 1u);
  EXPECT_EQ(r->matches[0].signal, "simhash");
  EXPECT_FALSE(r->matches[0].verified.has_value());
}

TEST(SignalsEngineTest, BadOptionsAreRejected) {
  for (const char* bad : {"", "simhash,simhash", "md5", "simhash,"}) {
    EXPECT_TRUE(ParseSignals(bad).status().IsInvalidArgument()) << bad;
  }
  EXPECT_TRUE(ParseVerifyKind("soundex").status().IsInvalidArgument());
  EXPECT_TRUE(Engine::Create(With("simhash", "levenshtein:2")).status().IsInvalidArgument());
  EngineOptions o = With("spotsig");
  o.spotsig.stop_words = "/nonexistent/stop_words.txt";
  EXPECT_FALSE(Engine::Create(o).ok());
  o = With("imatch");
  o.imatch.idf_path = "/nonexistent/idf.utf8";
  EXPECT_TRUE(Engine::Create(o).status().IsNotFound());
}

TEST(SignalsEngineTest, DurableEngineRunsEverySignalWithAVerifier) {
  DurableOptions d;
  d.dir = (std::filesystem::temp_directory_path() / "neardup_signals_durable").string();
  std::filesystem::remove_all(d.dir);
  d.engine = With("exact,simhash,minhash,supershingle", "levenshtein:0.8");
  d.background_expiry = false;
  d.sync = false;
  {
    auto opened = DurableEngine::Open(d);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    ASSERT_TRUE((*opened)->Add({"story", kSignalsEngineStory, 0, ""}, OnConflict::kError).ok());
    auto r = (*opened)->Add({"edited", Edited(), 0, ""}, OnConflict::kError);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->add.cluster, "story");
  }
  auto reopened = DurableEngine::Open(d);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  auto q = (*reopened)->Query(Edited());
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->cluster, "story");
  ASSERT_EQ(q->matches.size(), 2u);
  EXPECT_GE(*q->matches[0].verified, 0.8);
  std::filesystem::remove_all(d.dir);
}

}  // namespace
}  // namespace neardup
