// SPDX-License-Identifier: Apache-2.0
//
// UTF-8 validation, repair and decoding (RFC 3629: no overlongs, no
// surrogates, nothing above U+10FFFF).
//
// Thread safety: pure functions.
#ifndef NEARDUP_NORMALIZE_UTF8_H_
#define NEARDUP_NORMALIZE_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "neardup/status.h"

namespace neardup::normalize {

// OK for valid UTF-8; otherwise InvalidArgument naming the byte offset of the
// first bad sequence. O(n), with an ASCII fast path.
Status ValidateUtf8(std::string_view s);

// Copies `s`, replacing each maximal ill-formed subsequence with U+FFFD
// (the Unicode "substitution of maximal subparts" practice).
std::string ReplaceInvalidUtf8(std::string_view s);

// Decodes the code point at s[*pos] and advances *pos. Returns -1 and advances
// by one byte on an ill-formed sequence. Requires *pos < s.size().
int32_t DecodeUtf8(std::string_view s, size_t* pos);

// Appends the UTF-8 encoding of `cp` (must be a valid scalar value).
void AppendUtf8(int32_t cp, std::string* out);

}  // namespace neardup::normalize

#endif  // NEARDUP_NORMALIZE_UTF8_H_
