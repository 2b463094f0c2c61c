// SPDX-License-Identifier: Apache-2.0
#include "batch/spill_buffer.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <vector>

#include "base/sanitizers.h"

namespace neardup::batch {
namespace {

// The process's mapped bytes (/proc/self/statm, in pages).
uint64_t MappedBytes() {
  std::ifstream in("/proc/self/statm");
  uint64_t pages = 0;
  in >> pages;
  return pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

TEST(SpillBufferTest, GrowsByNeedAndKeepsItsRecords) {
  SpillBuffer<uint64_t> buf(1 << 20);
  EXPECT_EQ(buf.capacity(), 0u);  // nothing mapped before the first record
  for (uint64_t i = 0; i < 300000; ++i) {
    ASSERT_TRUE(buf.Room(1));
    buf.push_back(i * 7);
  }
  ASSERT_EQ(buf.size(), 300000u);
  for (uint64_t i = 0; i < buf.size(); ++i) ASSERT_EQ(buf[i], i * 7);
  // Doubling from 64 KiB: the capacity stays within twice the records.
  EXPECT_LE(buf.capacity(), 2 * buf.size());
  EXPECT_GE(buf.capacity(), buf.size());
}

TEST(SpillBufferTest, RefusesPastItsLimitThenReusesItsMemory) {
  SpillBuffer<uint32_t> buf(100000);
  size_t pushed = 0;
  while (buf.Room(1)) {
    buf.push_back(static_cast<uint32_t>(pushed++));
  }
  // The limit, or the rest of its last page.
  EXPECT_GE(pushed, 100000u);
  EXPECT_LT(pushed, 100000u + 4096);
  const size_t cap = buf.capacity();
  buf.clear();
  EXPECT_TRUE(buf.empty());
  EXPECT_TRUE(buf.Room(cap));
  EXPECT_EQ(buf.capacity(), cap);  // no new mapping for a reused buffer
}

TEST(SpillBufferTest, ShrinkMoveAndRelease) {
  SpillBuffer<uint64_t> buf;
  ASSERT_TRUE(buf.Room(100000));
  for (uint64_t i = 0; i < 1000; ++i) buf.push_back(i);
  buf.ShrinkToFit();
  EXPECT_LT(buf.capacity(), 2000u);
  SpillBuffer<uint64_t> moved = std::move(buf);
  EXPECT_EQ(buf.size(), 0u);  // NOLINT(bugprone-use-after-move): the contract
  EXPECT_EQ(buf.capacity(), 0u);
  ASSERT_EQ(moved.size(), 1000u);
  EXPECT_EQ(moved[999], 999u);
  moved.truncate(10);
  EXPECT_EQ(moved.span().size(), 10u);
  moved.Release();
  EXPECT_EQ(moved.capacity(), 0u);
  // An emptied buffer frees its mapping when kept as a run.
  ASSERT_TRUE(moved.Room(1));
  moved.ShrinkToFit();
  EXPECT_EQ(moved.capacity(), 0u);
}

// A limit far above what the process may map costs nothing until used,
// and a refused mapping is a false from Room(), not an abort.
TEST(SpillBufferTest, AHugeLimitMapsOnlyWhatIsUsed) {
  if (base::kSanitized) GTEST_SKIP() << "sanitizers reserve address space of their own";
  SpillBuffer<uint64_t> buf(uint64_t{1} << 40);  // 8 TiB of records
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(buf.Room(1));
    buf.push_back(i);
  }
  EXPECT_LE(buf.capacity() * sizeof(uint64_t), size_t{64} << 10);
  // Under an address-space limit 256 MiB above what is mapped now, 8 GiB
  // more are refused.
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &old), 0);
  rlimit tight = old;
  tight.rlim_cur = MappedBytes() + (256 << 20);
  ASSERT_EQ(setrlimit(RLIMIT_AS, &tight), 0);
  const bool room = buf.Room(uint64_t{1} << 30);
  ASSERT_EQ(setrlimit(RLIMIT_AS, &old), 0);
  EXPECT_FALSE(room);
  EXPECT_EQ(buf.size(), 1000u);
  EXPECT_EQ(buf[999], 999u);
}

TEST(SpillBufferTest, AppendOrSpillHandsOnFullBuffers) {
  SpillBuffer<uint32_t> buf(5000);
  std::vector<uint32_t> spilled;
  int spills = 0;
  auto spill = [&] {
    ++spills;
    spilled.insert(spilled.end(), buf.begin(), buf.end());
    buf.clear();
    return Status::OK();
  };
  for (uint32_t i = 0; i < 50000; ++i) ASSERT_TRUE(AppendOrSpill(&buf, i, spill).ok());
  spilled.insert(spilled.end(), buf.begin(), buf.end());
  EXPECT_GE(spills, 9);
  ASSERT_EQ(spilled.size(), 50000u);
  for (uint32_t i = 0; i < 50000; ++i) ASSERT_EQ(spilled[i], i);
  // A failing spill is returned.
  buf.clear();
  while (buf.Room(1)) buf.push_back(1);
  EXPECT_EQ(AppendOrSpill(&buf, 2u, [] { return Status::IOError("disk full"); }).code(),
            StatusCode::kIOError);
}

}  // namespace
}  // namespace neardup::batch
