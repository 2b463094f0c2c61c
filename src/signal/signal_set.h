// SPDX-License-Identifier: Apache-2.0
//
// SignalSet: the engine's one candidate path. Every configuration is a list
// of signals (SimHash is one of them, with its Hamming index inside) plus an
// optional verifier, behind the calls an engine makes per document:
//
//   Compute(doc)                   outside the engine lock: every sketch;
//   Candidates(doc, sk, q, texts)  under a shared lock: each signal's
//                                  candidates, merged by slot (the first
//                                  signal in the list that found a slot gives
//                                  its evidence), verified on the normalized
//                                  texts when a verifier is set (failing
//                                  candidates are dropped), best first;
//   Insert / Remove                under the exclusive lock.
//
// The verifier reads stored texts through a TextSource the caller owns (the
// engine keeps them in memory; the durable engine reads its store).
//
// Thread safety: Compute() is const and thread-safe; Candidates() is const
// and may run concurrently with itself, never with Insert/Remove.
#ifndef NEARDUP_SIGNAL_SIGNAL_SET_H_
#define NEARDUP_SIGNAL_SIGNAL_SET_H_

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "signal/signal.h"
#include "verify/verifier.h"

namespace neardup::signal {

// The normalized texts of stored slots, for verification.
class TextSource {
 public:
  virtual ~TextSource() = default;
  // Errors: NotFound when the slot has no text; IOError from a store.
  virtual Status Get(uint32_t slot, std::string* normalized) const = 0;
  // The slot's verification form (verify/form.h), which spares the verifier
  // the text's normalizing and shingling. Errors: NotFound when the slot has
  // none (the text is read instead); IOError from a store.
  virtual Status GetForm(uint32_t slot, std::string* form) const {
    (void)slot;
    (void)form;
    return Status::NotFound("no verification form");
  }
  // The slot's verify::Expressions(), after Get() of the same slot on the
  // same thread; false when unknown (the fact rule then skips them).
  virtual bool GetExpressions(uint32_t slot, std::string* out) const {
    (void)slot;
    (void)out;
    return false;
  }
};

struct Evidence {
  uint32_t slot = 0;
  std::string_view signal;         // a static name: "exact", "minhash", ...
  double similarity = 0.0;         // the signal's estimate
  int distance = -1;               // the signal's distance, -1 if it has none
  std::optional<double> verified;  // the verifier's similarity, if verified
  // Passed by the verifier's containment rule (verify/verifier.h): 'q' when
  // the queried text is the smaller one, lying in this candidate; 'm' when
  // this candidate lies in the queried text; 0 otherwise.
  char contained = 0;
};

class SignalSet {
 public:
  // `verifier` may be null (candidates are then accepted as found).
  // Errors: InvalidArgument for no signals.
  static Result<std::unique_ptr<SignalSet>> Create(std::vector<std::unique_ptr<Signal>> signals,
                                                   std::unique_ptr<verify::Verifier> verifier);

  using Sketches = std::vector<SignalSketch>;  // one per signal, in list order
  // Errors: those of the signals.
  Result<Sketches> Compute(const SignalInput& doc) const;

  // Candidates of `doc` (whose sketches are `sketches`), verified against
  // `texts` (required with a verifier), best first: verified similarity, then
  // estimate, then slot. Errors: a signal's; a TextSource error other than
  // NotFound (a candidate without text is skipped). With
  // params.verified_per_group, candidates are tried best estimate first and
  // a group stops at that many passes (QueryParams).
  //
  // `verdicts` (may be null): the verifier's verdicts on this document's
  // candidates, by slot. A slot found there is not verified again; every
  // verdict reached is added. The caller vouches that each slot in it still
  // holds the document it was verified against.
  //
  // `remember` (may be null) is replaced by one memo per signal
  // (Signal::QueryRemembering). `again` (may be null; else one per signal,
  // from an earlier call with the same doc, sketches and params) has each
  // signal answer from its memo (Signal::QueryAgain): the same candidates
  // for less, when a reader queried and the writer asks again.
  using Verdicts = std::unordered_map<uint32_t, verify::Verdict>;
  using QueryMemos = std::vector<QueryMemo>;
  Status Candidates(const SignalInput& doc, const Sketches& sketches, const QueryParams& params,
                    const TextSource* texts, std::vector<Evidence>* out,
                    Verdicts* verdicts = nullptr, QueryMemos* remember = nullptr,
                    const QueryMemos* again = nullptr) const;

  // Signal::BeginBulkInsert / EndBulkInsert on every signal.
  void BeginBulkInsert(size_t expected = 0);
  void EndBulkInsert();

  // Errors: AlreadyExists, or a signal's error (nothing is inserted then).
  Status Insert(uint32_t slot, const Sketches& sketches);
  // Makes the sketches of the signals that do not index copies
  // (Signal::IndexesCopies) non-indexable, for a document that joins a
  // cluster as a copy: Insert() then skips them, and so does a restore of
  // the sketches as stored. Returns whether any changed.
  bool DropCopyKeys(Sketches* sketches) const;
  // Signal::PrefetchInsert on every signal: a hint for a run of inserts.
  void PrefetchInsert(const Sketches& sketches, int stage) const;
  // Errors: NotFound.
  Status Remove(uint32_t slot);

  size_t size() const { return signals_.size(); }
  const Signal& signal(size_t i) const { return *signals_[i]; }
  int IndexOf(SignalKind kind) const;  // position of a signal, -1 if absent
  const verify::Verifier* verifier() const { return verifier_.get(); }
  size_t MemoryBytes() const;

  // How Candidates() has verified, since creation: from verification forms,
  // from texts (slots without a form, or a narrow form's verdict that cut
  // hashes could have turned: verify::NarrowVerdictIsSure), and how many of
  // the latter there were. Safe to read while Candidates() runs.
  struct VerifyCounts {
    uint64_t from_forms = 0, from_texts = 0, doubted = 0;
  };
  VerifyCounts verify_counts() const {
    return {from_forms_.load(std::memory_order_relaxed),
            from_texts_.load(std::memory_order_relaxed), doubted_.load(std::memory_order_relaxed)};
  }

  // Sketches as bytes, for a store: one record per signal. Decode checks the
  // shape (Corruption otherwise).
  static std::string Encode(const Sketches& sketches);
  Result<Sketches> Decode(std::string_view bytes) const;
  // Decode into *out, reusing its vectors' memory (a restore decodes
  // millions of records). *out is unspecified after an error.
  Status DecodeInto(std::string_view bytes, Sketches* out) const;

 private:
  std::vector<std::unique_ptr<Signal>> signals_;
  std::unique_ptr<verify::Verifier> verifier_;
  mutable std::atomic<uint64_t> from_forms_{0}, from_texts_{0}, doubted_{0};
  friend class Verification;  // signal_set.cc: counts
};

}  // namespace neardup::signal

#endif  // NEARDUP_SIGNAL_SIGNAL_SET_H_
