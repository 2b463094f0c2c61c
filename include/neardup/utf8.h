// SPDX-License-Identifier: Apache-2.0
//
// UTF-8 validation and repair (RFC 3629: no overlongs, no surrogates, nothing
// above U+10FFFF). Pure functions, thread-safe, O(n).
#ifndef NEARDUP_UTF8_H_
#define NEARDUP_UTF8_H_

#include <string>
#include <string_view>

#include "neardup/status.h"

namespace neardup {

// OK for valid UTF-8; otherwise InvalidArgument naming the byte offset of the
// first ill-formed sequence.
Status ValidateUtf8(std::string_view s);

// A copy of `s` with each maximal ill-formed subsequence replaced by U+FFFD.
std::string ReplaceInvalidUtf8(std::string_view s);

}  // namespace neardup

#endif  // NEARDUP_UTF8_H_
