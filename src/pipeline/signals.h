// SPDX-License-Identifier: Apache-2.0
//
// Builds the engine's SignalSet from EngineOptions: the selected signals in
// precedence order, the LSH banding resolved from the threshold, and the
// verifier. Shared by the online engine and batch dedup.
#ifndef NEARDUP_PIPELINE_SIGNALS_H_
#define NEARDUP_PIPELINE_SIGNALS_H_

#include <memory>

#include "cluster/union_find.h"
#include "neardup/options.h"
#include "pipeline/pipeline.h"
#include "signal/signal_set.h"
#include "sketch/lsh.h"
#include "sketch/minhash.h"
#include "verify/verifier.h"

namespace neardup::pipeline {

// Which pipeline outputs the options' signals and verifier read.
struct PipelineNeeds {
  bool features = false;  // simhash, imatch
  bool shingles = false;  // minhash, supershingle, set verifiers
};
PipelineNeeds NeedsOf(const EngineOptions& o);

// The LSH bands of options.minhash: explicit bands x rows, or the banding
// that best separates candidate_threshold (default: threshold - 0.1) with
// false negatives weighted 4:1 over false positives (OptimizerLsh), its bands
// trimmed at the default threshold (sketch::TrimBands; signals.cc says when).
// Errors: InvalidArgument for impossible settings.
Result<sketch::LshParams> ResolveLsh(const EngineOptions& o);
// The design of the area optimizer for o's candidate threshold, before
// ResolveLsh trims its bands: every default design until 2026-11-27 (the
// identity of stores written then depends on it). Errors: as
// sketch::OptimalLshParams.
Result<sketch::LshParams> OptimizerLsh(const EngineOptions& o);

// The options' threshold and signal list are usable. Errors: InvalidArgument.
Status CheckSignalOptions(const EngineOptions& o);

// The signal module's options for `o`: SimHash k, LSH bands (when minhash is
// selected), SpotSig stop words, the I-Match lexicon (loaded when selected).
// Errors: InvalidArgument; NotFound / IOError for data files.
Result<signal::SignalOptions> MakeSignalOptions(const EngineOptions& o);

// The sketch module's MinHash options for `o` (P and the scheme; seed 1).
sketch::MinHashOptions ToMinHashOptions(const EngineOptions& o);

// The verifier of the options, or null for VerifyKind::kNone.
// Errors: InvalidArgument.
Result<std::unique_ptr<verify::Verifier>> BuildVerifier(const EngineOptions& o);
// What every signal reads of a processed text (its normalized text,
// features, shingles, key salt, expressions and anchors), as views into `p`.
inline signal::SignalInput SignalInputOf(const Processed& p) {
  signal::SignalInput in{p.normalized, p.features, p.shingles, p.key_salt, {}, p.Expressions()};
  in.anchors = p.anchors;
  return in;
}

// Whether `o` runs the boilerplate guard (verify/boilerplate.h): the
// similarity verifier with boilerplate_documents > 0.
bool BoilerplateGuard(const EngineOptions& o);
// Whether the pipeline of `o` keeps anchors (Pipeline::KeepAnchors): for the
// guard, or for the containment signal's keys.
bool KeepsAnchors(const EngineOptions& o);

// The cluster module's keep policy for the public one.
cluster::KeepPolicy ToClusterKeep(KeepPolicy k);

// Errors: InvalidArgument for inconsistent options; NotFound / IOError when
// data a signal needs cannot be loaded.
Result<std::unique_ptr<signal::SignalSet>> BuildSignalSet(const EngineOptions& o);

}  // namespace neardup::pipeline

#endif  // NEARDUP_PIPELINE_SIGNALS_H_
