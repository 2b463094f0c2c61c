// SPDX-License-Identifier: Apache-2.0
#include "batch/signature.h"

#include <algorithm>

#include "base/status_macros.h"

namespace neardup::batch {

void KeySink::Add(uint32_t space, uint64_t hash) {
  NEARDUP_CHECK_MSG(size_ < capacity_, "BatchSignature::Keys added more than max_keys()");
  NEARDUP_CHECK(space < static_cast<uint32_t>(kMaxSpaces));
  keys_[size_++] = MakeKey(space, hash);
}

Result<PairEvidence> BatchSignature::Explain(const DocText& a, const DocText& b,
                                             SignatureScratch* scratch) const {
  std::vector<uint64_t> ka(max_keys()), kb(max_keys());
  KeySink sa(ka.data(), ka.size()), sb(kb.data(), kb.size());
  NEARDUP_RETURN_IF_ERROR(Keys(a.text, scratch, &sa));
  NEARDUP_RETURN_IF_ERROR(Keys(b.text, scratch, &sb));
  ka.resize(sa.size());
  kb.resize(sb.size());
  std::sort(ka.begin(), ka.end());
  std::sort(kb.begin(), kb.end());
  PairEvidence e;
  for (size_t s = 0; s < spaces().size(); ++s) {
    const KeySpace& space = spaces()[s];
    if (space.max_distance >= 0 &&
        PayloadDistance(sa.payload(), sb.payload()) > space.max_distance) {
      continue;
    }
    size_t shared = 0, in_a = 0, in_b = 0;
    for (uint64_t k : ka) in_a += SpaceOf(k) == s;
    for (uint64_t k : kb) in_b += SpaceOf(k) == s;
    for (size_t i = 0, j = 0; i < ka.size() && j < kb.size();) {
      if (ka[i] < kb[j]) {
        ++i;
      } else if (kb[j] < ka[i]) {
        ++j;
      } else {
        shared += SpaceOf(ka[i]) == s;
        ++i, ++j;
      }
    }
    if (shared == 0) continue;
    e.space = static_cast<int>(s);
    e.similarity = static_cast<double>(shared) / static_cast<double>(std::max(in_a, in_b));
    if (space.max_distance >= 0) e.distance = PayloadDistance(sa.payload(), sb.payload());
    return e;
  }
  return e;
}

}  // namespace neardup::batch
