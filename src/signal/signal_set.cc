// SPDX-License-Identifier: Apache-2.0
#include "signal/signal_set.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "base/status_macros.h"
#include "verify/form.h"

namespace neardup::signal {
namespace {

void PutU32(uint32_t v, std::string* out) { out->append(reinterpret_cast<const char*>(&v), 4); }

bool GetU32(std::string_view* in, uint32_t* v) {
  if (in->size() < 4) return false;
  std::memcpy(v, in->data(), 4);
  in->remove_prefix(4);
  return true;
}

// The order a limited verification tries candidates in: the signal's
// estimate, then slot (deterministic).
bool BestEstimateFirst(const Evidence& a, const Evidence& b) {
  if (a.similarity != b.similarity) return a.similarity > b.similarity;
  return a.slot < b.slot;
}

}  // namespace

// Verifies one document against stored ones: from their verification
// forms where the source has them (a narrow form against this document's
// shingles cut as wide, made once a width), else from their texts. A
// verdict from narrow shingles that the cut could have turned
// (verify::NarrowVerdictIsSure) is reached again from the texts.
class Verification {
 public:
  Verification(const SignalSet& set, const TextSource* texts, const SignalInput& doc)
      : set_(set), verifier_(set.verifier()), texts_(texts), doc_(doc) {}

  // nullopt: the slot has neither form nor text (removed meanwhile). A form
  // that does not parse (damage that `neardup store check` names) is passed
  // over for the text, which decides the same (form.h).
  // Errors: the source's IOError; Corruption for a malformed form of a slot
  // without its text.
  Result<std::optional<verify::Verdict>> Verify(uint32_t slot) {
    verify::Side mine{doc_.normalized, doc_.shingles, std::nullopt, doc_.expressions};
    mine.boilerplate = doc_.boilerplate;
    Status s = texts_->GetForm(slot, &stored_);
    Status bad_form;
    std::optional<verify::Verdict> unsure;
    if (s.ok()) {
      Result<verify::FormSide> f = verify::ReadForm(stored_, &theirs_);
      if (f.ok()) {
        const std::span<const uint64_t> cut =
            f->narrow ? NarrowMine(f->width, f->cut) : std::span<const uint64_t>();
        const verify::Verdict v = FromForm(mine, *f, cut);
        if (Sure(v, *f, cut.size())) {
          set_.from_forms_.fetch_add(1, std::memory_order_relaxed);
          return Found(v);
        }
        set_.doubted_.fetch_add(1, std::memory_order_relaxed);
        unsure = v;
      } else {
        bad_form = f.status();
      }
    } else if (!s.IsNotFound()) {
      return s;
    }
    s = texts_->Get(slot, &stored_);
    if (s.IsNotFound()) {
      if (unsure) return unsure;  // removed meanwhile: the form's verdict
      if (!bad_form.ok()) return bad_form;
      return std::optional<verify::Verdict>();
    }
    NEARDUP_RETURN_IF_ERROR(s);
    verify::Side theirs{stored_};
    if (texts_->GetExpressions(slot, &expressions_)) theirs.expressions = expressions_;
    set_.from_texts_.fetch_add(1, std::memory_order_relaxed);
    return Found(verifier_->Verify(mine, theirs));
  }

 private:
  // `cut`: this document's shingles cut as the form's (NarrowMine) when it
  // is narrow.
  verify::Verdict FromForm(const verify::Side& mine, const verify::FormSide& theirs,
                           std::span<const uint64_t> cut) const {
    if (!theirs.narrow) return verifier_->Verify(mine, theirs.side);
    verify::Side narrow{doc_.normalized, cut, std::nullopt, doc_.expressions};
    if (theirs.side.shingle_count) narrow.shingle_count = doc_.shingles.size();
    if (!doc_.boilerplate.empty()) {
      // The marked shingles cut as the form's, like this document's own.
      verify::Narrow(doc_.boilerplate, &narrow_bp_, theirs.width, theirs.cut);
      narrow.boilerplate = narrow_bp_;
    }
    return verifier_->Verify(narrow, theirs.side);
  }
  bool Sure(const verify::Verdict& v, const verify::FormSide& theirs, size_t cut_size) const {
    if (!theirs.narrow) return true;
    // The sizes the measure took: the whole sets' where the form keeps its own.
    const bool whole = theirs.side.shingle_count.has_value();
    size_t mine = whole ? doc_.shingles.size() : cut_size;
    size_t other = whole ? *theirs.side.shingle_count : theirs.side.shingles->size();
    if (!doc_.boilerplate.empty()) {
      // With the boilerplate guard the measure may have taken what is left of
      // the sets: bound it as if both were as small as this document's rest
      // (a coincidence moves a smaller measure further).
      mine = std::max<size_t>(1, mine - std::min(mine, doc_.boilerplate.size()));
      other = std::min(other, mine);
    }
    if (!verify::NarrowVerdictIsSure(verifier_->spec(), v, mine, other, theirs.width, whole)) {
      return false;
    }
    if (v.containment < 0) return true;
    // The containment rule measured too: its value must be as sure.
    verify::VerifierSpec c = verifier_->spec();
    c.kind = verify::VerifierSpec::Kind::kContainment;
    c.threshold = c.containment;
    verify::Verdict cv;
    cv.similarity = v.containment;
    return verify::NarrowVerdictIsSure(c, cv, mine, other, theirs.width, whole);
  }
  // This document's shingles cut as a form's: the caller's when cut alike.
  std::span<const uint64_t> NarrowMine(int width, verify::Cut cut) {
    if (width == doc_.narrow_width && cut == verify::Cut::kHigh && !doc_.narrow.empty()) {
      return doc_.narrow;
    }
    auto [it, fresh] = narrowed_.try_emplace(2 * width + (cut == verify::Cut::kHigh ? 1 : 0));
    if (fresh) verify::Narrow(doc_.shingles, &it->second, width, cut);
    return it->second;
  }
  static Result<std::optional<verify::Verdict>> Found(const verify::Verdict& v) {
    return std::optional<verify::Verdict>(v);
  }
  const SignalSet& set_;
  const verify::Verifier* verifier_;
  const TextSource* texts_;
  const SignalInput& doc_;
  std::string stored_, expressions_;
  std::vector<uint64_t> theirs_;
  std::unordered_map<int, std::vector<uint64_t>> narrowed_;  // 2 width + high -> this cut
  mutable std::vector<uint64_t> narrow_bp_;                  // FromForm's boilerplate, cut
};

Result<std::unique_ptr<SignalSet>> SignalSet::Create(std::vector<std::unique_ptr<Signal>> signals,
                                                     std::unique_ptr<verify::Verifier> verifier) {
  if (signals.empty()) return Status::InvalidArgument("no signal selected");
  auto set = std::make_unique<SignalSet>();
  set->signals_ = std::move(signals);
  set->verifier_ = std::move(verifier);
  return set;
}

int SignalSet::IndexOf(SignalKind kind) const {
  for (size_t i = 0; i < signals_.size(); ++i) {
    if (signals_[i]->kind() == kind) return static_cast<int>(i);
  }
  return -1;
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
                             const QueryParams& params, const TextSource* texts,
                             std::vector<Evidence>* out, Verdicts* verdicts, QueryMemos* remember,
                             const QueryMemos* again) const {
  NEARDUP_CHECK(sketches.size() == signals_.size());
  NEARDUP_CHECK(verifier_ == nullptr || texts != nullptr);
  NEARDUP_CHECK(again == nullptr || again->size() == signals_.size());
  if (remember != nullptr) remember->assign(signals_.size(), QueryMemo{});
  std::unordered_map<uint32_t, size_t> seen;  // slot -> index in `found`
  std::vector<Evidence> found;
  std::vector<Candidate> cands;
  for (size_t i = 0; i < signals_.size(); ++i) {
    cands.clear();
    const Signal& signal = *signals_[i];
    if (again != nullptr) {
      NEARDUP_RETURN_IF_ERROR(signal.QueryAgain(sketches[i], params, (*again)[i], &cands));
    } else if (remember != nullptr) {
      NEARDUP_RETURN_IF_ERROR(
          signal.QueryRemembering(sketches[i], params, &cands, &(*remember)[i]));
    } else {
      NEARDUP_RETURN_IF_ERROR(signal.Query(sketches[i], params, &cands));
    }
    for (const Candidate& c : cands) {
      if (seen.try_emplace(c.slot, found.size()).second) {
        found.push_back({c.slot, signals_[i]->name(), c.similarity, c.distance, std::nullopt});
      }
    }
  }
  const size_t first = out->size();
  Verification verification{*this, texts, doc};
  const bool limited = verifier_ && params.verified_per_group > 0 && params.group;
  std::unordered_map<uint32_t, size_t> passed;  // group -> candidates that passed
  if (limited) std::sort(found.begin(), found.end(), BestEstimateFirst);
  for (Evidence& e : found) {
    if (!verifier_) {
      out->push_back(e);
      continue;
    }
    size_t* group_passed = limited ? &passed[params.group(e.slot)] : nullptr;
    if (group_passed && *group_passed >= params.verified_per_group) continue;
    std::optional<verify::Verdict> v;
    if (auto known = verdicts ? verdicts->find(e.slot) : Verdicts::iterator();
        verdicts && known != verdicts->end()) {
      v = known->second;
    } else {
      NEARDUP_ASSIGN_OR_RETURN(v, verification.Verify(e.slot));
      if (v && verdicts) verdicts->emplace(e.slot, *v);
    }
    if (!v || !v->passed) continue;
    if (group_passed) ++*group_passed;
    e.verified = v->similarity;
    e.contained = !v->contained ? 0 : v->smaller == 'a' ? 'q' : 'm';
    out->push_back(e);
  }
  std::sort(out->begin() + static_cast<ptrdiff_t>(first), out->end(),
            [](const Evidence& a, const Evidence& b) {
              const double va = a.verified.value_or(a.similarity);
              const double vb = b.verified.value_or(b.similarity);
              if (va != vb) return va > vb;
              if (a.similarity != b.similarity) return a.similarity > b.similarity;
              return a.slot < b.slot;
            });
  return Status::OK();
}

Status SignalSet::Insert(uint32_t slot, const Sketches& sketches) {
  NEARDUP_CHECK(sketches.size() == signals_.size());
  for (size_t i = 0; i < signals_.size(); ++i) {
    Status s = signals_[i]->Insert(slot, sketches[i]);
    if (!s.ok()) {
      while (i-- > 0) NEARDUP_CHECK(signals_[i]->Remove(slot).ok());
      return s;
    }
  }
  return Status::OK();
}

void SignalSet::PrefetchInsert(const Sketches& sketches, int stage) const {
  if (sketches.size() != signals_.size()) return;
  for (size_t i = 0; i < signals_.size(); ++i) signals_[i]->PrefetchInsert(sketches[i], stage);
}

void SignalSet::BeginBulkInsert(size_t expected) {
  for (const auto& s : signals_) s->BeginBulkInsert(expected);
}

void SignalSet::EndBulkInsert() {
  for (const auto& s : signals_) s->EndBulkInsert();
}

Status SignalSet::Remove(uint32_t slot) {
  for (const auto& s : signals_) NEARDUP_RETURN_IF_ERROR(s->Remove(slot));
  return Status::OK();
}

bool SignalSet::DropCopyKeys(Sketches* sketches) const {
  NEARDUP_CHECK(sketches->size() == signals_.size());
  bool changed = false;
  for (size_t i = 0; i < signals_.size(); ++i) {
    SignalSketch& s = (*sketches)[i];
    if (signals_[i]->IndexesCopies() || !s.indexable) continue;
    s = SignalSketch{{}, {}, false};
    changed = true;
  }
  return changed;
}

size_t SignalSet::MemoryBytes() const {
  size_t n = 0;
  for (const auto& s : signals_) n += s->MemoryBytes();
  return n;
}

// Per signal: flags (bit 0 indexable), count of u32, count of u64, values.
std::string SignalSet::Encode(const Sketches& sketches) {
  std::string out;
  for (const SignalSketch& s : sketches) {
    PutU32(s.indexable ? 1 : 0, &out);
    PutU32(static_cast<uint32_t>(s.u32.size()), &out);
    PutU32(static_cast<uint32_t>(s.u64.size()), &out);
    out.append(reinterpret_cast<const char*>(s.u32.data()), 4 * s.u32.size());
    out.append(reinterpret_cast<const char*>(s.u64.data()), 8 * s.u64.size());
  }
  return out;
}

Result<SignalSet::Sketches> SignalSet::Decode(std::string_view in) const {
  Sketches out;
  NEARDUP_RETURN_IF_ERROR(DecodeInto(in, &out));
  return out;
}

Status SignalSet::DecodeInto(std::string_view in, Sketches* out) const {
  out->resize(signals_.size());
  for (SignalSketch& s : *out) {
    uint32_t flags = 0, n32 = 0, n64 = 0;
    if (!GetU32(&in, &flags) || !GetU32(&in, &n32) || !GetU32(&in, &n64) ||
        in.size() < 4ull * n32 + 8ull * n64) {
      return Status::Corruption("truncated sketch record");
    }
    s.indexable = (flags & 1) != 0;
    s.u32.resize(n32);
    s.u64.resize(n64);
    // memcpy from or to an empty vector's null data() is undefined even for 0 bytes.
    if (n32 > 0) std::memcpy(s.u32.data(), in.data(), 4ull * n32);
    in.remove_prefix(4ull * n32);
    if (n64 > 0) std::memcpy(s.u64.data(), in.data(), 8ull * n64);
    in.remove_prefix(8ull * n64);
  }
  if (!in.empty()) return Status::Corruption("sketch record longer than the signals");
  return Status::OK();
}

}  // namespace neardup::signal
