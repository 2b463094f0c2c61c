// SPDX-License-Identifier: Apache-2.0
#include "distributed/checkpoint.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/status_macros.h"
#include "batch/spill_file.h"

namespace neardup::distributed {
namespace {

constexpr size_t kVerifyCounters = 7;

template <typename T>
Status SaveVector(const std::string& path, const std::vector<T>& v) {
  batch::SpillWriter w;
  NEARDUP_RETURN_IF_ERROR(w.Open(path));
  const uint64_t n = v.size();
  NEARDUP_RETURN_IF_ERROR(w.Append(&n, sizeof n));
  NEARDUP_RETURN_IF_ERROR(w.Append(v.data(), n * sizeof(T)));
  return w.Close();
}

template <typename T>
Status LoadVector(const std::string& path, std::vector<T>* v) {
  batch::SpillReader r;
  NEARDUP_RETURN_IF_ERROR(r.Open(path));
  uint64_t n = 0;
  NEARDUP_ASSIGN_OR_RETURN(bool ok, r.Read(&n, sizeof n));
  if (ok && n > (uint64_t{1} << 40) / sizeof(T)) ok = false;
  if (ok) v->resize(n);
  if (ok && n > 0) {
    NEARDUP_ASSIGN_OR_RETURN(ok, r.Read(v->data(), n * sizeof(T)));
  }
  if (!ok) return Status::Corruption(path + ": truncated");
  return Status::OK();
}

}  // namespace

std::string RunIdentity(const batch::BatchRun& run, int ranks) {
  const BatchOptions& o = run.options;
  std::ostringstream id;
  id << "neardup-distributed 2\nranks " << ranks << "\npipeline " << run.sig->identity()
     << "\nmin_shared_keys " << o.min_shared_keys << "\nmax_cluster_size " << o.max_cluster_size
     << "\nskip_invalid " << o.skip_invalid << "\nfields " << o.text_field << " " << o.id_field
     << "\nagainst " << o.against << "\n";
  for (const batch::InputFile& f : run.input.files) {
    id << "file " << f.path << " " << f.size << " " << f.mtime_ns << "\n";
  }
  return id.str();
}

Result<Checkpoints> Checkpoints::Open(Comm& c, const std::string& work_dir, std::string identity) {
  const std::string dir =
      work_dir + "/rank-" + std::to_string(c.rank()) + "-of-" + std::to_string(c.size());
  Status s;
  for (const std::string& d : {work_dir, dir}) {
    if (mkdir(d.c_str(), 0777) != 0 && errno != EEXIST) {
      s = Status::IOError(d + ": cannot create directory: " + std::strerror(errno));
    }
  }
  NEARDUP_RETURN_IF_ERROR(Agree(c, s, 0));
  return Checkpoints(dir, std::move(identity));
}

bool Checkpoints::Has(const std::string& stage) const {
  if (!enabled()) return false;
  std::ifstream in(File(stage + ".done"));
  std::stringstream got;
  got << in.rdbuf();
  return in.good() && got.str() == identity_;
}

Stage Checkpoints::Agreed(Comm& c, bool resume) const {
  if (!enabled() || !resume) return Stage::kNone;
  const auto all = static_cast<uint64_t>(c.size());
  if (SumAll(c, Has("verify") ? 1 : 0) != all) return Stage::kNone;
  return SumAll(c, Has("cluster") ? 1 : 0) == all ? Stage::kCluster : Stage::kVerify;
}

Status Checkpoints::Mark(const std::string& stage) const {
  const std::string tmp = File(stage + ".done.tmp");
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << identity_;
    out.flush();
    if (!out) return Status::IOError(tmp + ": write failed");
  }
  if (std::rename(tmp.c_str(), File(stage + ".done").c_str()) != 0) {
    return Status::IOError(tmp + ": " + std::strerror(errno));
  }
  return Status::OK();
}

Status Checkpoints::SaveVerify(const VerifyState& s) const {
  NEARDUP_RETURN_IF_ERROR(SaveVector(File("edges.bin"), s.edges));
  NEARDUP_RETURN_IF_ERROR(SaveVector(File("states.bin"), s.states));
  NEARDUP_RETURN_IF_ERROR(SaveVector(File("verify-stats.bin"), s.counters));
  NEARDUP_RETURN_IF_ERROR(SaveVector(File("skips.bin"), s.skips));
  return Mark("verify");
}

Status Checkpoints::LoadVerify(uint64_t lines, VerifyState* s) const {
  NEARDUP_RETURN_IF_ERROR(LoadVector(File("edges.bin"), &s->edges));
  NEARDUP_RETURN_IF_ERROR(LoadVector(File("states.bin"), &s->states));
  NEARDUP_RETURN_IF_ERROR(LoadVector(File("verify-stats.bin"), &s->counters));
  NEARDUP_RETURN_IF_ERROR(LoadVector(File("skips.bin"), &s->skips));
  if (s->states.size() != lines || s->counters.size() != kVerifyCounters) {
    return Status::Corruption(dir_ + ": the verify checkpoint does not match the input");
  }
  return Status::OK();
}

Status Checkpoints::SaveCluster(const ClusterState& s) const {
  NEARDUP_RETURN_IF_ERROR(SaveVector(File("label-root.bin"), s.labels.root));
  NEARDUP_RETURN_IF_ERROR(SaveVector(File("label-size.bin"), s.labels.size));
  NEARDUP_RETURN_IF_ERROR(SaveVector(
      File("cluster-stats.bin"), std::vector<uint64_t>{s.oversized_components, s.refused_by_cap}));
  return Mark("cluster");
}

Status Checkpoints::LoadCluster(uint64_t own_documents, ClusterState* s) const {
  std::vector<uint64_t> counters;
  NEARDUP_RETURN_IF_ERROR(LoadVector(File("label-root.bin"), &s->labels.root));
  NEARDUP_RETURN_IF_ERROR(LoadVector(File("label-size.bin"), &s->labels.size));
  NEARDUP_RETURN_IF_ERROR(LoadVector(File("cluster-stats.bin"), &counters));
  if (s->labels.root.size() != own_documents || s->labels.size.size() != own_documents ||
      counters.size() != 2) {
    return Status::Corruption(dir_ + ": the cluster checkpoint does not match the input");
  }
  s->oversized_components = counters[0];
  s->refused_by_cap = counters[1];
  return Status::OK();
}

}  // namespace neardup::distributed
