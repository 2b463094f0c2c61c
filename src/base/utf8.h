// SPDX-License-Identifier: Apache-2.0
//
// UTF-8 validation, repair and decoding (RFC 3629: no overlongs, no
// surrogates, nothing above U+10FFFF).
//
// Thread safety: pure functions.
#ifndef NEARDUP_BASE_UTF8_H_
#define NEARDUP_BASE_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "neardup/status.h"
#include "neardup/utf8.h"

namespace neardup::base {

// ValidateUtf8 and ReplaceInvalidUtf8 (public, neardup/utf8.h) are
// implemented in utf8.cc; U+FFFD replacement follows the Unicode
// "substitution of maximal subparts" practice.
using ::neardup::ReplaceInvalidUtf8;
using ::neardup::ValidateUtf8;

// Slow path of DecodeUtf8: validates fully (utf8.cc).
int32_t DecodeUtf8Slow(std::string_view s, size_t* pos);

// Decodes the code point at s[*pos] and advances *pos. Returns -1 and advances
// by one byte on an ill-formed sequence. Requires *pos < s.size().
// ASCII and well-formed 3-byte sequences (all of CJK) are decoded inline.
inline int32_t DecodeUtf8(std::string_view s, size_t* pos) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + *pos;
  if (p[0] < 0x80) {
    ++*pos;
    return p[0];
  }
  if (p[0] >= 0xE1 && p[0] <= 0xEC && *pos + 2 < s.size() && (p[1] & 0xC0) == 0x80 &&
      (p[2] & 0xC0) == 0x80) {
    *pos += 3;
    return ((p[0] & 0x0F) << 12) | ((p[1] & 0x3F) << 6) | (p[2] & 0x3F);
  }
  return DecodeUtf8Slow(s, pos);
}

// Code points of valid UTF-8: the bytes that are not continuation bytes.
inline size_t CodePointCount(std::string_view s) {
  size_t n = 0;
  for (const unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Appends the UTF-8 encoding of `cp` (must be a valid scalar value).
void AppendUtf8(int32_t cp, std::string* out);

}  // namespace neardup::base

#endif  // NEARDUP_BASE_UTF8_H_
