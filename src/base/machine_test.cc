// SPDX-License-Identifier: Apache-2.0
#include "base/machine.h"

#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "base/parallel.h"

namespace neardup::base {
namespace {

TEST(MachineTest, LimitsComeFromTheMachine) {
  const uint64_t ram = PhysicalMemoryBytes();
  EXPECT_GT(ram, uint64_t{16} << 20);
  EXPECT_TRUE(CheckMemory(ram, "--memory").ok());
  EXPECT_TRUE(CheckMemory(0, "--memory").ok());
  const Status over = CheckMemory(ram + 1, "--memory");
  EXPECT_TRUE(over.IsInvalidArgument());
  EXPECT_NE(over.message().find("--memory"), std::string::npos) << over.message();
  EXPECT_NE(over.message().find(FormatBytes(ram)), std::string::npos) << over.message();

  const int cap = MaxThreads();
  EXPECT_GE(cap, 1);
  EXPECT_LE(cap, 1024);
  EXPECT_TRUE(CheckThreads(cap, "-j").ok());
  EXPECT_TRUE(CheckThreads(0, "-j").ok());  // every core
  EXPECT_TRUE(CheckThreads(-1, "-j").ok());
  const Status many = CheckThreads(100000, "-j");
  EXPECT_TRUE(many.IsInvalidArgument());
  EXPECT_NE(many.message().find(std::to_string(cap)), std::string::npos) << many.message();
}

TEST(MachineTest, FormatBytes) {
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(uint64_t{64} << 40), "64.0 TiB");
}

TEST(MachineTest, ResourceErrorsBecomeStatuses) {
  Status s = CatchResourceErrors([]() -> Status { throw std::bad_alloc(); });
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  Result<int> r = CatchResourceErrors([]() -> Result<int> {
    throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
  });
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(*CatchResourceErrors([]() -> Result<int> { return 7; }), 7);
  EXPECT_THROW((void)CatchResourceErrors([]() -> Status { throw std::logic_error("a bug"); }),
               std::logic_error);
}

TEST(MachineTest, ParallelForDoesEveryItemWithAnyThreadCount) {
  for (int threads : {1, 3, 64}) {
    std::vector<int> hits(1000);
    ParallelFor(hits.size(), threads, 7, [&](int, size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) ++hits[i];
    });
    for (int h : hits) ASSERT_EQ(h, 1);
  }
}

}  // namespace
}  // namespace neardup::base
