// SPDX-License-Identifier: Apache-2.0
// `neardup fingerprint`: the SimHash-64 of each JSONL record.
#include <iostream>
#include <thread>

#include "base/parallel.h"
#include "cli/command.h"
#include "cli/common.h"

namespace neardup::cli {
namespace {

struct FingerprintFlags {
  PipelineFlags pipeline;
  InputFlags input;
  std::string output;
};

int RunFingerprint(const FingerprintFlags& f) {
  int code = kExitOk;
  auto engine = OpenEngine("fingerprint", f.pipeline, &code);
  if (!engine) return code;
  auto out = OpenOutput("fingerprint", f.output, f.input.files, &code);
  if (!out) return code;
  InputFlags input = f.input;
  input.replace_invalid_utf8 = f.pipeline.replace_invalid_utf8;
  RecordBatches reader(input);
  Progress progress("fingerprint", !f.input.quiet);
  std::vector<Record> batch;
  std::vector<Result<uint64_t>> fps;
  uint64_t done = 0;
  while (true) {
    auto more = reader.Next(4096, &batch);
    if (!more.ok()) return Fail("fingerprint", more.status());
    if (!*more) break;
    fps.assign(batch.size(), Result<uint64_t>(uint64_t{0}));
    base::ParallelFor(batch.size(), f.pipeline.threads, 64, [&](int, size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) fps[i] = engine->Fingerprint(batch[i].text);
    });
    for (size_t i = 0; i < batch.size(); ++i) {
      if (!fps[i].ok()) {
        if (!SkipOrFail("fingerprint", f.input, batch[i], fps[i].status())) return kExitBadInput;
        continue;
      }
      out->stream() << "{\"id\":" << batch[i].id << ",\"simhash\":\"" << FingerprintHex(*fps[i])
                    << "\"}\n";
    }
    done += batch.size();
    progress.Update(reader.bytes_read(), reader.total_bytes(), done);
  }
  progress.Finish();
  if (Status s = out->Close(); !s.ok()) return Fail("fingerprint", s);
  return kExitOk;
}

void SetupFingerprint(CLI::App* app, int* exit_code) {
  auto flags = std::make_shared<FingerprintFlags>();
  CLI::App* cmd = app->add_subcommand(
      "fingerprint",
      "Write the 64-bit SimHash of each JSONL record: {\"id\":..,\"simhash\":\"<16 hex "
      "digits>\"}.\n"
      "Bit i of the fingerprint is bit i of the hex number (XXH3-64 features, seed 0).");
  AddInputFlags(cmd, &flags->input);
  flags->pipeline.profile = "simhash";  // a fingerprint is the seeds' SimHash by default
  AddPipelineFlags(cmd, &flags->pipeline);
  cmd->add_option("-o,--output", flags->output, "Output file (default: stdout)");
  cmd->callback([flags, exit_code] { *exit_code = RunFingerprint(*flags); });
}

NEARDUP_REGISTER_COMMAND(20, SetupFingerprint);

}  // namespace
}  // namespace neardup::cli
