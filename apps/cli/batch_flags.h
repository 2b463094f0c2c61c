// SPDX-License-Identifier: Apache-2.0
//
// Flags and terminal output shared by the commands that run the batch
// pipeline (neardup dedup, neardup index build): --memory, --tmp-dir,
// --max-cluster-size, the progress bar and the --stats report.
#ifndef NEARDUP_APPS_CLI_BATCH_FLAGS_H_
#define NEARDUP_APPS_CLI_BATCH_FLAGS_H_

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "cli/common.h"
#include "neardup/batch.h"

namespace neardup::cli {

struct BatchFlags {
  std::string memory;   // SIZE; "" = half of the available RAM
  std::string tmp_dir;  // "" = $TMPDIR or /tmp
  uint64_t max_cluster_size = 0;
  uint64_t min_shared_keys = 0;  // 0 = the profile's
  bool no_key_filter = false;
  bool stats = false;
};
void AddBatchFlags(CLI::App* cmd, BatchFlags* flags);

// "512M", "2G", "1.5GiB", "100000" (bytes). Errors: InvalidArgument.
Result<uint64_t> ParseSize(std::string_view s);

// BatchOptions from the pipeline, input and batch flags (the engine options
// already made and validated). Errors: InvalidArgument (bad --memory).
Result<BatchOptions> MakeBatchOptions(const EngineOptions& engine, const InputFlags& input,
                                      const BatchFlags& batch, const std::string& cmd);

// A progress bar on stderr when it is a terminal: phase, records/s, MB/s and
// the phase's ETA.
class BatchProgressBar {
 public:
  BatchProgressBar(std::string label, bool enabled, uint64_t input_bytes);
  void Update(const BatchProgress& p);
  void Finish();

 private:
  std::string label_;
  bool enabled_;
  uint64_t input_bytes_;
  bool shown_ = false;
};

// The --stats report: peak RSS, disk used, time per phase, counters and a
// line of resident memory over time.
void PrintBatchStats(const std::string& cmd, const BatchStats& s, std::ostream& out);

}  // namespace neardup::cli

#endif  // NEARDUP_APPS_CLI_BATCH_FLAGS_H_
