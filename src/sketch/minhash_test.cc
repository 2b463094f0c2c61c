// SPDX-License-Identifier: Apache-2.0
#include "sketch/minhash.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <unordered_set>

#include "sketch/exact_hash.h"

namespace neardup::sketch {
namespace {

struct SetPair {
  std::vector<uint64_t> a, b;
  double jaccard;
};

// |A u B| = uni, |A n B| = inter; the rest split evenly between A and B.
SetPair MakePair(std::mt19937_64& rng, size_t uni, size_t inter) {
  SetPair p;
  std::unordered_set<uint64_t> seen;
  for (size_t i = 0; i < uni; ++i) {
    uint64_t v;
    do v = rng();
    while (!seen.insert(v).second);
    if (i < inter) {
      p.a.push_back(v);
      p.b.push_back(v);
    } else if ((i - inter) % 2 == 0) {
      p.a.push_back(v);
    } else {
      p.b.push_back(v);
    }
  }
  p.jaccard = static_cast<double>(inter) / static_cast<double>(uni);
  return p;
}

// Over many random pairs the estimate stays within 3 sigma = 3*sqrt(J(1-J)/P)
// except for a small fraction (ideal: 0.27%), and it is unbiased.
void CheckThreeSigma(const MinHashOptions& options) {
  auto hasher = MinHasher::Create(options);
  ASSERT_TRUE(hasher.ok());
  std::mt19937_64 rng(options.seed * 31 + 7);
  const int kPairs = 400;
  int outside = 0;
  double bias_sum = 0, var_sum = 0;
  for (int t = 0; t < kPairs; ++t) {
    const size_t uni = 50 + rng() % 400;
    const size_t inter = rng() % (uni + 1);
    SetPair p = MakePair(rng, uni, inter);
    const double est = EstimateJaccard(hasher->Sketch(p.a), hasher->Sketch(p.b));
    const double var = p.jaccard * (1 - p.jaccard) / options.num_perm;
    if (std::abs(est - p.jaccard) > 3 * std::sqrt(var) + 1e-12) ++outside;
    bias_sum += est - p.jaccard;
    var_sum += var;
  }
  EXPECT_LE(outside, kPairs / 50) << "more than 2% of estimates outside 3 sigma";
  // The mean error of kPairs independent estimates has sd sqrt(var_sum)/kPairs.
  EXPECT_LE(std::abs(bias_sum / kPairs), 4 * std::sqrt(var_sum) / kPairs);
}

TEST(MinHashTest, MultiplyShiftWithinThreeSigma) { CheckThreeSigma({.num_perm = 128}); }
TEST(MinHashTest, Mersenne61WithinThreeSigma) {
  CheckThreeSigma({.num_perm = 128, .seed = 5, .family = MinHashFamily::kMersenne61});
}
TEST(MinHashTest, OnePermutationWithinThreeSigma) {
  CheckThreeSigma({.num_perm = 128, .seed = 9, .scheme = MinHashScheme::kOnePermutation});
}
TEST(MinHashTest, CirculantWithinThreeSigma) {
  CheckThreeSigma({.num_perm = 128, .seed = 13, .scheme = MinHashScheme::kCirculant});
}
TEST(MinHashTest, OddPermutationCountWithinThreeSigma) { CheckThreeSigma({.num_perm = 84}); }

// Unbiasedness over the hash functions: for one fixed pair, the mean estimate
// over many seeds converges to J. Small sets (fewer shingles than positions)
// exercise one-permutation densification.
TEST(MinHashTest, EveryFamilyIsUnbiasedOverSeeds) {
  std::mt19937_64 rng(21);
  const SetPair small = MakePair(rng, 12, 5), large = MakePair(rng, 300, 90);
  const MinHashOptions kinds[] = {{.num_perm = 32},
                                  {.num_perm = 32, .family = MinHashFamily::kMersenne61},
                                  {.num_perm = 32, .scheme = MinHashScheme::kOnePermutation},
                                  {.num_perm = 32, .scheme = MinHashScheme::kCirculant}};
  for (const SetPair* p : {&small, &large}) {
    for (MinHashOptions o : kinds) {
      const int kSeeds = 1500;
      double sum = 0;
      for (int seed = 1; seed <= kSeeds; ++seed) {
        o.seed = static_cast<uint64_t>(seed) * 7919;
        auto h = MinHasher::Create(o);
        ASSERT_TRUE(h.ok());
        sum += EstimateJaccard(h->Sketch(p->a), h->Sketch(p->b));
      }
      // Each estimate has variance <= J(1-J) (a fraction of P Bernoulli(J)
      // positions, whatever their correlation); 4 sigma of the mean.
      const double sd = std::sqrt(p->jaccard * (1 - p->jaccard) / kSeeds);
      EXPECT_NEAR(sum / kSeeds, p->jaccard, 4 * sd)
          << "scheme " << static_cast<int>(o.scheme) << " family " << static_cast<int>(o.family)
          << " J " << p->jaccard;
    }
  }
}

// C-MinHash's variance is no larger than independent permutations' (Li and
// Li, Theorem 3.3): the mean squared error over many random pairs at J=0.5
// stays within a small margin of the binomial J(1-J)/P.
TEST(MinHashTest, CirculantVarianceAtMostBinomial) {
  auto h = MinHasher::Create({.num_perm = 64, .seed = 5, .scheme = MinHashScheme::kCirculant});
  ASSERT_TRUE(h.ok());
  std::mt19937_64 rng(17);
  const int kPairs = 1500;
  double sq = 0;
  for (int t = 0; t < kPairs; ++t) {
    const SetPair p = MakePair(rng, 200, 100);
    const double e = EstimateJaccard(h->Sketch(p.a), h->Sketch(p.b)) - p.jaccard;
    sq += e * e;
  }
  // The sample MSE of kPairs estimates has relative sd ~ sqrt(2/kPairs) = 3.7%.
  EXPECT_LE(sq / kPairs, 1.15 * 0.25 / 64);
}

// SplitMix64 written out from its definition (Steele, Lea, Flood 2014),
// the coefficient stream the definition tests replay.
uint64_t ReferenceSplitMix(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

TEST(MinHashTest, CirculantMatchesItsDefinition) {
  // sigma(x) = lo32(Mix64(x ^ s1)); pi(y) = fmix32(m*y + c); h_k = min pi(sigma(x) + k).
  auto hasher = MinHasher::Create({.num_perm = 40, .seed = 3, .scheme = MinHashScheme::kCirculant});
  ASSERT_TRUE(hasher.ok());
  std::mt19937_64 rng(4);
  std::vector<uint64_t> set(300);
  for (auto& v : set) v = rng();
  const auto sig = hasher->Sketch(set);
  uint64_t state = 3;
  auto splitmix = [&]() { return ReferenceSplitMix(&state); };
  auto mix64 = [](uint64_t k) {
    k ^= k >> 33;
    k *= 0xFF51AFD7ED558CCDULL;
    k ^= k >> 33;
    k *= 0xC4CEB9FE1A85EC53ULL;
    return k ^ (k >> 33);
  };
  auto fmix32 = [](uint32_t h) {
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    return h ^ (h >> 16);
  };
  const uint64_t s1 = splitmix();
  const uint32_t m = static_cast<uint32_t>(splitmix()) | 1u;
  const auto c = static_cast<uint32_t>(splitmix());
  for (uint32_t k = 0; k < 40; ++k) {
    uint32_t best = 0xFFFFFFFFu;
    for (uint64_t x : set) {
      const auto sigma = static_cast<uint32_t>(mix64(x ^ s1));
      best = std::min(best, fmix32(m * (sigma + k) + c));
    }
    EXPECT_EQ(sig[k], best) << "position " << k;
  }
}

TEST(MinHashTest, MatchesDefinitionOfMultiplyShift) {
  // Recompute the family from its definition with the same coefficient stream.
  auto hasher = MinHasher::Create({.num_perm = 40, .seed = 3});
  ASSERT_TRUE(hasher.ok());
  std::mt19937_64 rng(1);
  std::vector<uint64_t> set(300);
  for (auto& v : set) v = rng();
  const auto sig = hasher->Sketch(set);
  uint64_t state = 3;
  auto splitmix = [&]() { return ReferenceSplitMix(&state); };
  for (int i = 0; i < 40; ++i) {
    const uint64_t a = splitmix(), b = splitmix();
    uint32_t best = 0xFFFFFFFFu;
    for (uint64_t s : set) {
      const uint64_t x = (s ^ (s >> 32)) & 0xFFFFFFFFULL;
      best = std::min(best, static_cast<uint32_t>((a * x + b) >> 32));
    }
    EXPECT_EQ(sig[i], best) << "permutation " << i;
  }
}

class MinHashKernelTest : public ::testing::TestWithParam<MinHashScheme> {};

TEST_P(MinHashKernelTest, EveryKernelGivesTheSameSignature) {
  const auto kernels = MinHasher::Kernels();
  ASSERT_FALSE(kernels.empty());
  EXPECT_EQ(kernels.back(), "generic");
  std::mt19937_64 rng(8);
  for (int p : {1, 31, 84, 128, 200}) {
    auto hasher =
        MinHasher::Create({.num_perm = p, .seed = static_cast<uint64_t>(p), .scheme = GetParam()});
    ASSERT_TRUE(hasher.ok());
    for (size_t n : {0u, 1u, 7u, 511u, 512u, 513u, 3000u}) {
      std::vector<uint64_t> set(n);
      for (auto& v : set) v = rng();
      const auto expected = hasher->Sketch(set);
      for (auto k : kernels) {
        std::vector<uint32_t> got(p);
        ASSERT_TRUE(hasher->SketchWithKernel(k, set, got).ok());
        EXPECT_EQ(got, expected) << k << " P=" << p << " n=" << n;
      }
    }
  }
  auto hasher = MinHasher::Create({.num_perm = 8, .scheme = GetParam()});
  std::vector<uint32_t> out(8);
  EXPECT_TRUE(hasher->SketchWithKernel("quantum", {}, out).IsNotFound());
}
INSTANTIATE_TEST_SUITE_P(Schemes, MinHashKernelTest,
                         ::testing::Values(MinHashScheme::kPermutations,
                                           MinHashScheme::kCirculant));

TEST(MinHashTest, OnePermutationHasNoKernels) {
  auto hasher = MinHasher::Create({.num_perm = 8, .scheme = MinHashScheme::kOnePermutation});
  std::vector<uint32_t> out(8);
  EXPECT_EQ(hasher->SketchWithKernel("generic", {}, out).code(), StatusCode::kFailedPrecondition);
}

TEST(MinHashTest, DuplicatesAndOrderDoNotMatter) {
  for (auto scheme :
       {MinHashScheme::kPermutations, MinHashScheme::kOnePermutation, MinHashScheme::kCirculant}) {
    auto hasher = MinHasher::Create({.num_perm = 64, .scheme = scheme});
    ASSERT_TRUE(hasher.ok());
    std::vector<uint64_t> a = {5, 9, 1, 77, 1234567890123ULL};
    std::vector<uint64_t> b = {1234567890123ULL, 77, 9, 9, 5, 1, 5};
    EXPECT_EQ(hasher->Sketch(a), hasher->Sketch(b));
  }
}

TEST(MinHashTest, EmptySetAndBadOptions) {
  for (auto scheme :
       {MinHashScheme::kPermutations, MinHashScheme::kOnePermutation, MinHashScheme::kCirculant}) {
    auto hasher = MinHasher::Create({.num_perm = 16, .scheme = scheme});
    ASSERT_TRUE(hasher.ok());
    EXPECT_EQ(hasher->Sketch({}), std::vector<uint32_t>(16, kEmptyMinHash));
  }
  EXPECT_FALSE(MinHasher::Create({.num_perm = 0}).ok());
  EXPECT_FALSE(MinHasher::Create({.num_perm = 5000}).ok());
}

TEST(MinHashTest, OnePermutationDensifiesSmallSets) {
  auto hasher = MinHasher::Create({.num_perm = 128, .scheme = MinHashScheme::kOnePermutation});
  ASSERT_TRUE(hasher.ok());
  std::vector<uint64_t> three = {11, 22, 33};
  const auto sig = hasher->Sketch(three);
  std::unordered_set<uint32_t> values(sig.begin(), sig.end());
  EXPECT_LE(values.size(), 3u);  // every bin copies one of the three values
  EXPECT_FALSE(values.contains(kEmptyMinHash));
}

TEST(MinHashTest, BBitEstimateWithinBound) {
  auto hasher = MinHasher::Create({.num_perm = 256, .seed = 11});
  ASSERT_TRUE(hasher.ok());
  std::mt19937_64 rng(2);
  for (int bits : {1, 2, 4, 8, 16, 32}) {
    double err_sum = 0;
    const int kPairs = 60;
    for (int t = 0; t < kPairs; ++t) {
      SetPair p = MakePair(rng, 300, rng() % 301);
      auto pa = PackBBit(hasher->Sketch(p.a), bits);
      auto pb = PackBBit(hasher->Sketch(p.b), bits);
      ASSERT_TRUE(pa.ok() && pb.ok());
      err_sum += std::abs(EstimateJaccardBBit(*pa, *pb, 256, bits) - p.jaccard);
    }
    // b-bit variance grows as bits shrink: ~ (1-J)(J + 2^-b)/((1-2^-b)^2 P).
    const double c = std::ldexp(1.0, -bits);
    const double bound = 3 * std::sqrt((1 + c) / ((1 - c) * (1 - c) * 256.0));
    EXPECT_LE(err_sum / kPairs, bound) << bits << " bits";
  }
  EXPECT_FALSE(PackBBit(std::vector<uint32_t>(8), 3).ok());
}

TEST(ExactHashTest, EqualTextEqualHashAndHexRoundTrip) {
  const Hash128 a = ExactHash("同一段文字 same text");
  EXPECT_EQ(a, ExactHash("同一段文字 same text"));
  EXPECT_NE(a, ExactHash("同一段文字 same text!"));
  EXPECT_NE(ExactHash(""), ExactHash(" "));
  const std::string hex = a.ToHex();
  EXPECT_EQ(hex.size(), 32u);
  auto back = Hash128::FromHex(hex);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, a);
  EXPECT_FALSE(Hash128::FromHex("xyz").has_value());
  EXPECT_FALSE(Hash128::FromHex(std::string(32, 'g')).has_value());
}

}  // namespace
}  // namespace neardup::sketch
