// SPDX-License-Identifier: Apache-2.0
//
// Shingling for ground truth: a document becomes the SET of its shingles
// after the engine's normalization (NFKC case folding, punctuation dropped,
// optional Traditional->Simplified folding).
//
//   char:N  character N-grams over Han and other no-space runs; words of
//           spaced scripts are single shingles (the engine's feature rule).
//   word:N  the same for no-space runs with N = 3 characters fixed, and
//           N-word shingles for spaced scripts.
// Shingles are identified by their 64-bit XXH3 hash (features::HashFeature);
// at these corpus sizes a collision is astronomically unlikely, so set
// Jaccard over hashes equals Jaccard over the shingle strings.
//
// Thread safety: Shingle() is const and safe from many threads.
#ifndef NEARDUP_EVAL_SHINGLES_H_
#define NEARDUP_EVAL_SHINGLES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "features/char_ngram.h"
#include "neardup/status.h"
#include "normalize/normalizer.h"

namespace neardup::eval {

struct ShingleSpec {
  enum class Kind { kChar, kWord } kind = Kind::kChar;
  int n = 3;
  // Parses "char:N" or "word:N" (N 1..16 for char, 1..8 for word).
  // Errors: InvalidArgument.
  static Result<ShingleSpec> Parse(std::string_view spec);
};

struct ShinglerOptions {
  ShingleSpec spec;
  bool t2s = false;  // fold Traditional to Simplified (OpenCC characters)
  bool replace_invalid_utf8 = false;
  std::string data_dir;  // for --t2s; empty = built-in default
};

class Shingler {
 public:
  // Errors: InvalidArgument (bad spec); NotFound (T2S table missing).
  static Result<std::unique_ptr<Shingler>> Create(const ShinglerOptions& options);

  // Sorted, duplicate-free shingle hashes of `text`.
  // Errors: InvalidArgument for ill-formed UTF-8 (unless replacing).
  Result<std::vector<uint64_t>> Shingle(std::string_view text) const;

 private:
  Shingler() = default;
  std::unique_ptr<normalize::Normalizer> normalizer_;
  std::unique_ptr<features::CharNgramExtractor> extractor_;
};

}  // namespace neardup::eval

#endif  // NEARDUP_EVAL_SHINGLES_H_
