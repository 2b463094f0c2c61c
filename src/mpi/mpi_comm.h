// SPDX-License-Identifier: Apache-2.0
//
// MpiComm: the distributed runner's Comm (distributed/comm.h) over
// MPI_COMM_WORLD, through MPI's C API. MPI's default error handler aborts
// the job when a rank dies, so a lost rank ends the run instead of hanging
// it. Message sizes are MPI ints: a collective of more than 2 GB aborts
// (the runner's rounds stay far below).
//
// Thread safety: MPI is initialized MPI_THREAD_FUNNELED; only the main
// thread calls it.
#ifndef NEARDUP_MPI_MPI_COMM_H_
#define NEARDUP_MPI_MPI_COMM_H_

#include "distributed/comm.h"

namespace neardup::mpi {

class MpiComm final : public distributed::Comm {
 public:
  // Starts MPI if the program has not. Errors: Unavailable.
  static Result<MpiComm> Init();
  // Ends MPI (a no-op when it was not started or has ended).
  static void Finalize();

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int LocalSize() override;
  uint64_t AllReduce(uint64_t v, distributed::ReduceOp op) override;
  std::vector<uint8_t> AllGather(std::span<const uint8_t> mine) override;
  std::vector<uint8_t> Gather(std::span<const uint8_t> mine) override;
  std::vector<uint8_t> Exchange(const std::vector<std::vector<uint8_t>>& out,
                                std::vector<size_t>* from = nullptr) override;
  void Broadcast(std::string* bytes, int root) override;

 private:
  MpiComm(int rank, int size) : rank_(rank), size_(size) {}
  int rank_, size_;
};

}  // namespace neardup::mpi

#endif  // NEARDUP_MPI_MPI_COMM_H_
