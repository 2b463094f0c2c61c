// SPDX-License-Identifier: Apache-2.0
#include "batch/sorted_runs.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <random>

#include "batch/records.h"
#include "batch/sort.h"

namespace neardup::batch {
namespace {

uint64_t KeyOf(const KeyEntry& e) { return e.key; }

std::vector<KeyEntry> RandomEntries(size_t n, uint64_t seed, uint64_t key_range) {
  std::mt19937_64 rng(seed);
  std::vector<KeyEntry> v(n);
  for (auto& e : v) {
    // Skewed keys (a few spaces in the top bits) and repeated keys.
    e.key = MakeKey(static_cast<uint32_t>(rng() % 3), rng() % key_range * 0x9E3779B97F4A7C15ull);
    e.doc = static_cast<uint32_t>(rng() % 100000);
  }
  return v;
}

bool Equal(const KeyEntry& a, const KeyEntry& b) { return a.key == b.key && a.doc == b.doc; }

TEST(RadixSortTest, MatchesStdSort) {
  for (uint64_t range : {5ull, 1000ull, 1ull << 40}) {
    auto v = RandomEntries(200000, range, range);
    auto expected = v;
    std::sort(expected.begin(), expected.end(), KeyEntryLess());
    RadixSort(std::span<KeyEntry>(v), KeyOf, KeyEntryLess());
    ASSERT_TRUE(std::equal(v.begin(), v.end(), expected.begin(), Equal)) << range;
  }
  // Pairs: small doc ids leave the top bytes zero.
  std::mt19937_64 rng(7);
  std::vector<Pair> p(100000);
  for (auto& x : p) x = MakePair(rng() % 5000, rng() % 5000 + 5000, rng() & 1);
  auto q = p;
  std::sort(q.begin(), q.end());
  RadixSort(
      std::span<Pair>(p), [](Pair x) { return x; }, std::less<Pair>());
  EXPECT_EQ(p, q);
}

class RunSetTest : public ::testing::TestWithParam<int> {};

// Runs spilled, in memory, or both, with a fan-in forcing several merge
// passes: the merged stream equals std::sort of everything.
TEST_P(RunSetTest, MergeEqualsSortOfEverything) {
  auto dir = TempDir::Create("");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  RunSet<KeyEntry, KeyEntryLess> runs(dir->get(), "k");
  std::vector<KeyEntry> all;
  const int mode = GetParam();  // 0 memory, 1 files, 2 mixed
  for (int r = 0; r < 37; ++r) {
    auto v = RandomEntries(1000 + 97 * r, 100 + r, 5000);
    all.insert(all.end(), v.begin(), v.end());
    RadixSort(std::span<KeyEntry>(v), KeyOf, KeyEntryLess());
    const bool spill = mode == 1 || (mode == 2 && r % 3 != 0);
    SpillBuffer<KeyEntry> buf;
    ASSERT_TRUE(buf.Room(v.size()));
    for (const KeyEntry& e : v) buf.push_back(e);
    ASSERT_TRUE(runs.AddRun(&buf, spill).ok());
    EXPECT_TRUE(buf.empty());
  }
  EXPECT_EQ(runs.records(), all.size());
  std::sort(all.begin(), all.end(), KeyEntryLess());
  auto merger = runs.Merge(64 << 10, /*max_fanin=*/4);
  ASSERT_TRUE(merger.ok()) << merger.status().ToString();
  std::vector<KeyEntry> got;
  KeyEntry e;
  while (true) {
    auto more = (*merger)->Next(&e);
    ASSERT_TRUE(more.ok());
    if (!*more) break;
    got.push_back(e);
  }
  ASSERT_EQ(got.size(), all.size());
  EXPECT_TRUE(std::equal(got.begin(), got.end(), all.begin(), Equal));
  // Spill files are deleted once read.
  merger->reset();
  EXPECT_EQ((*dir)->DiskBytes(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Modes, RunSetTest, ::testing::Values(0, 1, 2));

TEST(RunSetTest, EmptyAndSingleRuns) {
  RunSet<Pair, std::less<Pair>> none(nullptr, "p");
  SpillBuffer<Pair> empty;
  ASSERT_TRUE(none.AddRun(&empty, false).ok());
  auto m = none.Merge(1 << 20);
  ASSERT_TRUE(m.ok());
  Pair p;
  auto more = (*m)->Next(&p);
  ASSERT_TRUE(more.ok());
  EXPECT_FALSE(*more);
  // Spilling needs a directory: an error, not a crash.
  SpillBuffer<Pair> one;
  ASSERT_TRUE(one.Room(1));
  one.push_back(1);
  EXPECT_FALSE(none.AddRun(&one, true).ok());
}

// Slices of one sorted file (an index's keys split over MPI ranks) are
// runs: their merge is the file's records in the slices, and the file stays.
TEST(RunSetTest, SlicesOfAKeptFile) {
  auto dir = TempDir::Create("");
  ASSERT_TRUE(dir.ok());
  auto all = RandomEntries(50000, 3, 1000);
  std::sort(all.begin(), all.end(), KeyEntryLess());
  const std::string path = (*dir)->File("index.run");
  SpillWriter w;
  ASSERT_TRUE(w.Open(path).ok());
  ASSERT_TRUE(WriteRecords<KeyEntry>(&w, all).ok());
  ASSERT_TRUE(w.Close().ok());
  for (const uint64_t parts : {1u, 3u, 7u}) {
    // Every part but one: the merge must not read past a slice's end.
    RunSet<KeyEntry, KeyEntryLess> runs(dir->get(), "k");
    std::vector<KeyEntry> want;
    for (uint64_t p = 0; p < parts; ++p) {
      if (parts > 1 && p == 1) continue;
      const uint64_t a = all.size() * p / parts, b = all.size() * (p + 1) / parts;
      runs.AddFileSlice(path, a, b - a);
      want.insert(want.end(), all.begin() + a, all.begin() + b);
    }
    std::sort(want.begin(), want.end(), KeyEntryLess());
    EXPECT_EQ(runs.records(), want.size());
    auto m = runs.Merge(64 << 10, /*max_fanin=*/2);  // 3 and 7 parts pre-merge
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    std::vector<KeyEntry> got;
    KeyEntry e;
    while (true) {
      auto more = (*m)->Next(&e);
      ASSERT_TRUE(more.ok());
      if (!*more) break;
      got.push_back(e);
    }
    ASSERT_EQ(got.size(), want.size()) << parts;
    EXPECT_TRUE(std::equal(got.begin(), got.end(), want.begin(), Equal)) << parts;
  }
  EXPECT_EQ(FileBytes(path), all.size() * sizeof(KeyEntry));  // left in place
}

TEST(SpillFileTest, WriteReadAndTruncation) {
  auto dir = TempDir::Create("");
  ASSERT_TRUE(dir.ok());
  const std::string path = (*dir)->File("x.bin");
  SpillWriter w;
  ASSERT_TRUE(w.Open(path, 4096).ok());
  std::vector<uint64_t> v(10000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = i * i;
  ASSERT_TRUE(WriteRecords<uint64_t>(&w, v).ok());
  ASSERT_TRUE(w.Append("abc", 3).ok());  // a partial record at the end
  ASSERT_TRUE(w.Close().ok());
  EXPECT_EQ(FileBytes(path), v.size() * 8 + 3);
  SpillReader r;
  ASSERT_TRUE(r.Open(path, 4096).ok());
  for (size_t i = 0; i < v.size(); ++i) {
    uint64_t x;
    auto more = r.Read(&x, 8);
    ASSERT_TRUE(more.ok() && *more);
    ASSERT_EQ(x, v[i]);
  }
  uint64_t x;
  auto tail = r.Read(&x, 8);
  EXPECT_FALSE(tail.ok());  // ends inside a record: Corruption
  EXPECT_EQ(tail.status().code(), StatusCode::kCorruption);
}

// A released file gives its disk back as it is read, and reads the same.
TEST(SpillFileTest, ReleaseFreesDiskBehindTheReader) {
  auto dir = TempDir::Create("");
  ASSERT_TRUE(dir.ok());
  const std::string path = (*dir)->File("big.run");
  SpillWriter w;
  ASSERT_TRUE(w.Open(path).ok());
  std::vector<uint64_t> block(1 << 17);  // 1 MiB
  const size_t blocks = 80;
  for (size_t b = 0; b < blocks; ++b) {
    for (size_t i = 0; i < block.size(); ++i) block[i] = b * block.size() + i;
    ASSERT_TRUE(WriteRecords<uint64_t>(&w, block).ok());
  }
  ASSERT_TRUE(w.Close().ok());
  auto disk = [&] {
    struct stat st;
    return stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_blocks) * 512 : 0;
  };
  const uint64_t full = disk();
  SpillReader r;
  ASSERT_TRUE(r.Open(path, 1 << 20, /*release=*/true).ok());
  uint64_t expect = 0, least = full;
  while (true) {
    auto got = r.NextBlock(sizeof(uint64_t));
    ASSERT_TRUE(got.ok());
    if (got->empty()) break;
    const auto* v = reinterpret_cast<const uint64_t*>(got->data());
    for (size_t i = 0; i < got->size() / 8; ++i) ASSERT_EQ(v[i], expect++);
    least = std::min(least, disk());
  }
  EXPECT_EQ(expect, blocks * block.size());
  EXPECT_EQ(FileBytes(path), blocks * block.size() * 8);  // the size stays
  // Holes were punched, where the file system can (ext4, xfs, tmpfs can).
  const int fd = open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  const bool can_punch = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096) == 0;
  close(fd);
  if (!can_punch) GTEST_SKIP() << "this file system cannot punch holes";
  EXPECT_LE(least, full - (32u << 20));
}

TEST(SpillFileTest, ErrorsNameThePath) {
  SpillWriter w;
  Status s = w.Open("/nonexistent-dir/x.run");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent-dir/x.run"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace neardup::batch
