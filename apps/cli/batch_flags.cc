// SPDX-License-Identifier: Apache-2.0
#include "cli/batch_flags.h"

#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "base/machine.h"

namespace neardup::cli {

void AddBatchFlags(CLI::App* cmd, BatchFlags* f) {
  cmd->add_option("--memory", f->memory,
                  "Memory budget (e.g. 512M, 4G); past it, sort runs spill to --tmp-dir "
                  "[default: half of the available RAM]");
  cmd->add_option("--tmp-dir", f->tmp_dir,
                  "Directory for spill files, removed at the end [default: $TMPDIR or /tmp]");
  cmd->add_option("--max-cluster-size", f->max_cluster_size,
                  "Cap on cluster size: edges are joined best first and a join past the cap is "
                  "refused (0 = no cap)")
      ->capture_default_str();
  cmd->add_option("--min-shared-keys", f->min_shared_keys,
                  "Verify only pairs that share at least this many bucket keys (LSH bands); "
                  "1 = any; 0 = the profile's (2 for qbank, else 1)")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  cmd->add_flag("--no-key-filter", f->no_key_filter,
                "With --min-shared-keys >= 2: do not drop pairs at generation by key bytes "
                "(same output, more pairs spilled; for comparisons)");
  cmd->add_flag("--stats", f->stats,
                "Print a summary to stderr: counts, peak RSS, disk used, time per phase, RSS over "
                "time");
}

Result<uint64_t> ParseSize(std::string_view s) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || v < 0) {
    return Status::InvalidArgument("bad size '" + std::string(s) + "' (e.g. 512M, 4G)");
  }
  std::string unit(p, s.data() + s.size());
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  double mult = 1;
  if (unit.empty() || unit == "B") {
  } else if (unit == "K" || unit == "KB" || unit == "KIB") {
    mult = 1024.0;
  } else if (unit == "M" || unit == "MB" || unit == "MIB") {
    mult = 1024.0 * 1024;
  } else if (unit == "G" || unit == "GB" || unit == "GIB") {
    mult = 1024.0 * 1024 * 1024;
  } else if (unit == "T" || unit == "TB" || unit == "TIB") {
    mult = 1024.0 * 1024 * 1024 * 1024;
  } else {
    return Status::InvalidArgument("bad size '" + std::string(s) + "' (e.g. 512M, 4G)");
  }
  return static_cast<uint64_t>(std::llround(v * mult));
}

Result<BatchOptions> MakeBatchOptions(const EngineOptions& engine, const InputFlags& input,
                                      const BatchFlags& batch, const std::string& cmd) {
  BatchOptions o;
  o.engine = engine;
  if (!batch.memory.empty()) {
    auto m = ParseSize(batch.memory);
    if (!m.ok()) return m.status().WithContext("--memory");
    if (*m < (1 << 20)) return Status::InvalidArgument("--memory must be at least 1M");
    NEARDUP_RETURN_IF_ERROR(base::CheckMemory(*m, "--memory"));
    o.memory_bytes = *m;
  }
  o.tmp_dir = batch.tmp_dir;
  o.max_cluster_size = batch.max_cluster_size;
  o.min_shared_keys = batch.min_shared_keys;  // 0: resolved by the run (EffectiveMinSharedKeys)
  o.key_filter = !batch.no_key_filter;
  o.text_field = input.text_field;
  o.id_field = input.id_field;
  o.skip_invalid = input.skip_invalid;
  const bool quiet = input.quiet;
  o.on_skip = [quiet](const Status& s) {
    if (!quiet) std::cerr << "neardup: skipping " << s.message() << "\n";
  };
  return o;
}

BatchProgressBar::BatchProgressBar(std::string label, bool enabled, uint64_t input_bytes)
    : label_(std::move(label)),
      enabled_(enabled && isatty(STDERR_FILENO)),
      input_bytes_(input_bytes) {}

void BatchProgressBar::Update(const BatchProgress& p) {
  if (!enabled_) return;
  shown_ = true;
  const double secs = std::max(p.seconds, 1e-3);
  char bar[64] = "";
  char eta[32] = "";
  if (p.total > 0) {
    const double frac = std::min(1.0, static_cast<double>(p.done) / p.total);
    const int width = 24, filled = static_cast<int>(frac * width);
    std::snprintf(bar, sizeof bar, "[%s%s] %5.1f%%", std::string(filled, '#').c_str(),
                  std::string(width - filled, '.').c_str(), 100 * frac);
  }
  // The read phase's rate decides the ETA of the whole read; other phases
  // show their own progress only.
  const bool reading = p.phase == BatchPhase::kSketch && p.total > 0 && p.done > 0;
  if (reading && p.done < p.total) {
    std::snprintf(eta, sizeof eta, " ETA %.0fs",
                  (static_cast<double>(p.total) - p.done) * (secs / p.done));
  }
  const double mb = reading ? p.done / 1e6 : 0;
  std::fprintf(stderr, "\r\033[K%s %-11s %s %llu rec %.0f rec/s", label_.c_str(),
               std::string(Name(p.phase)).c_str(), bar, static_cast<unsigned long long>(p.records),
               p.records / secs);
  if (reading) std::fprintf(stderr, " %.1f MB/s", mb / secs);
  std::fprintf(stderr, "%s %.0fs", eta, p.seconds);
  std::fflush(stderr);
}

void BatchProgressBar::Finish() {
  if (enabled_ && shown_) std::fprintf(stderr, "\r\033[K");
}

void PrintBatchStats(const std::string& cmd, const BatchStats& s, std::ostream& out) {
  char buf[256];
  out << "neardup " << cmd << ": " << s.records << " documents, ";
  if (s.candidate_pairs > 0 || s.clusters > 0) {
    out << s.clusters << " clusters (" << s.multi_clusters << " with duplicates), " << s.duplicates
        << " duplicates removed, ";
  }
  out << s.skipped << " skipped, ";
  std::snprintf(buf, sizeof buf, "%.2f s", s.seconds);
  out << buf << "\n";
  std::snprintf(buf, sizeof buf,
                "  peak RSS %.1f MB (budget %.1f MB), peak temp disk %.1f MB, input %.1f MB, "
                "%d threads\n",
                s.peak_rss_bytes / 1048576.0, s.memory_budget / 1048576.0,
                s.peak_disk_bytes / 1048576.0, s.input_bytes / 1048576.0, s.threads);
  out << buf;
  out << "  keys " << s.keys << " (" << s.key_runs_spilled << " runs spilled, "
      << s.key_bytes_spilled / 1048576 << " MB), candidate pairs " << s.candidate_pairs;
  if (s.pairs_filtered > 0) out << " (" << s.pairs_filtered << " dropped by the key filter)";
  out << ", similarity calls " << s.similarity_calls << ", edges " << s.edges;
  if (s.verify_ranges > 0) {
    std::snprintf(buf, sizeof buf, " (verified in %llu blocks, %.1f MB of text read)",
                  static_cast<unsigned long long>(s.verify_ranges),
                  s.verify_bytes_read / 1048576.0);
    out << buf;
  }
  if (s.boilerplate_table_bytes > 0) {
    std::snprintf(buf, sizeof buf,
                  "\n  boilerplate guard: anchors of %llu records without an earlier candidate "
                  "counted (table %.1f MB)",
                  static_cast<unsigned long long>(s.boilerplate_founders),
                  s.boilerplate_table_bytes / 1048576.0);
    out << buf;
  }
  if (s.oversized_components > 0) {
    out << ", " << s.oversized_components << " components over the cap (" << s.refused_by_cap
        << " joins refused)";
  }
  if (s.ranks > 0) {
    std::snprintf(buf, sizeof buf,
                  "\n  %d ranks: shuffled %.1f MB of keys and %.1f MB of pairs between ranks, "
                  "fetched %.1f MB of records to verify, components in %llu rounds, line "
                  "table %.1f MB (the largest rank's)",
                  s.ranks, s.shuffled_key_bytes / 1048576.0, s.shuffled_pair_bytes / 1048576.0,
                  s.fetched_text_bytes / 1048576.0,
                  static_cast<unsigned long long>(s.component_rounds),
                  s.line_table_bytes / 1048576.0);
    out << buf;
  }
  out << "\n  phases:";
  for (const auto& [p, t] : s.phase_seconds) {
    std::snprintf(buf, sizeof buf, " %s %.2fs", std::string(Name(p)).c_str(), t);
    out << buf;
  }
  out << "\n  rss over time (s:MB):";
  // At most 24 samples, evenly spread.
  const size_t n = s.rss_samples.size();
  const size_t step = std::max<size_t>(1, (n + 23) / 24);
  for (size_t i = 0; i < n; i += step) {
    std::snprintf(buf, sizeof buf, " %.1f:%.0f", s.rss_samples[i].first,
                  s.rss_samples[i].second / 1048576.0);
    out << buf;
  }
  out << "\n";
}

}  // namespace neardup::cli
