// SPDX-License-Identifier: Apache-2.0
//
// CodeTrie: a static double-array trie over Unicode code points.
//
// Method: the double array of Aoe (1989), "An efficient digital search
// algorithm by using a double-array structure", IEEE TSE 15(9). A transition
// from state s on label c goes to t = base[s] + c and is valid iff
// check[t] == s. Labels are the keys' UTF-8 bytes (plus one), so a code
// point is 1-4 transitions and every sibling set spans at most 256 cells,
// which keeps first-fit placement fast and the arrays dense. Construction
// places sibling sets first-fit over an occupancy bitmap; a set that fails
// 16 candidate bases goes past the last used cell.
//
// Ownership: a CodeTrie owns its arrays; it is movable, immutable after
// Build() or Deserialize(). Thread safety: const methods may be called
// concurrently. Complexity: a transition is O(1); Build is roughly linear in
// the total key length.
#ifndef NEARDUP_BASE_CODE_TRIE_H_
#define NEARDUP_BASE_CODE_TRIE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/status.h"

namespace neardup::base {

// Writes the UTF-8 encoding of `cp` (a scalar value) to buf; returns its length.
inline int EncodeUtf8(char32_t cp, char* buf) {
  if (cp < 0x80) {
    buf[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    buf[0] = static_cast<char>(0xC0 | (cp >> 6));
    buf[1] = static_cast<char>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    buf[0] = static_cast<char>(0xE0 | (cp >> 12));
    buf[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    buf[2] = static_cast<char>(0x80 | (cp & 0x3F));
    return 3;
  }
  buf[0] = static_cast<char>(0xF0 | (cp >> 18));
  buf[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
  buf[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  buf[3] = static_cast<char>(0x80 | (cp & 0x3F));
  return 4;
}

class CodeTrie {
 public:
  static constexpr int32_t kRoot = 0;
  static constexpr int32_t kNone = -1;

  CodeTrie() = default;

  // Builds the trie from `keys` (code point strings, any order, non-empty,
  // no duplicates) with `values` (>= 0, same size). Errors: InvalidArgument
  // for an empty or duplicate key or mismatched sizes.
  static Result<CodeTrie> Build(std::vector<std::u32string> keys, std::vector<int32_t> values);

  // The state reached from `state` by the code point `cp` (its UTF-8 bytes),
  // or kNone.
  int32_t Child(int32_t state, char32_t cp) const {
    char buf[4];
    const int n = EncodeUtf8(cp, buf);
    for (int i = 0; i < n && state != kNone; ++i) {
      state = ChildByLabel(state, static_cast<unsigned char>(buf[i]) + 1u);
    }
    return state;
  }

  // One byte transition; `label` is a UTF-8 byte plus one.
  int32_t ChildByLabel(int32_t state, uint32_t label) const {
    const uint64_t t = static_cast<uint64_t>(base_[state]) + label;
    if (t >= check_.size() || check_[t] != state) return kNone;
    return static_cast<int32_t>(t);
  }

  // The value stored at `state` (a complete key), or kNone for a mere prefix.
  int32_t Value(int32_t state) const { return value_[state]; }

  // The value of exactly `key`, or kNone.
  int32_t Find(std::u32string_view key) const;

  size_t num_states() const { return check_.size(); }
  size_t MemoryBytes() const;

  // Binary image (host byte order) for caches. Deserialize validates sizes and
  // that every transition stays inside the arrays; errors: Corruption.
  void Serialize(std::string* out) const;
  static Result<CodeTrie> Deserialize(std::string_view* in);

 private:
  std::vector<int32_t> base_;
  std::vector<int32_t> check_;  // -1 free; the root's check is -2
  std::vector<int32_t> value_;
};

// Decodes valid UTF-8 into code points. Errors: InvalidArgument on ill-formed input.
Result<std::u32string> DecodeToCodePoints(std::string_view utf8);

}  // namespace neardup::base

#endif  // NEARDUP_BASE_CODE_TRIE_H_
