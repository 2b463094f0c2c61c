// SPDX-License-Identifier: Apache-2.0
//
// Shuffles: records move to the ranks that own them, in rounds bounded by
// the memory budget.
//
//   ShuffleStream / Shuffle<T> a stream of fixed-size records to owner
//                              ranks: a rank's own records stay (no
//                              message); each round a rank sends at most
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
#include <utility>
#include <vector>

#include "base/status_macros.h"
#include "batch/pipeline.h"
#include "batch/sort.h"
#include "distributed/comm.h"
#include "distributed/ranges.h"

namespace neardup::distributed {

// Moves a stream of records to their owners in rounds. `next(Msg*)` yields
// the next record (Result<bool>: false at the end), `owner(const Msg&)`
// names its rank. A record this rank owns goes to `own(const Msg&)` at
// once, in stream order, without a message; the others are sent, at most
// round_bytes / N bytes to each rank a round (so a receiver takes at most
// round_bytes a round), and `deliver(std::span<const Msg>)` receives what
// each round brings here. Rounds go on until every rank's stream is done.
// A local error stops this rank's stream but the rank keeps taking part
// until every rank is done; the first error is returned (callers then
// Agree). Memory: round_bytes to send, at most round_bytes received per
// round. Adds the bytes sent to other ranks to *sent_away.
template <typename Msg, typename Next, typename Owner, typename Own, typename Deliver>
Status ShuffleStream(Comm& c, size_t round_bytes, Next&& next, Owner&& owner, Own&& own,
                     Deliver&& deliver, uint64_t* sent_away) {
  static_assert(std::is_trivially_copyable_v<Msg>);
  const size_t per_dest =
      std::max<size_t>(1, round_bytes / sizeof(Msg) / static_cast<size_t>(c.size()));
  const int me = c.rank();
  std::vector<std::vector<uint8_t>> out(c.size());
  Msg pending{};
  int pending_to = -1;  // the rank of a record that waits for the next round
  bool exhausted = false;
  Status status;
  while (true) {
    for (auto& o : out) o.clear();
    while (!exhausted) {
      if (pending_to < 0) {
        Result<bool> more = next(&pending);
        if (!more.ok() || !*more) {
          if (!more.ok()) status = more.status();
          exhausted = true;
          break;
        }
        pending_to = owner(std::as_const(pending));
      }
      if (pending_to == me) {
        pending_to = -1;
        status = own(std::as_const(pending));
        if (!status.ok()) exhausted = true;
        continue;
      }
      std::vector<uint8_t>& o = out[pending_to];
      if (o.size() >= per_dest * sizeof(Msg)) break;  // next round
      if (o.capacity() == 0) o.reserve(per_dest * sizeof(Msg));
      const auto* bytes = reinterpret_cast<const uint8_t*>(&pending);
      o.insert(o.end(), bytes, bytes + sizeof(Msg));
      pending_to = -1;
    }
    for (const auto& o : out) *sent_away += o.size();
    const std::vector<uint8_t> in = c.Exchange(out);
    if (status.ok() && !in.empty()) {
      status = deliver(
          std::span<const Msg>(reinterpret_cast<const Msg*>(in.data()), in.size() / sizeof(Msg)));
      if (!status.ok()) exhausted = true, pending_to = -1;
    }
    if (MaxAll(c, exhausted ? 0 : 1) == 0) break;
  }
  return status;
}

// ShuffleStream with every record, own ones too, delivered through
// `deliver` (own ones one at a time, as they come).
template <typename T>
Status Shuffle(Comm& c, size_t round_bytes, const std::function<Result<bool>(T*)>& next,
               const std::function<int(const T&)>& owner,
               const std::function<Status(std::span<const T>)>& deliver, uint64_t* sent_away) {
  return ShuffleStream<T>(
      c, round_bytes, next, owner, [&](const T& r) { return deliver(std::span<const T>(&r, 1)); },
      deliver, sent_away);
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
// limits.buffer_bytes. This rank's own records are unpacked where they
// are (no message); with `sorted` (the stream is in `to`'s order) they
// form runs that need no sort. `to` may be null on a rank that no record
// is sent to. Errors: the stream's, or spilling's (IOError); the first of
// this rank's.
template <typename Rec, typename Less, typename Msg, typename Next, typename Pack, typename Owner,
          typename Unpack, typename Sort>
Status ShuffleInto(Comm& c, Next&& next, batch::RunSet<Rec, Less>* to, const ShuffleLimits& limits,
                   Pack&& pack, Owner&& owner, Unpack&& unpack, Sort&& sort, bool sorted,
                   uint64_t* sent_away) {
  // Memory by need, up to the limit for both buffers together: the own
  // records' and those received.
  const uint64_t limit = std::max<uint64_t>(4096, limits.buffer_bytes / sizeof(Rec));
  batch::SpillBuffer<Rec> own(limit), in(limit);
  auto flush = [&](batch::SpillBuffer<Rec>* buf, bool spill) {
    if (buf != &own || !sorted) sort(buf->span());
    return to->AddRun(buf, spill);
  };
  auto add = [&](batch::SpillBuffer<Rec>* buf, const Rec& r) -> Status {
    if (own.size() + in.size() >= limit) {
      NEARDUP_RETURN_IF_ERROR(flush(own.size() >= in.size() ? &own : &in, true));
    }
    return batch::AppendOrSpill(buf, r, [&] { return flush(buf, true); });
  };
  const auto next_msg = [&](Msg* out) -> Result<bool> {
    Rec r;
    NEARDUP_ASSIGN_OR_RETURN(bool more, next(&r));
    if (more) pack(r, out);
    return more;
  };
  const auto take_own = [&](const Msg& m) { return add(&own, unpack(m)); };
  const auto deliver = [&](std::span<const Msg> got) {
    for (const Msg& m : got) NEARDUP_RETURN_IF_ERROR(add(&in, unpack(m)));
    return Status::OK();
  };
  Status s =
      ShuffleStream<Msg>(c, limits.round_bytes, next_msg, owner, take_own, deliver, sent_away);
  if (s.ok() && to != nullptr) {
    const bool spill = to->spilled_runs() > 0;
    s = flush(&own, spill);
    if (s.ok()) s = flush(&in, spill || to->spilled_runs() > 0);
  }
  return s;
}

// ShuffleInto for the records of `from`, merged in order, into runs
// radix-sorted by (radix_key, Less). Errors: merging, or ShuffleInto's.
template <typename Rec, typename Less, typename Msg, typename Pack, typename Owner, typename Unpack>
Status ShuffleRuns(Comm& c, batch::RunSet<Rec, Less>* from, batch::RunSet<Rec, Less>* to,
                   const ShuffleLimits& limits, Pack&& pack, Owner&& owner, Unpack&& unpack,
                   uint64_t (*radix_key)(const Rec&), uint64_t* sent_away) {
  std::unique_ptr<batch::RunMerger<Rec, Less>> merger;
  Status status;
  auto merged = from->Merge(limits.round_bytes);
  if (merged.ok()) {
    merger = std::move(*merged);
  } else {
    status = merged.status();  // this rank sends nothing, and still takes part
  }
  const auto next = [&](Rec* r) -> Result<bool> {
    if (!merger) return status.ok() ? Result<bool>(false) : Result<bool>(status);
    return merger->Next(r);
  };
  const auto sort = [radix_key](std::span<Rec> recs) { batch::RadixSort(recs, radix_key, Less()); };
  Status s = ShuffleInto<Rec, Less, Msg>(c, next, to, limits, pack, owner, unpack, sort,
                                         /*sorted=*/true, sent_away);
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
