// SPDX-License-Identifier: Apache-2.0
// The durable writer under injected store faults (store/fault_injection.h):
// failed writes, failed syncs and a full disk, for adds, removals (roots
// turning ghost, members), expiry and time refreshes. After each failure
// nothing acknowledged is lost, nothing unacknowledged appears, memory is
// exactly what the store holds, reads go on, and writes succeed again once
// the fault is gone; a restart then shows the same state.
#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/durable_access.h"
#include "engine/durable_impl.h"
#include "engine/durable_test_util.h"
#include "store/doc_store.h"
#include "store/fault_injection.h"

namespace neardup {
namespace {

using engine::EngineInternal;
using engine::EngineOf;
using store::FaultInjection;
using testing_util::Edit;
using testing_util::Snapshot;
using testing_util::Story;
using testing_util::TempDir;

struct Fault {
  FaultInjection::Op op;
  FaultInjection::Kind kind;
  StatusCode code;
};

class DurableFaultTest : public ::testing::TestWithParam<Fault> {
 protected:
  std::unique_ptr<DurableEngine> Open(std::shared_ptr<FaultInjection> faults) {
    DurableOptions o = testing_util::Opts(dir_.str());
    o.sync = true;  // so that syncs happen and can fail
    auto d = engine::OpenDurable(o, {.faults = std::move(faults)});
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    return d.ok() ? std::move(*d) : nullptr;
  }
  Status Add(DurableEngine& d, const std::string& id, const std::string& text) {
    auto r = d.Add({id, text, 5000 + static_cast<int64_t>(ids_.size()), "{\"id\":\"" + id + "\"}"},
                   OnConflict::kError);
    ids_.push_back(id);
    return r.status();
  }

  TempDir dir_;
  std::vector<std::string> ids_;  // every id ever sent, acknowledged or not
};

TEST_P(DurableFaultTest, FailedCommitsChangeNothingAndTheWriterRecovers) {
  const Fault f = GetParam();
  auto faults = std::make_shared<FaultInjection>();
  std::mt19937 rng(11);
  std::vector<std::string> bases;
  for (int i = 0; i < 8; ++i) bases.push_back(Story(rng, 150));
  std::string acknowledged;
  {
    auto d = Open(faults);
    ASSERT_TRUE(d);
    for (int i = 0; i < 40; ++i) {
      ASSERT_TRUE(Add(*d, "a" + std::to_string(i), Edit(rng, bases[i % 8], 1)).ok());
    }
    ASSERT_TRUE(d->Remove("a9").ok());  // a member
    ASSERT_TRUE(d->Remove("a0").ok());  // a root with members: a ghost
    // Two excerpts of a story, each alone in its cluster: the story gathers one.
    const std::string story = Story(rng, 900);
    ASSERT_TRUE(Add(*d, "e-one", "节选\n\n" + story.substr(0, 3 * 250)).ok());
    ASSERT_TRUE(Add(*d, "e-two", "节选\n\n" + story.substr(3 * 600, 3 * 250)).ok());
    // The ids about to be refused are in the picture too: absent before, and after.
    std::vector<std::string> all = ids_;
    all.insert(all.end(), {"x-new", "x-join", "x-b1", "x-b2", "x-last", "x-story"});
    const std::string before = Snapshot(EngineOf(*d), all);

    faults->Fail(f.op, f.kind);
    // Adds: new clusters and joins of existing ones.
    EXPECT_EQ(Add(*d, "x-new", Story(rng, 150)).code(), f.code);
    EXPECT_EQ(Add(*d, "x-join", Edit(rng, bases[1], 1)).code(), f.code);
    EXPECT_EQ(Add(*d, "x-story", story).code(), f.code);  // would gather e-two
    std::vector<IncomingDocument> batch = {{"x-b1", Edit(rng, bases[2], 2), 9000, ""},
                                           {"x-b2", Story(rng, 150), 9001, ""}};
    for (const auto& r : d->AddBatch(batch, OnConflict::kError))
      EXPECT_EQ(r.status().code(), f.code);
    ids_.insert(ids_.end(), {"x-b1", "x-b2"});
    // Removals: a member, a root with members, a ghost's last members.
    for (const char* id : {"a17", "a1", "a8", "a16", "a24", "a32"}) {
      EXPECT_EQ(d->Remove(id).code(), f.code) << id;
    }
    // Expiry of everything, and time refreshes (queued by reads).
    EXPECT_EQ(d->Expire(INT64_MAX).status().code(), f.code);
    auto got = d->Get("a2");  // reads go on
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->meta, "{\"id\":\"a2\"}");
    EXPECT_EQ(Add(*d, "x-last", Story(rng, 150)).code(), f.code);  // after the refresh, in order
    EXPECT_EQ(Snapshot(EngineOf(*d), all), before);
    EXPECT_GT(d->Stats().commit_errors, 0u);

    faults->Clear();
    ASSERT_TRUE(Add(*d, "y-after", Edit(rng, bases[3], 1)).ok());
    ASSERT_TRUE(Add(*d, "y-story", story).ok());
    ASSERT_TRUE(d->Remove("a11").ok());
    acknowledged = Snapshot(EngineOf(*d), ids_);
    EXPECT_NE(acknowledged.find("y-after:a3"), std::string::npos);
    EXPECT_NE(acknowledged.find("x-join:absent"), std::string::npos);
    EXPECT_NE(acknowledged.find("e-two:e-one,"), std::string::npos) << acknowledged;
    ASSERT_TRUE(d->Close().ok());
  }
  auto d = Open(nullptr);
  ASSERT_TRUE(d);
  EXPECT_EQ(Snapshot(EngineOf(*d), ids_), acknowledged);
}

INSTANTIATE_TEST_SUITE_P(
    Faults, DurableFaultTest,
    ::testing::Values(
        Fault{FaultInjection::Op::kWrite, FaultInjection::Kind::kIOError, StatusCode::kIOError},
        Fault{FaultInjection::Op::kWrite, FaultInjection::Kind::kNoSpace,
              StatusCode::kResourceExhausted},
        Fault{FaultInjection::Op::kSync, FaultInjection::Kind::kIOError, StatusCode::kIOError},
        Fault{FaultInjection::Op::kSync, FaultInjection::Kind::kNoSpace,
              StatusCode::kResourceExhausted}),
    [](const ::testing::TestParamInfo<Fault>& p) {
      return std::string(p.param.op == FaultInjection::Op::kWrite ? "Write" : "Sync") +
             (p.param.kind == FaultInjection::Kind::kNoSpace ? "NoSpace" : "IOError");
    });

// One failed sync, then the next commit succeeds without any help.
TEST(DurableFaultOnceTest, ASingleFailedSyncCostsOneGroup) {
  TempDir dir;
  auto faults = std::make_shared<FaultInjection>();
  DurableOptions o = testing_util::Opts(dir.str());
  o.sync = true;
  auto d = engine::OpenDurable(o, {.faults = faults});
  ASSERT_TRUE(d.ok());
  std::mt19937 rng(3);
  ASSERT_TRUE((*d)->Add({"a", Story(rng, 100), 1000, ""}, OnConflict::kError).ok());
  faults->Fail(FaultInjection::Op::kSync, FaultInjection::Kind::kIOError, 1);
  EXPECT_EQ((*d)->Add({"b", Story(rng, 100), 1001, ""}, OnConflict::kError).status().code(),
            StatusCode::kIOError);
  EXPECT_TRUE((*d)->Add({"c", Story(rng, 100), 1002, ""}, OnConflict::kError).ok());
  EXPECT_TRUE((*d)->Get("b").status().IsNotFound());
  EXPECT_TRUE((*d)->Get("c").ok());
}

// A full disk under concurrent batches (the service's `:batch` when the
// disk fills): groups of several batches, each joining clusters its own
// documents and earlier ones started, fail one after another and are rolled
// back. The process goes on, and once space is back writes succeed and a
// restart shows what was acknowledged.
TEST(DurableFaultConcurrentTest, ADiskThatFillsUnderConcurrentBatches) {
  TempDir dir;
  auto faults = std::make_shared<FaultInjection>();
  DurableOptions o = testing_util::Opts(dir.str());
  o.sync = true;
  std::vector<std::string> bases;
  std::mt19937 base_rng(5);
  for (int i = 0; i < 6; ++i) bases.push_back(Story(base_rng, 120));
  std::string acknowledged;
  std::vector<std::string> ids;
  std::mutex ids_mu;
  {
    auto d = engine::OpenDurable(o, {.faults = faults});
    ASSERT_TRUE(d.ok());
    auto batches = [&](int thread, int round, bool expect_ok) {
      std::mt19937 rng(static_cast<uint32_t>(100 * round + thread));
      std::vector<IncomingDocument> batch;
      for (int k = 0; k < 12; ++k) {
        const std::string id =
            "r" + std::to_string(round) + "t" + std::to_string(thread) + "-" + std::to_string(k);
        // Half join the bases' clusters, half start clusters of their own:
        // enough roots for the cluster orders to grow inner nodes.
        batch.push_back({id,
                         k % 2 ? Story(rng, 120) : Edit(rng, bases[(thread + k) % bases.size()], 1),
                         0, ""});
      }
      {
        std::lock_guard<std::mutex> lock(ids_mu);
        for (const auto& doc : batch) ids.push_back(doc.id);
      }
      for (const auto& r : (*d)->AddBatch(batch, OnConflict::kError)) {
        if (expect_ok) {
          EXPECT_TRUE(r.ok()) << r.status().ToString();
        }
      }
    };
    auto run = [&](int round, bool expect_ok) {
      std::vector<std::thread> threads;
      for (int t = 0; t < 4; ++t) threads.emplace_back(batches, t, round, expect_ok);
      for (auto& t : threads) t.join();
    };
    for (int round = -3; round <= 0; ++round) run(round, true);
    faults->Fail(FaultInjection::Op::kWrite, FaultInjection::Kind::kNoSpace);
    for (int round = 1; round <= 8; ++round) run(round, false);
    EXPECT_GT((*d)->Stats().commit_errors, 0u);
    faults->Clear();
    run(9, true);
    run(10, true);
    acknowledged = Snapshot(EngineOf(**d), ids);
    ASSERT_TRUE((*d)->Close().ok());
  }
  auto d = engine::OpenDurable(o, {});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(Snapshot(EngineOf(**d), ids), acknowledged);
}

}  // namespace
}  // namespace neardup
