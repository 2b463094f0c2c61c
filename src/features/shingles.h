// SPDX-License-Identifier: Apache-2.0
//
// Shingling (Broder, Glassman, Manasse, Zweig, "Syntactic clustering of the
// Web", WWW 1997): a document becomes the SET of its contiguous token
// n-grams. This is the one shingler: MinHash, super-shingles, set verifiers
// and the evaluation's ground truth all use it.
//
// Input is normalized text (normalize::Normalizer). Three kinds:
//   kScript  character n-grams (char_n) over Han and other no-space runs, word
//            n-grams (word_n) over the words of spaced scripts: the engine's
//            feature rule (CharNgramExtractor), so Chinese gets characters
//            and English gets words.
//   kChar    character n-grams over the whole text, white space included as
//            one space (the NeMo Curator style).
//   kWord    word n-grams over tokens: each no-space character is a token,
//            each word of a spaced script is one (the text-dedup and datatrove
//            style on English).
// A text with fewer tokens than n gives one shingle of all of them; an empty
// text gives none. Shingles are XXH3-64 hashes (features::HashFeature) of the
// tokens joined by one space (kScript, kWord) or of the characters (kChar).
//
// Thread safety: Shingle() is const and safe from many threads.
// Complexity: O(n) plus a sort of the shingles.
#ifndef NEARDUP_FEATURES_SHINGLES_H_
#define NEARDUP_FEATURES_SHINGLES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "features/char_ngram.h"
#include "neardup/status.h"

namespace neardup::features {

struct ShingleSpec {
  enum class Kind { kScript, kChar, kWord } kind = Kind::kScript;
  int char_n = 3;  // kScript: 1..16, kChar: 1..32
  int word_n = 2;  // kScript, kWord: 1..8
};

class Shingler {
 public:
  // Errors: InvalidArgument for sizes out of range; Internal if ICU fails.
  static Result<std::unique_ptr<Shingler>> Create(const ShingleSpec& spec);

  // Replaces *out with the ascending, duplicate-free shingle hashes.
  void Shingle(std::string_view normalized, std::vector<uint64_t>* out) const;
  // The shingle hashes in text order, repeats kept: the i-th is the shingle
  // that starts at the i-th token (features/anchors.h reads it).
  void Sequence(std::string_view normalized, std::vector<uint64_t>* out) const {
    Collect(normalized, out, nullptr);
  }
  // The same with each shingle's text, as (hash, text) in hash order.
  void ShingleWithText(std::string_view normalized,
                       std::vector<std::pair<uint64_t, std::string>>* out) const;

  const ShingleSpec& spec() const { return spec_; }

 private:
  Shingler(const ShingleSpec& spec, std::unique_ptr<CharNgramExtractor> ex)
      : spec_(spec), extractor_(std::move(ex)) {}
  void Tokens(std::string_view normalized, std::vector<std::string_view>* tokens) const;
  void Collect(std::string_view normalized, std::vector<uint64_t>* out,
               std::vector<std::string>* strings) const;
  ShingleSpec spec_;
  std::unique_ptr<CharNgramExtractor> extractor_;
};

}  // namespace neardup::features

#endif  // NEARDUP_FEATURES_SHINGLES_H_
