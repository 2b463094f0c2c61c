// SPDX-License-Identifier: Apache-2.0
#include "distributed/output.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <mutex>
#include <sstream>

#include "batch/temp_dir.h"
#include "distributed/in_process_comm.h"

namespace neardup::distributed {
namespace {

// Rank r's share: r * 1000 + 7 bytes (rank 2's empty when `empty_rank2`).
std::string ShareOf(int rank, bool empty_rank2) {
  if (rank == 2 && empty_rank2) return "";
  std::string s;
  for (int i = 0; i < rank * 1000 + 7; ++i) s.push_back(static_cast<char>('a' + (rank + i) % 26));
  return s;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Case {
  int ranks;
  bool to_file;  // rank 0 names a regular file (else a stream)
  bool empty_rank2;
  uint64_t round_bytes;
};

class WriteInRankOrderTest : public ::testing::TestWithParam<Case> {};

TEST_P(WriteInRankOrderTest, SharesInRankOrder) {
  const Case k = GetParam();
  auto tmp = batch::TempDir::Create("");
  ASSERT_TRUE(tmp.ok());
  const std::string path = (*tmp)->File("out");
  std::string want;
  for (int r = 0; r < k.ranks; ++r) want += ShareOf(r, k.empty_rank2);
  std::ofstream file;
  std::ostringstream stream;
  if (k.to_file) file.open(path, std::ios::binary | std::ios::trunc);
  std::mutex mu;
  std::vector<std::string> failures;
  std::vector<bool> direct(k.ranks);
  RunInProcess(k.ranks, [&](Comm& c) {
    OutputTarget t;
    if (c.rank() == 0) {
      t.out = k.to_file ? static_cast<std::ostream*>(&file) : &stream;
      t.path = k.to_file ? path : "";
    }
    t.tmp_dir = (*tmp)->path();
    t.round_bytes = k.round_bytes;
    bool d = false;
    const Status s = WriteInRankOrder(
        c, t,
        [&](std::ostream& o) {
          o << ShareOf(c.rank(), k.empty_rank2);
          return Status::OK();
        },
        &d);
    std::lock_guard<std::mutex> lock(mu);
    direct[c.rank()] = d;
    if (!s.ok()) failures.push_back(s.ToString());
  });
  EXPECT_TRUE(failures.empty()) << failures.front();
  if (k.to_file) file.close();
  EXPECT_EQ(k.to_file ? ReadFile(path) : stream.str(), want);
  for (int r = 0; r < k.ranks; ++r) EXPECT_EQ(direct[r], k.to_file) << r;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, WriteInRankOrderTest,
    ::testing::Values(Case{1, true, false, 1 << 20}, Case{3, true, false, 1 << 20},
                      Case{4, true, true, 1 << 20}, Case{1, false, false, 1 << 20},
                      Case{3, false, false, 4096}, Case{4, false, true, 4096}));

TEST(WriteInRankOrderErrors, ARenderErrorReachesEveryRank) {
  auto tmp = batch::TempDir::Create("");
  ASSERT_TRUE(tmp.ok());
  std::ostringstream stream;
  std::mutex mu;
  std::vector<std::string> errors;
  RunInProcess(3, [&](Comm& c) {
    OutputTarget t;
    t.out = c.rank() == 0 ? &stream : nullptr;
    t.tmp_dir = (*tmp)->path();
    bool d = false;
    const Status s = WriteInRankOrder(
        c, t,
        [&](std::ostream& o) {
          if (c.rank() == 2) return Status::IOError("rank 2 cannot render");
          o << "x";
          return Status::OK();
        },
        &d);
    std::lock_guard<std::mutex> lock(mu);
    errors.push_back(s.ToString());
  });
  ASSERT_EQ(errors.size(), 3u);
  for (const std::string& e : errors) EXPECT_NE(e.find("rank 2 cannot render"), std::string::npos);
}

// Rank 0's output path names no regular file by the time the ranks look
// (as a path on a file system they do not share names nothing for them):
// the shares go through rank 0, into the stream it holds.
TEST(WriteInRankOrderErrors, UnreachableFileFallsBackToRankZero) {
  auto tmp = batch::TempDir::Create("");
  ASSERT_TRUE(tmp.ok());
  const std::string path = (*tmp)->File("out"), moved = (*tmp)->File("moved");
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  std::mutex mu;
  std::vector<bool> direct(2, true);
  RunInProcess(2, [&](Comm& c) {
    OutputTarget t;
    if (c.rank() == 0) {
      t.out = &file;
      t.path = path;
    }
    t.tmp_dir = (*tmp)->path();
    bool d = true;
    const Status s = WriteInRankOrder(
        c, t,
        [&](std::ostream& o) {
          // Rank 0 renders first; the path then names nothing.
          if (c.rank() == 0) {
            o << "zero\n";
            EXPECT_EQ(rename(path.c_str(), moved.c_str()), 0);
          } else {
            o << "one\n";
          }
          return Status::OK();
        },
        &d);
    EXPECT_TRUE(s.ok()) << s.ToString();
    std::lock_guard<std::mutex> lock(mu);
    direct[c.rank()] = d;
  });
  file.close();
  EXPECT_FALSE(direct[0]);
  EXPECT_FALSE(direct[1]);
  EXPECT_EQ(ReadFile(moved), "zero\none\n");
}

}  // namespace
}  // namespace neardup::distributed
