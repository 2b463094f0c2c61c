// SPDX-License-Identifier: Apache-2.0
//
// The few MPI collectives the distributed runner needs, over
// MPI_COMM_WORLD, wrapped so errors become Status and no caller names an MPI
// type:
//
//   Agree      every rank learns the first error of any rank (by input line)
//   Shuffle    a stream of fixed-size records to owner ranks with
//              MPI_Alltoallv in rounds, each rank sending at most
//              `round_bytes` a round, so the receiver's buffer is bounded
//   Query      values of ids held by their owner ranks (ids sorted, owners
//              ascending with the id): one Alltoallv out, one back
//
// Every rank must make the same sequence of calls (they are collectives).
// MPI's default error handler aborts the job when a rank dies, so a lost
// rank ends the run instead of hanging it. Thread safety: the main thread.
#ifndef NEARDUP_DISTRIBUTED_MPI_COMM_H_
#define NEARDUP_DISTRIBUTED_MPI_COMM_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "neardup/status.h"

namespace neardup::distributed {

struct Comm {
  int rank = 0;
  int size = 1;
};

// Starts MPI if the program has not (threads: funneled, MPI from the main
// thread only). Errors: Unavailable.
Result<Comm> InitComm();
void FinalizeComm();

// The same status on every rank: the failing rank with the smallest `line`
// wins (line 0 for errors that are not about a record), ties to the lower
// rank.
Status Agree(const Comm& c, const Status& local, uint64_t line);

// Ranks of the job on this host (MPI_COMM_TYPE_SHARED).
int LocalSize();

uint64_t SumAll(uint64_t v);
uint64_t MaxAll(uint64_t v);

// Each rank's `mine` concatenated in rank order, on every rank.
std::vector<uint8_t> AllGatherBytes(const Comm& c, std::span<const uint8_t> mine);
// The same, on rank 0 only (others get an empty vector).
std::vector<uint8_t> GatherBytes(const Comm& c, std::span<const uint8_t> mine);

// One personalized all-to-all of bytes: out[d] goes to rank d; returns what
// every rank sent here, in rank order (with `from`, how many bytes each sent).
std::vector<uint8_t> ExchangeBytes(const Comm& c, const std::vector<std::vector<uint8_t>>& out,
                                   std::vector<int>* from = nullptr);

// Moves a record stream to owners in rounds. `next` yields the next record
// (false at the end), `owner` names its rank, `deliver` receives a round's
// records sent here. A local error stops this rank's stream but the rank
// keeps taking part until every rank is done; the first error is returned
// (callers then Agree). Memory: round_bytes to send, at most round_bytes
// received per round. Adds the bytes sent to other ranks to *sent_away.
Status ShuffleBytes(const Comm& c, size_t record_bytes, size_t round_bytes,
                    const std::function<Result<bool>(void*)>& next,
                    const std::function<int(const void*)>& owner,
                    const std::function<Status(std::span<const uint8_t>)>& deliver,
                    uint64_t* sent_away);

template <typename T>
Status Shuffle(const Comm& c, size_t round_bytes, const std::function<Result<bool>(T*)>& next,
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

// Answers of the owners for `ids` (sorted ascending, owner(id) ascending
// with id): `answer` runs on the owner for each id sent to it.
std::vector<uint32_t> Query(const Comm& c, std::span<const uint32_t> ids,
                            const std::function<int(uint32_t)>& owner,
                            const std::function<uint32_t(uint32_t)>& answer);

}  // namespace neardup::distributed

#endif  // NEARDUP_DISTRIBUTED_MPI_COMM_H_
