// SPDX-License-Identifier: Apache-2.0
// Engine::Impl: preparing, verifying, adding and erasing documents (the one
// candidate path; see engine_impl.h).
#include "engine/engine_impl.h"

#include <algorithm>

#include "base/utf8.h"
#include "verify/form.h"

namespace neardup {

Slot Engine::Impl::AllocateSlot() {
  if (!free_slots.empty()) {
    const Slot s = free_slots.back();
    free_slots.pop_back();
    return s;
  }
  NEARDUP_CHECK(next_slot < kNoSlot - 1);
  return next_slot++;
}

Status Engine::Impl::Prepare(std::string_view text, engine::PreparedDocument* out) const {
  NEARDUP_RETURN_IF_ERROR(pipeline->Process(text, &out->processed));
  NEARDUP_ASSIGN_OR_RETURN(out->sketches, signals->Compute(InputOf(*out)));
  return Status::OK();
}

std::string Engine::Impl::MakeForm(engine::PreparedDocument* p) const {
  const verify::Verifier* v = signals->verifier();
  std::string form;
  if (v == nullptr) return form;
  if (v->uses_shingles()) {
    p->narrow_width = verify::NarrowWidth(p->processed.shingles.size());
    verify::Narrow(p->processed.shingles, &p->narrow, p->narrow_width, verify::Cut::kHigh);
  }
  verify::MakeCompactForm(v, p->processed.normalized, &form, &p->processed.shingles,
                          v->uses_shingles() ? &p->narrow : nullptr, p->processed.Expressions());
  return form;
}

void Engine::Impl::PrepareForm(engine::PreparedDocument* p) const {
  const verify::Verifier* v = signals->verifier();
  // A verifier of texts (edit distance) reads the text whole: a form would
  // be the text again.
  if (v == nullptr || !v->uses_shingles() || !options.keep_forms || texts_external) return;
  // A short text's form would be the text again (the verifier reads it):
  // the text store has it.
  if (v->reads_text(base::CodePointCount(p->processed.normalized))) return;
  p->form = MakeForm(p);
}

signal::QueryParams Engine::Impl::PerCluster(signal::QueryParams q) const {
  q.verified_per_group = options.verify_per_cluster;
  q.group = [this](uint32_t slot) NO_THREAD_SAFETY_ANALYSIS { return forest.RootOf(slot); };
  return q;
}

Status Engine::Impl::Candidates(const signal::SignalInput& input,
                                const signal::SignalSet::Sketches& sketches,
                                const signal::QueryParams& q, std::vector<Slot>* near,
                                std::vector<Match>* matches, signal::SignalSet::Verdicts* verdicts,
                                const signal::SignalSet::QueryMemos* again,
                                std::vector<Slot>* covering, std::vector<Slot>* gatherable) const {
  thread_local std::vector<signal::Evidence> found;
  found.clear();
  NEARDUP_RETURN_IF_ERROR(signals->Candidates(input, sketches, PerCluster(q), text_source(), &found,
                                              verdicts, nullptr, again));
  near->reserve(found.size());
  // The verified slots, sorted, for the containment guard below: only a
  // text that holds one of its candidates ('m') needs them.
  thread_local std::vector<Slot> slots;
  slots.clear();
  if (std::any_of(found.begin(), found.end(), [](const auto& e) { return e.contained == 'm'; })) {
    for (const auto& e : found) slots.push_back(e.slot);
    std::sort(slots.begin(), slots.end());
  }
  for (const auto& e : found) {
    // The containment guard online: a text joins a cluster through a text
    // it contains only when it is near every member of that cluster (a
    // cluster of one: that text), so a short text that two unrelated
    // stories hold (an ad, a footer page) never gathers both of them: the
    // second is not near the first (verify/verifier.h; batch:
    // batch/clusters.h).
    if (e.contained != 'm' || HoldsWholeCluster(slots, forest.RootOf(e.slot))) {
      near->push_back(e.slot);
      if (gatherable != nullptr && e.contained != 'q') gatherable->push_back(e.slot);
    }
    if (covering != nullptr && e.contained != 'm' &&
        (e.contained == 'q' || e.signal == "exact" || e.verified.value_or(0) >= kCopySimilarity)) {
      covering->push_back(e.slot);
    }
    if (matches->size() < options.max_matches) {
      matches->push_back(
          Match{IdOf(e.slot), e.distance, e.similarity, std::string(e.signal), e.verified});
    }
  }
  return Status::OK();
}

bool Engine::Impl::HoldsWholeCluster(std::span<const Slot> sorted_slots, Slot root) const {
  const size_t size = forest.Size(root);
  const auto near =
      std::count_if(sorted_slots.begin(), sorted_slots.end(),
                    [&](Slot s) NO_THREAD_SAFETY_ANALYSIS { return forest.RootOf(s) == root; });
  if (static_cast<size_t>(near) == size) return true;
  if (containment_pos < 0 || size > kMaxHeldCluster) return false;
  const signal::Signal& passages = signals->signal(static_cast<size_t>(containment_pos));
  thread_local std::vector<Slot> members;
  members.clear();
  forest.Members(root, &members);
  return std::all_of(members.begin(), members.end(), [&](Slot m) {
    return !passages.Indexed(m) || std::binary_search(sorted_slots.begin(), sorted_slots.end(), m);
  });
}

void Engine::Impl::Index(Slot slot, const engine::PreparedDocument& p) {
  NEARDUP_CHECK(signals->Insert(slot, p.sketches).ok());
  if (fingerprints.size() <= slot) fingerprints.resize(slot + 1);  // geometric by capacity
  fingerprints[slot] = p.processed.fingerprint;
  if (keeps_texts()) texts.Put(slot, p.processed.normalized, p.processed.Expressions(), p.form);
}

void Engine::Impl::FileRestored(Slot slot, Slot root, uint64_t fingerprint, int64_t time,
                                signal::SignalSet::Sketches* sketches) {
  engine::PreparedDocument p;
  p.processed.fingerprint = fingerprint;
  p.sketches.swap(*sketches);  // borrowed for Index, then handed back
  Index(slot, p);
  p.sketches.swap(*sketches);
  if (root == kNoSlot) {
    forest.AddRoot(slot, time);
  } else {
    forest.AddMember(slot, root, time);
  }
}

void Engine::Impl::MarkBoilerplate(const pipeline::Processed& p, std::vector<uint64_t>* out) const {
  out->clear();
  if (!boilerplate) return;
  verify::BoilerplateShingles(*boilerplate, options.verify.boilerplate_documents, p.anchors,
                              p.sequence, p.shingles, out);
}

Result<AddResult> Engine::Impl::AddLocked(const Document& doc, engine::PreparedDocument* p) {
  if (Lookup(doc.id) != kNoSlot) {
    return Status::AlreadyExists("document '" + doc.id + "' already exists");
  }
  AddResult r;
  r.id = doc.id;
  r.fingerprint = p->processed.fingerprint;
  std::vector<Slot> near, covering, gatherable;
  // PreVerify's verdicts hold while no slot changed hands since; its index
  // answers are brought up to date (QueryAgain) rather than asked again.
  // The same holds for the boilerplate marks they were reached with.
  signal::SignalSet::Verdicts verdicts;
  // The marks stand while no count has crossed the guard's threshold since
  // PreVerify (BoilerplateCounts::epoch); else they are made again.
  const bool marks_kept = boilerplate && p->boilerplate_epoch == boilerplate->epoch();
  thread_local std::vector<uint64_t> remarked;
  if (!marks_kept) MarkBoilerplate(p->processed, &remarked);
  const std::vector<uint64_t>& marked = marks_kept ? p->boilerplate : remarked;
  const bool fresh =
      p->verdicts_epoch == released_slots && (marks_kept || marked == p->boilerplate);
  if (fresh) verdicts = p->verdicts;
  signal::SignalInput input = InputOf(*p);
  input.boilerplate = marked;
  NEARDUP_RETURN_IF_ERROR(Candidates(input, p->sketches, {}, &near, &r.matches, &verdicts,
                                     fresh && !p->memos.empty() ? &p->memos : nullptr, &covering,
                                     &gatherable));
  const Slot root = forest.ChooseCluster(near, fingerprints);
  // A copy of a member of the cluster it joins keeps no passage keys: that
  // member's find the cluster (Signal::IndexesCopies).
  if (root != kNoSlot &&
      std::any_of(covering.begin(), covering.end(),
                  [&](Slot s) NO_THREAD_SAFETY_ANALYSIS { return forest.RootOf(s) == root; })) {
    signals->DropCopyKeys(&p->sketches);
  }
  // A document that starts a cluster counts its anchors: a story's copies
  // join its cluster and count once, a footer counts once a story.
  if (root == kNoSlot && boilerplate) boilerplate->Add(p->processed.anchors);
  const Slot slot = AllocateSlot();
  Index(slot, *p);
  const int64_t time = doc.time != 0 ? doc.time : Now();
  ids.Insert(slot, doc.id);  // first: the forest's orders name their roots
  if (root == kNoSlot) {
    forest.AddRoot(slot, time);
  } else {
    forest.AddMember(slot, root, time);
    r.duplicate = true;
    ++counters.duplicates;
  }
  const Slot cluster_root = forest.RootOf(slot);
  Gather(gatherable, cluster_root, &r.gathered);
  r.cluster = IdOf(cluster_root);
  r.cluster_size = forest.Size(cluster_root);
  ++counters.added;
  return r;
}

void Engine::Impl::Gather(std::span<const Slot> near, Slot root, std::vector<std::string>* ids) {
  for (Slot s : near) {
    // Duplicates in `near` meet a slot already gathered: no longer a root.
    if (s == root || forest.RootOf(s) != s || forest.Size(s) != 1) continue;
    forest.Adopt(s, root);
    ids->push_back(IdOf(s));
  }
}

void Engine::Impl::EraseLocked(Slot s, RemovalChanges* changes) {
  NEARDUP_CHECK(signals->Remove(s).ok());
  texts.Erase(s);
  const Slot root = forest.RootOf(s);
  std::vector<Slot> released;
  forest.Remove(s, &released);
  bool root_released = false;
  for (Slot r : released) {
    root_released |= (r == root);
    changes->released.push_back(IdOf(r));
    ids.Erase(r);
    free_slots.push_back(r);
    ++released_slots;
  }
  if (s == root && !root_released) changes->ghosted.push_back(IdOf(root));
  ++changes->documents;
}

ClusterInfo Engine::Impl::Describe(Slot root, size_t limit) const {
  ClusterInfo c;
  c.id = IdOf(root);
  c.size = forest.Size(root);
  c.root_removed = !forest.IsLive(root);
  c.time = forest.TimeOf(root);
  std::vector<Slot> members;
  forest.Members(root, &members, limit);
  for (Slot s : members) c.members.push_back(IdOf(s));
  return c;
}

namespace engine {

thread_local std::string LookupTextSource::expressions_;
thread_local bool LookupTextSource::known_ = false;

}  // namespace engine
}  // namespace neardup
