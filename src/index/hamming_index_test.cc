// SPDX-License-Identifier: Apache-2.0
// Exactness of the Hamming index against brute force.
#include "index/hamming_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

namespace neardup::index {
namespace {

std::vector<HammingHit> BruteForce(const std::map<uint32_t, uint64_t>& docs, uint64_t q, int k) {
  std::vector<HammingHit> out;
  for (const auto& [doc, fp] : docs) {
    int d = Distance(fp, q);
    if (d <= k) out.push_back({doc, static_cast<uint32_t>(d)});
  }
  return out;
}

std::vector<HammingHit> Sorted(std::vector<HammingHit> v) {
  std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.doc < b.doc; });
  return v;
}

uint64_t FlipBits(uint64_t fp, int bits, std::mt19937_64& rng) {
  for (int i = 0; i < bits; ++i) fp ^= 1ULL << (rng() % 64);
  return fp;
}

// Random and adversarial data, removals interleaved, every k in [0, max].
void RunExactness(int max_k, int mode, uint64_t seed) {
  auto idx = HammingIndex::Create({.max_distance = max_k});
  ASSERT_TRUE(idx.ok());
  std::mt19937_64 rng(seed);
  std::map<uint32_t, uint64_t> truth;
  std::vector<uint64_t> centres = {rng(), rng(), rng()};
  auto gen = [&]() -> uint64_t {
    switch (mode) {
      case 0: return rng();                                      // random
      case 1: return FlipBits(centres[rng() % 3], rng() % 12, rng);  // clustered
      case 2: return 0xABCDABCDABCDABCDULL ^ (rng() & 0xFF);     // shared blocks
      default: return 42;                                       // all equal
    }
  };
  uint32_t next = 0;
  for (int step = 0; step < 3000; ++step) {
    int op = rng() % 10;
    if (op < 6 || truth.empty()) {
      uint64_t fp = gen();
      ASSERT_TRUE((*idx)->Insert(next, fp).ok());
      truth[next++] = fp;
    } else if (op < 8) {
      auto it = truth.begin();
      std::advance(it, rng() % truth.size());
      ASSERT_TRUE((*idx)->Remove(it->first).ok());
      truth.erase(it);
    } else {
      uint64_t q = rng() % 2 ? gen() : FlipBits(truth.begin()->second, rng() % (max_k + 2), rng);
      for (int k = 0; k <= max_k; ++k) {
        std::vector<HammingHit> got;
        ASSERT_TRUE((*idx)->Search(q, k, &got).ok());
        ASSERT_EQ(Sorted(got), BruteForce(truth, q, k)) << "k=" << k << " mode=" << mode;
      }
    }
  }
  EXPECT_EQ((*idx)->size(), truth.size());
}

TEST(HammingIndexTest, ExactAgainstBruteForce) {
  for (int k = 0; k <= 8; ++k)
    for (int mode = 0; mode < 4; ++mode) RunExactness(k, mode, 1000 * k + mode);
}

TEST(HammingIndexTest, Errors) {
  EXPECT_FALSE(HammingIndex::Create({.max_distance = -1}).ok());
  auto idx = HammingIndex::Create({.max_distance = 3});
  ASSERT_TRUE(idx.ok());
  EXPECT_TRUE((*idx)->Insert(1, 5).ok());
  EXPECT_TRUE((*idx)->Insert(1, 6).IsAlreadyExists());
  EXPECT_TRUE((*idx)->Remove(2).IsNotFound());
  std::vector<HammingHit> out;
  EXPECT_EQ((*idx)->Search(5, 4, &out).code(), StatusCode::kOutOfRange);
  EXPECT_EQ((*idx)->Get(1).value(), 5u);
  ASSERT_TRUE((*idx)->Remove(1).ok());
  EXPECT_TRUE((*idx)->Insert(1, 7).ok());  // slot reuse
  EXPECT_EQ((*idx)->Get(1).value(), 7u);
}

}  // namespace
}  // namespace neardup::index
