// SPDX-License-Identifier: Apache-2.0
#include "distributed/checkpoint.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "distributed/in_process_comm.h"

namespace neardup::distributed {
namespace {

VerifyState VerifyOf(int rank) {
  VerifyState s;
  s.edges = {{1, static_cast<uint32_t>(2 + rank), 0.5f}, {3, 9, 1.0f}};
  s.states = {1, 0, 1, 2, 1};
  s.counters = {7, 1, 100, 2, 1200, 40, static_cast<uint64_t>(30 + rank)};
  if (rank == 0) s.skips = {1, 2, 3};
  return s;
}

ClusterState ClusterOf(int rank) {
  ClusterState s;
  s.labels.root = {0, 0, static_cast<uint32_t>(rank)};
  s.labels.size = {2, 2, 1};
  s.oversized_components = 1;
  s.refused_by_cap = static_cast<uint64_t>(rank);
  return s;
}

class CheckpointTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    auto dir = batch::TempDir::Create("");
    ASSERT_TRUE(dir.ok());
    dir_ = std::move(dir).value();
    work_ = dir_->File("work");
  }
  // Each rank: Open with `identity(rank)`, then `step`; returns per rank
  // the stage agreed for a resumed run.
  std::vector<Stage> Run(const std::function<std::string(int)>& identity,
                         const std::function<void(Comm&, const Checkpoints&)>& step) {
    std::vector<Stage> agreed(GetParam());
    RunInProcess(GetParam(), [&](Comm& c) {
      auto cp = Checkpoints::Open(c, work_, identity(c.rank()));
      ASSERT_TRUE(cp.ok()) << cp.status().ToString();
      step(c, *cp);
      agreed[c.rank()] = cp->Agreed(c, /*resume=*/true);
      EXPECT_EQ(cp->Agreed(c, /*resume=*/false), Stage::kNone);
    });
    return agreed;
  }
  std::string RankDir(int r) const {
    return work_ + "/rank-" + std::to_string(r) + "-of-" + std::to_string(GetParam());
  }
  std::unique_ptr<batch::TempDir> dir_;
  std::string work_;
};

auto Same(int) { return std::string("run A\n"); }

TEST_P(CheckpointTest, ResumesFromTheLatestStageEveryRankHas) {
  const int n = GetParam();
  auto none = [](Comm&, const Checkpoints&) {};
  EXPECT_EQ(Run(Same, none), std::vector<Stage>(n, Stage::kNone));
  // Verify saved by every rank; then cluster too.
  EXPECT_EQ(
      Run(Same, [](Comm& c,
                   const Checkpoints& cp) { EXPECT_TRUE(cp.SaveVerify(VerifyOf(c.rank())).ok()); }),
      std::vector<Stage>(n, Stage::kVerify));
  EXPECT_EQ(Run(Same,
                [](Comm& c, const Checkpoints& cp) {
                  EXPECT_TRUE(cp.SaveCluster(ClusterOf(c.rank())).ok());
                }),
            std::vector<Stage>(n, Stage::kCluster));
  // What each rank saved comes back.
  RunInProcess(n, [&](Comm& c) {
    auto cp = Checkpoints::Open(c, work_, Same(0));
    ASSERT_TRUE(cp.ok());
    VerifyState v;
    ASSERT_TRUE(cp->LoadVerify(5, &v).ok());
    const VerifyState want = VerifyOf(c.rank());
    EXPECT_EQ(v.counters, want.counters);
    EXPECT_EQ(v.states, want.states);
    EXPECT_EQ(v.skips, want.skips);
    ASSERT_EQ(v.edges.size(), 2u);
    EXPECT_EQ(v.edges[0].b, want.edges[0].b);
    ClusterState cl;
    ASSERT_TRUE(cp->LoadCluster(3, &cl).ok());
    EXPECT_EQ(cl.labels.root, ClusterOf(c.rank()).labels.root);
    EXPECT_EQ(cl.refused_by_cap, static_cast<uint64_t>(c.rank()));
    // A checkpoint of another input does not load.
    EXPECT_EQ(cp->LoadVerify(6, &v).code(), StatusCode::kCorruption);
    EXPECT_EQ(cp->LoadCluster(4, &cl).code(), StatusCode::kCorruption);
  });
  // One rank without the cluster marker: everyone resumes from verify.
  ASSERT_EQ(std::remove((RankDir(n - 1) + "/cluster.done").c_str()), 0);
  EXPECT_EQ(Run(Same, none), std::vector<Stage>(n, Stage::kVerify));
  // Another run (options, files, ranks): nothing is resumed.
  EXPECT_EQ(Run([](int r) { return std::string(r == 0 ? "run B\n" : "run A\n"); }, none),
            std::vector<Stage>(n, Stage::kNone));
  // One rank without the verify marker: nothing is resumed.
  ASSERT_EQ(std::remove((RankDir(0) + "/verify.done").c_str()), 0);
  EXPECT_EQ(Run(Same, none), std::vector<Stage>(n, Stage::kNone));
}

TEST_P(CheckpointTest, ATruncatedFileIsCorruption) {
  Run(Same,
      [](Comm& c, const Checkpoints& cp) { EXPECT_TRUE(cp.SaveVerify(VerifyOf(c.rank())).ok()); });
  { std::ofstream(RankDir(0) + "/edges.bin", std::ios::trunc) << "abc"; }
  RunInProcess(GetParam(), [&](Comm& c) {
    auto cp = Checkpoints::Open(c, work_, Same(0));
    ASSERT_TRUE(cp.ok());
    VerifyState v;
    EXPECT_EQ(cp->LoadVerify(5, &v).ok(), c.rank() != 0);
  });
}

TEST_P(CheckpointTest, AWorkDirThatCannotBeMadeFailsEveryRank) {
  { std::ofstream(dir_->File("file")) << "x"; }
  std::vector<Status> got(GetParam());
  RunInProcess(GetParam(), [&](Comm& c) {
    got[c.rank()] = Checkpoints::Open(c, dir_->File("file") + "/work", "id").status();
  });
  for (const Status& s : got) EXPECT_EQ(s.code(), StatusCode::kIOError) << s.ToString();
}

INSTANTIATE_TEST_SUITE_P(Ranks, CheckpointTest, ::testing::Values(1, 2, 3, 4));

}  // namespace
}  // namespace neardup::distributed
