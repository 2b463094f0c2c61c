// SPDX-License-Identifier: Apache-2.0
//
// Comm: the collectives the distributed runner needs over the ranks of one
// job, with no transport named: MpiComm (src/mpi/) over MPI_COMM_WORLD, and
// an in-process Comm whose ranks are threads (in_process_comm.h), which the
// unit tests use. Errors are Status; no caller sees an MPI type.
//
// Every rank must make the same sequence of calls (they are collectives);
// a call returns on a rank once every rank has made it. Thread safety: one
// thread per rank calls its Comm.
//
// Built on the primitives, for any Comm:
//   Agree      every rank learns the first error of any rank (by input line)
//   Query      values of ids held by their owner ranks: one exchange out,
//              one back
//   SumAll, MaxAll
#ifndef NEARDUP_DISTRIBUTED_COMM_H_
#define NEARDUP_DISTRIBUTED_COMM_H_

#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "neardup/status.h"

namespace neardup::distributed {

enum class ReduceOp { kSum, kMax, kMin };

class Comm {
 public:
  virtual ~Comm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Ranks of the job on this host.
  virtual int LocalSize() = 0;

  virtual uint64_t AllReduce(uint64_t v, ReduceOp op) = 0;
  // Each rank's `mine` concatenated in rank order, on every rank.
  virtual std::vector<uint8_t> AllGather(std::span<const uint8_t> mine) = 0;
  // The same, on rank 0 only (other ranks get an empty vector).
  virtual std::vector<uint8_t> Gather(std::span<const uint8_t> mine) = 0;
  // One personalized all-to-all: out[d] goes to rank d (out has size()
  // entries); returns what every rank sent here, in rank order, and with
  // `from` how many bytes each rank sent.
  virtual std::vector<uint8_t> Exchange(const std::vector<std::vector<uint8_t>>& out,
                                        std::vector<size_t>* from = nullptr) = 0;
  // The bytes of rank `root` in *bytes on every rank.
  virtual void Broadcast(std::string* bytes, int root) = 0;
};

inline uint64_t SumAll(Comm& c, uint64_t v) { return c.AllReduce(v, ReduceOp::kSum); }
inline uint64_t MaxAll(Comm& c, uint64_t v) { return c.AllReduce(v, ReduceOp::kMax); }

// The same status on every rank: the failing rank with the smallest `line`
// wins (line 0 for errors that are not about a record), ties to the lower
// rank.
Status Agree(Comm& c, const Status& local, uint64_t line);

// Answers of the owners for `ids` (sorted ascending, owner(id) ascending
// with id): `answer` runs on the owner for each id sent to it.
std::vector<uint32_t> Query(Comm& c, std::span<const uint32_t> ids,
                            const std::function<int(uint32_t)>& owner,
                            const std::function<uint32_t(uint32_t)>& answer);

// Plain values as bytes, for messages.
template <typename T>
void AppendPod(const T& v, std::vector<uint8_t>* out) {
  static_assert(std::is_trivially_copyable_v<T>);
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  out->insert(out->end(), p, p + sizeof v);
}

template <typename T>
std::vector<T> FromBytes(const std::vector<uint8_t>& b) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::vector<T> v(b.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

template <typename T>
std::span<const uint8_t> AsBytes(const std::vector<T>& v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(T)};
}

}  // namespace neardup::distributed

#endif  // NEARDUP_DISTRIBUTED_COMM_H_
