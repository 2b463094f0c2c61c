// SPDX-License-Identifier: Apache-2.0
// The profiles end to end through the pipeline, and the option names.
#include <gtest/gtest.h>

#include <bit>
#include <filesystem>

#include "neardup/options.h"
#include "pipeline/pipeline.h"
#include "resources/data_dir.h"
#include "tokenize/segmenter.h"

namespace neardup::engine {
namespace {

using pipeline::Pipeline;

// Our own sample text, Simplified and a Traditional copy of it.
constexpr char kSimplified[] =
    "本市今天召开经济工作会议，总结过去一年的发展成绩，部署明年的重点任务。会议指出，"
    "全市经济运行总体平稳，工业生产稳步回升，消费市场持续活跃，对外贸易保持增长。"
    "会议要求，各部门要坚持稳中求进的工作总基调，加快推进产业结构调整，"
    "进一步优化营商环境，切实保障和改善民生，确保完成全年目标任务。";
constexpr char kTraditional[] =
    "本市今天召開經濟工作會議，總結過去一年的發展成績，部署明年的重點任務。會議指出，"
    "全市經濟運行總體平穩，工業生產穩步回升，消費市場持續活躍，對外貿易保持增長。"
    "會議要求，各部門要堅持穩中求進的工作總基調，加快推進產業結構調整，"
    "進一步優化營商環境，切實保障和改善民生，確保完成全年目標任務。";
constexpr char kOther[] =
    "昨夜一场大雨过后，山区的溪流水位明显上涨，村民们早早起床查看农田情况。"
    "气象部门提醒，未来三天仍有强降雨，请游客不要前往河谷地带露营，注意防范山洪和泥石流。";

bool HaveData() { return std::filesystem::exists(resources::JiebaDir() + "/jieba.dict.utf8"); }

std::unique_ptr<Pipeline> Make(const EngineOptions& o) {
  auto p = Pipeline::Create(o, true, true);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return std::move(p).value();
}

std::unique_ptr<Pipeline> Make(std::string_view profile) {
  auto o = EngineOptions::FromProfile(profile);
  EXPECT_TRUE(o.ok()) << o.status().ToString();
  return Make(*o);
}

int Distance(const Pipeline& p, std::string_view a, std::string_view b) {
  return std::popcount(p.Fingerprint(a).value() ^ p.Fingerprint(b).value());
}

TEST(ProfilesTest, NamesResolve) {
  for (const auto& name : EngineOptions::ProfileNames()) {
    auto o = EngineOptions::FromProfile(name);
    ASSERT_TRUE(o.ok()) << name;
    EXPECT_EQ(o->profile, name);
  }
  EXPECT_TRUE(EngineOptions::FromProfile("zh-nope").status().IsNotFound());
  auto retired = EngineOptions::FromProfile("auto");
  EXPECT_TRUE(retired.status().IsNotFound());
  EXPECT_NE(retired.status().message().find("retired"), std::string::npos);
  auto zh = EngineOptions::FromProfile("zh-news");
  EXPECT_EQ(zh->features.kind, FeatureKind::kWords);
  EXPECT_EQ(zh->features.weights, Weights::kTfIdf);
  EXPECT_TRUE(zh->normalize.t2s != T2S::kOff && zh->features.drop_stop_words);
  EXPECT_EQ(zh->SimHashDistance(), 5);
  auto simhash = EngineOptions::FromProfile("simhash");
  EXPECT_EQ(simhash->SimHashDistance(), 3);
  EXPECT_EQ(simhash->signals, std::vector<SignalKind>{SignalKind::kSimHash});
  auto qbank = EngineOptions::FromProfile("qbank");
  EXPECT_EQ(qbank->verify.kind, VerifyKind::kQbank);
  EXPECT_EQ(qbank->keep, KeepPolicy::kSmallestId);
  EXPECT_FALSE(qbank->normalize.drop_punctuation);
  // Without a verifier the threshold gives k when k is not set: similarity
  // 1 - k/64; with one, SimHash only proposes candidates at Manku's k=3.
  EngineOptions o;
  o.threshold = 1.0 - 5.0 / 64.0;
  EXPECT_EQ(o.SimHashDistance(), 3);
  o.verify.kind = VerifyKind::kNone;
  EXPECT_EQ(o.SimHashDistance(), 5);
}

TEST(ProfilesTest, NamesParseAndPrint) {
  for (auto k : {VerifyKind::kNone, VerifyKind::kSimilarity, VerifyKind::kQbank}) {
    EXPECT_EQ(*ParseVerifyKind(Name(k)), k);
  }
  for (auto k : {T2S::kOff, T2S::kCharacters, T2S::kPhrases, T2S::kTaiwan}) {
    EXPECT_EQ(*ParseT2S(Name(k)), k);
  }
  EXPECT_EQ(*ParseSignals("exact,minhash"),
            (std::vector<SignalKind>{SignalKind::kExact, SignalKind::kMinHash}));
  EXPECT_TRUE(ParseSignals("exact,exact").status().IsInvalidArgument());
  EXPECT_TRUE(ParseSignals("exact,nope").status().IsInvalidArgument());
  auto sh = ParseShingles("script:3,2");
  ASSERT_TRUE(sh.ok());
  EXPECT_EQ(sh->kind, ShingleKind::kScript);
  EXPECT_EQ(sh->char_ngram, 3);
  EXPECT_EQ(sh->word_ngram, 2);
  EXPECT_EQ(ShinglesName(*sh), "script:3,2");
  EXPECT_EQ(ParseShingles("word:5")->word_ngram, 5);
  EXPECT_EQ(ShinglesName(*ParseShingles("char:24")), "char:24");
  EXPECT_TRUE(ParseShingles("char:3,2").status().IsInvalidArgument());
  EXPECT_TRUE(ParseShingles("line:3").status().IsInvalidArgument());
  EXPECT_TRUE(ParseShingles("char").status().IsInvalidArgument());
  EXPECT_EQ(*ParseKeepPolicy("smallest-id"), KeepPolicy::kSmallestId);
  EXPECT_TRUE(ParseKeepPolicy("biggest").status().IsInvalidArgument());
}

TEST(ProfilesTest, VerifySpecs) {
  auto kind = ParseVerifySpec("levenshtein");
  ASSERT_TRUE(kind.ok()) << kind.status().ToString();
  EXPECT_EQ(kind->kind, VerifyKind::kLevenshtein);
  EXPECT_FALSE(kind->threshold || kind->shingles || kind->other_min);
  auto t = ParseVerifySpec("jaccard:0.7");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->kind, VerifyKind::kJaccard);
  EXPECT_EQ(t->threshold, 0.7);
  auto full = ParseVerifySpec("qbank:0.9,ngram=2,word_ngram=3,other=0.5");
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  EXPECT_EQ(full->kind, VerifyKind::kQbank);
  EXPECT_EQ(full->threshold, 0.9);
  ASSERT_TRUE(full->shingles);
  EXPECT_EQ(ShinglesName(*full->shingles), "script:2,3");
  EXPECT_EQ(full->other_min, 0.5);
  EXPECT_EQ(ShinglesName(*ParseVerifySpec("jaccard,ngram=5")->shingles), "script:5,1");
  EXPECT_EQ(ParseVerifySpec("none:1")->kind, VerifyKind::kNone);
  EXPECT_EQ(ParseVerifySpec("lcs:0")->threshold, 0.0);

  // Errors name the bad part.
  auto message = [](std::string_view spec) {
    auto r = ParseVerifySpec(spec);
    EXPECT_TRUE(r.status().IsInvalidArgument()) << spec;
    return r.status().message();
  };
  EXPECT_EQ(message("soundex"),
            "unknown verifier 'soundex' (known: none, similarity, jaccard, containment, cosine, "
            "levenshtein, lcs, qbank)");
  EXPECT_NE(message("").find("unknown verifier ''"), std::string::npos);
  EXPECT_EQ(message("jaccard:1.5"), "bad threshold '1.5' (a number in [0, 1])");
  EXPECT_EQ(message("jaccard:-0.1"), "bad threshold '-0.1' (a number in [0, 1])");
  EXPECT_EQ(message("jaccard:nan"), "bad threshold 'nan' (a number in [0, 1])");
  EXPECT_EQ(message("jaccard:"), "bad threshold '' (a number in [0, 1])");
  EXPECT_EQ(message("jaccard:0.7x"), "bad threshold '0.7x' (a number in [0, 1])");
  EXPECT_EQ(message("jaccard,ngram=2.5"), "bad ngram '2.5'");
  EXPECT_EQ(message("jaccard,ngram"),
            "bad verifier option 'ngram' (ngram=N, word_ngram=N or other=X)");
  EXPECT_EQ(message("jaccard,"), "bad verifier option '' (ngram=N, word_ngram=N or other=X)");
  EXPECT_EQ(message("jaccard,size=3"), "verifier has no option 'size' (ngram, word_ngram, other)");
  EXPECT_EQ(message("qbank,other=2"), "bad other '2' (a number in [0, 1])");

  // Applied: the kind always, the other parts where given.
  EngineOptions o = *EngineOptions::FromProfile("qbank");
  ApplyVerifySpec(*ParseVerifySpec("levenshtein"), &o);
  EXPECT_EQ(o.verify.kind, VerifyKind::kLevenshtein);
  EXPECT_EQ(o.threshold, 0.8);  // the profile's
  EXPECT_EQ(ShinglesName(o.shingles), "script:2,1");
  ApplyVerifySpec(*ParseVerifySpec("qbank:0.95,ngram=4,other=0.9"), &o);
  EXPECT_EQ(o.threshold, 0.95);
  EXPECT_EQ(ShinglesName(o.shingles), "script:4,1");
  EXPECT_EQ(o.verify.qbank_other_min, 0.9);
}

TEST(ProfilesTest, BadFeatureOptions) {
  EngineOptions o;
  o.features.kind = FeatureKind::kLongestSentence;
  o.features.longest_sentences = 0;
  EXPECT_TRUE(Pipeline::Create(o, true, true).status().IsInvalidArgument());
  o = EngineOptions{};
  o.features.ngram = 0;
  EXPECT_TRUE(Pipeline::Create(o, true, true).status().IsInvalidArgument());
  o = EngineOptions{};
  o.features.top_n = -1;
  o.features.weights = Weights::kTfIdf;
  EXPECT_TRUE(Pipeline::Create(o, true, true).status().IsInvalidArgument());
}

TEST(ProfilesTest, TraditionalCopyMatchesUnderChineseProfiles) {
  if (!HaveData()) GTEST_SKIP() << "run scripts/setup";
  for (const char* name : {"zh-news", "default"}) {
    auto p = Make(name);
    EXPECT_EQ(Distance(*p, kSimplified, kTraditional), 0) << name;
    EXPECT_GT(Distance(*p, kSimplified, kOther), 3) << name;
    std::vector<uint64_t> a, b;
    std::string na, nb;
    ASSERT_TRUE(p->Normalize(kSimplified, &na).ok() && p->Normalize(kTraditional, &nb).ok());
    EXPECT_EQ(na, nb) << name;
  }
  // Without folding the copy is far.
  auto plain = Make("simhash");
  EXPECT_GT(Distance(*plain, kSimplified, kTraditional), 3);
}

TEST(ProfilesTest, ZhNewsFeaturesAreWeightedKeywords) {
  if (!HaveData()) GTEST_SKIP() << "run scripts/setup";
  auto p = Make("zh-news");
  std::string norm;
  std::vector<features::Feature> f;
  ASSERT_TRUE(p->Normalize(kSimplified, &norm).ok());
  ASSERT_TRUE(p->Features(norm, &f).ok());
  ASSERT_FALSE(f.empty());
  for (size_t i = 1; i < f.size(); ++i) EXPECT_LT(f[i - 1].hash, f[i].hash);  // merged
  EXPECT_EQ(std::count_if(
                f.begin(), f.end(),
                [](const features::Feature& x) { return x.hash == features::HashFeature("的"); }),
            0);
  auto o = EngineOptions::FromProfile("zh-news").value();
  o.features.top_n = 5;
  auto top = Make(o);
  std::vector<features::Feature> g;
  ASSERT_TRUE(top->Features(norm, &g).ok());
  EXPECT_EQ(g.size(), 5u);
}

TEST(ProfilesTest, LongestSentenceIgnoresEditsElsewhere) {
  EngineOptions o;
  o.features.kind = FeatureKind::kLongestSentence;
  o.features.longest_sentences = 1;
  auto p = Make(o);
  const std::string a = std::string("短讯。") + kOther + "完。";
  const std::string b = std::string("另一条完全不同的短讯！") + kOther + "结束了。";
  EXPECT_EQ(p->Fingerprint(a).value(), p->Fingerprint(b).value());
  auto whole = Make(EngineOptions{});
  EXPECT_NE(whole->Fingerprint(a).value(), whole->Fingerprint(b).value());
}

}  // namespace
}  // namespace neardup::engine
