// SPDX-License-Identifier: Apache-2.0
// `neardup explain A B`: why two texts are or are not near-duplicates under
// a pipeline (Engine::Explain): the rule that decided, its arithmetic (how
// the measures make the similarity it compared), the shared shingles and the
// other measures.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/command.h"
#include "cli/common.h"
#include "json_views.h"

namespace neardup::cli {
namespace {

struct ExplainFlags {
  PipelineFlags pipeline;
  std::string a, b;
  bool text = false;  // a and b are the texts themselves
  bool json = false;
  std::string corpus;  // JSONL added to the engine first (the boilerplate guard learns from it)
};

// Adds the records of a JSONL file to the engine, in batches.
Status AddCorpus(const std::string& path, Engine* engine) {
  InputFlags input;
  input.files = {path};
  input.quiet = true;
  RecordBatches batches(input);
  std::vector<Record> batch;
  while (true) {
    NEARDUP_ASSIGN_OR_RETURN(const bool more, batches.Next(4096, &batch));
    if (batch.empty() && !more) return Status::OK();
    std::vector<Document> docs;
    docs.reserve(batch.size());
    for (Record& r : batch) docs.push_back({std::move(r.id), std::move(r.text), 0});
    for (auto& r : engine->AddBatch(docs)) {
      if (!r.ok() && !r.status().IsAlreadyExists()) return r.status().WithContext(path);
    }
    if (!more) return Status::OK();
  }
}

Result<std::string> Load(const std::string& arg, bool literal) {
  if (literal) return arg;
  std::ifstream in(arg, std::ios::binary);
  if (!in) return Status::NotFound("cannot read " + arg);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

void Print(const Explanation& x, const EngineOptions& o) {
  std::cout << (x.duplicate ? "NEAR-DUPLICATES" : "NOT near-duplicates") << " under profile "
            << o.profile << " (threshold " << Pct(x.threshold) << ")\n"
            << "  decided by: " << x.rule << "\n";
  for (size_t i = 0; i < x.steps.size(); ++i) {
    std::cout << (i == 0 ? "  arithmetic: " : "              ") << x.steps[i] << "\n";
  }
  std::cout << "  candidate:  " << (x.candidate ? "yes" : "no") << " (LSH bands equal "
            << x.lsh_equal_bands << " of " << x.lsh_bands << ")\n"
            << "  shingles:   " << x.shingles_a << " and " << x.shingles_b << ", "
            << x.shared_shingles << " shared\n"
            << "  jaccard " << Pct(x.jaccard) << ", containment " << Pct(x.containment)
            << ", minhash estimate " << Pct(x.minhash_estimate);
  if (x.edit_similarity) std::cout << ", edit similarity " << Pct(*x.edit_similarity);
  std::cout << ", simhash distance " << x.simhash_distance << "/64\n";
  if (!x.shared_examples.empty()) {
    std::cout << "  shared, e.g.:";
    for (const auto& s : x.shared_examples) std::cout << " [" << s << "]";
    std::cout << "\n";
  }
}

int RunExplain(const ExplainFlags& f) {
  auto engine = [&] {
    int code = kExitOk;
    return OpenEngine("explain", f.pipeline, &code);
  }();
  if (!engine) return kExitUsage;
  if (!f.corpus.empty()) {
    if (Status s = AddCorpus(f.corpus, engine.get()); !s.ok()) return Fail("explain", s);
  }
  auto a = Load(f.a, f.text);
  auto b = Load(f.b, f.text);
  if (!a.ok()) return Fail("explain", a.status());
  if (!b.ok()) return Fail("explain", b.status());
  auto x = engine->Explain(*a, *b);
  if (!x.ok()) return Fail("explain", x.status());
  if (f.json) {
    std::cout << apps::ExplanationJson(*x).dump() << "\n";
  } else {
    Print(*x, engine->options());
  }
  return x->duplicate ? kExitOk : 3;
}

void SetupExplain(CLI::App* app, int* exit_code) {
  auto flags = std::make_shared<ExplainFlags>();
  CLI::App* cmd = app->add_subcommand(
      "explain",
      "Explain why two texts are or are not near-duplicates: the rule that decided, the\n"
      "verified similarity against the threshold and its arithmetic, whether a signal proposes the "
      "pair, the\n"
      "shared shingles, Jaccard, containment, edit similarity, the MinHash estimate and the\n"
      "SimHash distance. A and B are files (or the texts themselves with --text).\n"
      "Exit codes: 0 near-duplicates, 3 not, 1 bad input, 2 usage.");
  cmd->add_option("a", flags->a, "First text (a file)")->required();
  cmd->add_option("b", flags->b, "Second text (a file)")->required();
  cmd->add_flag("--text", flags->text, "A and B are texts, not files");
  cmd->add_flag("--json", flags->json, "One JSON object instead of the report");
  cmd->add_option("--corpus", flags->corpus,
                  "A JSONL file added to the engine first: the boilerplate guard then knows "
                  "the text its documents repeat, as a running service would");
  AddPipelineFlags(cmd, &flags->pipeline);
  cmd->callback([flags, exit_code] { *exit_code = RunExplain(*flags); });
}

NEARDUP_REGISTER_COMMAND(25, SetupExplain);

}  // namespace
}  // namespace neardup::cli
