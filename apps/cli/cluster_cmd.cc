// SPDX-License-Identifier: Apache-2.0
// `neardup cluster --groups groups.jsonl --texts texts.jsonl`: verify external
// candidate groups (e.g. search-log top results) and join them under a cap.
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "cli/common.h"
#include "neardup/group_cluster.h"

namespace neardup::cli {
namespace {

struct ClusterFlags {
  std::string groups;
  InputFlags texts;
  std::string group_field = "ids";
  GroupClusterOptions options;
  std::string verify = "levenshtein:0.8";
  std::string keep = "first";
  bool keep_punctuation = false;
  bool no_t2s = false, no_t2s_taiwan = false;
  std::string emit = "all";
  std::string output;
  std::string pairs;
  bool stats = false;
};

// Reads groups: each line a JSON array of ids, or an object whose
// `group_field` is one. Ids are strings or integers, keyed like texts' ids.
class GroupReader {
 public:
  GroupReader(std::string path, std::string field)
      : path_(std::move(path)), field_(std::move(field)) {}

  Status Open() {
    line_ = 0;
    if (path_ == "-") {
      in_ = &std::cin;
      return Status::OK();
    }
    file_ = std::make_unique<std::ifstream>(path_, std::ios::binary);
    if (!*file_) return Status::NotFound(path_ + ": cannot open file");
    in_ = file_.get();
    return Status::OK();
  }

  // Up to `max` groups into *out; false at the end.
  Result<bool> Next(size_t max, std::vector<std::vector<std::string>>* out) {
    out->clear();
    std::string line;
    while (out->size() < max && std::getline(*in_, line)) {
      ++line_;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      std::vector<std::string> group;
      if (Status s = Parse(line, &group); !s.ok()) {
        return s.WithContext((path_ == "-" ? "<stdin>" : path_) + ":" + std::to_string(line_));
      }
      out->push_back(std::move(group));
    }
    if (in_->bad()) return Status::IOError(path_ + ": read error");
    return !out->empty();
  }

 private:
  Status Parse(const std::string& line, std::vector<std::string>* group) const {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) return Status::InvalidArgument("malformed JSON");
    if (j.is_object()) {
      auto it = j.find(field_);
      if (it == j.end()) return Status::InvalidArgument("missing field '" + field_ + "'");
      j = *it;
    }
    if (!j.is_array()) return Status::InvalidArgument("a group must be a JSON array of ids");
    for (const auto& id : j) {
      if (!(id.is_string() || id.is_number_integer())) {
        return Status::InvalidArgument("group ids must be strings or integers");
      }
      group->push_back(IdKey(id));
    }
    return Status::OK();
  }

  std::string path_, field_;
  std::unique_ptr<std::ifstream> file_;
  std::istream* in_ = nullptr;
  uint64_t line_ = 0;
};

const char* OutcomeName(PairOutcome o) {
  switch (o) {
    case PairOutcome::kJoined:
      return "joined";
    case PairOutcome::kSameCluster:
      return "same_cluster";
    case PairOutcome::kCapExceeded:
      return "cap_exceeded";
  }
  return "?";
}

Status WriteResults(const ClusterFlags& f, const GroupClustering& r, std::ostream& out) {
  std::vector<nlohmann::json> ids;
  ids.reserve(r.ids.size());
  for (const auto& k : r.ids) ids.push_back(nlohmann::json::parse(k));
  if (f.emit == "all") {
    for (size_t i = 0; i < r.ids.size(); ++i) {
      nlohmann::json j = {{"id", ids[i]},
                          {"cluster", ids[r.cluster[i]]},
                          {"cluster_size", r.cluster_size[i]},
                          {"duplicate_of", nullptr}};
      if (r.kept[i] != i) j["duplicate_of"] = ids[r.kept[i]];
      out << j.dump() << '\n';
    }
  } else {
    std::vector<std::vector<size_t>> members(r.ids.size());
    for (size_t i = 0; i < r.ids.size(); ++i) members[r.cluster[i]].push_back(i);
    for (size_t c = 0; c < members.size(); ++c) {
      if (members[c].size() < 2) continue;
      nlohmann::json m = nlohmann::json::array();
      for (size_t i : members[c]) m.push_back(ids[i]);
      out << nlohmann::json{{"cluster", ids[c]},
                            {"size", members[c].size()},
                            {"kept", ids[r.kept[c]]},
                            {"members", m}}
                 .dump()
          << '\n';
    }
  }
  if (!f.pairs.empty()) {
    NEARDUP_ASSIGN_OR_RETURN(auto pairs, Output::Open(f.pairs));
    for (const auto& p : r.pairs) {
      pairs->stream() << nlohmann::json{{"a", ids[p.a]},
                                        {"b", ids[p.b]},
                                        {"similarity", p.similarity},
                                        {"verifier", f.verify},
                                        {"outcome", OutcomeName(p.outcome)}}
                             .dump()
                      << '\n';
    }
    NEARDUP_RETURN_IF_ERROR(pairs->Close());
  }
  return Status::OK();
}

Status RunPasses(const ClusterFlags& f, GroupClusterer* gc) {
  constexpr size_t kBatch = 8192;
  std::vector<std::vector<std::string>> batch, all;  // `all`: groups from stdin, kept
  const bool from_stdin = f.groups == "-";
  GroupReader groups(f.groups, f.group_field);
  NEARDUP_RETURN_IF_ERROR(groups.Open());
  while (true) {  // pass 1: which ids are needed
    NEARDUP_ASSIGN_OR_RETURN(bool more, groups.Next(kBatch, &batch));
    if (!more) break;
    for (const auto& g : batch) gc->Want(g);
    if (from_stdin) all.insert(all.end(), batch.begin(), batch.end());
  }
  RecordBatches texts(f.texts);  // pass 2: their texts
  std::vector<Record> records;
  while (true) {
    NEARDUP_ASSIGN_OR_RETURN(bool more, texts.Next(kBatch, &records));
    if (!more) break;
    for (auto& rec : records) {
      Status s = gc->AddText(rec.id, rec.text);
      if (!s.ok()) {
        s = s.WithContext(rec.file + ":" + std::to_string(rec.line));
        if (!f.texts.skip_invalid) return s;
        if (!f.texts.quiet) std::cerr << "neardup: skipping " << s.message() << "\n";
      }
    }
  }
  if (from_stdin) return gc->AddGroups(all);  // pass 3: verify
  NEARDUP_RETURN_IF_ERROR(groups.Open());
  while (true) {
    NEARDUP_ASSIGN_OR_RETURN(bool more, groups.Next(kBatch, &batch));
    if (!more) break;
    NEARDUP_RETURN_IF_ERROR(gc->AddGroups(batch));
  }
  return Status::OK();
}

int RunCluster(ClusterFlags f) {
  const auto start = std::chrono::steady_clock::now();
  if (f.keep_punctuation) f.options.drop_punctuation = false;
  if (f.no_t2s_taiwan) f.options.t2s = T2S::kPhrases;
  if (f.no_t2s) f.options.t2s = T2S::kOff;
  auto spec = ParseVerifySpec(f.verify);
  if (!spec.ok()) return Fail("cluster", spec.status()), kExitUsage;
  const VerifySpec& v = *spec;
  f.options.verify = v.kind;
  if (v.threshold) f.options.threshold = *v.threshold;
  if (v.shingles) f.options.shingles = *v.shingles;
  if (v.other_min) f.options.qbank_other_min = *v.other_min;
  f.options.keep = *ParseKeepPolicy(f.keep);
  f.options.replace_invalid_utf8 = f.texts.replace_invalid_utf8;
  auto gc = GroupClusterer::Create(f.options);
  if (!gc.ok()) return Fail("cluster", gc.status()), kExitUsage;
  std::vector<std::string> inputs = f.texts.files;
  inputs.push_back(f.groups);
  int code = kExitOk;
  auto out = OpenOutput("cluster", f.output, inputs, &code);
  if (!out) return code;
  if (Status s = CheckNotAnInput(f.pairs, inputs); !s.ok()) return Fail("cluster", s), kExitUsage;
  if (Status s = RunPasses(f, gc->get()); !s.ok()) return Fail("cluster", s);
  const GroupClustering r = (*gc)->Finish();
  if (Status s = WriteResults(f, r, out->stream()); !s.ok()) return Fail("cluster", s);
  if (Status s = out->Close(); !s.ok()) return Fail("cluster", s);
  if (f.stats || (!f.texts.quiet && isatty(STDERR_FILENO))) {
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << "neardup cluster: " << r.stats.groups << " groups, " << r.ids.size()
              << " documents, " << r.stats.pairs_verified << " pairs verified, "
              << r.stats.pairs_passed << " passed, " << r.stats.joins << " joins, "
              << r.stats.refused_by_cap << " refused by the cap, " << r.stats.pairs_missing_text
              << " pairs without a text, " << secs << " s\n";
  }
  return kExitOk;
}

void SetupCluster(CLI::App* app, int* exit_code) {
  auto f = std::make_shared<ClusterFlags>();
  CLI::App* cmd = app->add_subcommand(
      "cluster",
      "Verify external candidate groups and cluster them under a size cap.\n"
      "--groups: JSONL, each line a JSON array of ids (or an object with --group-field).\n"
      "--texts: JSONL records with a text field and an id field, as for dedup.\n"
      "Every pair inside a group is verified (--verify) on the normalized texts (Traditional\n"
      "folded to Simplified, as dedup); passing pairs are joined by union-find,\n"
      "most similar first, never letting a cluster grow past --max-cluster-size. Output:\n"
      "  --emit all       one line per id that has a text and occurs in a group, text order:\n"
      "                   {\"id\":..,\"cluster\":..,\"cluster_size\":N,\"duplicate_of\":null|id}\n"
      "  --emit clusters  one line per cluster of 2+: {\"cluster\":..,\"size\":N,\"kept\":..,"
      "\"members\":[..]}\n"
      "  --pairs FILE     evidence: each passing pair with its similarity and whether it joined\n"
      "Exit codes: 0 ok, 1 bad input (file:line on stderr), 2 usage.");
  cmd->add_option("--groups", f->groups, "Candidate groups (JSONL; '-' for stdin)")->required();
  cmd->add_option("--texts", f->texts.files, "Texts (JSONL files)")->required();
  cmd->add_option("--text-field", f->texts.text_field, "Field holding the text")
      ->capture_default_str();
  cmd->add_option("--id-field", f->texts.id_field, "Field holding the id in --texts")
      ->capture_default_str();
  cmd->add_option("--group-field", f->group_field,
                  "Field holding the ids when a group is an object")
      ->capture_default_str();
  cmd->add_option("--verify", f->verify,
                  "Verifier[:threshold]: levenshtein | lcs | similarity | jaccard[,ngram=N] | "
                  "containment | cosine | qbank[,other=1] | none")
      ->capture_default_str();
  cmd->add_option("--max-cluster-size", f->options.max_cluster_size,
                  "Cap on cluster size (0 = none)")
      ->capture_default_str();
  cmd->add_option("--max-group-size", f->options.max_group_size,
                  "Ids of a group beyond this many are ignored")
      ->capture_default_str();
  cmd->add_option("--keep", f->keep, "Kept member: first|smallest-id|longest")
      ->check(CLI::IsMember({"first", "smallest-id", "longest"}))
      ->capture_default_str();
  cmd->add_option("--emit", f->emit, "What to write: all|clusters")
      ->check(CLI::IsMember({"all", "clusters"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", f->output, "Output file (default: stdout)");
  cmd->add_option("--pairs", f->pairs, "Write pair evidence to this file");
  cmd->add_flag("--keep-punctuation", f->keep_punctuation,
                "Keep punctuation and symbols for verification (default: dropped, kept for qbank)");
  cmd->add_flag("--no-t2s", f->no_t2s,
                "Compare the characters as given (default: Traditional folded to Simplified, "
                "as dedup)");
  cmd->add_flag("--no-t2s-taiwan", f->no_t2s_taiwan,
                "Plain t2s, without mapping Taiwan usage to mainland usage first");
  cmd->add_flag("--replace-invalid-utf8", f->texts.replace_invalid_utf8,
                "Replace ill-formed UTF-8 with U+FFFD instead of rejecting the record");
  cmd->add_flag("--skip-invalid", f->texts.skip_invalid, "Skip bad text records with a warning");
  cmd->add_option("-j,--threads", f->options.threads, "Verification threads (0 = all cores)")
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", f->texts.quiet, "No summary on stderr");
  cmd->add_flag("--stats", f->stats, "Print a summary to stderr");
  cmd->callback([f, exit_code] { *exit_code = RunCluster(*f); });
}

NEARDUP_REGISTER_COMMAND(30, SetupCluster);

}  // namespace
}  // namespace neardup::cli
