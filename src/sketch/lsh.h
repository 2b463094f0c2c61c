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
// Thread safety: LshIndex is not internally synchronized: concurrent const
// calls are safe, a writer needs exclusive access.
// Memory: per document P*4 bytes of signature, b*4 bytes of bucket links and
// at most b hash-map nodes. Insert O(b); Remove O(b * bucket length).
#ifndef NEARDUP_SKETCH_LSH_H_
#define NEARDUP_SKETCH_LSH_H_

#include <cstdint>
#include <span>
#include <unordered_map>
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

// Errors: InvalidArgument unless 0 < threshold < 1, num_perm >= 1 and both
// weights >= 0 with a positive sum.
Result<LshParams> OptimalLshParams(double threshold, int num_perm, double fp_weight = 0.5,
                                   double fn_weight = 0.5);

// The band key of band `band` of `signature` (XXH3-64 of its rows, seeded by
// the band number). Exposed for tests and external stores.
uint64_t LshBandKey(std::span<const uint32_t> signature, const LshParams& params, int band);

struct LshCandidate {
  uint64_t id;
  double estimated_jaccard;  // fraction of equal signature positions
};

class LshIndex {
 public:
  // Errors: InvalidArgument when bands*rows > num_perm or either is < 1.
  static Result<LshIndex> Create(const LshParams& params, int num_perm);

  // Errors: InvalidArgument for a signature of the wrong size; AlreadyExists.
  Status Insert(uint64_t id, std::span<const uint32_t> signature);
  // Errors: NotFound.
  Status Remove(uint64_t id);
  // Pre-sizes the tables for `n` documents (avoids rehashing in batch loads).
  void Reserve(size_t n);

  // Every stored id sharing at least one band with `signature`, with its
  // estimated Jaccard, best first (ties by id). O(b * bucket size).
  // Errors: InvalidArgument for a signature of the wrong size.
  Result<std::vector<LshCandidate>> Query(std::span<const uint32_t> signature) const;

  // The stored signature of `id`, or an empty span.
  std::span<const uint32_t> Signature(uint64_t id) const;

  size_t size() const { return slot_of_.size(); }
  const LshParams& params() const { return params_; }
  int num_perm() const { return num_perm_; }

 private:
  LshIndex(const LshParams& params, int num_perm);

  LshParams params_;
  int num_perm_;
  static constexpr uint32_t kNil = 0xFFFFFFFFu;
  // One bucket map per band: band key -> first slot; the bucket continues
  // through next_[slot * bands + band] (intrusive lists: no per-bucket
  // allocation). Removal walks the bucket.
  std::vector<std::unordered_map<uint64_t, uint32_t>> heads_;
  std::vector<uint32_t> next_;
  std::unordered_map<uint64_t, uint32_t> slot_of_;  // id -> slot
  std::vector<uint64_t> id_of_;                     // slot -> id
  std::vector<uint32_t> signatures_;                // slot * num_perm
  std::vector<uint32_t> free_slots_;
};

}  // namespace neardup::sketch

#endif  // NEARDUP_SKETCH_LSH_H_
