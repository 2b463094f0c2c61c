// SPDX-License-Identifier: Apache-2.0
#include "distributed/mpi_comm.h"

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "base/status_macros.h"

namespace neardup::distributed {
namespace {

std::vector<int> Displacements(const std::vector<int>& counts) {
  std::vector<int> d(counts.size(), 0);
  for (size_t i = 1; i < counts.size(); ++i) d[i] = d[i - 1] + counts[i - 1];
  return d;
}

int Total(const std::vector<int>& counts) {
  int64_t t = 0;
  for (int x : counts) t += x;
  NEARDUP_CHECK_MSG(t <= std::numeric_limits<int>::max(), "an MPI message over 2 GB");
  return static_cast<int>(t);
}

}  // namespace

Result<Comm> InitComm() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
      return Status::Unavailable("MPI did not start (run under mpirun)");
    }
  }
  Comm c;
  MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &c.size);
  return c;
}

void FinalizeComm() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Finalize();
}

int LocalSize() {
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  int n = 1;
  MPI_Comm_size(local, &n);
  MPI_Comm_free(&local);
  return n;
}

uint64_t SumAll(uint64_t v) {
  uint64_t out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return out;
}

uint64_t MaxAll(uint64_t v) {
  uint64_t out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

Status Agree(const Comm& c, const Status& local, uint64_t line) {
  const uint64_t mine = local.ok() ? UINT64_MAX : line;
  uint64_t first = 0;
  MPI_Allreduce(&mine, &first, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  if (first == UINT64_MAX) return Status::OK();
  const int candidate = mine == first ? c.rank : c.size;
  int who = 0;
  MPI_Allreduce(&candidate, &who, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  int code = static_cast<int>(local.code());
  std::string message = local.message();
  int length = static_cast<int>(message.size());
  MPI_Bcast(&code, 1, MPI_INT, who, MPI_COMM_WORLD);
  MPI_Bcast(&length, 1, MPI_INT, who, MPI_COMM_WORLD);
  message.resize(static_cast<size_t>(length));
  MPI_Bcast(message.data(), length, MPI_CHAR, who, MPI_COMM_WORLD);
  return Status(static_cast<StatusCode>(code), std::move(message));
}

std::vector<uint8_t> AllGatherBytes(const Comm& c, std::span<const uint8_t> mine) {
  int n = static_cast<int>(mine.size());
  std::vector<int> counts(c.size);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  const std::vector<int> displs = Displacements(counts);
  std::vector<uint8_t> all(static_cast<size_t>(Total(counts)));
  MPI_Allgatherv(mine.data(), n, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE,
                 MPI_COMM_WORLD);
  return all;
}

std::vector<uint8_t> GatherBytes(const Comm& c, std::span<const uint8_t> mine) {
  int n = static_cast<int>(mine.size());
  std::vector<int> counts(c.size);
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<uint8_t> all;
  std::vector<int> displs;
  if (c.rank == 0) {
    displs = Displacements(counts);
    all.resize(static_cast<size_t>(Total(counts)));
  }
  MPI_Gatherv(mine.data(), n, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE, 0,
              MPI_COMM_WORLD);
  return all;
}

std::vector<uint8_t> ExchangeBytes(const Comm& c, const std::vector<std::vector<uint8_t>>& out,
                                   std::vector<int>* from) {
  std::vector<int> send_counts(c.size), recv_counts(c.size);
  std::vector<uint8_t> send;
  for (int d = 0; d < c.size; ++d) {
    send_counts[d] = static_cast<int>(out[d].size());
    send.insert(send.end(), out[d].begin(), out[d].end());
  }
  Total(send_counts);
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  const std::vector<int> sd = Displacements(send_counts), rd = Displacements(recv_counts);
  std::vector<uint8_t> recv(static_cast<size_t>(Total(recv_counts)));
  MPI_Alltoallv(send.data(), send_counts.data(), sd.data(), MPI_BYTE, recv.data(),
                recv_counts.data(), rd.data(), MPI_BYTE, MPI_COMM_WORLD);
  if (from != nullptr) *from = std::move(recv_counts);
  return recv;
}

Status ShuffleBytes(const Comm& c, size_t record_bytes, size_t round_bytes,
                    const std::function<Result<bool>(void*)>& next,
                    const std::function<int(const void*)>& owner,
                    const std::function<Status(std::span<const uint8_t>)>& deliver,
                    uint64_t* sent_away) {
  // At most this many records to each destination a round, so no rank
  // receives more than round_bytes in one round.
  const size_t per_dest =
      std::max<size_t>(1, round_bytes / record_bytes / static_cast<size_t>(c.size));
  std::vector<std::vector<uint8_t>> out(c.size);
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
    for (int d = 0; d < c.size; ++d) {
      if (d != c.rank) *sent_away += out[d].size();
    }
    const std::vector<uint8_t> in = ExchangeBytes(c, out);
    if (status.ok() && !in.empty()) {
      status = deliver(in);
      if (!status.ok()) exhausted = true, have_pending = false;
    }
    if (MaxAll(exhausted ? 0 : 1) == 0) break;
  }
  return status;
}

std::vector<uint32_t> Query(const Comm& c, std::span<const uint32_t> ids,
                            const std::function<int(uint32_t)>& owner,
                            const std::function<uint32_t(uint32_t)>& answer) {
  std::vector<int> send_counts(c.size, 0), recv_counts(c.size);
  for (uint32_t id : ids) ++send_counts[owner(id)];
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  const std::vector<int> sd = Displacements(send_counts), rd = Displacements(recv_counts);
  std::vector<uint32_t> asked(static_cast<size_t>(Total(recv_counts)));
  MPI_Alltoallv(ids.data(), send_counts.data(), sd.data(), MPI_UINT32_T, asked.data(),
                recv_counts.data(), rd.data(), MPI_UINT32_T, MPI_COMM_WORLD);
  for (uint32_t& v : asked) v = answer(v);
  std::vector<uint32_t> values(ids.size());
  MPI_Alltoallv(asked.data(), recv_counts.data(), rd.data(), MPI_UINT32_T, values.data(),
                send_counts.data(), sd.data(), MPI_UINT32_T, MPI_COMM_WORLD);
  return values;
}

}  // namespace neardup::distributed
