// SPDX-License-Identifier: Apache-2.0
#include "signal/signal_set.h"

#include <algorithm>

namespace neardup::signal {

Result<std::unique_ptr<SignalSet>> SignalSet::Create(const std::vector<Algorithm>& algorithms,
                                                     const SignalOptions& options,
                                                     const std::string& verify) {
  if (algorithms.empty()) return Status::InvalidArgument("no algorithm selected");
  std::vector<std::unique_ptr<Signal>> signals;
  for (Algorithm a : algorithms) {
    NEARDUP_ASSIGN_OR_RETURN(auto s, CreateSignal(a, options));
    signals.push_back(std::move(s));
  }
  return Create(std::move(signals), verify);
}

Result<std::unique_ptr<SignalSet>> SignalSet::Create(std::vector<std::unique_ptr<Signal>> signals,
                                                     const std::string& verify) {
  if (signals.empty()) return Status::InvalidArgument("no algorithm selected");
  auto set = std::make_unique<SignalSet>();
  set->signals_ = std::move(signals);
  if (!verify.empty()) {
    NEARDUP_ASSIGN_OR_RETURN(set->verifier_, verify::CreateVerifier(verify));
  }
  return set;
}

Result<SignalSet::Sketches> SignalSet::Compute(const SignalInput& doc) const {
  Sketches out;
  out.reserve(signals_.size());
  for (const auto& s : signals_) {
    NEARDUP_ASSIGN_OR_RETURN(SignalSketch sk, s->Compute(doc));
    out.push_back(std::move(sk));
  }
  return out;
}

Status SignalSet::Candidates(const SignalInput& doc, const Sketches& sketches,
                             std::vector<Evidence>* out) const {
  NEARDUP_CHECK(sketches.size() == signals_.size());
  std::unordered_map<uint32_t, size_t> seen;  // slot -> index in `found`
  std::vector<Evidence> found;
  std::vector<Candidate> cands;
  for (size_t i = 0; i < signals_.size(); ++i) {
    cands.clear();
    NEARDUP_RETURN_IF_ERROR(signals_[i]->Query(sketches[i], &cands));
    for (const Candidate& c : cands) {
      if (seen.try_emplace(c.slot, found.size()).second) {
        found.push_back({c.slot, signals_[i]->name(), c.similarity, c.distance, std::nullopt});
      }
    }
  }
  for (Evidence& e : found) {
    if (!verifier_) {
      out->push_back(e);
      continue;
    }
    auto text = texts_.find(e.slot);
    NEARDUP_CHECK(text != texts_.end());
    NEARDUP_ASSIGN_OR_RETURN(verify::Verdict v, verifier_->Verify(doc.normalized, text->second));
    if (!v.passed) continue;
    e.verified = v.similarity;
    out->push_back(e);
  }
  std::sort(out->begin(), out->end(), [](const Evidence& a, const Evidence& b) {
    const double va = a.verified.value_or(a.similarity), vb = b.verified.value_or(b.similarity);
    if (va != vb) return va > vb;
    if (a.similarity != b.similarity) return a.similarity > b.similarity;
    return a.slot < b.slot;
  });
  return Status::OK();
}

Status SignalSet::Insert(uint32_t slot, const SignalInput& doc, const Sketches& sketches) {
  NEARDUP_CHECK(sketches.size() == signals_.size());
  if (verifier_ && !texts_.try_emplace(slot, doc.normalized).second) {
    return Status::AlreadyExists("slot " + std::to_string(slot));
  }
  for (size_t i = 0; i < signals_.size(); ++i) {
    NEARDUP_RETURN_IF_ERROR(signals_[i]->Insert(slot, sketches[i]));
  }
  return Status::OK();
}

Status SignalSet::Remove(uint32_t slot) {
  for (const auto& s : signals_) NEARDUP_RETURN_IF_ERROR(s->Remove(slot));
  texts_.erase(slot);
  return Status::OK();
}

}  // namespace neardup::signal
