// SPDX-License-Identifier: Apache-2.0
//
// Locality-sensitive hashing over MinHash signatures by banding (Indyk and
// Motwani, STOC 1998; Leskovec, Rajaraman, Ullman, "Mining of Massive
// Datasets", ch. 3.4). The signature is cut into b bands of r rows; two sets
// become candidates when some band is equal, which happens with probability
// 1 - (1 - s^r)^b for Jaccard similarity s: an S-curve around (1/b)^(1/r).
//
// OptimalLshParams picks (b, r) with b*r <= P for a threshold t by minimizing
//   w_fp * integral_0^t P(s) ds + w_fn * integral_t^1 (1 - P(s)) ds,
// the weighted false-positive and false-negative areas (the choice made by
// datasketch's MinHashLSH), integrated numerically.
//
// The buckets themselves are index::CompactLshIndex (index::LshIndex its mutable tier).
//
// Thread safety: pure functions.
#ifndef NEARDUP_SKETCH_LSH_H_
#define NEARDUP_SKETCH_LSH_H_

#include <cstdint>
#include <span>
#include <vector>

#include "neardup/status.h"

namespace neardup::sketch {

struct LshParams {
  int bands = 0;
  int rows = 0;
  friend bool operator==(const LshParams&, const LshParams&) = default;
};

// 1 - (1 - s^r)^b.
double LshCollisionProbability(double s, const LshParams& params);

// The similarity that `equal_bands` equal bands of `params.bands` estimate:
// a band is equal with probability s^r, so s = (equal / bands)^(1/r).
double LshBandEstimate(int equal_bands, const LshParams& params);

// Errors: InvalidArgument unless 0 < threshold < 1, num_perm >= 1 and both
// weights >= 0 with a positive sum.
Result<LshParams> OptimalLshParams(double threshold, int num_perm, double fp_weight = 0.5,
                                   double fn_weight = 0.5);

// `params` with the fewest bands (at most params.bands) under which a pair
// of similarity `s` is a candidate with probability >= `p`: bands past
// those add memory, band lookups and false candidates, and recall only
// between the threshold and s. Requires 0 < s < 1 and 0 < p < 1.
LshParams TrimBands(const LshParams& params, double s, double p);

// The band key of band `band` of `signature` (XXH3-64 of its rows, seeded by
// the band number). Exposed for tests and external stores.
uint64_t LshBandKey(std::span<const uint32_t> signature, const LshParams& params, int band);

// A band key mixed with a salt: documents whose salts differ never share a
// band. The salt is a hash of a part of the text that must match exactly
// for a pair to be accepted (the question-bank rule's digits, letters and
// operators), so salting loses no pair the verifier could accept and drops
// the candidates it would reject. Salt 0 returns `key` unchanged.
uint64_t SaltedBandKey(uint64_t key, uint64_t salt);

// All band keys of `signature` (params.bands of them) into *out.
void LshBandKeys(std::span<const uint32_t> signature, const LshParams& params,
                 std::vector<uint64_t>* out);

}  // namespace neardup::sketch

#endif  // NEARDUP_SKETCH_LSH_H_
