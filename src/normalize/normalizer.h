// SPDX-License-Identifier: Apache-2.0
//
// Normalizer: the first stage. Turns raw UTF-8 into the canonical text that
// features are drawn from.
//
//   1. UTF-8 is validated; ill-formed input is an error, or each bad sequence
//      becomes U+FFFD when `replace_invalid_utf8` is set.
//   2. ICU NFKC_Casefold: compatibility forms (full-width ASCII, ligatures,
//      circled digits) fold to their plain forms, case folds, default
//      ignorables vanish.
//   3. An optional TextFolder (e.g. Traditional->Simplified) runs next.
//   4. Punctuation and symbols become separators (when `drop_punctuation`),
//      control characters vanish, and runs of white space collapse to one
//      space. With `keep_sentence_breaks`, sentence terminators and line
//      breaks become '\n' instead, so later stages can split sentences.
//
// Thread safety: Normalize() is const and may be called from many threads.
// Complexity: O(n) in the input size.
#ifndef NEARDUP_NORMALIZE_NORMALIZER_H_
#define NEARDUP_NORMALIZE_NORMALIZER_H_

#include <memory>
#include <string>
#include <string_view>

#include "neardup/status.h"

namespace neardup::normalize {

// A text-to-text mapping applied after NFKC, such as script conversion.
// Implementations must be thread-safe for concurrent Fold() calls.
class TextFolder {
 public:
  virtual ~TextFolder() = default;
  // Appends the folded form of `in` (valid UTF-8) to `out`.
  virtual void Fold(std::string_view in, std::string* out) const = 0;
};

struct NormalizerOptions {
  bool nfkc_casefold = true;
  bool drop_punctuation = true;
  bool replace_invalid_utf8 = false;
  bool keep_sentence_breaks = false;
  std::shared_ptr<const TextFolder> folder;  // may be null
};

class Normalizer {
 public:
  // Errors: Internal if ICU's normalization data cannot be loaded.
  static Result<std::unique_ptr<Normalizer>> Create(const NormalizerOptions& options);
  ~Normalizer();

  // Replaces *out with the normalized form of `in`.
  // Errors: InvalidArgument for ill-formed UTF-8 (unless replacing).
  Status Normalize(std::string_view in, std::string* out) const;

  const NormalizerOptions& options() const { return options_; }

 private:
  struct Impl;
  Normalizer(NormalizerOptions options, std::unique_ptr<Impl> impl);
  NormalizerOptions options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace neardup::normalize

#endif  // NEARDUP_NORMALIZE_NORMALIZER_H_
