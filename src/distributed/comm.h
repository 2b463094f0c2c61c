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
//              one back (QueryAs: answers of any plain type; MarkThenQuery:
//              the same exchanges first deliver marks to their owners)
//   SumAll, MaxAll
#ifndef NEARDUP_DISTRIBUTED_COMM_H_
#define NEARDUP_DISTRIBUTED_COMM_H_

#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "base/status_macros.h"
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

// Query with answers of a plain type T.
template <typename T>
std::vector<T> QueryAs(Comm& c, std::span<const uint32_t> ids,
                       const std::function<int(uint32_t)>& owner,
                       const std::function<T(uint32_t)>& answer);

// One exchange out, one back, like Query; the first also carries `marks`
// (any order) to their owners, who run on_mark on each of them before they
// answer any of `ids`.
template <typename T>
std::vector<T> MarkThenQuery(Comm& c, std::span<const uint32_t> marks,
                             std::span<const uint32_t> ids,
                             const std::function<int(uint32_t)>& owner,
                             const std::function<void(uint32_t)>& on_mark,
                             const std::function<T(uint32_t)>& answer);

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

// A string as its 32-bit length and its bytes, for messages.
inline void AppendString(std::string_view s, std::vector<uint8_t>* out) {
  AppendPod(static_cast<uint32_t>(s.size()), out);
  out->insert(out->end(), s.begin(), s.end());
}

// Reads a message in the order AppendPod and AppendString wrote it. Reading
// past its end is a broken invariant (CHECK): this process's peers wrote it.
class MessageReader {
 public:
  explicit MessageReader(std::span<const uint8_t> bytes) : b_(bytes) {}
  bool done() const { return pos_ >= b_.size(); }
  size_t position() const { return pos_; }  // bytes read so far
  template <typename T>
  T Pod() {
    static_assert(std::is_trivially_copyable_v<T>);
    NEARDUP_CHECK(pos_ + sizeof(T) <= b_.size());
    T v;
    std::memcpy(&v, b_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  // A view into the message.
  std::string_view String() {
    const uint32_t n = Pod<uint32_t>();
    NEARDUP_CHECK(pos_ + n <= b_.size());
    const std::string_view s(reinterpret_cast<const char*>(b_.data()) + pos_, n);
    pos_ += n;
    return s;
  }

 private:
  std::span<const uint8_t> b_;
  size_t pos_ = 0;
};

namespace internal {

// Appends each of `ids` to the message of its owner, a run of ids with the
// same owner at a time.
inline void AppendByOwner(std::span<const uint32_t> ids, const std::function<int(uint32_t)>& owner,
                          std::vector<std::vector<uint8_t>>* out) {
  for (size_t k = 0, end = 0; k < ids.size(); k = end) {
    const int r = owner(ids[k]);
    for (end = k + 1; end < ids.size() && owner(ids[end]) == r;) ++end;
    const auto* p = reinterpret_cast<const uint8_t*>(ids.data() + k);
    (*out)[r].insert((*out)[r].end(), p, p + (end - k) * sizeof(uint32_t));
  }
}

// Answers the ids each rank asked (rank r's message: from[r] bytes of
// `in`, of which the first skip[r] words are not ids) and sends the
// answers back, in order.
template <typename T>
std::vector<T> AnswerBack(Comm& c, const std::vector<uint32_t>& in, const std::vector<size_t>& from,
                          const std::vector<size_t>& skip,
                          const std::function<T(uint32_t)>& answer) {
  std::vector<std::vector<uint8_t>> back(c.size());
  size_t at = 0;
  for (int r = 0; r < c.size(); ++r) {
    const size_t words = from[r] / sizeof(uint32_t);
    back[r].resize((words - skip[r]) * sizeof(T));
    for (size_t k = skip[r]; k < words; ++k) {
      const T v = answer(in[at + k]);
      std::memcpy(back[r].data() + (k - skip[r]) * sizeof(T), &v, sizeof(T));
    }
    at += words;
  }
  return FromBytes<T>(c.Exchange(back));
}

}  // namespace internal

template <typename T>
std::vector<T> QueryAs(Comm& c, std::span<const uint32_t> ids,
                       const std::function<int(uint32_t)>& owner,
                       const std::function<T(uint32_t)>& answer) {
  std::vector<std::vector<uint8_t>> out(c.size());
  internal::AppendByOwner(ids, owner, &out);
  std::vector<size_t> from;
  const std::vector<uint32_t> in = FromBytes<uint32_t>(c.Exchange(out, &from));
  return internal::AnswerBack(c, in, from, std::vector<size_t>(c.size(), 0), answer);
}

template <typename T>
std::vector<T> MarkThenQuery(Comm& c, std::span<const uint32_t> marks,
                             std::span<const uint32_t> ids,
                             const std::function<int(uint32_t)>& owner,
                             const std::function<void(uint32_t)>& on_mark,
                             const std::function<T(uint32_t)>& answer) {
  // To each rank: the number of its marks, the marks, the ids.
  std::vector<std::vector<uint8_t>> out(c.size());
  for (int r = 0; r < c.size(); ++r) AppendPod(uint32_t{0}, &out[r]);
  internal::AppendByOwner(marks, owner, &out);
  for (int r = 0; r < c.size(); ++r) {
    const auto count = static_cast<uint32_t>(out[r].size() / sizeof(uint32_t) - 1);
    std::memcpy(out[r].data(), &count, sizeof count);
  }
  internal::AppendByOwner(ids, owner, &out);
  std::vector<size_t> from, skip(c.size());
  const std::vector<uint32_t> in = FromBytes<uint32_t>(c.Exchange(out, &from));
  size_t at = 0;
  for (int r = 0; r < c.size(); ++r) {
    skip[r] = 1 + in[at];
    for (size_t k = 1; k < skip[r]; ++k) on_mark(in[at + k]);
    at += from[r] / sizeof(uint32_t);
  }
  return internal::AnswerBack(c, in, from, skip, answer);
}

}  // namespace neardup::distributed

#endif  // NEARDUP_DISTRIBUTED_COMM_H_
