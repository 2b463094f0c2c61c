// SPDX-License-Identifier: Apache-2.0
#include "batch/engine_signature.h"

#include <algorithm>
#include <cmath>

#include "base/sorted_set.h"
#include "base/status_macros.h"
#include "features/anchors.h"
#include "pipeline/identity.h"
#include "pipeline/pipeline.h"
#include "pipeline/signals.h"
#include "signal/signal.h"
#include "signal/signal_set.h"
#include "verify/boilerplate.h"
#include "verify/form.h"
#include "verify/numbers.h"
#include "verify/verifier.h"

namespace neardup::batch {
namespace {

struct Scratch final : SignatureScratch {
  pipeline::Processed p;
  std::vector<uint64_t> keys;  // one signal's keys
  // The cached normalized sides of Similarity() (pairs come in runs of
  // equal a, or of equal b in blocked verification).
  uint32_t a_doc = UINT32_MAX, b_doc = UINT32_MAX;
  std::string a_norm, b_norm, a_expr, b_expr, prep_norm, prep_expr;
  bool a_has_expr = false, b_has_expr = false;
  // The shingles of a side's text, cached the same way.
  uint32_t a_shingles_doc = UINT32_MAX, b_shingles_doc = UINT32_MAX;
  std::vector<uint64_t> a_shingles, b_shingles;
  // Verification forms: the verifier's shingles of the last Keys() text,
  // and the decoded sides of SimilarityOfForms().
  std::vector<uint64_t> form_shingles;
  uint32_t a_form_doc = UINT32_MAX, b_form_doc = UINT32_MAX;
  verify::FormSide a_form, b_form;
  std::vector<uint64_t> a_form_shingles, b_form_shingles;
  // The boilerplate guard: a side's shingles in text order, its anchors and
  // the shingles they mark, for the side cached above.
  std::vector<uint32_t> sequence;  // ranks
  std::vector<uint64_t> a_marks, b_marks;
  std::vector<features::Anchor> anchors, a_anchors;
  const verify::BoilerplateCounts* counts = nullptr;  // UseBoilerplate's
};

// Decodes d's form into *side unless *cached_doc says it holds d's already
// (pairs come in runs of equal b). A cached side's text is pointed at d's
// bytes again: the buffer that held them before may have been reused.
// With `anchors` (the boilerplate guard), a freshly read form's anchors go
// there and *fresh is set (its ranks are in side->sequence, in d's bytes).
Status ReadFormOf(const DocText& d, uint32_t* cached_doc, verify::FormSide* side,
                  std::vector<uint64_t>* shingles, std::vector<features::Anchor>* anchors = nullptr,
                  bool* fresh = nullptr) {
  if (*cached_doc == d.doc && !side->side.expressions) {  // else read again: they moved too
    const size_t n = side->side.normalized.size();
    if (side->has_text) side->side.normalized = d.text.substr(d.text.size() - n);
    return Status::OK();
  }
  *cached_doc = UINT32_MAX;
  if (anchors != nullptr) anchors->clear();
  NEARDUP_ASSIGN_OR_RETURN(*side, verify::ReadForm(d.text, shingles, anchors));
  *cached_doc = d.doc;
  if (fresh != nullptr) *fresh = true;
  return Status::OK();
}

// A prepared text (Prepare): the normalized text, the expressions when
// known, then the normalized text's length (4 bytes) and whether they are
// known (1 byte).
void EncodePrepared(std::string_view normalized, std::optional<std::string_view> expressions,
                    std::string* out) {
  out->assign(normalized);
  if (expressions) out->append(*expressions);
  const auto n = static_cast<uint32_t>(normalized.size());
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(n >> (8 * i)));
  out->push_back(expressions ? 1 : 0);
}

verify::FactSide DecodePrepared(std::string_view p) {
  if (p.size() < 5) return {p};  // not made by EncodePrepared
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i)
    n |= static_cast<uint32_t>(static_cast<uint8_t>(p[p.size() - 5 + i])) << (8 * i);
  const bool known = p.back() == 1;
  const std::string_view body = p.substr(0, p.size() - 5);
  if (n > body.size()) return {body};
  verify::FactSide out{body.substr(0, n)};
  if (known) out.expressions = body.substr(n);
  return out;
}

}  // namespace

struct EngineSignature::Impl {
  EngineOptions options;
  bool learn_first = false;
  std::unique_ptr<pipeline::Pipeline> pipeline;
  // The engine's signals (their batch sides) and verifier (null: signals decide).
  std::unique_ptr<signal::SignalSet> signals;
  std::vector<KeySpace> spaces;
  size_t max_keys = 0, max_space_keys = 0;
  int judge = -1;         // without a verifier: the first space that does not decide
  bool shingled = false;  // Process() fills Processed::shingles
  bool guard = false;     // the boilerplate guard: forms keep the shingles in text order

  // The shingles the guard marks in a form just read (its anchors in
  // s->anchors, its shingles `set`), into *marks (empty without counts).
  void MarkForm(const verify::FormSide& f, std::span<const uint64_t> set,
                std::span<const features::Anchor> anchors, Scratch* s,
                std::vector<uint64_t>* marks) const {
    marks->clear();
    if (!s->counts || !f.has_sequence) return;
    verify::BoilerplateShingles(*s->counts, options.verify.boilerplate_documents, anchors,
                                f.sequence, set, marks);
  }
  // Whether no marks of a can make the pair pass, given b's `b_marks`
  // (verifier.h). With s shared shingles: the plain Jaccard is under the
  // threshold t; the containment rule needs containment x 100 shared; and
  // the guard's Jaccard of what is left is at most s / (own_b - s), own_b
  // being b's shingles without its own marks (a's marks can take from b at
  // most the shared ones), so it needs s >= t own_b / (1 + t). A pair that
  // shares a phrase or a line, most false candidates, fails all three.
  bool Hopeless(const verify::Verifier& v, const verify::Side& a, const verify::Side& b,
                size_t b_marks) const {
    if (!a.shingles || !b.shingles || a.shingle_count || b.shingle_count) return false;
    const auto common = static_cast<double>(SortedIntersectionSize(*a.shingles, *b.shingles));
    const double t = v.threshold(), c = v.spec().containment;
    if (c > 0 && common >= c * static_cast<double>(verify::kMinContainedShingles)) return false;
    const double na = static_cast<double>(a.shingles->size());
    const double nb = static_cast<double>(b.shingles->size());
    if (na + nb - common <= 0 || common >= t * (na + nb - common)) return false;
    const double own_b = nb - static_cast<double>(std::min(b_marks, b.shingles->size()));
    return common * (1.0 + t) < t * own_b;
  }

  const verify::Verifier* verifier() const { return signals->verifier(); }
  // A Processed of a normalized text (features and shingles as the
  // pipeline makes them). Errors: the pipeline's.
  Status FromNormalized(std::string_view normalized, pipeline::Processed* p) const {
    p->normalized.assign(normalized);
    if (pipeline->has_features()) {
      NEARDUP_RETURN_IF_ERROR(pipeline->Features(p->normalized, &p->features));
    }
    pipeline->ShinglesOf(p);
    return Status::OK();
  }
  // A verdict as a similarity: a rule can fail a pair whose similarity
  // reaches the threshold (qbank: the non-Han parts differ); keep
  // "near-duplicate iff >= threshold".
  static PairVerdict Decided(const verify::Verifier& verifier, const verify::Verdict& v) {
    if (!v.passed && v.similarity >= verifier.threshold()) {
      return {std::nextafter(verifier.threshold(), -1.0)};
    }
    return {v.similarity, v.contained, v.smaller};
  }
  // A text's shingles and, with counts, the shingles the guard marks.
  void ShingleAndMark(const verify::Verifier& v, std::string_view normalized, Scratch* s,
                      std::vector<uint64_t>* shingles, std::vector<uint64_t>* marks) const {
    marks->clear();
    if (!s->counts || normalized.size() <= static_cast<size_t>(options.verify.short_chars)) {
      v.shingler().Shingle(normalized, shingles);
      return;
    }
    features::ShingleInOrder(v.shingler(), normalized, shingles, &s->sequence, &s->anchors);
    verify::BoilerplateShingles(*s->counts, options.verify.boilerplate_documents, s->anchors,
                                s->sequence, *shingles, marks);
  }
  // The similarity of two normalized texts (shingles cached on the docs).
  Result<PairVerdict> VerdictOfForms(const DocText& a, const DocText& b, Scratch* s,
                                     bool shortcut) const;
  Result<PairVerdict> Compare(uint32_t a_doc, const verify::FactSide& a, uint32_t b_doc,
                              const verify::FactSide& b, Scratch* s) const;
};

Result<std::unique_ptr<EngineSignature>> EngineSignature::Create(const EngineOptions& o,
                                                                 bool learn_first) {
  auto m = std::make_unique<Impl>();
  m->options = o;
  m->learn_first = learn_first;
  NEARDUP_RETURN_IF_ERROR(pipeline::CheckSignalOptions(o));
  if (o.signals.size() > static_cast<size_t>(kMaxSpaces)) {
    return Status::InvalidArgument("too many signals");
  }
  const pipeline::PipelineNeeds needs = pipeline::NeedsOf(o);
  m->shingled = needs.shingles;
  NEARDUP_ASSIGN_OR_RETURN(m->pipeline,
                           pipeline::Pipeline::Create(o, needs.features, needs.shingles));
  NEARDUP_ASSIGN_OR_RETURN(m->signals, pipeline::BuildSignalSet(o));
  m->guard = pipeline::BoilerplateGuard(o) && m->shingled;
  if (pipeline::KeepsAnchors(o) && m->shingled) {
    m->pipeline->KeepAnchors(static_cast<size_t>(o.verify.short_chars));
  }
  const bool decide = m->verifier() == nullptr;
  for (size_t i = 0; i < m->signals->size(); ++i) {
    const signal::Signal& sig = m->signals->signal(i);
    const signal::KeySpaceSpec spec = sig.key_space();
    m->spaces.push_back({std::string(sig.name()), spec.max_distance, decide && spec.decides,
                         spec.slots, spec.marks_later, spec.star_width});
    m->max_keys += spec.max_keys;
    m->max_space_keys = std::max(m->max_space_keys, spec.max_keys);
    if (decide && !spec.decides && m->judge < 0) m->judge = static_cast<int>(i);
  }
  return std::unique_ptr<EngineSignature>(new EngineSignature(std::move(m)));
}

EngineSignature::EngineSignature(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
EngineSignature::~EngineSignature() = default;

const std::vector<KeySpace>& EngineSignature::spaces() const { return impl_->spaces; }
size_t EngineSignature::max_keys() const { return impl_->max_keys; }
std::unique_ptr<SignatureScratch> EngineSignature::NewScratch() const {
  return std::make_unique<Scratch>();
}

Status EngineSignature::Keys(std::string_view text, SignatureScratch* scratch, KeySink* out) const {
  auto* s = static_cast<Scratch*>(scratch);
  const Impl& m = *impl_;
  NEARDUP_RETURN_IF_ERROR(m.pipeline->Process(text, &s->p));
  const signal::SignalInput in = pipeline::SignalInputOf(s->p);
  s->keys.resize(m.max_space_keys);
  for (size_t i = 0; i < m.spaces.size(); ++i) {
    signal::KeySink keys(s->keys.data(), s->keys.size());
    m.signals->signal(i).Keys(in, &keys);
    if (keys.has_payload()) out->SetPayload(keys.payload());
    for (size_t k = 0; k < keys.size(); ++k) out->Add(static_cast<uint32_t>(i), keys.key(k));
  }
  return Status::OK();
}

Result<double> EngineSignature::Similarity(const DocText& a, const DocText& b,
                                           SignatureScratch* scratch) const {
  auto* s = static_cast<Scratch*>(scratch);
  if (s->a_doc != a.doc) {
    s->a_doc = UINT32_MAX;
    NEARDUP_RETURN_IF_ERROR(impl_->pipeline->Normalize(a.text, &s->a_norm));
    s->a_has_expr = impl_->pipeline->Expressions(a.text, s->a_norm, &s->a_expr);
    s->a_doc = a.doc;
  }
  if (s->b_doc != b.doc) {
    s->b_doc = UINT32_MAX;
    NEARDUP_RETURN_IF_ERROR(impl_->pipeline->Normalize(b.text, &s->b_norm));
    s->b_has_expr = impl_->pipeline->Expressions(b.text, s->b_norm, &s->b_expr);
    s->b_doc = b.doc;
  }
  auto known = [](bool has, const std::string& e) {
    return has ? std::optional<std::string_view>(e) : std::nullopt;
  };
  NEARDUP_ASSIGN_OR_RETURN(const PairVerdict v,
                           impl_->Compare(a.doc, {s->a_norm, known(s->a_has_expr, s->a_expr)},
                                          b.doc, {s->b_norm, known(s->b_has_expr, s->b_expr)}, s));
  return v.similarity;
}

Status EngineSignature::Prepare(std::string_view text, SignatureScratch* scratch,
                                std::string* out) const {
  auto* s = static_cast<Scratch*>(scratch);
  NEARDUP_RETURN_IF_ERROR(impl_->pipeline->Normalize(text, &s->prep_norm));
  const bool known = impl_->pipeline->Expressions(text, s->prep_norm, &s->prep_expr);
  EncodePrepared(s->prep_norm, known ? std::optional<std::string_view>(s->prep_expr) : std::nullopt,
                 out);
  return Status::OK();
}

Result<double> EngineSignature::SimilarityPrepared(const DocText& a, const DocText& b,
                                                   SignatureScratch* scratch) const {
  NEARDUP_ASSIGN_OR_RETURN(const PairVerdict v, VerdictPrepared(a, b, scratch));
  return v.similarity;
}

Result<PairVerdict> EngineSignature::VerdictPrepared(const DocText& a, const DocText& b,
                                                     SignatureScratch* scratch) const {
  return impl_->Compare(a.doc, DecodePrepared(a.text), b.doc, DecodePrepared(b.text),
                        static_cast<Scratch*>(scratch));
}

Result<PairVerdict> EngineSignature::Impl::Compare(uint32_t a_doc, const verify::FactSide& a,
                                                   uint32_t b_doc, const verify::FactSide& b,
                                                   Scratch* s) const {
  const std::string_view a_norm = a.normalized, b_norm = b.normalized;
  if (const verify::Verifier* verifier = this->verifier()) {
    verify::Side sa{a_norm, std::nullopt, std::nullopt, a.expressions};
    verify::Side sb{b_norm, std::nullopt, std::nullopt, b.expressions};
    if (verifier->uses_shingles()) {
      if (s->a_shingles_doc != a_doc) {
        ShingleAndMark(*verifier, a_norm, s, &s->a_shingles, &s->a_marks);
        s->a_shingles_doc = a_doc;
      }
      if (s->b_shingles_doc != b_doc) {
        ShingleAndMark(*verifier, b_norm, s, &s->b_shingles, &s->b_marks);
        s->b_shingles_doc = b_doc;
      }
      sa.shingles = std::span<const uint64_t>(s->a_shingles);
      sb.shingles = std::span<const uint64_t>(s->b_shingles);
      sa.boilerplate = s->a_marks;
      sb.boilerplate = s->b_marks;
    }
    return Decided(*verifier, verifier->Verify(sa, sb));
  }
  // No verifier: only pairs of a space that does not decide get here
  // (SpotSig); that signal's estimate, from the normalized texts.
  if (judge < 0) return PairVerdict{1.0};
  pipeline::Processed pa, pb;
  NEARDUP_RETURN_IF_ERROR(FromNormalized(a_norm, &pa));
  NEARDUP_RETURN_IF_ERROR(FromNormalized(b_norm, &pb));
  return PairVerdict{signals->signal(static_cast<size_t>(judge))
                         .Compare(pipeline::SignalInputOf(pa), pipeline::SignalInputOf(pb))
                         .similarity};
}

bool EngineSignature::has_forms() const {
  return impl_->verifier() != nullptr || impl_->judge >= 0;
}

void EngineSignature::Form(SignatureScratch* scratch, std::string* out) const {
  auto* s = static_cast<Scratch*>(scratch);
  const verify::Verifier* v = impl_->verifier();
  const std::vector<uint64_t>* shingles = nullptr;
  if (v != nullptr && v->uses_shingles()) {
    // Keys() shingled the text already when the pipeline's shingles are the
    // verifier's (pipeline::NeedsOf asks for them whenever the verifier reads
    // shingles, and both come from EngineOptions::shingles).
    const features::ShingleSpec &mine = impl_->pipeline->shingler().spec(),
                                &theirs = v->shingler().spec();
    if (impl_->shingled && mine.kind == theirs.kind && mine.char_n == theirs.char_n &&
        mine.word_n == theirs.word_n) {
      shingles = &s->p.shingles;
    } else {
      v->shingler().Shingle(s->p.normalized, &s->form_shingles);
      shingles = &s->form_shingles;
    }
  }
  // The guard's sequence is the pipeline's: kept when its shingles are the verifier's.
  const bool guard = impl_->guard && shingles == &s->p.shingles && !s->p.sequence.empty();
  verify::MakeForm(
      v, s->p.normalized, out, shingles, s->p.Expressions(),
      guard ? verify::GuardInput{&s->p.sequence, &s->p.anchors} : verify::GuardInput{});
}

bool EngineSignature::counts_boilerplate() const { return impl_->guard; }

void EngineSignature::UseBoilerplate(SignatureScratch* scratch,
                                     const verify::BoilerplateCounts* counts) const {
  auto* s = static_cast<Scratch*>(scratch);
  if (s->counts == counts) return;
  s->counts = counts;
  s->a_shingles_doc = s->b_shingles_doc = s->a_form_doc = s->b_form_doc = UINT32_MAX;  // marks
}

Result<double> EngineSignature::SimilarityOfForms(const DocText& a, const DocText& b,
                                                  SignatureScratch* scratch) const {
  NEARDUP_ASSIGN_OR_RETURN(const PairVerdict v,
                           impl_->VerdictOfForms(a, b, static_cast<Scratch*>(scratch), false));
  return v.similarity;
}

Result<PairVerdict> EngineSignature::VerdictOfForms(const DocText& a, const DocText& b,
                                                    SignatureScratch* scratch) const {
  return impl_->VerdictOfForms(a, b, static_cast<Scratch*>(scratch), /*shortcut=*/true);
}

// The verify phase's pairs come in runs of equal b: b's marks are made once
// a run, a's (a new a almost every pair) only when the pair could pass
// (Hopeless). A side read but not marked is read again when next needed,
// since its sequence points into bytes of this call.
Result<PairVerdict> EngineSignature::Impl::VerdictOfForms(const DocText& a, const DocText& b,
                                                          Scratch* s, bool shortcut) const {
  const bool mark = s->counts != nullptr;
  bool a_fresh = false, b_fresh = false;
  NEARDUP_RETURN_IF_ERROR(ReadFormOf(a, &s->a_form_doc, &s->a_form, &s->a_form_shingles,
                                     mark ? &s->a_anchors : nullptr, &a_fresh));
  NEARDUP_RETURN_IF_ERROR(ReadFormOf(b, &s->b_form_doc, &s->b_form, &s->b_form_shingles,
                                     mark ? &s->anchors : nullptr, &b_fresh));
  if (b_fresh) MarkForm(s->b_form, s->b_form_shingles, s->anchors, s, &s->b_marks);
  const verify::Verifier* v = verifier();
  if (v == nullptr) {
    return Compare(a.doc, {s->a_form.side.normalized}, b.doc, {s->b_form.side.normalized}, s);
  }
  verify::Side sa = s->a_form.side, sb = s->b_form.side;
  if (a_fresh && mark) {
    if (shortcut && Hopeless(*v, sa, sb, s->b_marks.size())) {
      s->a_form_doc = UINT32_MAX;  // unmarked: read again when next needed
      return Decided(*v, v->Verify(sa, sb));
    }
    MarkForm(s->a_form, s->a_form_shingles, s->a_anchors, s, &s->a_marks);
  }
  if (mark) sa.boilerplate = s->a_marks, sb.boilerplate = s->b_marks;
  return Decided(*v, v->Verify(sa, sb));
}

double EngineSignature::threshold() const {
  if (const verify::Verifier* v = impl_->verifier()) return v->threshold();
  return impl_->options.spotsig.threshold;
}

std::string EngineSignature::identity() const { return PipelineIdentity(impl_->options); }

bool EngineSignature::IdentityMatches(std::string_view recorded) const {
  return pipeline::IdentityMatches(recorded, impl_->options);
}

std::string EngineSignature::IdentityHint(std::string_view recorded) const {
  return pipeline::IdentityHint(recorded, impl_->options);
}

bool EngineSignature::wants_learning() const {
  return impl_->learn_first && impl_->pipeline->learned_idf() != nullptr;
}

Status EngineSignature::Learn(std::string_view text, SignatureScratch*) const {
  return impl_->pipeline->Learn(text);
}

Result<std::shared_ptr<features::DocumentFrequencyTable>> EngineSignature::LearnedTable() const {
  auto df = impl_->pipeline->learned_idf();
  if (!df) {
    return Status::FailedPrecondition("no learned document frequencies (idf is not learned)");
  }
  return df;
}

Status EngineSignature::LoadState(const std::string& path) {
  NEARDUP_ASSIGN_OR_RETURN(auto df, LearnedTable());
  return df->Load(path);
}

Status EngineSignature::SaveState(const std::string& path) const {
  NEARDUP_ASSIGN_OR_RETURN(auto df, LearnedTable());
  return df->Save(path);
}

Status EngineSignature::SerializeState(std::string* out) const {
  NEARDUP_ASSIGN_OR_RETURN(auto df, LearnedTable());
  df->Serialize(out);
  return Status::OK();
}

Status EngineSignature::ReplaceState(std::string_view state) {
  NEARDUP_ASSIGN_OR_RETURN(auto df, LearnedTable());
  return df->Deserialize(state);
}

Status EngineSignature::MergeState(std::string_view state) {
  NEARDUP_ASSIGN_OR_RETURN(auto df, LearnedTable());
  return df->Merge(state);
}

Result<PairEvidence> EngineSignature::Explain(const DocText& a, const DocText& b,
                                              SignatureScratch*) const {
  const Impl& m = *impl_;
  pipeline::Processed pa, pb;
  NEARDUP_RETURN_IF_ERROR(m.pipeline->Process(a.text, &pa));
  NEARDUP_RETURN_IF_ERROR(m.pipeline->Process(b.text, &pb));
  // The first signal (in precedence order) that proposes the pair.
  for (size_t i = 0; i < m.spaces.size(); ++i) {
    const signal::PairEstimate e =
        m.signals->signal(i).Compare(pipeline::SignalInputOf(pa), pipeline::SignalInputOf(pb));
    if (e.proposed) return PairEvidence{static_cast<int>(i), e.distance, e.similarity};
  }
  return PairEvidence{};
}

Result<std::unique_ptr<BatchSignature>> CreateBatchSignature(const EngineOptions& options,
                                                             bool learn_first) {
  NEARDUP_ASSIGN_OR_RETURN(auto sig, EngineSignature::Create(options, learn_first));
  return std::unique_ptr<BatchSignature>(std::move(sig));
}

}  // namespace neardup::batch
