// SPDX-License-Identifier: Apache-2.0
// `neardup index build CORPUS... -o DIR`: a reusable on-disk batch index of a
// corpus, for `neardup dedup --against DIR NEW.jsonl` (docs/batch.md).
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/batch_flags.h"
#include "cli/command.h"
#include "cli/common.h"

namespace neardup::cli {
namespace {

struct IndexFlags {
  PipelineFlags pipeline;
  InputFlags input;
  BatchFlags batch;
  std::string dir;
};

// An index is written to a directory beside DIR and put in its place at
// the end (base::AtomicDir): a failed build leaves an earlier index as it
// was. DIR may be absent, empty or an index; anything else is refused.
Result<std::unique_ptr<base::AtomicDir>> OpenIndexDir(const std::string& dir) {
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec) && !std::filesystem::is_empty(dir, ec) &&
      !std::filesystem::exists(std::filesystem::path(dir) / "index.json", ec)) {
    return Status::InvalidArgument(dir +
                                   " is a directory that holds no index (no index.json); "
                                   "give a new directory or an index to replace");
  }
  return base::AtomicDir::Create(dir);
}

int RunIndexBuild(const IndexFlags& f) {
  auto options = MakeEngineOptions(f.pipeline);
  if (options.ok()) {
    auto engine = Engine::Create(*options);
    if (!engine.ok()) options = engine.status();
  }
  if (!options.ok()) return Fail("index build", options.status()), kExitUsage;
  if (f.input.files.empty() ||
      std::find(f.input.files.begin(), f.input.files.end(), "-") != f.input.files.end()) {
    std::cerr << "neardup index build: give the corpus files: an index refers to them by path, "
                 "so standard input cannot be indexed\n";
    return kExitUsage;
  }
  auto bo = MakeBatchOptions(*options, f.input, f.batch, "index build");
  if (!bo.ok()) return Fail("index build", bo.status()), kExitUsage;
  bo->learn_idf = f.pipeline.idf == "corpus" || f.pipeline.idf == "stream";
  bo->idf_load = f.pipeline.idf_load;
  BatchProgressBar bar("index", !f.input.quiet, 0);
  bo->progress = [&bar](const BatchProgress& p) { bar.Update(p); };
  auto dir = OpenIndexDir(f.dir);
  if (!dir.ok()) {
    Fail("index build", dir.status());
    return dir.status().IsInvalidArgument() ? kExitUsage : kExitBadInput;
  }
  BatchStats stats;
  Status s = BuildBatchIndex(f.input.files, (*dir)->write_path(), *bo, &stats);
  bar.Finish();
  if (s.ok()) s = (*dir)->Commit();
  if (!s.ok()) return Fail("index build", s);
  if (f.batch.stats) {
    PrintBatchStats("index build", stats, std::cerr);
  } else if (!f.input.quiet && isatty(STDERR_FILENO)) {
    std::cerr << "neardup index build: " << stats.records << " records, " << stats.keys
              << " keys in " << f.dir << "\n";
  }
  return kExitOk;
}

void SetupIndex(CLI::App* app, int* exit_code) {
  CLI::App* index = app->add_subcommand("index", "Batch indexes of a corpus (docs/batch.md)");
  index->require_subcommand(1);
  auto flags = std::make_shared<IndexFlags>();
  CLI::App* build = index->add_subcommand(
      "build",
      "Write a reusable index of JSONL corpus files to DIR: the corpus's sorted bucket keys,\n"
      "its record offsets and the pipeline identity. `neardup dedup --against DIR NEW.jsonl`\n"
      "then checks new records against the corpus without re-reading it (texts are read only\n"
      "to verify a candidate pair). The corpus files must stay where they are, unchanged.\n"
      "Use the same pipeline options for both commands.\n"
      "Exit codes: 0 ok, 1 bad input, 2 usage.");
  AddInputFlags(build, &flags->input);
  build->get_option("files")->description(
      "JSONL corpus files (required; not standard input: the index refers to them by path)");
  AddPipelineFlags(build, &flags->pipeline);
  AddBatchFlags(build, &flags->batch);
  build
      ->add_option("-o,--output", flags->dir,
                   "The index directory (created, or an index replaced when the build succeeds)")
      ->required();
  build->callback([flags, exit_code] { *exit_code = RunIndexBuild(*flags); });
}

NEARDUP_REGISTER_COMMAND(15, SetupIndex);

}  // namespace
}  // namespace neardup::cli
