// SPDX-License-Identifier: Apache-2.0
//
// The one ordering of document ids, used by every "smallest id" rule (batch
// dedup's --keep smallest-id, group clustering, the Python API): ids that are
// integers (an optional '-' and decimal digits, of any length) come first, in
// numeric order; all other ids follow in byte order.
//
// The id rule: an id is its text, and two ids are the same id when their
// texts are equal. Where ids come from JSON (JSONL records, neardup/jsonl.h;
// the CLI) the text is the canonical JSON of the value, so the integer 7 is
// `7` and the string "7" is `"7"` (quoted): two different ids, the integer
// first in this order, the string among the strings. Where ids are given as
// strings (Engine, GroupClusterer, Python, which writes an int in decimal),
// the text is that string: 7 and "7" are then one id, an integer here.
//
// Thread safety: a pure function. Complexity: O(length).
#ifndef NEARDUP_IDS_H_
#define NEARDUP_IDS_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace neardup {

bool IsIntegerId(std::string_view id);
bool IdLess(std::string_view a, std::string_view b);

// A 64-bit key of an id in that order, for comparing without the text:
// IdOrderKey(a) < IdOrderKey(b) implies IdLess(a, b); equal keys decide
// nothing (compare the ids). Integers of up to 18 digits map to distinct
// keys around 2^62 by value, longer ones to the ends of that range; other
// ids above 2^63 by their first 7 bytes.
uint64_t IdOrderKey(std::string_view id);

// The inverse where the key is exact: the canonical decimal text of an
// integer id of up to 18 digits (no leading zeros, no "-0"); false for any
// other key.
bool IntegerIdOfOrderKey(uint64_t key, std::string* out);

}  // namespace neardup

#endif  // NEARDUP_IDS_H_
