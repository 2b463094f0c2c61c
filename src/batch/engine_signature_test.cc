// SPDX-License-Identifier: Apache-2.0
// Every registered signal in batch dedup, as the online engine runs it
// (src/engine/signals_engine_test.cc): the planted copy joins the story and
// the unrelated text stays alone, with and without a verifier; and the
// batch evidence of a pair is the online estimate.
#include "batch/engine_signature.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/random_text.h"
#include "neardup/batch.h"
#include "neardup/engine.h"
#include "resources/data_dir.h"
#include "signal/registry.h"

namespace neardup {
namespace {

constexpr char kStory[] =
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
constexpr char kOther[] =
    "The school choir won the regional contest on Sunday with a programme of folk songs. The "
    "conductor said that the children had practised every morning for three months and that the "
    "prize money will pay for a trip to the national final in the capital. Parents who travelled "
    "with the choir said that the hall was full and that the audience asked for two more songs "
    "at the end of the evening.";
constexpr char kNews[] =
    "国家统计局今天发布数据显示，十月份全国居民消费价格同比上涨，其中城市和农村价格均有上涨；"
    "食品价格上涨明显，非食品价格上涨较少。专家认为，物价总体保持稳定，经济运行平稳，"
    "居民消费需求继续恢复，市场供应充足。";
constexpr char kSport[] =
    "北京时间昨晚，中国女排在世界杯比赛中以三比零战胜对手，取得开门红，主教练赛后表示球队"
    "状态良好，将全力备战下一场比赛，队员们信心十足。";

struct Case {
  EngineOptions options;
  std::vector<Document> docs;  // story, unrelated, copy
};

Case CaseOf(SignalKind kind, VerifyKind verify) {
  Case c;
  if (kind == SignalKind::kIMatch) {  // word features and jieba's IDF lexicon
    c.options = EngineOptions::FromProfile("zh-news").value();
    std::string reordered(kNews);  // I-Match ignores order: the same terms
    const size_t cut = reordered.find("专家");
    reordered = reordered.substr(cut) + reordered.substr(0, cut);
    c.docs = {{"1", kNews, 0}, {"2", kSport, 0}, {"3", reordered, 0}};
  } else if (kind == SignalKind::kContainment) {  // 100 shingles at least: longer texts
    const std::string story = base::RandomHan(600, 1), copy = story.substr(0, 3 * 590);
    c.docs = {{"1", story, 0}, {"2", base::RandomHan(600, 2), 0}, {"3", copy + "。", 0}};
  } else {
    std::string copy(kStory);
    if (kind == SignalKind::kExact) {
      copy = "  " + copy + "!!";
    } else {
      copy.replace(copy.find("sixty"), 5, "seventy");
    }
    c.docs = {{"1", kStory, 0}, {"2", kOther, 0}, {"3", copy, 0}};
  }
  c.options.signals = {kind};
  c.options.verify.kind = verify;
  c.options.threshold = 0.8;
  if (verify == VerifyKind::kNone) c.options.minhash.candidate_threshold = 0.8;
  c.options.simhash.max_distance = 3;
  return c;
}

TEST(EngineSignatureTest, EveryRegisteredSignalFindsThePlantedCopyInBatchAsOnline) {
  if (!std::filesystem::exists(resources::JiebaDir() + "/idf.utf8")) {
    GTEST_SKIP() << "run scripts/setup";
  }
  for (const auto& r : signal::RegisteredSignals()) {
    for (VerifyKind verify : {VerifyKind::kNone, VerifyKind::kSimilarity}) {
      if (r.kind == SignalKind::kIMatch && verify != VerifyKind::kNone) continue;  // reordered
      SCOPED_TRACE(std::string(r.name) + (verify == VerifyKind::kNone ? " alone" : " verified"));
      const Case c = CaseOf(r.kind, verify);
      BatchOptions o;
      o.engine = c.options;
      auto labels = BatchClusterDocuments(c.docs, o);
      ASSERT_TRUE(labels.ok()) << labels.status().ToString();
      EXPECT_EQ(labels->cluster, (std::vector<uint32_t>{0, 1, 0}));
      // The online engine agrees.
      auto e = Engine::Create(c.options);
      ASSERT_TRUE(e.ok()) << e.status().ToString();
      ASSERT_TRUE((*e)->Add(c.docs[0]).ok());
      ASSERT_TRUE((*e)->Add(c.docs[1]).ok());
      auto copy = (*e)->Query(c.docs[2].text);
      ASSERT_TRUE(copy.ok());
      ASSERT_EQ(copy->matches.size(), 1u);
      EXPECT_EQ(copy->matches[0].id, "1");
      // The batch evidence of the pair is the online estimate.
      auto sig = batch::EngineSignature::Create(c.options, false);
      ASSERT_TRUE(sig.ok()) << sig.status().ToString();
      auto scratch = (*sig)->NewScratch();
      auto ev = (*sig)->Explain({0, c.docs[0].text, 0}, {2, c.docs[2].text, 0}, scratch.get());
      ASSERT_TRUE(ev.ok());
      EXPECT_EQ(ev->space, 0);
      if (verify == VerifyKind::kNone) {
        EXPECT_DOUBLE_EQ(ev->similarity, copy->matches[0].similarity);
      }
      auto none = (*sig)->Explain({0, c.docs[0].text, 0}, {1, c.docs[1].text, 0}, scratch.get());
      ASSERT_TRUE(none.ok());
      EXPECT_EQ(none->space, -1);
    }
  }
}

// The verification form path (sketch phase's Form(), verify phase's
// SimilarityOfForms()) gives exactly the similarity of the texts, for the
// default pipeline, the profiles and no verifier (SpotSig's own estimate).
TEST(EngineSignatureTest, SimilarityOfFormsEqualsSimilarityOfTexts) {
  std::vector<EngineOptions> configs = {EngineOptions{}};
  for (const char* profile : {"qbank", "simhash"}) {
    configs.push_back(EngineOptions::FromProfile(profile).value());
  }
  EngineOptions spotsig;
  spotsig.signals = {SignalKind::kSpotSig};
  spotsig.verify.kind = VerifyKind::kNone;
  configs.push_back(spotsig);
  std::string edited(kStory), short_copy(kSport);
  edited.replace(edited.find("sixty"), 5, "seventy");
  short_copy.replace(short_copy.find("三比零"), 9, "三比一");
  // Short questions: an operator changed (7), the same one spaced and in
  // full-width forms (8).
  const std::string q = "已知 x+y=60，x-y=31，求 y 的值。",
                    q_op = "已知 x+y=60，x+y=31，求 y 的值。",
                    q_wide = "已知ｘ＋ｙ＝６０，ｘ－ｙ＝３１，求ｙ的值。";
  const std::vector<std::string> texts = {kStory,     edited, kOther, kNews, kSport,
                                          short_copy, "",     q,      q_op,  q_wide};
  for (size_t c = 0; c < configs.size(); ++c) {
    SCOPED_TRACE(c);
    auto sig = batch::EngineSignature::Create(configs[c], false);
    ASSERT_TRUE(sig.ok()) << sig.status().ToString();
    auto scratch = (*sig)->NewScratch();
    std::vector<std::string> forms(texts.size());
    std::vector<uint64_t> keys((*sig)->max_keys());
    for (size_t i = 0; i < texts.size(); ++i) {
      batch::KeySink sink(keys.data(), keys.size());
      ASSERT_TRUE((*sig)->Keys(texts[i], scratch.get(), &sink).ok());
      (*sig)->Form(scratch.get(), &forms[i]);
    }
    for (uint32_t i = 0; i < texts.size(); ++i) {
      for (uint32_t j = 0; j < texts.size(); ++j) {
        auto exact = (*sig)->Similarity({i, texts[i], 0}, {j, texts[j], 0}, scratch.get());
        auto from_forms =
            (*sig)->SimilarityOfForms({i, forms[i], 0}, {j, forms[j], 0}, scratch.get());
        ASSERT_TRUE(exact.ok() && from_forms.ok());
        EXPECT_EQ(*exact, *from_forms) << i << " " << j;
        std::string pi, pj;  // the text path (against an index): prepared once
        ASSERT_TRUE((*sig)->Prepare(texts[i], scratch.get(), &pi).ok());
        ASSERT_TRUE((*sig)->Prepare(texts[j], scratch.get(), &pj).ok());
        auto prepared = (*sig)->SimilarityPrepared({i, pi, 0}, {j, pj, 0}, scratch.get());
        ASSERT_TRUE(prepared.ok());
        EXPECT_EQ(*exact, *prepared) << i << " " << j;
      }
    }
    // A side cached on its doc reads its text from where the form is now:
    // the verify phase reuses the buffer a form was read into.
    std::string moved = forms[5];
    auto first = (*sig)->SimilarityOfForms({4, forms[4], 0}, {5, moved, 0}, scratch.get());
    std::fill(moved.begin(), moved.end(), 'x');
    const std::string again = forms[5];
    auto second = (*sig)->SimilarityOfForms({3, forms[3], 0}, {5, again, 0}, scratch.get());
    auto exact = (*sig)->Similarity({3, texts[3], 0}, {5, texts[5], 0}, scratch.get());
    ASSERT_TRUE(first.ok() && second.ok() && exact.ok());
    EXPECT_EQ(*second, *exact);
    EXPECT_FALSE((*sig)->SimilarityOfForms({0, "\x7f", 0}, {1, forms[0], 0}, scratch.get()).ok());
    // The default's fact rule: another operator is another question; the
    // same one spaced or full-width is the same.
    if (c == 0) {
      auto changed = (*sig)->Similarity({7, q, 0}, {8, q_op, 0}, scratch.get());
      auto same = (*sig)->Similarity({7, q, 0}, {9, q_wide, 0}, scratch.get());
      ASSERT_TRUE(changed.ok() && same.ok());
      EXPECT_LT(*changed, (*sig)->threshold());
      EXPECT_GE(*same, (*sig)->threshold());
    }
  }
}

}  // namespace
}  // namespace neardup
