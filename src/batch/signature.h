// SPDX-License-Identifier: Apache-2.0
//
// BatchSignature: the pluggable sketch-and-verify stage of batch dedup. The
// batch pipeline (batch/batch_dedup.cc) owns I/O, sorting, spilling, pairing,
// clustering and output; a signature only says, per document, which bucket
// keys it has, and, per candidate pair, how similar the two are:
//
//   Keys(text)            -> bucket keys (and an optional 64-bit payload)
//   documents sharing a key of a space -> candidate pairs (star pairing)
//   Similarity(a, b)      -> in [0, 1]; a near-duplicate when >= threshold()
//
// A key space is one family of keys (one signal): LSH bands, exact-text
// hashes, SimHash block combinations, ... Its KeySpace says how its buckets
// become pairs: `max_distance` >= 0 also requires the two payloads (SimHash
// fingerprints) within that Hamming distance; `decides` accepts its pairs
// without calling Similarity() (signals that decide by themselves, as MinHash
// bands do when no verifier is configured).
//
// Contract for implementers (the default pipeline, the adapter in
// engine_signature.cc, tests):
//   * Keys() and Similarity() are const and called concurrently from worker
//     threads, each with its own scratch from NewScratch(); keep allocation
//     in the scratch so the hot path allocates nothing.
//   * Keys() must be a pure function of the text: the same text gives the
//     same keys in any run, thread or process (MPI ranks rely on it).
//   * Similarity() must be symmetric and a pure function of the two texts.
//     Pairs reach it in runs of equal b.doc (verification in blocks), so
//     caching each side's prepared form on its doc pays off.
//   * A record whose text fails Keys() (bad UTF-8, too large) is an input
//     error reported with its file and line (or skipped under skip_invalid).
//
// Thread safety: as above. Ownership: the pipeline owns the signature.
#ifndef NEARDUP_BATCH_SIGNATURE_H_
#define NEARDUP_BATCH_SIGNATURE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status_macros.h"
#include "batch/records.h"
#include "neardup/options.h"
#include "neardup/status.h"

namespace neardup::verify {
class BoilerplateCounts;
}  // namespace neardup::verify

namespace neardup::batch {

struct KeySpace {
  std::string name;       // "exact", "minhash", "simhash", ... (evidence and stats)
  int max_distance = -1;  // >= 0: pairs also need payloads within this Hamming distance
  bool decides = false;   // pairs found here are near-duplicates without Similarity()
  // > 0: Keys() adds at most this many keys of this space per record, always
  // in the same slot order (band 0, band 1, ...), and a key of slot i never
  // equals another record's key of slot j != i (keys are seeded by slot).
  // 0: a variable number. When every space has slots, the pipeline keeps a
  // byte of each slot's key per record and drops, before they are spilled,
  // pairs that cannot share min_shared_keys keys (docs/batch.md).
  int slots = 0;
  // Whether a pair of this space makes its later record one with an earlier
  // near-duplicate, which the boilerplate guard does not count (PairInput::
  // later). False for spaces whose keys are shared passages (containment),
  // which footers share too.
  bool marks_later = true;
  // Star pairing pairs each member of a bucket with the first this many
  // (0: the default, batch/pair_phase.h).
  int star_width = 0;
};

// What verification says of a pair: its similarity, and whether it passed
// by the containment rule instead (verify/verifier.h), which side being the
// smaller, contained one ('a' or 'b').
struct PairVerdict {
  double similarity = 0.0;
  bool contained = false;
  char smaller = 0;
};

// Per-thread working memory of a signature.
class SignatureScratch {
 public:
  virtual ~SignatureScratch() = default;
};

// Where Keys() writes. Keys beyond capacity abort (a bug in max_keys()).
class KeySink {
 public:
  KeySink(uint64_t* keys, size_t capacity) : keys_(keys), capacity_(capacity) {}
  void Add(uint32_t space, uint64_t hash);
  void SetPayload(uint64_t p) { payload_ = p; }
  size_t size() const { return size_; }
  uint64_t payload() const { return payload_; }
  void Reset() { size_ = 0, payload_ = 0; }

 private:
  uint64_t* keys_;
  size_t capacity_;
  size_t size_ = 0;
  uint64_t payload_ = 0;
};

// One side of a candidate pair.
struct DocText {
  uint32_t doc = 0;       // dense id; equal docs are the same text
  std::string_view text;  // the record's text field (unescaped, not normalized)
  uint64_t payload = 0;   // what Keys() stored, 0 without payloads
};

// Why a pair is a candidate (for --with-matches).
struct PairEvidence {
  int space = -1;           // the first space (in spaces() order) proposing it; -1: none
  int distance = -1;        // the space's distance (Hamming bits, ...), -1 if none
  double similarity = 0.0;  // the space's estimate of the similarity
};

class BatchSignature {
 public:
  virtual ~BatchSignature() = default;

  // The key spaces (at most kMaxSpaces); a key's space is its index here,
  // and the order is the precedence for evidence.
  virtual const std::vector<KeySpace>& spaces() const = 0;
  // The most keys Keys() adds for one document.
  virtual size_t max_keys() const = 0;
  virtual std::unique_ptr<SignatureScratch> NewScratch() const = 0;

  // The bucket keys of one record's text. Errors: InvalidArgument (bad
  // UTF-8), OutOfRange (too large): the record is bad input.
  virtual Status Keys(std::string_view text, SignatureScratch* scratch, KeySink* out) const = 0;

  // The similarity of a candidate pair. Errors: as Keys().
  virtual Result<double> Similarity(const DocText& a, const DocText& b,
                                    SignatureScratch* scratch) const = 0;
  // Pairs with Similarity() >= threshold() are near-duplicates.
  virtual double threshold() const = 0;

  // Verifying one text against many: Prepare() turns a text into the form
  // Similarity() starts from (the engine's: the normalized text), once, and
  // SimilarityPrepared() compares two prepared forms (DocText::text holds
  // them). SimilarityPrepared(Prepare(x), Prepare(y)) must equal
  // Similarity(x, y) exactly. By default the form is the text itself.
  // Errors: as Keys().
  virtual Status Prepare(std::string_view text, SignatureScratch* scratch, std::string* out) const {
    out->assign(text);
    return Status::OK();
  }
  virtual Result<double> SimilarityPrepared(const DocText& a, const DocText& b,
                                            SignatureScratch* scratch) const {
    return Similarity(a, b, scratch);
  }

  // Verification forms (verify/form.h for the engine's): Form() writes the
  // form of the text last given to Keys() with this scratch, which the
  // sketch phase keeps per record (spilled to a file), so the verify phase
  // reads forms instead of texts; SimilarityOfForms() compares two of them
  // (DocText::text holds them) and must equal Similarity() of the two texts
  // exactly. Signatures without forms (has_forms() false, the default) are
  // verified from their texts (Prepare / SimilarityPrepared).
  // Errors: SimilarityOfForms: Corruption for a form that does not parse.
  virtual bool has_forms() const { return false; }
  virtual void Form(SignatureScratch* scratch, std::string* out) const { out->clear(); }
  virtual Result<double> SimilarityOfForms(const DocText& a, const DocText& b,
                                           SignatureScratch* scratch) const {
    return Status::FailedPrecondition("this signature has no verification forms");
  }

  // The verdicts behind SimilarityOfForms() and SimilarityPrepared(): the
  // same decision, and whether a pair under threshold() passed by
  // containment (by default never). The similarity is SimilarityOfForms()'s
  // for a pair that passes; for one that fails it may be a cheaper bound
  // under threshold() (the verify phase drops it).
  virtual Result<PairVerdict> VerdictOfForms(const DocText& a, const DocText& b,
                                             SignatureScratch* scratch) const {
    NEARDUP_ASSIGN_OR_RETURN(const double s, SimilarityOfForms(a, b, scratch));
    return PairVerdict{s};
  }
  virtual Result<PairVerdict> VerdictPrepared(const DocText& a, const DocText& b,
                                              SignatureScratch* scratch) const {
    NEARDUP_ASSIGN_OR_RETURN(const double s, SimilarityPrepared(a, b, scratch));
    return PairVerdict{s};
  }

  // The boilerplate guard (verify/boilerplate.h, batch/boilerplate_phase.h):
  // whether this signature applies it (its forms then keep their shingles
  // in text order), and the counts a scratch's similarities use from now on
  // (null: none, the plain similarity; they must outlive its use). The
  // counts go with the scratch, not the signature, which MPI ranks in one
  // process share.
  virtual bool counts_boilerplate() const { return false; }
  virtual void UseBoilerplate(SignatureScratch* /*scratch*/,
                              const verify::BoilerplateCounts* /*counts*/) const {}

  // Every option that changes keys or similarities, as one line; stored in
  // on-disk indexes, which refuse to mix signatures.
  virtual std::string identity() const = 0;
  // A sentence on how to open an index whose recorded identity differs from
  // identity(), when the signature knows one; "" by default.
  virtual std::string IdentityHint(std::string_view /*recorded*/) const { return ""; }
  // Whether an index that recorded `recorded` has this signature's keys:
  // identity(), or an older spelling of the same options.
  virtual bool IdentityMatches(std::string_view recorded) const { return recorded == identity(); }

  // Evidence of a pair: by default the first space in which both have a key
  // in common (Keys() recomputed), estimate = shared / max keys of that space.
  virtual Result<PairEvidence> Explain(const DocText& a, const DocText& b,
                                       SignatureScratch* scratch) const;

  // Signatures whose Keys() depend on corpus statistics (learned IDF) get a
  // first pass: Learn() on every text before any Keys(). Errors: as Keys().
  virtual bool wants_learning() const { return false; }
  virtual Status Learn(std::string_view text, SignatureScratch* scratch) const {
    return Status::OK();
  }
  // Learned statistics as a file (--idf-load / --idf-save). Errors:
  // FailedPrecondition for a signature without any (the default).
  virtual Status LoadState(const std::string& path) {
    return Status::FailedPrecondition("no learned document frequencies (idf is not learned)");
  }
  virtual Status SaveState(const std::string& path) const {
    return Status::FailedPrecondition("no learned document frequencies (idf is not learned)");
  }
  // The same as bytes, and another process's added to these (an MPI rank's
  // learning over its share of the input). Errors: as above; Corruption.
  virtual Status SerializeState(std::string* out) const {
    return Status::FailedPrecondition("no learned document frequencies (idf is not learned)");
  }
  virtual Status ReplaceState(std::string_view state) {
    return Status::FailedPrecondition("no learned document frequencies (idf is not learned)");
  }
  virtual Status MergeState(std::string_view state) {
    return Status::FailedPrecondition("no learned document frequencies (idf is not learned)");
  }
};

// The signature batch dedup runs for `options`: the one place that maps a
// configuration to a BatchSignature (engine_signature.cc). `learn_first`:
// learned statistics come from a first pass over the input.
// Errors: InvalidArgument for options the batch pipeline cannot run.
Result<std::unique_ptr<BatchSignature>> CreateBatchSignature(const EngineOptions& options,
                                                             bool learn_first);

// Hamming distance of two payloads.
inline int PayloadDistance(uint64_t a, uint64_t b) { return __builtin_popcountll(a ^ b); }

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_SIGNATURE_H_
