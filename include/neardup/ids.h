// SPDX-License-Identifier: Apache-2.0
//
// The one ordering of document ids, used by every "smallest id" rule (batch
// dedup's --keep smallest-id, group clustering, the Python API): ids that are
// integers (an optional '-' and decimal digits, of any length) come first, in
// numeric order; all other ids follow in byte order. The integer 7 and the
// string "7" are the same id.
//
// Thread safety: a pure function. Complexity: O(length).
#ifndef NEARDUP_IDS_H_
#define NEARDUP_IDS_H_

#include <string_view>

namespace neardup {

bool IsIntegerId(std::string_view id);
bool IdLess(std::string_view a, std::string_view b);

}  // namespace neardup

#endif  // NEARDUP_IDS_H_
