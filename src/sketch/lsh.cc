// SPDX-License-Identifier: Apache-2.0
#include "sketch/lsh.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

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

uint64_t LshBandKey(std::span<const uint32_t> signature, const LshParams& params, int band) {
  const size_t off = static_cast<size_t>(band) * static_cast<size_t>(params.rows);
  return XXH3_64bits_withSeed(signature.data() + off, sizeof(uint32_t) * params.rows,
                              static_cast<uint64_t>(band));
}

LshIndex::LshIndex(const LshParams& params, int num_perm)
    : params_(params), num_perm_(num_perm), heads_(static_cast<size_t>(params.bands)) {}

Result<LshIndex> LshIndex::Create(const LshParams& params, int num_perm) {
  if (params.bands < 1 || params.rows < 1 || params.bands * params.rows > num_perm) {
    return Status::InvalidArgument(
        "LSH needs bands, rows >= 1 and bands*rows <= num_perm (" + std::to_string(params.bands) +
        "x" + std::to_string(params.rows) + " > " + std::to_string(num_perm) + ")");
  }
  return LshIndex(params, num_perm);
}

Status LshIndex::Insert(uint64_t id, std::span<const uint32_t> signature) {
  if (signature.size() != static_cast<size_t>(num_perm_)) {
    return Status::InvalidArgument("signature has " + std::to_string(signature.size()) +
                                   " values, index expects " + std::to_string(num_perm_));
  }
  if (slot_of_.contains(id)) return Status::AlreadyExists("id " + std::to_string(id));
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(id_of_.size());
    id_of_.push_back(0);
    signatures_.resize(signatures_.size() + static_cast<size_t>(num_perm_));
    next_.resize(next_.size() + static_cast<size_t>(params_.bands), kNil);
  }
  id_of_[slot] = id;
  std::copy(signature.begin(), signature.end(),
            signatures_.begin() + static_cast<ptrdiff_t>(slot) * num_perm_);
  slot_of_.emplace(id, slot);
  for (int band = 0; band < params_.bands; ++band) {
    auto [head, inserted] = heads_[band].try_emplace(LshBandKey(signature, params_, band), slot);
    next_[static_cast<size_t>(slot) * params_.bands + band] = inserted ? kNil : head->second;
    head->second = slot;
  }
  return Status::OK();
}

void LshIndex::Reserve(size_t n) {
  for (auto& h : heads_) h.reserve(n);
  slot_of_.reserve(n);
  id_of_.reserve(n);
  signatures_.reserve(n * static_cast<size_t>(num_perm_));
  next_.reserve(n * static_cast<size_t>(params_.bands));
}

Status LshIndex::Remove(uint64_t id) {
  auto it = slot_of_.find(id);
  if (it == slot_of_.end()) return Status::NotFound("id " + std::to_string(id));
  const uint32_t slot = it->second;
  std::span<const uint32_t> sig(signatures_.data() + static_cast<size_t>(slot) * num_perm_,
                                static_cast<size_t>(num_perm_));
  for (int band = 0; band < params_.bands; ++band) {
    auto head = heads_[band].find(LshBandKey(sig, params_, band));
    NEARDUP_CHECK(head != heads_[band].end());
    uint32_t* link = &head->second;
    while (*link != slot) {
      NEARDUP_CHECK(*link != kNil);
      link = &next_[static_cast<size_t>(*link) * params_.bands + band];
    }
    *link = next_[static_cast<size_t>(slot) * params_.bands + band];
    if (head->second == kNil) heads_[band].erase(head);
  }
  slot_of_.erase(it);
  free_slots_.push_back(slot);
  return Status::OK();
}

std::span<const uint32_t> LshIndex::Signature(uint64_t id) const {
  auto it = slot_of_.find(id);
  if (it == slot_of_.end()) return {};
  return {signatures_.data() + static_cast<size_t>(it->second) * num_perm_,
          static_cast<size_t>(num_perm_)};
}

Result<std::vector<LshCandidate>> LshIndex::Query(std::span<const uint32_t> signature) const {
  if (signature.size() != static_cast<size_t>(num_perm_)) {
    return Status::InvalidArgument("signature has " + std::to_string(signature.size()) +
                                   " values, index expects " + std::to_string(num_perm_));
  }
  std::vector<uint32_t> slots;
  for (int band = 0; band < params_.bands; ++band) {
    auto head = heads_[band].find(LshBandKey(signature, params_, band));
    if (head == heads_[band].end()) continue;
    for (uint32_t s = head->second; s != kNil;
         s = next_[static_cast<size_t>(s) * params_.bands + band]) {
      slots.push_back(s);
    }
  }
  std::sort(slots.begin(), slots.end());
  slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
  std::vector<LshCandidate> out;
  out.reserve(slots.size());
  for (uint32_t slot : slots) {
    std::span<const uint32_t> other(signatures_.data() + static_cast<size_t>(slot) * num_perm_,
                                    static_cast<size_t>(num_perm_));
    out.push_back({id_of_[slot], EstimateJaccard(signature, other)});
  }
  std::sort(out.begin(), out.end(), [](const LshCandidate& a, const LshCandidate& b) {
    return a.estimated_jaccard != b.estimated_jaccard ? a.estimated_jaccard > b.estimated_jaccard
                                                      : a.id < b.id;
  });
  return out;
}

}  // namespace neardup::sketch
