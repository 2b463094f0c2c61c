// SPDX-License-Identifier: Apache-2.0
#include "neardup/text.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "base/sorted_set.h"
#include "neardup/engine.h"

namespace neardup {
namespace {

EngineOptions Chars(T2S t2s) {
  EngineOptions o;
  o.normalize.t2s = t2s;
  o.shingles = {ShingleKind::kScript, 3, 1};
  return o;
}

double Jaccard(const TextPipeline& p, std::string_view a, std::string_view b) {
  std::vector<uint64_t> x, y;
  EXPECT_TRUE(p.Shingles(a, &x).ok() && p.Shingles(b, &y).ok());
  return SortedSetJaccard<uint64_t>(x, y);
}

TEST(TextPipelineTest, ShinglesAreSetsAfterNormalization) {
  auto p = TextPipeline::Create(Chars(T2S::kOff));
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  // Repetition does not change a set; punctuation is a separator inside a run.
  EXPECT_DOUBLE_EQ(Jaccard(**p, "明月明月明月明月", "明月，明月"), 1.0);
  std::string normalized;
  ASSERT_TRUE((*p)->Normalize("ＡＢＣ，Def", &normalized).ok());
  EXPECT_EQ(normalized, "abc def");
  EXPECT_TRUE((*p)->Normalize("\xC0\xAF", &normalized).IsInvalidArgument());
}

TEST(TextPipelineTest, T2SFoldsTraditionalToSimplified) {
  auto chars = TextPipeline::Create(Chars(T2S::kCharacters));
  ASSERT_TRUE(chars.ok()) << chars.status().ToString();
  EXPECT_DOUBLE_EQ(Jaccard(**chars, "列出目錄內容與檔案", "列出目录内容与档案"), 1.0);
  auto plain = TextPipeline::Create(Chars(T2S::kOff));
  ASSERT_TRUE(plain.ok());
  EXPECT_LT(Jaccard(**plain, "列出目錄內容與檔案", "列出目录内容与档案"), 0.5);
  // Taiwan usage: 程式 (program) becomes 程序 only with the Taiwan stage.
  auto tw = TextPipeline::Create(Chars(T2S::kTaiwan));
  ASSERT_TRUE(tw.ok());
  std::string n;
  ASSERT_TRUE((*tw)->Normalize("這個程式", &n).ok());
  EXPECT_EQ(n, "这个程序");
}

TEST(TextPipelineTest, MissingT2STableIsNotFound) {
  EngineOptions o = Chars(T2S::kCharacters);
  o.data_dir = "/nonexistent";
  EXPECT_TRUE(TextPipeline::Create(o).status().IsNotFound());
}

// MinHash is the engine's signature: its estimate is the one Explain reports.
TEST(TextPipelineTest, MinHashIsTheEnginesSignature) {
  EngineOptions o;
  o.minhash.num_perm = 64;
  auto p = TextPipeline::Create(o);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const std::string a = "床前明月光，疑是地上霜。举头望明月，低头思故乡。";
  const std::string b = "床前明月光，疑是地上霜。举头望山月，低头思故乡。";
  std::vector<uint32_t> sa, sb;
  ASSERT_TRUE((*p)->MinHash(a, &sa).ok());
  ASSERT_TRUE((*p)->MinHash(b, &sb).ok());
  ASSERT_EQ(sa.size(), 64u);
  size_t equal = 0;
  for (size_t i = 0; i < sa.size(); ++i) equal += sa[i] == sb[i];
  auto engine = Engine::Create(o);
  ASSERT_TRUE(engine.ok());
  auto x = (*engine)->Explain(a, b);
  ASSERT_TRUE(x.ok());
  EXPECT_DOUBLE_EQ(x->minhash_estimate, equal / 64.0);
  EXPECT_GT(equal, 0u);
  EXPECT_LT(equal, 64u);
  // No shingles: the empty value everywhere; bad UTF-8 is an error.
  ASSERT_TRUE((*p)->MinHash("", &sa).ok());
  EXPECT_EQ(sa, std::vector<uint32_t>(64, 0xFFFFFFFFu));
  EXPECT_TRUE((*p)->MinHash("\xC0\xAF", &sa).IsInvalidArgument());
}

// The console compares characters as the engine folds them: one out per
// one in, Traditional to Simplified, width and case folded, punctuation
// (which normalization drops) as it is.
TEST(EngineTest, FoldCharactersKeepsOneCodePointPerCharacter) {
  auto engine = Engine::Create(EngineOptions{});
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  std::string folded;
  ASSERT_TRUE((*engine)->FoldCharacters("國家統計局發佈，ＡＢＣ! 😀", &folded).ok());
  EXPECT_EQ(folded, "国家统计局发布，abc! 😀");
  EXPECT_TRUE((*engine)->FoldCharacters("\xC0\xAF", &folded).IsInvalidArgument());
}

// Explain spells out the arithmetic of the default's decision.
TEST(EngineTest, ExplainShowsHowTheSimilarityIsMade) {
  auto engine = Engine::Create(EngineOptions{});
  ASSERT_TRUE(engine.ok());
  auto x = (*engine)->Explain("已知函数的最大值是多少呢", "已知函数的最小值是多少呢");
  ASSERT_TRUE(x.ok());
  ASSERT_FALSE(x->steps.empty());
  EXPECT_NE(x->steps[0].find("jaccard"), std::string::npos) << x->steps[0];
  bool weighted = false;
  for (const auto& s : x->steps) weighted = weighted || s.find("edit_weight") != std::string::npos;
  EXPECT_TRUE(weighted);
  ASSERT_TRUE(x->edit_similarity.has_value());
  const double w = EngineOptions{}.verify.edit_weight;
  EXPECT_NEAR(x->similarity, std::max(x->jaccard, 1 - w * (1 - *x->edit_similarity)), 1e-12);
  EngineOptions qbank = *EngineOptions::FromProfile("qbank");
  auto q = Engine::Create(qbank);
  ASSERT_TRUE(q.ok());
  auto d = (*q)->Explain("计算3+5的值", "计算3+6的值");
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->duplicate);
  EXPECT_EQ(d->rule.rfind("question-bank rule: the digits differ", 0), 0u) << d->rule;
}

TEST(SegmenterTest, CutsLikeJieba) {
  auto seg = Segmenter::Create({});
  if (!seg.ok()) GTEST_SKIP() << "run scripts/setup for the jieba dictionary";
  std::vector<std::string> words;
  ASSERT_TRUE((*seg)->Cut("我来到北京清华大学", &words).ok());
  EXPECT_EQ(words, (std::vector<std::string>{"我", "来到", "北京", "清华大学"}));
}

}  // namespace
}  // namespace neardup
