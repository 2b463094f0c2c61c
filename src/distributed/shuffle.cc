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

Status ShuffleBytes(Comm& c, size_t record_bytes, size_t round_bytes,
                    const std::function<Result<bool>(void*)>& next,
                    const std::function<int(const void*)>& owner,
                    const std::function<Status(std::span<const uint8_t>)>& deliver,
                    uint64_t* sent_away) {
  // At most this many records to each destination a round, so no rank
  // receives more than round_bytes in one round.
  const size_t per_dest =
      std::max<size_t>(1, round_bytes / record_bytes / static_cast<size_t>(c.size()));
  std::vector<std::vector<uint8_t>> out(c.size());
  std::vector<uint8_t> pending(record_bytes);
  bool have_pending = false, exhausted = false;
  Status status;
  while (true) {
    for (auto& o : out) o.clear();
    while (!exhausted) {
      if (!have_pending) {
        Result<bool> more = next(pending.data());
        if (!more.ok() || !*more) {
          if (!more.ok()) status = more.status();
          exhausted = true;
          break;
        }
        have_pending = true;
      }
      std::vector<uint8_t>& o = out[owner(pending.data())];
      if (o.size() >= per_dest * record_bytes) break;  // next round
      o.insert(o.end(), pending.begin(), pending.end());
      have_pending = false;
    }
    for (int d = 0; d < c.size(); ++d) {
      if (d != c.rank()) *sent_away += out[d].size();
    }
    const std::vector<uint8_t> in = c.Exchange(out);
    if (status.ok() && !in.empty()) {
      status = deliver(in);
      if (!status.ok()) exhausted = true, have_pending = false;
    }
    if (MaxAll(c, exhausted ? 0 : 1) == 0) break;
  }
  return status;
}

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
