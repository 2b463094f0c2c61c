// SPDX-License-Identifier: Apache-2.0
//
// Coarse character classes used by normalization and feature extraction.
// ASCII and the CJK blocks are answered from tables; everything else asks ICU
// for the general category and script.
//
// Thread safety: pure functions.
#ifndef NEARDUP_NORMALIZE_CHAR_CLASS_H_
#define NEARDUP_NORMALIZE_CHAR_CLASS_H_

#include <array>
#include <cstdint>

namespace neardup::normalize {

enum class CharClass : uint8_t {
  kSpace,    // White_Space
  kPunct,    // general category P* or S*
  kControl,  // Cc, Cf, Cs, Co, Cn other than white space
  kNoSpace,  // letters of scripts written without spaces: Han, Hiragana, Katakana, Thai, ...
  kWord,     // letters, digits and marks of scripts written with spaces
};

// Slow path of Classify: asks ICU (char_class.cc).
CharClass ClassifySlow(int32_t cp);

constexpr std::array<CharClass, 128> MakeAsciiClassTable() {
  std::array<CharClass, 128> t{};
  for (int c = 0; c < 128; ++c) {
    if (c == ' ' || (c >= 9 && c <= 13))
      t[c] = CharClass::kSpace;
    else if (c < 32 || c == 127)
      t[c] = CharClass::kControl;
    else if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
      t[c] = CharClass::kWord;
    else
      t[c] = CharClass::kPunct;
  }
  return t;
}
inline constexpr std::array<CharClass, 128> kAsciiClass = MakeAsciiClassTable();

inline CharClass Classify(int32_t cp) {
  if (cp < 128) return kAsciiClass[cp];
  // CJK Unified Ideographs: the bulk of Chinese text.
  if (cp >= 0x4E00 && cp <= 0x9FFF) return CharClass::kNoSpace;
  // Common CJK punctuation: 、。〃 〈〉《》「」『』【】
  if ((cp >= 0x3001 && cp <= 0x3003) || (cp >= 0x3008 && cp <= 0x3011)) return CharClass::kPunct;
  return ClassifySlow(cp);
}

// True for the sentence terminators used by longest-sentence features:
// 。！？；!?; and the line breaks.
bool IsSentenceBreak(int32_t cp);

}  // namespace neardup::normalize

#endif  // NEARDUP_NORMALIZE_CHAR_CLASS_H_
