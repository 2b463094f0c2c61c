// SPDX-License-Identifier: Apache-2.0
//
// neardup/distributed.h on MPI: the runner of src/distributed over MpiComm.
#include "base/status_macros.h"
#include "distributed/output.h"
#include "distributed/runner.h"
#include "mpi/mpi_comm.h"
#include "neardup/distributed.h"

namespace neardup {

Result<int> DistributedRank() {
  NEARDUP_ASSIGN_OR_RETURN(mpi::MpiComm c, mpi::MpiComm::Init());
  return c.rank();
}

Result<int> DistributedSize() {
  NEARDUP_ASSIGN_OR_RETURN(mpi::MpiComm c, mpi::MpiComm::Init());
  return c.size();
}

void FinalizeDistributed() { mpi::MpiComm::Finalize(); }

Result<std::unique_ptr<BatchDedup>> RunDistributed(const std::vector<std::string>& files,
                                                   const BatchOptions& options,
                                                   const DistributedOptions& distributed) {
  NEARDUP_ASSIGN_OR_RETURN(mpi::MpiComm c, mpi::MpiComm::Init());
  return distributed::RunOnComm(c, files, options, distributed);
}

}  // namespace neardup

namespace neardup {

Status WriteDistributedOutput(std::ostream* out, const std::string& path,
                              const std::string& tmp_dir,
                              const std::function<Status(std::ostream&)>& render,
                              const std::string& name) {
  NEARDUP_ASSIGN_OR_RETURN(mpi::MpiComm c, mpi::MpiComm::Init());
  distributed::OutputTarget t;
  t.out = out;
  t.path = path;
  t.name = name;
  t.tmp_dir = tmp_dir;
  bool direct = false;
  return distributed::WriteInRankOrder(c, t, render, &direct);
}

}  // namespace neardup
