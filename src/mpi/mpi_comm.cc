// SPDX-License-Identifier: Apache-2.0
#include "mpi/mpi_comm.h"

#include <mpi.h>

#include <limits>

#include "base/status_macros.h"

namespace neardup::mpi {
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

int Count(size_t bytes) {
  NEARDUP_CHECK_MSG(bytes <= static_cast<size_t>(std::numeric_limits<int>::max()),
                    "an MPI message over 2 GB");
  return static_cast<int>(bytes);
}

}  // namespace

Result<MpiComm> MpiComm::Init() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
      return Status::Unavailable("MPI did not start (run under mpirun)");
    }
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return MpiComm(rank, size);
}

void MpiComm::Finalize() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Finalize();
}

int MpiComm::LocalSize() {
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  int n = 1;
  MPI_Comm_size(local, &n);
  MPI_Comm_free(&local);
  return n;
}

uint64_t MpiComm::AllReduce(uint64_t v, distributed::ReduceOp op) {
  const MPI_Op mpi_op = op == distributed::ReduceOp::kSum   ? MPI_SUM
                        : op == distributed::ReduceOp::kMax ? MPI_MAX
                                                            : MPI_MIN;
  uint64_t out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_UINT64_T, mpi_op, MPI_COMM_WORLD);
  return out;
}

std::vector<uint8_t> MpiComm::AllGather(std::span<const uint8_t> mine) {
  int n = Count(mine.size());
  std::vector<int> counts(size_);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  const std::vector<int> displs = Displacements(counts);
  std::vector<uint8_t> all(static_cast<size_t>(Total(counts)));
  MPI_Allgatherv(mine.data(), n, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE,
                 MPI_COMM_WORLD);
  return all;
}

std::vector<uint8_t> MpiComm::Gather(std::span<const uint8_t> mine) {
  int n = Count(mine.size());
  std::vector<int> counts(size_);
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<uint8_t> all;
  std::vector<int> displs;
  if (rank_ == 0) {
    displs = Displacements(counts);
    all.resize(static_cast<size_t>(Total(counts)));
  }
  MPI_Gatherv(mine.data(), n, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE, 0,
              MPI_COMM_WORLD);
  return all;
}

std::vector<uint8_t> MpiComm::Exchange(const std::vector<std::vector<uint8_t>>& out,
                                       std::vector<size_t>* from) {
  std::vector<int> send_counts(size_), recv_counts(size_);
  std::vector<uint8_t> send;
  for (int d = 0; d < size_; ++d) {
    send_counts[d] = Count(out[d].size());
    send.insert(send.end(), out[d].begin(), out[d].end());
  }
  Total(send_counts);
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  const std::vector<int> sd = Displacements(send_counts), rd = Displacements(recv_counts);
  std::vector<uint8_t> recv(static_cast<size_t>(Total(recv_counts)));
  MPI_Alltoallv(send.data(), send_counts.data(), sd.data(), MPI_BYTE, recv.data(),
                recv_counts.data(), rd.data(), MPI_BYTE, MPI_COMM_WORLD);
  if (from != nullptr) from->assign(recv_counts.begin(), recv_counts.end());
  return recv;
}

void MpiComm::Broadcast(std::string* bytes, int root) {
  int length = Count(bytes->size());
  MPI_Bcast(&length, 1, MPI_INT, root, MPI_COMM_WORLD);
  bytes->resize(static_cast<size_t>(length));
  MPI_Bcast(bytes->data(), length, MPI_CHAR, root, MPI_COMM_WORLD);
}

}  // namespace neardup::mpi
