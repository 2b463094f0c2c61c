// SPDX-License-Identifier: Apache-2.0
//
// What the signals share: the slot sketch table, candidate order and the
// I-Match lexicon loader. Each signal is in its own file (exact_signal.cc,
// ...), registered in registry.cc.
#include "signal/signal.h"

#include <xxhash.h>

#include <algorithm>

#include "base/status_macros.h"
#include "resources/tables.h"
#include "signal/signal_internal.h"

namespace neardup::signal {

Status SlotSketches::Add(uint32_t slot, const SignalSketch& s) {
  auto [it, added] = sketches_.try_emplace(slot, s);
  if (!added) return Status::AlreadyExists("slot " + std::to_string(slot));
  vector_bytes_ += VectorBytes(it->second);
  return Status::OK();
}

Result<SignalSketch> SlotSketches::Take(uint32_t slot) {
  auto it = sketches_.find(slot);
  if (it == sketches_.end()) return Status::NotFound("slot " + std::to_string(slot));
  SignalSketch s = std::move(it->second);
  sketches_.erase(it);
  vector_bytes_ -= VectorBytes(s);
  return s;
}

size_t SlotSketches::MemoryBytes() const {
  return sketches_.size() * (sizeof(SignalSketch) + 40) + sketches_.bucket_count() * sizeof(void*) +
         vector_bytes_;
}

void SortBestFirst(std::vector<Candidate>* out, size_t first) {
  std::sort(out->begin() + static_cast<ptrdiff_t>(first), out->end(),
            [](const Candidate& a, const Candidate& b) {
              return a.similarity != b.similarity ? a.similarity > b.similarity : a.slot < b.slot;
            });
}

Result<std::shared_ptr<const sketch::IMatcher>> LoadIMatchLexicon(
    const std::string& idf_path, const sketch::IMatchOptions& options) {
  std::vector<std::pair<uint64_t, double>> idf;
  NEARDUP_RETURN_IF_ERROR(
      resources::ForEachIdfEntry(idf_path, [&](std::string_view term, double v) {
        idf.emplace_back(features::HashFeature(term), v);
        return Status::OK();
      }));
  NEARDUP_ASSIGN_OR_RETURN(sketch::IMatcher m, sketch::IMatcher::FromIdf(std::move(idf), options));
  return std::shared_ptr<const sketch::IMatcher>(std::make_shared<sketch::IMatcher>(std::move(m)));
}

void KeySink::Add(uint64_t key) {
  NEARDUP_CHECK_MSG(size_ < capacity_, "Signal::Keys added more than key_space().max_keys");
  keys_[size_++] = key;
}

uint64_t Mix(uint64_t seed, uint64_t v) {
  const uint64_t in[2] = {seed, v};
  return XXH3_64bits(in, sizeof in);
}

std::vector<uint32_t> Subsets(int n, int m) {
  std::vector<uint32_t> out;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (__builtin_popcount(mask) == m) out.push_back(mask);
  }
  return out;
}

}  // namespace neardup::signal
