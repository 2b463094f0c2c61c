// SPDX-License-Identifier: Apache-2.0
// `neardup eval`: run the engine on a corpus with ground truth, over one
// configuration or a sweep of one parameter, and report pair precision,
// recall, F1, adjusted Rand index, wall time and peak memory (src/eval).
// Writes DIR/metrics.csv and, for numeric sweeps, a gnuplot PNG.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <unordered_map>

#include "base/atomic_file.h"
#include "base/file_util.h"
#include "base/machine.h"
#include "cli/batch_flags.h"
#include "cli/command.h"
#include "cli/common.h"
#include "neardup/eval.h"

namespace neardup::cli {
namespace {

struct EvalFlags {
  PipelineFlags pipeline;
  InputFlags input;
  std::string truth;
  double truth_min_jaccard = 0;
  std::string sweep;
  std::string out_dir;
  std::string name;
  bool no_plot = false;
  std::string mode = "batch";    // batch: what `neardup dedup` runs; online: Engine::AddBatch
  std::string memory;            // batch mode: --memory
  uint64_t min_shared_keys = 0;  // batch mode; 0 = the profile's
};

// One swept parameter: how a value string changes the options. Numeric
// parameters take ranges (A..B[:STEP]) and get a plot.
enum class SweepKind { kInteger, kReal, kText };
struct SweepParam {
  const char* name;
  SweepKind kind;
  std::function<Status(const std::string&, PipelineFlags*)> apply;
  bool numeric() const { return kind != SweepKind::kText; }
};

Result<int> ParseInt(const std::string& v) {
  try {
    size_t used = 0;
    int x = std::stoi(v, &used);
    if (used == v.size()) return x;
  } catch (...) {
  }
  return Status::InvalidArgument("'" + v + "' is not an integer");
}

const std::vector<SweepParam>& SweepParams() {
  static const std::vector<SweepParam> params = {
      {"k", SweepKind::kInteger,
       [](const std::string& v, PipelineFlags* f) {
         NEARDUP_ASSIGN_OR_RETURN(f->max_distance, ParseInt(v));
         return Status::OK();
       }},
      {"ngram", SweepKind::kInteger,
       [](const std::string& v, PipelineFlags* f) {
         NEARDUP_ASSIGN_OR_RETURN(f->ngram, ParseInt(v));
         return Status::OK();
       }},
      {"word-ngram", SweepKind::kInteger,
       [](const std::string& v, PipelineFlags* f) {
         NEARDUP_ASSIGN_OR_RETURN(f->word_ngram, ParseInt(v));
         return Status::OK();
       }},
      {"threshold", SweepKind::kReal,
       [](const std::string& v, PipelineFlags* f) {
         NEARDUP_ASSIGN_OR_RETURN(f->threshold, ParseDouble(v, "threshold"));
         return Status::OK();
       }},
      {"shingles", SweepKind::kText,
       [](const std::string& v, PipelineFlags* f) {
         f->shingles = v;
         return Status::OK();
       }},
      {"profile", SweepKind::kText,
       [](const std::string& v, PipelineFlags* f) {
         f->profile = v;
         return Status::OK();
       }},
  };
  return params;
}

struct Sweep {
  const SweepParam* param = nullptr;  // null: a single run
  std::vector<std::string> values;
};

// Decimals written in a number ("0.05" has 2), so range values print as given.
int Decimals(const std::string& s) {
  const size_t dot = s.find('.');
  return dot == std::string::npos ? 0 : static_cast<int>(s.size() - dot - 1);
}

// "A..B[:STEP]" of a numeric parameter: every value from A to B by STEP (1
// for integers; reals need one). At most 1001 values.
Result<std::vector<std::string>> ParseRange(const std::string& spec, const std::string& range,
                                            SweepKind kind) {
  const size_t dots = range.find("..");
  const size_t colon = range.find(':', dots);
  const std::string lo_s = range.substr(0, dots);
  const std::string hi_s =
      range.substr(dots + 2, colon == std::string::npos ? std::string::npos : colon - dots - 2);
  const std::string step_s = colon == std::string::npos ? "" : range.substr(colon + 1);
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("--sweep '" + spec + "': " + why +
                                   " (e.g. k=0..12, k=0..12:2, threshold=0.5..0.8:0.1)");
  };
  if (kind == SweepKind::kReal && step_s.empty()) return bad("a range of reals needs a step");
  const bool integer = kind == SweepKind::kInteger;
  auto parse = [&](const std::string& v) -> Result<double> {
    if (integer) {
      NEARDUP_ASSIGN_OR_RETURN(int x, ParseInt(v));
      return static_cast<double>(x);
    }
    return ParseDouble(v, "range bound");
  };
  NEARDUP_ASSIGN_OR_RETURN(const double lo, parse(lo_s));
  NEARDUP_ASSIGN_OR_RETURN(const double hi, parse(hi_s));
  double step = 1;
  if (!step_s.empty()) {
    NEARDUP_ASSIGN_OR_RETURN(step, parse(step_s));
  }
  if (!(step > 0) || hi < lo || (hi - lo) / step > 1000) return bad("bad range");
  const int decimals = integer ? 0 : std::max(Decimals(lo_s), Decimals(step_s));
  // A little slack so that 0.5 + 3 * 0.1 still counts as 0.8.
  const auto count = static_cast<int>(std::floor((hi - lo) / step + 1e-9)) + 1;
  std::vector<std::string> values;
  for (int i = 0; i < count; ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, lo + i * step);
    values.push_back(buf);
  }
  return values;
}

// "k=0..12", "k=0..12:2", "ngram=2,3,4", "threshold=0.5,0.6", "threshold=0.5..0.8:0.1",
// "profile=default,zh-news", "shingles=script:3,2;char:5".
Result<Sweep> ParseSweep(const std::string& spec) {
  Sweep s;
  s.values.push_back("");
  if (spec.empty()) return s;
  const size_t eq = spec.find('=');
  std::string name = spec.substr(0, eq == std::string::npos ? spec.size() : eq);
  if (name == "max-distance") name = "k";
  std::string known;
  for (const auto& p : SweepParams()) {
    known += std::string(known.empty() ? "" : ", ") + p.name;
    if (name == p.name) s.param = &p;
  }
  if (s.param == nullptr || eq == std::string::npos) {
    return Status::InvalidArgument("--sweep '" + spec +
                                   "': expected NAME=A..B[:STEP] or "
                                   "NAME=V1,V2,... with NAME one of " +
                                   known);
  }
  const std::string range = spec.substr(eq + 1);
  s.values.clear();
  if (range.find("..") != std::string::npos && s.param->numeric()) {
    NEARDUP_ASSIGN_OR_RETURN(s.values, ParseRange(spec, range, s.param->kind));
  } else {
    // Values are separated by ',' or, when one contains a comma, by ';'.
    const char sep = range.find(';') != std::string::npos ? ';' : ',';
    for (size_t pos = 0; pos <= range.size();) {
      size_t comma = range.find(sep, pos);
      if (comma == std::string::npos) comma = range.size();
      if (comma > pos) s.values.push_back(range.substr(pos, comma - pos));
      pos = comma + 1;
    }
  }
  if (s.values.empty()) return Status::InvalidArgument("--sweep '" + spec + "': no values");
  return s;
}

struct Corpus {
  std::vector<Document> docs;
  std::unordered_map<std::string, uint32_t> index;  // IdKey -> position
};

Result<Corpus> ReadCorpus(const InputFlags& input) {
  Corpus c;
  RecordBatches reader(input);
  std::vector<Record> batch;
  while (true) {
    NEARDUP_ASSIGN_OR_RETURN(bool more, reader.Next(4096, &batch));
    if (!more) break;
    for (auto& r : batch) {
      std::string key = std::move(r.id);
      if (!c.index.emplace(key, static_cast<uint32_t>(c.docs.size())).second) {
        return Status::InvalidArgument(r.file + ":" + std::to_string(r.line) + ": duplicate id " +
                                       key);
      }
      // Its place in the input as its arrival time (ms), so that online the
      // engine's ties between clusters (the earliest created wins) follow
      // the input, not the wall clock of the run. Batch reads no times.
      const auto time = static_cast<int64_t>(c.docs.size()) + 1;
      c.docs.push_back({std::move(key), std::move(r.text), time});
    }
  }
  return c;
}

// Pairs ({"a","b"[,"jaccard"]}) or labels ({"id","cluster"|"label"}), per line.
Result<eval::GroundTruth> ReadTruth(const std::string& path, const Corpus& c, double min_j,
                                    uint64_t* unknown) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path + ": cannot open truth file");
  std::vector<eval::Pair> pairs;
  std::unordered_map<std::string, uint32_t> label_ids;
  eval::Labels labels(c.docs.size(), UINT32_MAX);
  bool any_pairs = false, any_labels = false;
  std::string line;
  for (uint64_t n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    const std::string where = path + ":" + std::to_string(n);
    if (j.is_discarded() || !j.is_object())
      return Status::InvalidArgument(where + ": not a JSON object");
    auto find = [&](const nlohmann::json& id) -> int64_t {
      auto it = c.index.find(IdKey(id));
      return it == c.index.end() ? int64_t{-1} : static_cast<int64_t>(it->second);
    };
    if (j.contains("a") && j.contains("b")) {
      any_pairs = true;
      if (j.contains("jaccard") && j["jaccard"].is_number() && j["jaccard"].get<double>() < min_j)
        continue;
      const int64_t a = find(j["a"]), b = find(j["b"]);
      if (a < 0 || b < 0) {
        ++*unknown;
        continue;
      }
      pairs.emplace_back(a, b);
    } else if (j.contains("id") && (j.contains("cluster") || j.contains("label"))) {
      any_labels = true;
      const int64_t d = find(j["id"]);
      if (d < 0) {
        ++*unknown;
        continue;
      }
      const auto& l = j.contains("cluster") ? j["cluster"] : j["label"];
      labels[d] =
          label_ids.try_emplace(l.dump(), static_cast<uint32_t>(label_ids.size())).first->second;
    } else {
      return Status::InvalidArgument(where + ": expected {\"a\",\"b\"} or {\"id\",\"cluster\"}");
    }
  }
  if (any_pairs && any_labels) return Status::InvalidArgument(path + ": mixes pairs and labels");
  if (any_pairs) return eval::GroundTruth::FromPairs(c.docs.size(), std::move(pairs));
  for (auto& l : labels) {
    if (l == UINT32_MAX) l = static_cast<uint32_t>(label_ids.size()) + (&l - labels.data());
  }
  return eval::GroundTruth::FromLabels(std::move(labels));
}

struct Row {
  std::string value;
  std::string profile;
  double threshold = 0;
  eval::Quality q;
  double seconds = 0;
  uint64_t peak_rss = 0;
};

// Runs the batch pipeline (what `neardup dedup` runs) over the corpus.
Result<eval::Labels> ClusterBatch(const EngineOptions& options, const Corpus& c, bool skip_invalid,
                                  uint64_t memory, uint64_t min_shared_keys) {
  BatchOptions bo;
  bo.engine = options;
  bo.skip_invalid = skip_invalid;
  bo.memory_bytes = memory;
  bo.min_shared_keys = min_shared_keys;
  NEARDUP_ASSIGN_OR_RETURN(BatchDedup::Labels l, BatchClusterDocuments(c.docs, bo));
  return eval::Labels(l.cluster.begin(), l.cluster.end());
}

// Runs the engine once over the corpus; returns the cluster label per document.
Result<eval::Labels> Cluster(const EngineOptions& options, const Corpus& c, bool skip_invalid) {
  NEARDUP_ASSIGN_OR_RETURN(auto engine, Engine::Create(options));
  eval::Labels labels(c.docs.size());
  std::unordered_map<std::string, uint32_t> cluster_ids;
  constexpr size_t kBatch = 4096;
  for (size_t begin = 0; begin < c.docs.size(); begin += kBatch) {
    const size_t n = std::min(kBatch, c.docs.size() - begin);
    auto results = engine->AddBatch(std::span<const Document>(c.docs.data() + begin, n));
    for (size_t i = 0; i < n; ++i) {
      const uint32_t d = static_cast<uint32_t>(begin + i);
      if (!results[i].ok()) {
        if (!skip_invalid) return results[i].status().WithContext("document " + c.docs[d].id);
        labels[d] = UINT32_MAX - d;  // a singleton
        continue;
      }
      labels[d] = 0;  // placed below
    }
  }
  // The clusters as the service holds them once every document is in (a
  // cluster of one may have been gathered into a later cluster since its add).
  for (size_t d = 0; d < c.docs.size(); ++d) {
    if (labels[d] != 0) continue;
    NEARDUP_ASSIGN_OR_RETURN(const ClusterInfo info, engine->ClusterOf(c.docs[d].id, 0));
    labels[d] = cluster_ids.try_emplace(info.id, cluster_ids.size()).first->second;
  }
  return labels;
}

Status WriteCsv(const std::string& path, const std::string& name, const std::string& param,
                size_t docs, const std::vector<Row>& rows) {
  std::ostringstream out;
  out << "dataset,param,value,profile,threshold,docs,truth_pairs,predicted_pairs,true_positives,"
         "precision,recall,f1,ari,seconds,peak_rss_mb\n";
  for (const Row& r : rows) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%.6f,%.6f,%.6f,%.6f,%.3f,%.1f", r.q.precision, r.q.recall,
                  r.q.f1, r.q.ari, r.seconds, r.peak_rss / 1048576.0);
    out << name << ',' << param << ',' << r.value << ',' << r.profile << ',' << r.threshold << ','
        << docs << ',' << r.q.truth_pairs << ',' << r.q.predicted_pairs << ',' << r.q.true_positives
        << ',' << buf << '\n';
  }
  return base::AtomicWrite(path, out.str());
}

// Precision, recall and F1 against the swept parameter, with gnuplot. The
// PNG is written beside its place and renamed there when gnuplot succeeds.
Status Plot(const std::string& dir, const std::string& name, const std::string& param) {
  const std::string script = dir + "/plot.gp";
  NEARDUP_ASSIGN_OR_RETURN(auto png_file, base::AtomicFile::Create(dir + "/precision_recall.png"));
  const std::string& png = png_file->write_path();
  std::ostringstream gp;
  gp << "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
        "  set terminal pngcairo size 800,500\n} else {\n  set terminal png size 800,500\n}\n"
     << "set output '" << png << "'\nset datafile separator ','\n"
     << "set title 'neardup eval: " << name << "'\nset xlabel '" << param << "'\n"
     << "set ylabel 'score'\nset yrange [0:1.05]\nset grid\nset key bottom right\n"
     << "plot '" << dir << "/metrics.csv' every ::1 using 3:10 with linespoints title 'precision',"
     << " '' every ::1 using 3:11 with linespoints title 'recall',"
     << " '' every ::1 using 3:12 with linespoints dashtype 2 title 'F1'\n";
  NEARDUP_RETURN_IF_ERROR(base::AtomicWrite(script, gp.str()));
  const std::string cmd = "gnuplot '" + script + "' 2>&1";
  if (std::system(cmd.c_str()) != 0) return Status::Unavailable("gnuplot failed on " + script);
  return png_file->Commit();
}

void PrintRow(const std::string& param, const Row& r) {
  std::printf("%-10s %-10s %9.4f %9.4f %9.4f %9.4f %10llu %10llu %8.2f %8.1f\n",
              r.value.empty() ? "-" : r.value.c_str(), r.profile.c_str(), r.q.precision, r.q.recall,
              r.q.f1, r.q.ari, static_cast<unsigned long long>(r.q.predicted_pairs),
              static_cast<unsigned long long>(r.q.true_positives), r.seconds,
              r.peak_rss / 1048576.0);
  std::fflush(stdout);
}

int RunEval(const EvalFlags& f) {
  auto sweep = ParseSweep(f.sweep);
  if (!sweep.ok()) return Fail("eval", sweep.status()), kExitUsage;
  uint64_t memory = 0;
  if (!f.memory.empty()) {
    auto m = ParseSize(f.memory);
    if (m.ok()) {
      if (Status s = base::CheckMemory(*m, "--memory"); !s.ok()) m = s;
    }
    if (!m.ok()) return Fail("eval", m.status()), kExitUsage;
    memory = *m;
  }
  std::error_code ec;
  std::filesystem::create_directories(f.out_dir, ec);
  if (ec) {
    return Fail("eval", Status::IOError(f.out_dir + ": cannot create directory"));
  }
  InputFlags input = f.input;
  input.replace_invalid_utf8 = f.pipeline.replace_invalid_utf8;
  auto corpus = ReadCorpus(input);
  if (!corpus.ok()) return Fail("eval", corpus.status());
  uint64_t unknown = 0;
  auto truth = ReadTruth(f.truth, *corpus, f.truth_min_jaccard, &unknown);
  if (!truth.ok()) return Fail("eval", truth.status());
  if (unknown > 0 && !f.input.quiet) {
    std::cerr << "neardup eval: " << unknown
              << " truth entries name ids not in the corpus; ignored\n";
  }
  const std::string param = sweep->param ? sweep->param->name : "";
  const std::string name = f.name.empty() ? f.truth : f.name;
  std::printf("%s: %zu documents, %zu truth %s\n", name.c_str(), corpus->docs.size(),
              truth->from_pairs ? truth->pairs.size() : truth->labels.size(),
              truth->from_pairs ? "pairs" : "labels");
  std::printf("%-10s %-10s %9s %9s %9s %9s %10s %10s %8s %8s\n",
              param.empty() ? "run" : param.c_str(), "profile", "precision", "recall", "F1", "ARI",
              "pred_pairs", "true_pos", "secs", "peak_MB");
  std::vector<Row> rows;
  for (const std::string& value : sweep->values) {
    PipelineFlags pf = f.pipeline;
    if (sweep->param) {
      if (Status s = sweep->param->apply(value, &pf); !s.ok()) return Fail("eval", s), kExitUsage;
    }
    auto options = MakeEngineOptions(pf);
    if (!options.ok()) return Fail("eval", options.status()), kExitUsage;
    const auto start = std::chrono::steady_clock::now();
    auto labels = f.mode == "batch" ? ClusterBatch(*options, *corpus, f.input.skip_invalid, memory,
                                                   f.min_shared_keys)
                                    : Cluster(*options, *corpus, f.input.skip_invalid);
    if (!labels.ok()) return Fail("eval", labels.status());
    Row r;
    r.value = value;
    r.profile = options->profile;
    r.threshold = options->threshold;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.q = eval::Evaluate(*labels, *truth);
    r.peak_rss = eval::PeakRssBytes();
    PrintRow(param, r);
    rows.push_back(r);
  }
  const std::string csv = f.out_dir + "/metrics.csv";
  if (Status s = WriteCsv(csv, name, param, corpus->docs.size(), rows); !s.ok())
    return Fail("eval", s);
  if (!f.no_plot && sweep->param && sweep->param->numeric() && rows.size() > 1) {
    if (Status s = Plot(f.out_dir, name, param); !s.ok()) {
      std::cerr << "neardup eval: warning: " << s.message() << " (metrics.csv is written)\n";
    }
  }
  return kExitOk;
}

void SetupEval(CLI::App* app, int* exit_code) {
  auto flags = std::make_shared<EvalFlags>();
  CLI::App* cmd = app->add_subcommand(
      "eval",
      "Measure clustering quality against ground truth.\n"
      "The truth file holds pairs {\"a\":id,\"b\":id[,\"jaccard\":x]} (as `neardup truth`\n"
      "writes) or cluster labels {\"id\":id,\"cluster\":label}; unlabelled documents are\n"
      "singletons. Reports pair precision, recall, F1, adjusted Rand index, wall time and\n"
      "peak memory (process high-water mark) per configuration, writes OUT/metrics.csv and,\n"
      "for a numeric sweep, OUT/precision_recall.png (gnuplot).\n"
      "Exit codes: 0 ok, 1 bad input, 2 usage.");
  AddInputFlags(cmd, &flags->input);
  AddPipelineFlags(cmd, &flags->pipeline);
  cmd->add_option("--truth", flags->truth, "Ground truth: pairs or labels JSONL")->required();
  cmd->add_option("--truth-min-jaccard", flags->truth_min_jaccard,
                  "Ignore truth pairs whose \"jaccard\" is below this");
  cmd->add_option("--sweep", flags->sweep,
                  "Parameter sweep: threshold=0.5,0.6,0.7 or threshold=0.5..0.8:0.1, "
                  "k=0..12[:STEP], ngram=2,3,4, word-ngram=1..3, shingles=char:3;char:5, "
                  "profile=default,... (numeric ones get a plot)");
  cmd->add_option("--out", flags->out_dir, "Directory for metrics.csv and the plot")->required();
  cmd->add_option("--name", flags->name, "Dataset name for the table, CSV and plot");
  cmd->add_flag("--no-plot", flags->no_plot, "Do not run gnuplot");
  cmd->add_option("--mode", flags->mode,
                  "batch (default): the pipeline of `neardup dedup` (union-find over verified "
                  "pairs); online: the engine's parent forest, as `neardup serve` clusters")
      ->check(CLI::IsMember({"online", "batch"}))
      ->capture_default_str();
  cmd->add_option("--memory", flags->memory, "With --mode batch: the memory budget (e.g. 64M)");
  cmd->add_option("--min-shared-keys", flags->min_shared_keys,
                  "With --mode batch: verify only pairs sharing this many bucket keys (0 = the "
                  "profile's)");
  cmd->callback([flags, exit_code] { *exit_code = RunEval(*flags); });
}

NEARDUP_REGISTER_COMMAND(61, SetupEval);

}  // namespace
}  // namespace neardup::cli
