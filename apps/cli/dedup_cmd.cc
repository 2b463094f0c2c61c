// SPDX-License-Identifier: Apache-2.0
// `neardup dedup`: cluster the documents of JSONL files and report duplicates,
// through the batch pipeline (neardup/batch.h, docs/batch.md).
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <iostream>

#include "cli/batch_flags.h"
#include "cli/command.h"
#include "cli/common.h"
#ifdef NEARDUP_HAVE_MPI
#include "neardup/distributed.h"
#endif

namespace neardup::cli {
namespace {

struct DedupFlags {
  PipelineFlags pipeline;
  InputFlags input;
  BatchFlags batch;
  std::string emit = "all";
  std::optional<std::string> keep;  // default: the profile's
  std::string output;
  std::string against;
  bool with_matches = false;
  bool distributed = false;  // under mpirun: one process per rank
  std::string work_dir;      // --distributed: stage checkpoints
  bool resume = false;
};

void AppendNumber(double v, std::string* out) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

void AppendRecord(const DedupFlags& f, const BatchRecord& r, std::string* out) {
  out->append("{\"id\":").append(r.id);
  out->append(",\"cluster\":").append(r.cluster);
  out->append(",\"cluster_size\":").append(std::to_string(r.cluster_size));
  out->append(",\"duplicate_of\":").append(r.is_kept ? "null" : r.kept);
  if (!f.against.empty())
    out->append(",\"duplicates_corpus\":").append(r.duplicates_corpus ? "true" : "false");
  if (f.with_matches) {
    out->append(",\"matches\":[");
    for (size_t i = 0; i < r.matches.size(); ++i) {
      const BatchMatch& m = r.matches[i];
      if (i > 0) out->push_back(',');
      out->append("{\"id\":").append(m.id).append(",\"signal\":\"").append(m.signal).append("\"");
      if (m.distance >= 0) out->append(",\"distance\":").append(std::to_string(m.distance));
      out->append(",\"similarity\":");
      AppendNumber(m.similarity, out);
      if (m.verified) {
        out->append(",\"verified\":");
        AppendNumber(*m.verified, out);
      }
      out->push_back('}');
    }
    out->push_back(']');
  }
  out->append("}\n");
}

Status Emit(const DedupFlags& f, BatchDedup* run, std::ostream& out) {
  std::string line;
  if (f.emit == "clusters") {
    return run->ForEachCluster([&](const BatchCluster& c) {
      line.assign("{\"cluster\":").append(c.cluster);
      line.append(",\"size\":").append(std::to_string(c.size));
      line.append(",\"kept\":").append(c.kept).append(",\"members\":[");
      for (size_t i = 0; i < c.members.size(); ++i) {
        if (i > 0) line.push_back(',');
        line.append(c.members[i]);
      }
      line.append("]}\n");
      out.write(line.data(), static_cast<std::streamsize>(line.size()));
      return Status::OK();
    });
  }
  const bool unique = f.emit == "unique";
  return run->ForEachRecord([&](const BatchRecord& r) {
    line.clear();
    if (unique) {
      if (!r.is_kept) return Status::OK();
      line.append(r.line).push_back('\n');
    } else {
      AppendRecord(f, r, &line);
    }
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
    return Status::OK();
  });
}

// Commits the output written and reports the run.
int Report(const DedupFlags& f, BatchDedup* run, Output* out) {
  if (Status s = out->Close(); !s.ok()) return Fail("dedup", s);
  const BatchStats& st = run->stats();
  if (f.batch.stats) {
    PrintBatchStats("dedup", st, std::cerr);
  } else if (!f.input.quiet && isatty(STDERR_FILENO)) {
    std::cerr << "neardup dedup: " << st.records << " documents, " << st.clusters << " clusters ("
              << st.multi_clusters << " with duplicates), " << st.duplicates
              << " duplicates removed, " << st.skipped << " skipped, " << st.seconds << " s\n";
  }
  return kExitOk;
}

int Finish(const DedupFlags& f, BatchDedup* run, Output* out) {
  if (Status s = Emit(f, run, out->stream()); !s.ok()) return Fail("dedup", s);
  return Report(f, run, out);
}

// --distributed: every rank runs the pipeline on its share and writes its
// share of the output; rank 0 reports errors (the other ranks exit with the
// same code).
int RunDistributedDedup(const DedupFlags& f, const BatchOptions& bo, BatchProgressBar* bar) {
#ifdef NEARDUP_HAVE_MPI
  auto rank = DistributedRank();
  if (!rank.ok()) return Fail("dedup", rank.status());
  int code = kExitOk;
  {
    std::unique_ptr<Output> out;
    if (*rank == 0) out = OpenOutput("dedup", f.output, f.input.files, &code);
    // Every rank takes part even when rank 0 cannot write (collectives).
    DistributedOptions d;
    d.work_dir = f.work_dir;
    d.resume = f.resume;
    d.info = [&f](const std::string& m) {
      if (!f.input.quiet) std::cerr << "neardup dedup: " << m << "\n";
    };
    d.clusters = f.emit == "clusters";
    auto run = RunDistributed(f.input.files, bo, d);
    bar->Finish();
    if (!run.ok()) {
      code = *rank == 0 ? Fail("dedup", run.status()) : kExitBadInput;
    } else {
      // Every rank writes its share (rank 0 all of it with --with-matches).
      BatchDedup* share = run->get();
      const Status s = WriteDistributedOutput(
          out ? &out->stream() : nullptr, out ? out->write_path() : "", bo.tmp_dir,
          [&](std::ostream& o) { return share ? Emit(f, share, o) : Status::OK(); },
          out ? out->name() : "");
      if (!s.ok()) {
        code = *rank == 0 ? Fail("dedup", s) : kExitBadInput;
      } else if (*rank == 0 && out) {
        code = Report(f, share, out.get());
      }
    }
  }
  FinalizeDistributed();
  return code;
#else
  (void)bo;
  (void)bar;
  return Fail("dedup", Status::FailedPrecondition(
                           "this neardup was built without MPI (install libopenmpi-dev and "
                           "rebuild; docs/distributed.md)"));
#endif
}

int RunDedup(const DedupFlags& f) {
  if (f.with_matches && f.emit != "all") {
    std::cerr << "neardup dedup: --with-matches needs --emit all\n";
    return kExitUsage;
  }
  if (!f.against.empty() && f.emit == "clusters") {
    std::cerr << "neardup dedup: --against writes --emit all or unique\n";
    return kExitUsage;
  }
  auto options = MakeEngineOptions(f.pipeline);
  if (options.ok()) {
    // Validates the options the way every command does (exit 2 when bad).
    auto engine = Engine::Create(*options);
    if (!engine.ok()) options = engine.status();
  }
  if (!options.ok()) return Fail("dedup", options.status()), kExitUsage;
  if (f.keep) options->keep = *ParseKeepPolicy(*f.keep);
  auto bo = MakeBatchOptions(*options, f.input, f.batch, "dedup");
  if (!bo.ok()) return Fail("dedup", bo.status()), kExitUsage;
  bo->with_matches = f.with_matches;
  bo->learn_idf = f.pipeline.idf == "corpus" || f.pipeline.idf == "stream";
  bo->idf_load = f.pipeline.idf_load;
  bo->idf_save = f.pipeline.idf_save;
  bo->against = f.against;
  if (!f.against.empty() && !f.input.quiet && options->verify.kind == VerifyKind::kSimilarity &&
      options->verify.boilerplate_documents > 0) {
    std::cerr << "neardup dedup: note: the boilerplate guard does not run against an index "
                 "(it keeps no counts of the corpus's repeated text; docs/batch.md)\n";
  }
  uint64_t input_bytes = 0;
  for (const auto& file : f.input.files) {
    struct stat st;
    if (file != "-" && stat(file.c_str(), &st) == 0) input_bytes += st.st_size;
  }
  BatchProgressBar bar("dedup", !f.input.quiet, input_bytes);
  bo->progress = [&bar](const BatchProgress& p) { bar.Update(p); };
  if (!f.distributed && (!f.work_dir.empty() || f.resume)) {
    std::cerr << "neardup dedup: --work-dir and --resume go with --distributed\n";
    return kExitUsage;
  }
  if (f.resume && f.work_dir.empty()) {
    std::cerr << "neardup dedup: --resume needs the --work-dir of the run to resume\n";
    return kExitUsage;
  }
  if (f.distributed) return RunDistributedDedup(f, *bo, &bar);
  int code = kExitOk;
  auto out = OpenOutput("dedup", f.output, f.input.files, &code);
  if (!out) return code;

  auto run = BatchDedup::Run(f.input.files, *bo);
  bar.Finish();
  if (!run.ok()) return Fail("dedup", run.status());
  return Finish(f, run->get(), out.get());
}

void SetupDedup(CLI::App* app, int* exit_code) {
  auto flags = std::make_shared<DedupFlags>();
  CLI::App* cmd = app->add_subcommand(
      "dedup",
      "Cluster near-duplicate documents of JSONL input (batch, bounded memory; docs/batch.md).\n"
      "Each input line is a JSON object with a text field and an optional id. Output is JSONL:\n"
      "  --emit all       one line per document, input order:\n"
      "                   {\"id\":..,\"cluster\":..,\"cluster_size\":N,\"duplicate_of\":null|id}\n"
      "                   (--with-matches adds \"matches\": the evidence)\n"
      "  --emit unique    the input lines of the kept documents, unchanged\n"
      "  --emit clusters  one line per cluster of 2+: {\"cluster\":..,\"size\":N,\"kept\":..,"
      "\"members\":[..]}\n"
      "With --against DIR (an index from `neardup index build`), only the new records are\n"
      "reported, each with \"duplicates_corpus\"; the corpus keeps its members.\n"
      "Exit codes: 0 ok, 1 bad input (file:line on stderr), 2 usage.");
  AddInputFlags(cmd, &flags->input);
  AddPipelineFlags(cmd, &flags->pipeline);
  AddBatchFlags(cmd, &flags->batch);
  cmd->add_option("--emit", flags->emit, "What to write: all|unique|clusters")
      ->check(CLI::IsMember({"all", "unique", "clusters"}))
      ->capture_default_str();
  cmd->add_option("--keep", flags->keep,
                  "Which document of a cluster is kept: first|smallest-id|longest "
                  "[profile default: first; qbank: smallest-id]")
      ->check(CLI::IsMember({"first", "smallest-id", "longest"}));
  cmd->add_option("-o,--output", flags->output, "Output file (default: stdout)");
  cmd->add_option("--against", flags->against,
                  "An index directory (neardup index build): flag the input's records that "
                  "duplicate that corpus or each other");
  cmd->add_flag("--with-matches", flags->with_matches,
                "With --emit all: add \"matches\":[{\"id\",\"signal\",\"distance\","
                "\"similarity\",\"verified\"}], each document's verified matches among earlier "
                "documents (distance only for signals that have one; verified unless a signal "
                "decided alone)");
  cmd->add_flag("--distributed", flags->distributed,
                "Run as one rank of an MPI job: `mpirun -np N neardup dedup --distributed FILES "
                "-o OUT`; the same output as one process (docs/distributed.md)");
  cmd->add_option("--work-dir", flags->work_dir,
                  "With --distributed: keep each stage's output here (per rank, with a "
                  "completion marker) so --resume can skip finished stages");
  cmd->add_flag("--resume", flags->resume,
                "With --distributed --work-dir: load the stages every rank finished for the "
                "same input and options instead of re-running them");
  cmd->callback([flags, exit_code] { *exit_code = RunDedup(*flags); });
}

NEARDUP_REGISTER_COMMAND(10, SetupDedup);

}  // namespace
}  // namespace neardup::cli
