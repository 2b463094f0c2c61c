// SPDX-License-Identifier: Apache-2.0
#include "normalize/char_class.h"

#include <unicode/uchar.h>
#include <unicode/uscript.h>

namespace neardup::normalize {
namespace {

bool IsNoSpaceScript(UScriptCode s) {
  switch (s) {
    case USCRIPT_HAN:
    case USCRIPT_HIRAGANA:
    case USCRIPT_KATAKANA:
    case USCRIPT_THAI:
    case USCRIPT_LAO:
    case USCRIPT_KHMER:
    case USCRIPT_MYANMAR:
    case USCRIPT_TIBETAN:
    case USCRIPT_YI:
    case USCRIPT_BOPOMOFO:
      return true;
    default:
      return false;
  }
}

}  // namespace

CharClass ClassifySlow(int32_t cp) {
  if (cp < 128) return kAsciiClass[cp];
  if ((cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF)) return CharClass::kNoSpace;
  if (u_isUWhiteSpace(cp)) return CharClass::kSpace;
  const uint32_t mask = U_GET_GC_MASK(cp);
  if (mask & (U_GC_P_MASK | U_GC_S_MASK)) return CharClass::kPunct;
  if (mask &
      (U_GC_CC_MASK | U_GC_CF_MASK | U_GC_CS_MASK | U_GC_CO_MASK | U_GC_CN_MASK | U_GC_Z_MASK))
    return CharClass::kControl;
  UErrorCode err = U_ZERO_ERROR;
  UScriptCode script = uscript_getScript(cp, &err);
  if (U_SUCCESS(err) && IsNoSpaceScript(script)) return CharClass::kNoSpace;
  if (U_SUCCESS(err) && (script == USCRIPT_COMMON || script == USCRIPT_INHERITED) &&
      (mask & U_GC_L_MASK)) {
    // Letters shared between scripts (e.g. the prolonged sound mark) follow their
    // usual neighbours: treat those in the CJK symbol and kana ranges as no-space.
    if (cp >= 0x3000 && cp <= 0x30FF) return CharClass::kNoSpace;
  }
  return CharClass::kWord;
}

bool IsSentenceBreak(int32_t cp) {
  switch (cp) {
    case 0x3002:
    case 0xFF01:
    case 0xFF1F:
    case 0xFF1B:  // 。！？；
    case '!':
    case '?':
    case ';':
    case '\n':
    case '\r':
    case 0x2028:
    case 0x2029:
    case 0x0085:
      return true;
    default:
      return false;
  }
}

}  // namespace neardup::normalize
