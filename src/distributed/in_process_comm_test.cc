// SPDX-License-Identifier: Apache-2.0
#include "distributed/in_process_comm.h"

#include <gtest/gtest.h>

#include <mutex>
#include <numeric>

namespace neardup::distributed {
namespace {

class InProcessCommTest : public ::testing::TestWithParam<int> {};

TEST_P(InProcessCommTest, CollectivesAgreeWithTheirDefinitions) {
  const int n = GetParam();
  std::mutex mu;
  std::vector<std::string> failures;
  auto expect = [&](bool ok, const std::string& what) {
    if (ok) return;
    std::lock_guard<std::mutex> lock(mu);
    failures.push_back(what);
  };
  RunInProcess(n, [&](Comm& c) {
    const int r = c.rank();
    expect(c.size() == n && c.LocalSize() == n, "size");
    expect(c.AllReduce(r + 1, ReduceOp::kSum) == static_cast<uint64_t>(n * (n + 1) / 2), "sum");
    expect(c.AllReduce(r + 1, ReduceOp::kMax) == static_cast<uint64_t>(n), "max");
    expect(c.AllReduce(r + 1, ReduceOp::kMin) == 1, "min");
    // Rank r contributes r bytes of value r: concatenated in rank order.
    const std::vector<uint8_t> mine(r, static_cast<uint8_t>(r));
    std::vector<uint8_t> want;
    for (int s = 0; s < n; ++s) want.insert(want.end(), s, static_cast<uint8_t>(s));
    expect(c.AllGather(mine) == want, "allgather");
    expect(c.Gather(mine) == (r == 0 ? want : std::vector<uint8_t>()), "gather");
    // Rank r sends d+1 copies of byte 10*r+d to rank d.
    std::vector<std::vector<uint8_t>> out(n);
    for (int d = 0; d < n; ++d) out[d].assign(d + 1, static_cast<uint8_t>(10 * r + d));
    std::vector<size_t> from;
    const std::vector<uint8_t> in = c.Exchange(out, &from);
    std::vector<uint8_t> expected;
    for (int s = 0; s < n; ++s) expected.insert(expected.end(), r + 1, 10 * s + r);
    expect(in == expected && from == std::vector<size_t>(n, r + 1), "exchange");
    std::string b = r == n - 1 ? "from the last rank" : "";
    c.Broadcast(&b, n - 1);
    expect(b == "from the last rank", "broadcast");
  });
  EXPECT_TRUE(failures.empty()) << failures.front();
}

// The first error by line wins on every rank; ties go to the lower rank.
TEST_P(InProcessCommTest, AgreeReturnsTheFirstErrorEverywhere) {
  const int n = GetParam();
  std::vector<Status> got(n);
  RunInProcess(n, [&](Comm& c) {
    const int r = c.rank();
    Status local = r == 0 ? Status::OK() : Status::InvalidArgument("rank " + std::to_string(r));
    got[r] = Agree(c, local, r >= 2 ? 5 : 9);
    // No error anywhere: OK everywhere.
    if (!Agree(c, Status::OK(), 0).ok()) got[r] = Status::Internal("not ok");
  });
  const std::string want = n == 1 ? "" : n == 2 ? "rank 1" : "rank 2";
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(got[r].ok(), n == 1) << r;
    if (n > 1) {
      EXPECT_EQ(got[r].code(), StatusCode::kInvalidArgument);
      EXPECT_EQ(got[r].message(), want);
    }
  }
}

TEST_P(InProcessCommTest, QueryAsksTheOwners) {
  const int n = GetParam();
  constexpr uint32_t kIds = 100;
  std::vector<std::vector<uint32_t>> got(n);
  RunInProcess(n, [&](Comm& c) {
    auto owner = [&](uint32_t id) { return static_cast<int>(id * n / kIds); };
    std::vector<uint32_t> ids;
    for (uint32_t id = c.rank(); id < kIds; id += 3) ids.push_back(id);
    got[c.rank()] = Query(c, ids, owner, [&](uint32_t id) {
      // Only the owner answers for an id.
      return owner(id) == c.rank() ? id * 7 : UINT32_MAX;
    });
  });
  for (int r = 0; r < n; ++r) {
    size_t k = 0;
    for (uint32_t id = r; id < kIds; id += 3, ++k) EXPECT_EQ(got[r][k], id * 7) << r << " " << id;
    EXPECT_EQ(k, got[r].size());
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, InProcessCommTest, ::testing::Values(1, 2, 3, 4));

}  // namespace
}  // namespace neardup::distributed
