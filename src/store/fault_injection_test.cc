// SPDX-License-Identifier: Apache-2.0
// The store under injected faults: each failure is reported with the right
// code, nothing of a failed batch is visible (now or after a reopen), and
// the store takes writes again once the fault is gone.
#include "store/fault_injection.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "store/doc_store.h"

namespace neardup::store {
namespace {

using Op = FaultInjection::Op;
using Kind = FaultInjection::Kind;

std::string FaultDir(const std::string& tag) {
  auto p = std::filesystem::temp_directory_path() /
           ("neardup_faults_" + tag + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(p);
  return p.string();
}

Status Put(DocStore& st, uint64_t seq, const std::string& id) {
  DocStore::Batch b;
  st.Prepare(&b);
  b.PutNode({seq, id, "", seq * 7, 1000});
  b.PutDoc(id, {seq, 1000, "", "text " + id});
  return st.Write(&b, /*sync=*/true);
}

struct Case {
  Op op;
  Kind kind;
  StatusCode want;
};

class StoreFaultTest : public ::testing::TestWithParam<Case> {};

TEST_P(StoreFaultTest, FailedWriteIsInvisibleAndTheStoreRecovers) {
  const Case c = GetParam();
  const std::string dir = FaultDir(std::to_string(static_cast<int>(c.op)) + "_" +
                                   std::to_string(static_cast<int>(c.kind)));
  auto faults = std::make_shared<FaultInjection>();
  {
    auto st = DocStore::Open(dir, {.faults = faults});
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    ASSERT_TRUE(Put(**st, 0, "before").ok());
    faults->Fail(c.op, c.kind);
    const Status s = Put(**st, 1, "failed");
    EXPECT_EQ(s.code(), c.want) << s.ToString();
    EXPECT_GT(faults->injected(), 0u);
    EXPECT_TRUE((*st)->GetDoc("failed").status().IsNotFound());
    EXPECT_FALSE((*st)->healthy());
    EXPECT_TRUE((*st)->GetDoc("before").ok());  // reads go on
    // While the fault lasts, writes fail and write nothing.
    EXPECT_FALSE(Put(**st, 2, "during").ok());
    faults->Clear();
    // Once it is gone, the next write repairs the store first.
    const Status after = Put(**st, 3, "after");
    EXPECT_TRUE(after.ok()) << "after: " << after.ToString();
    EXPECT_TRUE((*st)->GetDoc("before").ok());
  }
  auto st = DocStore::Open(dir, {});
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_TRUE((*st)->GetDoc("before").ok());
  EXPECT_TRUE((*st)->GetDoc("after").ok());
  EXPECT_TRUE((*st)->GetDoc("failed").status().IsNotFound());
  EXPECT_TRUE((*st)->GetDoc("during").status().IsNotFound());
  auto n = (*st)->GetNode(1);
  EXPECT_TRUE(n.status().IsNotFound()) << n.status().ToString();
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Faults, StoreFaultTest,
    ::testing::Values(Case{Op::kWrite, Kind::kIOError, StatusCode::kIOError},
                      Case{Op::kWrite, Kind::kNoSpace, StatusCode::kResourceExhausted},
                      Case{Op::kSync, Kind::kIOError, StatusCode::kIOError},
                      Case{Op::kSync, Kind::kNoSpace, StatusCode::kResourceExhausted}),
    [](const ::testing::TestParamInfo<Case>& p) {
      return std::string(p.param.op == FaultInjection::Op::kWrite ? "Write" : "Sync") +
             (p.param.kind == FaultInjection::Kind::kNoSpace ? "NoSpace" : "IOError");
    });

TEST(StoreFaultTest, ReadErrorsAreIOErrorsAndPass) {
  const std::string dir = FaultDir("read");
  auto faults = std::make_shared<FaultInjection>();
  {
    auto st = DocStore::Open(dir, {.faults = faults});
    ASSERT_TRUE(st.ok());
    ASSERT_TRUE(Put(**st, 0, "a").ok());
    ASSERT_TRUE((*st)->Flush().ok());  // into an SST file, read through the file system
  }
  auto st = DocStore::Open(dir, {.block_cache_bytes = 0, .faults = faults});
  ASSERT_TRUE(st.ok());
  faults->Fail(Op::kRead);
  auto row = (*st)->GetDoc("a");
  EXPECT_EQ(row.status().code(), StatusCode::kIOError) << row.status().ToString();
  faults->Clear();
  EXPECT_TRUE((*st)->GetDoc("a").ok());
  std::filesystem::remove_all(dir);
}

TEST(StoreFaultTest, CountedFaultsStopByThemselves) {
  FaultInjection f;
  f.Fail(Op::kSync, Kind::kNoSpace, 2);
  Kind k;
  EXPECT_TRUE(f.Take(Op::kSync, &k));
  EXPECT_EQ(k, Kind::kNoSpace);
  EXPECT_FALSE(f.Take(Op::kWrite, &k));
  EXPECT_TRUE(f.Take(Op::kSync, &k));
  EXPECT_FALSE(f.Take(Op::kSync, &k));
  EXPECT_EQ(f.injected(), 2u);
}

}  // namespace
}  // namespace neardup::store
