// SPDX-License-Identifier: Apache-2.0
//
// HmmModel: the character-tagging HMM jieba uses for words missing from its
// dictionary. States B (begin), E (end), M (middle), S (single); a word is
// B M* E or S. Decoding is Viterbi (Viterbi 1967; Rabiner 1989, "A tutorial
// on hidden Markov models", IEEE 77(2)) over log probabilities, with jieba's
// conventions so results agree bit for bit: a missing emission scores
// -3.14e100, only the transitions B->E|M, M->E|M, E->B|S, S->B|S exist, ties
// go to the later state letter (B < E < M < S), and the last state is E or S.
//
// The file format is cppjieba's hmm_model.utf8: '#' comment lines, then the
// 4 start log-probabilities, the 4x4 transition matrix and 4 emission lines
// "char:logp,char:logp,...", all in state order B, E, M, S.
//
// Thread safety: immutable after Load(); Cut() is const and uses only the
// caller's scratch. Complexity: Cut is O(n) with 8 candidates per character.
#ifndef NEARDUP_TOKENIZE_HMM_MODEL_H_
#define NEARDUP_TOKENIZE_HMM_MODEL_H_

#include <array>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "neardup/status.h"

namespace neardup::tokenize {

class HmmModel {
 public:
  enum State : uint8_t { kB = 0, kE = 1, kM = 2, kS = 3 };
  static constexpr double kMinLogProb = -3.14e100;

  // Errors: IOError if unreadable; InvalidArgument (with the line) if malformed.
  static Result<std::unique_ptr<HmmModel>> Load(const std::string& path);

  double Emit(int state, char32_t cp) const {
    if (cp >= kDenseFirst && cp < kDenseLast) return dense_emit_[(cp - kDenseFirst) * 4 + state];
    auto it = sparse_emit_[state].find(cp);
    return it == sparse_emit_[state].end() ? kMinLogProb : it->second;
  }

  // Viterbi-tags `chars` and appends the end offset (exclusive, relative to
  // `chars`) of each word to *word_ends. `states` is caller scratch.
  void Cut(const char32_t* chars, size_t n, std::vector<uint8_t>* states,
           std::vector<uint32_t>* word_ends) const;

 private:
  static constexpr char32_t kDenseFirst = 0x4E00, kDenseLast = 0xA000;
  HmmModel() = default;
  std::array<double, 4> start_{};
  std::array<std::array<double, 4>, 4> trans_{};
  std::vector<double> dense_emit_;  // [(cp - kDenseFirst) * 4 + state]
  std::array<std::unordered_map<char32_t, double>, 4> sparse_emit_;
};

}  // namespace neardup::tokenize

#endif  // NEARDUP_TOKENIZE_HMM_MODEL_H_
