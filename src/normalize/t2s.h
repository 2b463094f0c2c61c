// SPDX-License-Identifier: Apache-2.0
//
// T2SFolder: Traditional -> Simplified Chinese, as a normalize::TextFolder.
//
// Method: OpenCC's t2s conversion (Carbo Kuo et al., github.com/BYVoid/OpenCC)
// with its plain-text tables TSPhrases.txt and TSCharacters.txt
// ("key<TAB>value [value...]"; the first value is used). Both tables go into
// one trie; at each position the longest key that matches is replaced and
// the scan resumes after it; a character matching nothing is copied. A key in
// both tables takes the phrase table's value. Where a filter of the keys'
// first two characters shows that no longer key can match, a character is
// replaced from a per-code-point table without walking the trie (the same
// longest match). Unchanged text is copied in runs until the first character
// the table replaces; from there every character's code (its replacement or
// itself) is written without a branch that depends on the character, as
// Traditional text has one to replace in every few. Keys that map a
// character to itself are left out of the table (they change nothing).
//
// Ownership: immutable after Load(); Shared() instances live for the process.
// Thread safety: Fold() is const and thread-safe. Complexity: O(n * L) for
// the longest key length L (a few characters).
#ifndef NEARDUP_NORMALIZE_T2S_H_
#define NEARDUP_NORMALIZE_T2S_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/code_trie.h"
#include "neardup/status.h"
#include "normalize/normalizer.h"

namespace neardup::normalize {

// resources::OpenccDir().
std::string DefaultOpenccDir();

class T2SFolder final : public TextFolder {
 public:
  // Loads <dir>/TSPhrases.txt and <dir>/TSCharacters.txt (empty dir: the
  // default). With `taiwan`, a first stage maps Taiwan usage to mainland
  // usage as OpenCC's tw2sp does (TWVariantsRevPhrases.txt, TWPhrasesRev.txt:
  // 程式->程序, 命令列->命令行), then the t2s stage runs.
  // Errors: IOError if a file is missing; InvalidArgument (file and line) for
  // a malformed entry.
  static Result<std::unique_ptr<T2SFolder>> Load(const std::string& dir = "", bool taiwan = false);
  // Loads one stage from explicit table files, earlier files taking precedence.
  static Result<std::unique_ptr<T2SFolder>> LoadFiles(const std::vector<std::string>& paths);
  // One instance per (directory, taiwan), kept for the life of the process.
  static Result<std::shared_ptr<const T2SFolder>> Shared(const std::string& dir = "",
                                                         bool taiwan = false);

  void Fold(std::string_view in, std::string* out) const override;

  size_t num_entries() const;

 private:
  struct Stage {
    base::CodeTrie trie;
    std::vector<std::string> replacements;
    // Per BMP code point (65,536): its replacement as a one-character key,
    // length << 24 | UTF-8 bytes (the first in the low byte), when that has
    // 1 to 3 bytes, else 0 in those bits; kMulti if a longer key starts with
    // it; kEscape if its replacement is longer than 3 bytes (the trie finds
    // it).
    std::vector<uint32_t> codes;
    // A Bloom-style filter of the first two characters of every longer key:
    // bit PairSlot(c1, c2) is set for each; a clear bit means no key longer
    // than c1 starts with c1 c2, so the longest match at c1 is c1 alone.
    std::vector<uint64_t> pairs;
  };
  T2SFolder() = default;
  static Result<Stage> LoadStage(const std::vector<std::string>& paths);
  // Appends the folded `in` to *out; returns whether anything may have
  // changed (false: *out got `in` as it is).
  static bool FoldStage(const Stage& stage, std::string_view in, std::string* out);
  // FoldStage from in[pos] on, after the caller appended in[0, pos)'s fold.
  static void FoldDense(const Stage& stage, std::string_view in, std::string* out, size_t pos);
  static std::pair<int32_t, size_t> LongestKey(const Stage& stage, std::string_view in, size_t pos);
  std::vector<Stage> stages_;  // applied in order
};

}  // namespace neardup::normalize

#endif  // NEARDUP_NORMALIZE_T2S_H_
