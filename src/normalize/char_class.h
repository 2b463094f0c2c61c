// SPDX-License-Identifier: Apache-2.0
//
// Coarse character classes used by normalization and feature extraction.
// ASCII and the CJK blocks are answered from tables; everything else asks ICU
// for the general category and script.
//
// Thread safety: pure functions.
#ifndef NEARDUP_NORMALIZE_CHAR_CLASS_H_
#define NEARDUP_NORMALIZE_CHAR_CLASS_H_

#include <cstdint>

namespace neardup::normalize {

enum class CharClass : uint8_t {
  kSpace,     // White_Space
  kPunct,     // general category P* or S*
  kControl,   // Cc, Cf, Cs, Co, Cn other than white space
  kNoSpace,   // letters of scripts written without spaces: Han, Hiragana, Katakana, Thai, ...
  kWord,      // letters, digits and marks of scripts written with spaces
};

CharClass Classify(int32_t cp);

// True for the sentence terminators used by longest-sentence features:
// 。！？；!?; and the line breaks.
bool IsSentenceBreak(int32_t cp);

}  // namespace neardup::normalize

#endif  // NEARDUP_NORMALIZE_CHAR_CLASS_H_
