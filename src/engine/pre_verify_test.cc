// SPDX-License-Identifier: Apache-2.0
//
// EngineInternal::PreVerify: the verdicts it reaches outside the writer lock
// are trusted by AddPrepared while no slot has changed hands, and dropped
// once one has.
#include <gtest/gtest.h>

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
  auto first = EngineInternal::AddPrepared(engine, {"first", kReprint, 0}, failed);
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->duplicate);

  // Once a slot is released (the slot of "story" could now hold another
  // document), the verdicts are verified again.
  ASSERT_TRUE(engine.Remove("other").ok());
  auto second = EngineInternal::AddPrepared(engine, {"second", kReprint, 0}, failed);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->duplicate);
  EXPECT_EQ(second->matches.size(), 2u);  // "first" and "story"
}

}  // namespace
}  // namespace neardup
