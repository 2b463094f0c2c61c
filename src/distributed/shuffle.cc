// SPDX-License-Identifier: Apache-2.0
#include "distributed/shuffle.h"

#include <algorithm>

namespace neardup::distributed {
namespace {

#pragma pack(push, 4)
struct KeyPayload {  // a key entry with its document's SimHash fingerprint
  uint64_t key;
  uint32_t doc;
  uint64_t payload;
};
#pragma pack(pop)

template <typename Msg>
Status ShuffleKeysAs(Comm& c, batch::KeyRuns* keys, batch::KeyRuns* owned, batch::LineTable* lines,
                     const ShuffleLimits& limits, std::vector<batch::KeyEntry>* id_entries,
                     uint64_t* sent_away) {
  const int ranks = c.size();
  return ShuffleRuns<batch::KeyEntry, batch::KeyEntryLess, Msg>(
      c, keys, owned, limits,
      [&](const batch::KeyEntry& e, Msg* out) {
        out->key = e.key;
        out->doc = e.doc;
        if constexpr (std::is_same_v<Msg, KeyPayload>) out->payload = lines->payload(e.doc);
      },
      [&](const Msg& k) { return KeyOwner(k.key, ranks); },
      [&](const Msg& k) {
        if constexpr (std::is_same_v<Msg, KeyPayload>) lines->set_payload(k.doc, k.payload);
        if (id_entries != nullptr && batch::SpaceOf(k.key) == batch::kIdSpace) {
          id_entries->push_back({k.key, k.doc});
        }
        return batch::KeyEntry{k.key, k.doc};
      },
      [](const batch::KeyEntry& e) { return e.key; }, sent_away);
}

}  // namespace

Status ShuffleKeys(Comm& c, batch::KeyRuns* keys, batch::KeyRuns* owned, batch::LineTable* lines,
                   const ShuffleLimits& limits, std::vector<batch::KeyEntry>* id_entries,
                   uint64_t* sent_away) {
  return lines->payload_enabled()
             ? ShuffleKeysAs<KeyPayload>(c, keys, owned, lines, limits, id_entries, sent_away)
             : ShuffleKeysAs<batch::KeyEntry>(c, keys, owned, lines, limits, id_entries, sent_away);
}

Status ShufflePairs(Comm& c, const LineRanges& ranges, batch::PairRuns* local,
                    batch::PairRuns* pairs, const ShuffleLimits& limits,
                    std::vector<uint32_t>* borrowed, uint64_t* sent_away) {
  const uint32_t lo = ranges.begin(c.rank());
  Status s = ShuffleRuns<batch::Pair, std::less<batch::Pair>, batch::Pair>(
      c, local, pairs, limits, [](const batch::Pair& p, batch::Pair* out) { *out = p; },
      [&](const batch::Pair& p) { return ranges.Owner(batch::PairB(p)); },
      [&](const batch::Pair& p) {
        if (batch::PairA(p) < lo) borrowed->push_back(batch::PairA(p));
        return p;
      },
      [](const batch::Pair& p) { return p; }, sent_away);
  std::sort(borrowed->begin(), borrowed->end());
  borrowed->erase(std::unique(borrowed->begin(), borrowed->end()), borrowed->end());
  return s;
}

}  // namespace neardup::distributed
