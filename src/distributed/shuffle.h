// SPDX-License-Identifier: Apache-2.0
//
// Shuffles: records move to the ranks that own them, in rounds bounded by
// the memory budget.
//
//   ShuffleBytes / Shuffle<T>  a stream of fixed-size records to owner
//                              ranks: each round a rank sends at most
//                              round_bytes / N to each rank, so a receiver
//                              takes at most round_bytes a round; rounds go
//                              on until every rank's stream is done
//   ShuffleRuns                the records of sorted runs (merged) to their
//                              owners, which collect them into sorted runs,
//                              spilled past a limit
//   ShuffleKeys, ShufflePairs  the runner's two: bucket keys to the owner of
//                              their hash (with SimHash fingerprints when the
//                              signature has them), candidate pairs to the
//                              owner of their later document
//
// Collectives (comm.h): every rank calls them, in the same order.
//
// Thread safety: one thread per rank.
#ifndef NEARDUP_DISTRIBUTED_SHUFFLE_H_
#define NEARDUP_DISTRIBUTED_SHUFFLE_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "base/status_macros.h"
#include "batch/pipeline.h"
#include "batch/sort.h"
#include "distributed/comm.h"
#include "distributed/ranges.h"

namespace neardup::distributed {

// Moves a record stream to owners in rounds. `next` yields the next record
// (false at the end), `owner` names its rank, `deliver` receives a round's
// records sent here. A local error stops this rank's stream but the rank
// keeps taking part until every rank is done; the first error is returned
// (callers then Agree). Memory: round_bytes to send, at most round_bytes
// received per round. Adds the bytes sent to other ranks to *sent_away.
Status ShuffleBytes(Comm& c, size_t record_bytes, size_t round_bytes,
                    const std::function<Result<bool>(void*)>& next,
                    const std::function<int(const void*)>& owner,
                    const std::function<Status(std::span<const uint8_t>)>& deliver,
                    uint64_t* sent_away);

template <typename T>
Status Shuffle(Comm& c, size_t round_bytes, const std::function<Result<bool>(T*)>& next,
               const std::function<int(const T&)>& owner,
               const std::function<Status(std::span<const T>)>& deliver, uint64_t* sent_away) {
  static_assert(std::is_trivially_copyable_v<T>);
  return ShuffleBytes(
      c, sizeof(T), round_bytes, [&](void* out) { return next(static_cast<T*>(out)); },
      [&](const void* r) { return owner(*static_cast<const T*>(r)); },
      [&](std::span<const uint8_t> bytes) {
        return deliver(
            std::span<const T>(reinterpret_cast<const T*>(bytes.data()), bytes.size() / sizeof(T)));
      },
      sent_away);
}

// How much a shuffle of runs may hold: its rounds, and what the receiving
// side buffers (at least 4096 records) before it spills a sorted run.
struct ShuffleLimits {
  size_t round_bytes = 1 << 20;
  uint64_t buffer_bytes = 0;
};

// Moves a stream of records (`next`, as for Shuffle) to their owner ranks
// as messages (`pack`), which turn them back into records (`unpack`) and
// collect them into `to` as runs sorted by `sort`, spilled past
// limits.buffer_bytes. `to` may be null on a rank that no record is sent
// to. Errors: the stream's, or spilling's (IOError); the first of this
// rank's.
template <typename Rec, typename Less, typename Msg>
Status ShuffleInto(Comm& c, const std::function<Result<bool>(Rec*)>& next,
                   batch::RunSet<Rec, Less>* to, const ShuffleLimits& limits,
                   const std::function<void(const Rec&, Msg*)>& pack,
                   const std::function<int(const Msg&)>& owner,
                   const std::function<Rec(const Msg&)>& unpack,
                   const std::function<void(std::span<Rec>)>& sort, uint64_t* sent_away) {
  // Memory by need, up to the limit.
  batch::SpillBuffer<Rec> buf(std::max<uint64_t>(4096, limits.buffer_bytes / sizeof(Rec)));
  auto flush = [&](bool spill) {
    sort(buf.span());
    return to->AddRun(&buf, spill);
  };
  const std::function<Result<bool>(Msg*)> next_msg = [&](Msg* out) -> Result<bool> {
    Rec r;
    NEARDUP_ASSIGN_OR_RETURN(bool more, next(&r));
    if (more) pack(r, out);
    return more;
  };
  const std::function<Status(std::span<const Msg>)> deliver = [&](std::span<const Msg> in) {
    for (const Msg& msg : in) {
      NEARDUP_RETURN_IF_ERROR(batch::AppendOrSpill(&buf, unpack(msg), [&] { return flush(true); }));
    }
    return Status::OK();
  };
  Status s = Shuffle<Msg>(c, limits.round_bytes, next_msg, owner, deliver, sent_away);
  if (s.ok() && to != nullptr) s = flush(to->spilled_runs() > 0);
  return s;
}

// ShuffleInto for the records of `from`, merged in order, into runs
// radix-sorted by (radix_key, Less). Errors: merging, or ShuffleInto's.
template <typename Rec, typename Less, typename Msg>
Status ShuffleRuns(Comm& c, batch::RunSet<Rec, Less>* from, batch::RunSet<Rec, Less>* to,
                   const ShuffleLimits& limits, const std::function<void(const Rec&, Msg*)>& pack,
                   const std::function<int(const Msg&)>& owner,
                   const std::function<Rec(const Msg&)>& unpack, uint64_t (*radix_key)(const Rec&),
                   uint64_t* sent_away) {
  std::unique_ptr<batch::RunMerger<Rec, Less>> merger;
  Status status;
  auto merged = from->Merge(limits.round_bytes);
  if (merged.ok()) {
    merger = std::move(*merged);
  } else {
    status = merged.status();  // this rank sends nothing, and still takes part
  }
  const std::function<Result<bool>(Rec*)> next = [&](Rec* r) -> Result<bool> {
    if (!merger) return status.ok() ? Result<bool>(false) : Result<bool>(status);
    return merger->Next(r);
  };
  const std::function<void(std::span<Rec>)> sort = [radix_key](std::span<Rec> recs) {
    batch::RadixSort(recs, radix_key, Less());
  };
  Status s = ShuffleInto<Rec, Less, Msg>(c, next, to, limits, pack, owner, unpack, sort, sent_away);
  merger.reset();
  return s;
}

// Key entries to the owner of their key (KeyOwner), with the document's
// payload when `lines` has payloads (SimHash spaces filter by it; the
// receiver stores it in its LineTable). The entries of the id space the
// rank receives are also appended to *id_entries, when given (FetchIds).
Status ShuffleKeys(Comm& c, batch::KeyRuns* keys, batch::KeyRuns* owned, batch::LineTable* lines,
                   const ShuffleLimits& limits, std::vector<batch::KeyEntry>* id_entries,
                   uint64_t* sent_away);

// Pairs to the owner of their later document, which verifies them. Adds
// to *borrowed (sorted, distinct) the earlier documents of the pairs it
// receives that other ranks own (before `ranges`' first line of this rank).
Status ShufflePairs(Comm& c, const LineRanges& ranges, batch::PairRuns* local,
                    batch::PairRuns* pairs, const ShuffleLimits& limits,
                    std::vector<uint32_t>* borrowed, uint64_t* sent_away);

}  // namespace neardup::distributed

#endif  // NEARDUP_DISTRIBUTED_SHUFFLE_H_
