// SPDX-License-Identifier: Apache-2.0
//
// CharTableFolder: a character-level script folder loaded from an OpenCC
// dictionary such as TSCharacters.txt (Traditional -> Simplified). Each line
// is "KEY<TAB>VALUE [VALUE...]"; single-code-point keys map to the first
// value, other lines (phrases) are ignored. This is the minimal folding the
// ground-truth tool needs; phrase-level conversion is out of scope here.
//
// Thread safety: immutable after Load(); Fold() is safe from many threads.
// Complexity: Load O(file size); Fold O(n) with one hash lookup per code point.
#ifndef NEARDUP_EVAL_T2S_CHARS_H_
#define NEARDUP_EVAL_T2S_CHARS_H_

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "neardup/status.h"
#include "normalize/normalizer.h"

namespace neardup::eval {

class CharTableFolder final : public normalize::TextFolder {
 public:
  // Errors: NotFound if the file cannot be opened; Corruption if it holds no
  // single-character entry.
  static Result<std::unique_ptr<CharTableFolder>> Load(const std::string& path);
  // The OpenCC Traditional->Simplified table under `data_dir`
  // (opencc/data/dictionary/TSCharacters.txt); empty `data_dir` means the
  // built-in default data directory.
  static Result<std::unique_ptr<CharTableFolder>> LoadT2S(const std::string& data_dir);

  void Fold(std::string_view in, std::string* out) const override;
  size_t size() const { return map_.size(); }

 private:
  CharTableFolder() = default;
  std::unordered_map<char32_t, std::string> map_;
};

}  // namespace neardup::eval

#endif  // NEARDUP_EVAL_T2S_CHARS_H_
