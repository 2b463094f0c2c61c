// SPDX-License-Identifier: Apache-2.0
// `neardup truth`: exact ground-truth pairs by Jaccard similarity of shingle
// sets (neardup/eval.h: prefix-filtered all-pairs join, multi-threaded),
// shingled by the engine's own pipeline (neardup/text.h).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <unordered_set>

#include "base/parallel.h"
#include "cli/command.h"
#include "cli/common.h"
#include "neardup/eval.h"
#include "neardup/ids.h"
#include "neardup/text.h"

namespace neardup::cli {
namespace {

struct TruthFlags {
  InputFlags input;
  std::string shingle = "script:3,1";
  double threshold = 0.5;
  bool t2s = false;
  bool replace_invalid_utf8 = false;
  int threads = 0;
  std::string data_dir;
  std::string output;
};

// Shingles every text in parallel; the first error (in input order) wins.
Status ShingleAll(const TextPipeline& pipeline, const std::vector<Record>& docs, int threads,
                  std::vector<std::vector<uint64_t>>* sets) {
  sets->assign(docs.size(), {});
  std::vector<Status> errors(docs.size());
  base::ParallelFor(docs.size(), threads, 256, [&](int, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) errors[i] = pipeline.Shingles(docs[i].text, &(*sets)[i]);
  });
  for (size_t i = 0; i < docs.size(); ++i) {
    if (!errors[i].ok()) {
      return errors[i].WithContext(docs[i].file + ":" + std::to_string(docs[i].line));
    }
  }
  return Status::OK();
}

int RunTruth(const TruthFlags& f) {
  const auto start = std::chrono::steady_clock::now();
  auto spec = ParseShingles(f.shingle);
  if (!spec.ok()) return Fail("truth", spec.status()), kExitUsage;
  if (!(f.threshold > 0 && f.threshold <= 1)) {
    return Fail("truth", Status::InvalidArgument("--threshold must be in (0, 1]")), kExitUsage;
  }
  EngineOptions o;
  o.shingles = *spec;
  o.normalize.t2s = f.t2s ? T2S::kCharacters : T2S::kOff;
  o.normalize.replace_invalid_utf8 = f.replace_invalid_utf8;
  o.data_dir = f.data_dir;
  auto shingler = TextPipeline::Create(o);
  if (!shingler.ok()) return Fail("truth", shingler.status());
  const int threads = base::ResolveThreads(f.threads);

  InputFlags input = f.input;
  input.replace_invalid_utf8 = f.replace_invalid_utf8;
  RecordBatches reader(input);
  std::vector<Record> docs, batch;
  std::unordered_set<std::string> seen;
  while (true) {
    auto more = reader.Next(4096, &batch);
    if (!more.ok()) return Fail("truth", more.status());
    if (!*more) break;
    for (auto& r : batch) {
      if (!seen.insert(r.id).second) {
        return Fail("truth", Status::InvalidArgument(r.file + ":" + std::to_string(r.line) +
                                                     ": duplicate id " + r.id));
      }
      docs.push_back(std::move(r));
    }
  }
  std::vector<std::vector<uint64_t>> sets;
  if (Status s = ShingleAll(**shingler, docs, threads, &sets); !s.ok()) return Fail("truth", s);
  for (auto& d : docs) std::string().swap(d.text);
  auto pairs = eval::AllPairsJaccard(sets, f.threshold, threads);
  if (!pairs.ok()) return Fail("truth", pairs.status());
  for (auto& p : *pairs) {
    if (IdLess(docs[p.b].id, docs[p.a].id)) std::swap(p.a, p.b);
  }
  std::sort(pairs->begin(), pairs->end(), [&](const auto& p, const auto& q) {
    if (p.a != q.a) return IdLess(docs[p.a].id, docs[q.a].id);
    return IdLess(docs[p.b].id, docs[q.b].id);
  });

  int code = kExitOk;
  auto out = OpenOutput("truth", f.output, f.input.files, &code);
  if (!out) return code;
  for (const auto& p : *pairs) {
    out->stream() << "{\"a\":" << docs[p.a].id << ",\"b\":" << docs[p.b].id
                  << ",\"jaccard\":" << nlohmann::json(std::round(p.jaccard * 1e6) / 1e6).dump()
                  << "}\n";
  }
  if (Status s = out->Close(); !s.ok()) return Fail("truth", s);
  if (!f.input.quiet) {
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << "neardup truth: " << docs.size() << " documents, " << pairs->size()
              << " pairs with Jaccard >= " << f.threshold << " (" << f.shingle
              << (f.t2s ? ", t2s" : "") << "), " << secs << " s\n";
  }
  return kExitOk;
}

void SetupTruth(CLI::App* app, int* exit_code) {
  auto flags = std::make_shared<TruthFlags>();
  CLI::App* cmd = app->add_subcommand(
      "truth",
      "Exact ground truth: every pair of documents whose shingle sets have Jaccard\n"
      "similarity >= --threshold, after normalization (NFKC, case folding, punctuation\n"
      "dropped; --t2s also folds Traditional to Simplified characters). Output is JSONL,\n"
      "one pair per line with a < b (integer ids before string ids):\n"
      "  {\"a\":id,\"b\":id,\"jaccard\":x}\n"
      "Exit codes: 0 ok, 1 bad input (file:line on stderr), 2 usage.");
  AddInputFlags(cmd, &flags->input);
  cmd->add_option("--shingle", flags->shingle,
                  "script:C[,W] (C-character n-grams in Han/no-space runs, W-word n-grams "
                  "elsewhere), char:N (character n-grams everywhere) or word:N (word n-grams)")
      ->capture_default_str();
  cmd->add_option("--threshold", flags->threshold, "Minimum Jaccard similarity, in (0, 1]")
      ->capture_default_str();
  cmd->add_flag("--t2s", flags->t2s,
                "Fold Traditional to Simplified characters (OpenCC TSCharacters) first");
  cmd->add_flag("--replace-invalid-utf8", flags->replace_invalid_utf8,
                "Replace ill-formed UTF-8 with U+FFFD instead of rejecting the record");
  cmd->add_option("-j,--threads", flags->threads, "Worker threads (0 = all cores)")
      ->capture_default_str();
  cmd->add_option("--data-dir", flags->data_dir, "Directory of dictionaries (default: built-in)");
  cmd->add_option("-o,--output", flags->output, "Output file (default: stdout)");
  cmd->callback([flags, exit_code] { *exit_code = RunTruth(*flags); });
}

NEARDUP_REGISTER_COMMAND(60, SetupTruth);

}  // namespace
}  // namespace neardup::cli
