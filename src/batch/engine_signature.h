// SPDX-License-Identifier: Apache-2.0
//
// The BatchSignature of an EngineOptions: the engine's own pipeline
// (pipeline::Pipeline: normalization, features, shingles), signals and
// verifier (pipeline::BuildSignalSet), with one key space per selected
// signal, in the options' precedence order. Each signal gives its own keys
// and evidence (signal::Signal::Keys, key_space, Compare; see each
// signal's file in src/signal for its keys), so batch and online agree.
//
// With a verifier every pair is verified on the two normalized texts. With
// none (VerifyKind::kNone) every signal decides by itself as in the online
// engine (any shared key; SimHash within k), except those whose key space
// does not decide (SpotSig): their pairs need the signal's own estimate
// (the Jaccard of the full signature sets) >= the threshold.
//
// Thread safety: const methods are safe from many threads (one scratch each).
#ifndef NEARDUP_BATCH_ENGINE_SIGNATURE_H_
#define NEARDUP_BATCH_ENGINE_SIGNATURE_H_

#include <memory>
#include <string>

#include "batch/signature.h"
#include "features/tfidf.h"
#include "neardup/options.h"

namespace neardup::batch {

class EngineSignature : public BatchSignature {
 public:
  // `learn_first`: with learned IDF, run the Learn() pass before Keys().
  // Errors: as Engine::Create for bad options; InvalidArgument for SimHash k
  // outside [0, 32].
  static Result<std::unique_ptr<EngineSignature>> Create(const EngineOptions& options,
                                                         bool learn_first);
  ~EngineSignature() override;

  const std::vector<KeySpace>& spaces() const override;
  size_t max_keys() const override;
  std::unique_ptr<SignatureScratch> NewScratch() const override;
  Status Keys(std::string_view text, SignatureScratch* scratch, KeySink* out) const override;
  Result<double> Similarity(const DocText& a, const DocText& b,
                            SignatureScratch* scratch) const override;
  // The prepared form is the normalized text.
  Status Prepare(std::string_view text, SignatureScratch* scratch, std::string* out) const override;
  Result<double> SimilarityPrepared(const DocText& a, const DocText& b,
                                    SignatureScratch* scratch) const override;
  // The form: verify/form.h for the verifier (without one, the normalized
  // text). None when every space decides by itself (nothing is verified).
  bool has_forms() const override;
  void Form(SignatureScratch* scratch, std::string* out) const override;
  Result<double> SimilarityOfForms(const DocText& a, const DocText& b,
                                   SignatureScratch* scratch) const override;
  Result<PairVerdict> VerdictOfForms(const DocText& a, const DocText& b,
                                     SignatureScratch* scratch) const override;
  Result<PairVerdict> VerdictPrepared(const DocText& a, const DocText& b,
                                      SignatureScratch* scratch) const override;
  double threshold() const override;
  bool counts_boilerplate() const override;
  void UseBoilerplate(SignatureScratch* scratch,
                      const verify::BoilerplateCounts* counts) const override;
  std::string identity() const override;
  std::string IdentityHint(std::string_view recorded) const override;
  bool IdentityMatches(std::string_view recorded) const override;
  Result<PairEvidence> Explain(const DocText& a, const DocText& b,
                               SignatureScratch* scratch) const override;
  bool wants_learning() const override;
  Status Learn(std::string_view text, SignatureScratch* scratch) const override;

  // Learned IDF tables (FeatureOptions::idf == kLearned). Errors: as
  // Engine::LoadIdf / SaveIdf; FailedPrecondition without learned IDF.
  Status LoadState(const std::string& path) override;
  Status SaveState(const std::string& path) const override;
  Status SerializeState(std::string* out) const override;
  Status ReplaceState(std::string_view state) override;
  Status MergeState(std::string_view state) override;

 private:
  struct Impl;
  explicit EngineSignature(std::unique_ptr<Impl> impl);
  // The learned IDF table; FailedPrecondition when IDF is not learned.
  Result<std::shared_ptr<features::DocumentFrequencyTable>> LearnedTable() const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_ENGINE_SIGNATURE_H_
