// SPDX-License-Identifier: Apache-2.0
//
// Segmenter: Chinese word segmentation compatible with jieba's accurate mode,
// jieba.lcut(text, HMM=True), re-implemented from its published method
// (Sun Junyi, "jieba" 0.42, github.com/fxsjy/jieba, README "Algorithm"):
//
//   1. The text is split into blocks of [U+4E00-U+9FD5 a-zA-Z0-9+#&._%-];
//      outside blocks every character is its own token ("\r\n" is one), so
//      punctuation and white space come back as tokens.
//   2. In a block, the DAG of every dictionary word starting at each position
//      is walked from the prefix dictionary (Dictionary, a double-array trie).
//   3. The maximum-probability route is found right to left by dynamic
//      programming over log(freq) - log(total); a position with no word is a
//      single character of frequency 1; ties prefer the longer word.
//   4. Consecutive single-character pieces of the route are gathered. When
//      the gathered run (2+ characters) is not itself a word, its Han parts
//      are re-cut by the B/M/E/S HMM (HmmModel) and its other parts split into
//      [a-zA-Z0-9]+(\.\d+)?%? and the pieces between; otherwise each character
//      is a token. Without HMM, only runs of single ASCII letters/digits merge.
//
// The arithmetic follows jieba's order of operations in double precision, so
// ties resolve identically. Tokens are byte ranges of the input.
//
// Ownership: a Segmenter owns its dictionary and model; Shared() instances
// live for the process. Thread safety: all const methods are thread-safe
// (scratch space is thread-local). Complexity: O(n * L) for n characters and
// longest dictionary match L.
#ifndef NEARDUP_TOKENIZE_SEGMENTER_H_
#define NEARDUP_TOKENIZE_SEGMENTER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/status.h"
#include "tokenize/dictionary.h"
#include "tokenize/hmm_model.h"

namespace neardup::tokenize {

struct SegmenterOptions {
  // Directory holding jieba.dict.utf8 and hmm_model.utf8; empty means
  // resources::JiebaDir(). dict_path / hmm_path override single files.
  std::string dict_dir;
  std::string dict_path;
  std::string hmm_path;
  std::vector<std::string> user_dict_paths;
  bool hmm = true;  // jieba's HMM=True
  bool use_cache = true;
  std::string cache_dir;  // empty: DefaultCacheDir()
};

// True for characters jieba keeps inside a block: U+4E00..U+9FD5, ASCII
// letters and digits, and + # & . _ % -.
bool IsJiebaBlockChar(char32_t c);
// True for U+4E00..U+9FD5, the range jieba's HMM handles.
inline bool IsJiebaHan(char32_t c) { return c >= 0x4E00 && c <= 0x9FD5; }

class Segmenter {
 public:
  // Errors: those of Dictionary::Load and HmmModel::Load.
  static Result<std::unique_ptr<Segmenter>> Create(const SegmenterOptions& options);
  // One instance per distinct options, created on first use and kept for the
  // life of the process (the engine's profiles share it).
  static Result<std::shared_ptr<const Segmenter>> Shared(const SegmenterOptions& options);

  // Appends jieba's tokens of `text` (raw UTF-8, any script) to *tokens, as
  // views into `text`. Errors: InvalidArgument for ill-formed UTF-8.
  Status Cut(std::string_view text, std::vector<std::string_view>* tokens) const;

  // Cuts code points that are all IsJiebaBlockChar() as one jieba block;
  // appends each token's end (exclusive) to *ends. For callers that split
  // text themselves (the word feature extractor).
  void CutBlock(const char32_t* chars, size_t n, std::vector<uint32_t>* ends) const;

  const Dictionary& dictionary() const { return *dict_; }
  const SegmenterOptions& options() const { return options_; }

 private:
  struct Scratch;
  static Scratch* ThreadScratch();
  Segmenter(SegmenterOptions options, std::unique_ptr<Dictionary> dict,
            std::unique_ptr<HmmModel> hmm);
  void Route(const char32_t* chars, size_t n, Scratch* s) const;
  bool IsWord(const char32_t* chars, size_t n) const;
  void FlushSingles(const char32_t* chars, size_t a, size_t b, Scratch* s,
                    std::vector<uint32_t>* ends) const;
  void FinalSeg(const char32_t* chars, size_t a, size_t b, Scratch* s,
                std::vector<uint32_t>* ends) const;

  SegmenterOptions options_;
  std::unique_ptr<Dictionary> dict_;
  std::unique_ptr<HmmModel> hmm_;
};

}  // namespace neardup::tokenize

#endif  // NEARDUP_TOKENIZE_SEGMENTER_H_
