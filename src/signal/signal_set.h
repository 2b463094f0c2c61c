// SPDX-License-Identifier: Apache-2.0
//
// SignalSet: several signals at once plus an optional verifier, behind the
// three calls an engine makes per document. It is the integration point for
// `--algorithm exact,simhash,minhash --verify levenshtein:0.8`:
//
//   Compute(doc)            outside the engine lock: every signal's sketch;
//   Candidates(doc, sk)     under a shared lock: each signal's candidates,
//                           merged by slot (the first signal in the list that
//                           found a slot gives its evidence), verified on the
//                           normalized texts when a verifier is set (failing
//                           candidates are dropped), best first;
//   Insert / Remove         under the exclusive lock.
//
// Evidence per match: the signal's name, its estimated similarity and
// distance, and the verified similarity.
//
// Memory: with a verifier, the normalized text of every inserted document is
// kept (verification needs both texts).
//
// Thread safety: Compute() is const and thread-safe; Candidates() is const
// and may run concurrently with itself, never with Insert/Remove.
#ifndef NEARDUP_SIGNAL_SIGNAL_SET_H_
#define NEARDUP_SIGNAL_SIGNAL_SET_H_

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "signal/signal.h"
#include "verify/verifier.h"

namespace neardup::signal {

struct Evidence {
  uint32_t slot = 0;
  std::string_view signal;         // a static name: "exact", "minhash", ...
  double similarity = 0.0;         // the signal's estimate
  int distance = -1;               // the signal's distance, -1 if it has none
  std::optional<double> verified;  // the verifier's similarity, if verified
};

class SignalSet {
 public:
  // `verify` is a verifier spec (verify/verifier.h) or empty for none.
  // Errors: InvalidArgument for no algorithms or a bad spec; those of
  // CreateSignal.
  static Result<std::unique_ptr<SignalSet>> Create(const std::vector<Algorithm>& algorithms,
                                                   const SignalOptions& options,
                                                   const std::string& verify);
  // The same over signals already built (e.g. CreateSimHashView), in
  // precedence order. Errors: InvalidArgument for none or a bad spec.
  static Result<std::unique_ptr<SignalSet>> Create(std::vector<std::unique_ptr<Signal>> signals,
                                                   const std::string& verify);

  using Sketches = std::vector<SignalSketch>;  // one per signal, in list order
  Result<Sketches> Compute(const SignalInput& doc) const;

  // Candidates of `doc` (whose sketches are `sketches`), verified, best first
  // (verified similarity, then estimate, then slot).
  Status Candidates(const SignalInput& doc, const Sketches& sketches,
                    std::vector<Evidence>* out) const;

  // Errors: AlreadyExists, or a signal's error (the set is then unchanged
  // only for the failing signal; slots come from the engine and never clash).
  Status Insert(uint32_t slot, const SignalInput& doc, const Sketches& sketches);
  // Errors: NotFound.
  Status Remove(uint32_t slot);

  size_t size() const { return signals_.size(); }
  const Signal& signal(size_t i) const { return *signals_[i]; }
  bool verifies() const { return verifier_ != nullptr; }

 private:
  std::vector<std::unique_ptr<Signal>> signals_;
  std::unique_ptr<verify::Verifier> verifier_;
  std::unordered_map<uint32_t, std::string> texts_;  // only with a verifier
};

}  // namespace neardup::signal

#endif  // NEARDUP_SIGNAL_SIGNAL_SET_H_
