// SPDX-License-Identifier: Apache-2.0
//
// BatchDedup (include/neardup/batch.h): the public entry points. The
// pipeline is in pipeline.h (its phases one file each), the output in
// results.cc; the design is in docs/batch.md.
#include <algorithm>
#include <fstream>

#include "base/machine.h"
#include "base/status_macros.h"
#include "batch/pipeline.h"
#include "batch/results.h"
#include "batch/spill_file.h"
#include "neardup/ids.h"

namespace neardup {

std::string_view Name(BatchPhase p) {
  switch (p) {
    case BatchPhase::kSpool:
      return "spool";
    case BatchPhase::kLearn:
      return "learn";
    case BatchPhase::kSketch:
      return "read+sketch";
    case BatchPhase::kMerge:
      return "merge";
    case BatchPhase::kVerify:
      return "verify";
    case BatchPhase::kCluster:
      return "cluster";
    case BatchPhase::kWrite:
      return "write";
  }
  return "?";
}

uint64_t DefaultBatchMemory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit) {
    if (key == "MemAvailable:") return std::max<uint64_t>(64ull << 20, kb * 1024 / 2);
  }
  return 1ull << 30;
}

void InstallBatchCleanupHandlers() { batch::InstallCleanupHandlers(); }

Status ValidateBatchOptions(const BatchOptions& options) {
  NEARDUP_RETURN_IF_ERROR(base::CheckMemory(options.memory_bytes, "memory budget"));
  return base::CheckThreads(options.engine.threads, "threads");
}

BatchDedup::BatchDedup(std::unique_ptr<batch::RunResult> result) : result_(std::move(result)) {}
BatchDedup::~BatchDedup() = default;

const BatchStats& BatchDedup::stats() const { return result_->run->stats; }

Status BatchDedup::SaveIdf(const std::string& path) const {
  Status s = result_->run->sig->SaveState(path);
  return s.ok() ? s : s.WithContext(path);
}

uint64_t EffectiveMinSharedKeys(const BatchOptions& options) {
  if (options.min_shared_keys != 0) return options.min_shared_keys;
  const auto& s = options.engine.signals;
  const bool minhash = std::find(s.begin(), s.end(), SignalKind::kMinHash) != s.end();
  return minhash ? static_cast<uint64_t>(std::max(1, options.engine.minhash.min_shared_bands)) : 1;
}

Result<std::unique_ptr<BatchDedup>> BatchDedup::Run(const std::vector<std::string>& names,
                                                    const BatchOptions& options) {
  return base::CatchResourceErrors(
      [&] { return batch::RunWithSignature(names, options, nullptr); });
}

Result<BatchDedup::Labels> BatchClusterDocuments(std::span<const Document> docs,
                                                 const BatchOptions& options) try {
  NEARDUP_RETURN_IF_ERROR(ValidateBatchOptions(options));
  NEARDUP_ASSIGN_OR_RETURN(auto tmp, batch::TempDir::Create(options.tmp_dir));
  const std::string path = tmp->File("documents.jsonl");
  {
    batch::SpillWriter w;
    NEARDUP_RETURN_IF_ERROR(w.Open(path, 4 << 20));
    std::string line;
    for (const Document& d : docs) {
      line.assign("{\"id\":");
      // Integers in canonical form (no leading zeros, no "-0") stay numbers.
      const std::string_view digits = std::string_view(d.id).substr(d.id[0] == '-' ? 1 : 0);
      if (IsIntegerId(d.id) && d.id.size() < 19 &&
          (digits == "0" ? d.id == "0" : digits[0] != '0')) {
        line.append(d.id);
      } else {
        batch::AppendJsonString(d.id, &line);
      }
      line.append(",\"text\":");
      batch::AppendJsonString(d.text, &line);
      line.append("}\n");
      NEARDUP_RETURN_IF_ERROR(w.Append(line.data(), line.size()));
    }
    NEARDUP_RETURN_IF_ERROR(w.Close());
  }
  BatchOptions o = options;
  o.text_field = "text";
  o.id_field = "id";
  NEARDUP_ASSIGN_OR_RETURN(auto run, BatchDedup::Run({path}, o));
  // Every document is one line: labels by line, skipped documents alone.
  return batch::LabelsOf(batch::BatchInternal::Of(*run), /*by_line=*/true);
} catch (...) {
  return base::ResourceErrorOrRethrow();
}

}  // namespace neardup
