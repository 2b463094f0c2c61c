// SPDX-License-Identifier: Apache-2.0
#include "sketch/lsh.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "base/status_macros.h"
#include "sketch/minhash.h"

namespace neardup::sketch {
namespace {

// Composite Simpson's rule with `steps` (even) intervals.
template <typename F>
double Integrate(F f, double lo, double hi, int steps = 200) {
  if (hi <= lo) return 0.0;
  const double h = (hi - lo) / steps;
  double sum = f(lo) + f(hi);
  for (int i = 1; i < steps; ++i) sum += f(lo + i * h) * (i % 2 ? 4.0 : 2.0);
  return sum * h / 3.0;
}

}  // namespace

double LshCollisionProbability(double s, const LshParams& params) {
  return 1.0 - std::pow(1.0 - std::pow(s, params.rows), params.bands);
}

Result<LshParams> OptimalLshParams(double threshold, int num_perm, double fp_weight,
                                   double fn_weight) {
  if (!(threshold > 0.0 && threshold < 1.0)) {
    return Status::InvalidArgument("LSH threshold must be in (0, 1)");
  }
  if (num_perm < 1) return Status::InvalidArgument("num_perm must be >= 1");
  if (!(fp_weight >= 0 && fn_weight >= 0 && fp_weight + fn_weight > 0)) {
    return Status::InvalidArgument("LSH weights must be >= 0 with a positive sum");
  }
  LshParams best{1, 1};
  double best_error = std::numeric_limits<double>::infinity();
  for (int b = 1; b <= num_perm; ++b) {
    for (int r = 1; b * r <= num_perm; ++r) {
      const LshParams p{b, r};
      const double fp =
          Integrate([&](double s) { return LshCollisionProbability(s, p); }, 0.0, threshold);
      const double fn =
          Integrate([&](double s) { return 1.0 - LshCollisionProbability(s, p); }, threshold, 1.0);
      const double error = fp_weight * fp + fn_weight * fn;
      if (error < best_error) {
        best_error = error;
        best = p;
      }
    }
  }
  return best;
}

LshParams TrimBands(const LshParams& params, double s, double p) {
  NEARDUP_CHECK(s > 0 && s < 1 && p > 0 && p < 1);
  LshParams out = params;
  for (int b = 1; b < params.bands; ++b) {
    if (LshCollisionProbability(s, {b, params.rows}) >= p) {
      out.bands = b;
      break;
    }
  }
  return out;
}

uint64_t LshBandKey(std::span<const uint32_t> signature, const LshParams& params, int band) {
  const size_t off = static_cast<size_t>(band) * static_cast<size_t>(params.rows);
  return XXH3_64bits_withSeed(signature.data() + off, sizeof(uint32_t) * params.rows,
                              static_cast<uint64_t>(band));
}

uint64_t SaltedBandKey(uint64_t key, uint64_t salt) {
  if (salt == 0) return key;
  const uint64_t in[2] = {key, salt};
  return XXH3_64bits(in, sizeof in);
}

double LshBandEstimate(int equal_bands, const LshParams& params) {
  if (equal_bands <= 0 || params.bands <= 0) return 0.0;
  return std::pow(static_cast<double>(equal_bands) / params.bands, 1.0 / params.rows);
}

void LshBandKeys(std::span<const uint32_t> signature, const LshParams& params,
                 std::vector<uint64_t>* out) {
  out->resize(static_cast<size_t>(params.bands));
  for (int b = 0; b < params.bands; ++b) (*out)[b] = LshBandKey(signature, params, b);
}

}  // namespace neardup::sketch
