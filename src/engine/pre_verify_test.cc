// SPDX-License-Identifier: Apache-2.0
//
// EngineInternal::PreVerify: the verdicts it reaches outside the writer lock
// are trusted by AddPrepared while no slot has changed hands, and dropped
// once one has.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/engine_internal.h"
#include "neardup/engine.h"

namespace neardup {
namespace {

using engine::EngineInternal;
using engine::PreparedDocument;

constexpr char kPreVerifyStory[] =
    "国家统计局今天发布数据显示，十月份全国居民消费价格同比上涨百分之二点一，其中城市上涨百分之二点"
    "零，农村上涨百分之二点三；食品价格上涨百分之三点八，非食品价格上涨百分之一点七。";
constexpr char kReprint[] =
    "国家统计局今天发布数据显示：十月份全国居民消费价格同比上涨百分之二点一，其中城市上涨百分之二点"
    "零，农村上涨百分之二点三；食品价格上涨百分之三点八，非食品价格上涨百分之一点七";
constexpr char kPreVerifyOther[] =
    "北京时间昨晚，中国女排在世界杯比赛中以三比零战胜对手，取得开门红，主教练赛后表示球队状态良好"
    "。";

TEST(PreVerifyTest, VerdictsHoldUntilASlotIsReleased) {
  auto e = Engine::Create(EngineOptions{});
  ASSERT_TRUE(e.ok());
  Engine& engine = **e;
  ASSERT_TRUE(engine.Add({"story", kPreVerifyStory}).ok());
  ASSERT_TRUE(engine.Add({"other", kPreVerifyOther}).ok());

  PreparedDocument p;
  ASSERT_TRUE(EngineInternal::Prepare(engine, kReprint, &p).ok());
  ASSERT_TRUE(EngineInternal::PreVerify(engine, &p).ok());
  ASSERT_EQ(p.verdicts.size(), 1u);
  EXPECT_TRUE(p.verdicts.begin()->second.passed);

  // A verdict is trusted as given: turned to a failure, the reprint is new.
  PreparedDocument failed = p;
  failed.verdicts.begin()->second.passed = false;
  auto first = EngineInternal::AddPrepared(engine, {"first", kReprint, 0}, &failed);
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->duplicate);

  // Once a slot is released (the slot of "story" could now hold another
  // document), the verdicts are verified again.
  ASSERT_TRUE(engine.Remove("other").ok());
  auto second = EngineInternal::AddPrepared(engine, {"second", kReprint, 0}, &failed);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->duplicate);
  EXPECT_EQ(second->matches.size(), 2u);  // "first" and "story"
}

// The writer brings PreVerify's index answers up to date (QueryAgain)
// instead of querying again: with the story in a sorted run (past the
// mutable tier's 8,192 documents), a reprint added since and the story
// removed since (kept as a ghost: its slot is not released, so the memo is
// used), the reprint's matches are a fresh query's.
TEST(PreVerifyTest, TheWriterAnswersFromTheMemoAsAFreshQuery) {
  auto e = Engine::Create(EngineOptions{});
  ASSERT_TRUE(e.ok());
  Engine& engine = **e;
  ASSERT_TRUE(engine.Add({"story", kPreVerifyStory}).ok());
  ASSERT_TRUE(engine.Add({"early", kReprint}).ok());  // a member: "story" stays as a ghost
  const std::string chars = "天地玄黄宇宙洪荒日月盈昃辰宿列张寒来暑往秋收冬藏闰余成岁律吕调阳";
  std::vector<std::string> han;
  for (size_t i = 0; i < chars.size(); i += 3) han.push_back(chars.substr(i, 3));
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 8300; ++i) {
    std::string text;
    for (int k = 0; k < 24; ++k) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      text += han[x % han.size()];
    }
    ASSERT_TRUE(engine.Add({"filler" + std::to_string(i), text}).ok());
  }
  PreparedDocument p;
  ASSERT_TRUE(EngineInternal::Prepare(engine, kReprint, &p).ok());
  ASSERT_TRUE(EngineInternal::PreVerify(engine, &p).ok());
  ASSERT_FALSE(p.memos.empty());
  ASSERT_TRUE(engine.Add({"later", kReprint}).ok());
  ASSERT_TRUE(engine.Remove("story").ok());
  auto fresh = engine.Query(kReprint);
  ASSERT_TRUE(fresh.ok());
  auto added = EngineInternal::AddPrepared(engine, {"last", kReprint, 0}, &p);
  ASSERT_TRUE(added.ok());
  ASSERT_EQ(added->matches.size(), fresh->matches.size());
  ASSERT_EQ(added->matches.size(), 2u);  // "early" and "later", not the removed "story"
  for (size_t i = 0; i < fresh->matches.size(); ++i) {
    EXPECT_EQ(added->matches[i].id, fresh->matches[i].id);
    EXPECT_EQ(added->matches[i].similarity, fresh->matches[i].similarity);
    EXPECT_EQ(added->matches[i].verified, fresh->matches[i].verified);
  }
}

}  // namespace
}  // namespace neardup
