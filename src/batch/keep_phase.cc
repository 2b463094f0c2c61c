// SPDX-License-Identifier: Apache-2.0
#include "batch/keep_phase.h"

#include "base/status_macros.h"
#include "neardup/ids.h"

namespace neardup::batch {
namespace {

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

KeepPhase::KeepPhase(const PhaseEnv& env, const RunInput* input, const Clustering* clustering,
                     KeepPolicy keep)
    : env_(env),
      input_(input),
      clustering_(clustering),
      keep_(keep),
      pd_(input->fields),
      pk_(input->fields) {}

uint64_t KeepPhase::KeyOf(const ParsedRecord& r) const {
  return keep_ == KeepPolicy::kSmallestId ? IdOrderKey(r.id_json) : CodePoints(r.text);
}

Result<Kept> KeepPhase::Run() {
  const uint64_t n = input_->n();
  Kept out;
  out.first.assign(n, UINT32_MAX);
  out.kept.assign(n, UINT32_MAX);
  env_.budget->Hold((out.first.capacity() + out.kept.capacity()) * sizeof(uint32_t));
  if (keep_ != KeepPolicy::kFirst && env_.budget->Available() / 2 >= n * sizeof(uint64_t)) {
    best_.resize(n);
  }
  for (uint32_t d = 0; d < n; ++d) {
    if (input_->lines->state(d) == kRecord) NEARDUP_RETURN_IF_ERROR(Member(d, &out));
  }
  Count(&out);
  if (keep_ == KeepPolicy::kSmallestId) {
    out.kept_keys = std::move(best_);
    env_.budget->Hold(out.kept_keys.capacity() * sizeof(uint64_t));
  }
  return out;
}

Status KeepPhase::Member(uint32_t d, Kept* out) {
  const uint32_t r = clustering_->root[d];
  const bool keyed = !best_.empty();
  if (out->first[r] == UINT32_MAX) {
    out->first[r] = out->kept[r] = d;
    // (Clusters with corpus records take the path without keys.)
    if (keyed && clustering_->size[r] > 1 && d >= input_->corpus_lines) {
      NEARDUP_RETURN_IF_ERROR(input_->Parse(d, &pd_, &rd_, /*in_order=*/true));
      best_[r] = KeyOf(rd_);
    }
    return Status::OK();
  }
  if (keep_ == KeepPolicy::kFirst) return Status::OK();
  if (out->kept[r] < input_->corpus_lines && d >= input_->corpus_lines) return Status::OK();
  uint64_t key = 0;
  NEARDUP_ASSIGN_OR_RETURN(const bool better, Better(d, r, *out, &key));
  if (better) {
    out->kept[r] = d;
    if (keyed) best_[r] = key;
  }
  return Status::OK();
}

Result<bool> KeepPhase::Better(uint32_t d, uint32_t r, const Kept& k, uint64_t* key) {
  NEARDUP_RETURN_IF_ERROR(input_->Parse(d, &pd_, &rd_, /*in_order=*/true));
  const bool keyed = !best_.empty();
  *key = keyed ? KeyOf(rd_) : 0;
  if (keyed && k.first[r] >= input_->corpus_lines &&
      (*key != best_[r] || keep_ == KeepPolicy::kLongest)) {
    return keep_ == KeepPolicy::kSmallestId ? *key < best_[r] : *key > best_[r];
  }
  NEARDUP_RETURN_IF_ERROR(input_->Parse(k.kept[r], &pk_, &rk_));
  return keep_ == KeepPolicy::kSmallestId ? IdLess(rd_.id_json, rk_.id_json)
                                          : CodePoints(rd_.text) > CodePoints(rk_.text);
}

void KeepPhase::Count(Kept* out) const {
  const uint64_t n = input_->n();
  std::vector<bool> seen(n);
  for (uint32_t d = static_cast<uint32_t>(input_->corpus_lines); d < n; ++d) {
    if (input_->lines->state(d) != kRecord) continue;
    const uint32_t r = clustering_->root[d];
    out->duplicates += out->kept[r] != d;
    if (seen[r]) continue;
    seen[r] = true;
    ++out->clusters;
    out->multi_clusters += clustering_->size[r] > 1;
  }
}

}  // namespace neardup::batch
