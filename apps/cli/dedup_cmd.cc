// SPDX-License-Identifier: Apache-2.0
// `neardup dedup`: cluster the documents of JSONL files and report duplicates.
#include <chrono>
#include <iostream>
#include <unordered_map>

#include "cli/command.h"
#include "cli/common.h"

namespace neardup::cli {
namespace {

struct DedupFlags {
  PipelineFlags pipeline;
  InputFlags input;
  std::string emit = "all";
  std::optional<std::string> keep;  // default: the profile's
  std::string output;
  bool stats = false;
  bool with_matches = false;
};

struct DocRow {
  nlohmann::json id;
  uint32_t cluster;        // index into clusters
  uint32_t length;         // code points
  std::string raw;         // only for --emit unique
  nlohmann::json matches;  // only with --with-matches
};

struct ClusterRow {
  uint32_t root;  // doc index of the first member
  std::vector<uint32_t> members;
  uint32_t kept = 0;
};

uint32_t CodePoints(std::string_view s) {
  uint32_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Match evidence as JSON: the matched id (as in the input), the signal, its
// distance (when it has one) and similarity, and the verified similarity.
nlohmann::json MatchesJson(const std::vector<Match>& matches) {
  nlohmann::json a = nlohmann::json::array();
  for (const Match& m : matches) {
    auto id = nlohmann::json::parse(m.id, nullptr, /*allow_exceptions=*/false);
    nlohmann::json j = {{"id", id.is_discarded() ? nlohmann::json(m.id) : id},
                        {"signal", m.signal}};
    if (m.distance >= 0) j["distance"] = m.distance;
    j["similarity"] = m.similarity;
    if (m.verified) j["verified"] = *m.verified;
    a.push_back(std::move(j));
  }
  return a;
}

void ChooseKept(KeepPolicy keep, const std::vector<DocRow>& docs, ClusterRow* c) {
  c->kept = c->members.front();
  for (uint32_t m : c->members) {
    if (keep == KeepPolicy::kSmallestId && JsonIdLess(docs[m].id, docs[c->kept].id)) c->kept = m;
    if (keep == KeepPolicy::kLongest && docs[m].length > docs[c->kept].length) c->kept = m;
  }
}

void Emit(const DedupFlags& f, const std::vector<DocRow>& docs,
          const std::vector<ClusterRow>& clusters, std::ostream& out) {
  if (f.emit == "all") {
    for (const DocRow& d : docs) {
      const ClusterRow& c = clusters[d.cluster];
      nlohmann::json j = {{"id", d.id},
                          {"cluster", docs[c.root].id},
                          {"cluster_size", c.members.size()},
                          {"duplicate_of", nullptr}};
      if (&d != &docs[c.kept]) j["duplicate_of"] = docs[c.kept].id;
      if (f.with_matches) j["matches"] = d.matches;
      out << j.dump() << '\n';
    }
  } else if (f.emit == "unique") {
    for (size_t i = 0; i < docs.size(); ++i)
      if (clusters[docs[i].cluster].kept == i) out << docs[i].raw << '\n';
  } else {
    for (const ClusterRow& c : clusters) {
      if (c.members.size() < 2) continue;
      nlohmann::json members = nlohmann::json::array();
      for (uint32_t m : c.members) members.push_back(docs[m].id);
      out << nlohmann::json{{"cluster", docs[c.root].id},
                            {"size", c.members.size()},
                            {"kept", docs[c.kept].id},
                            {"members", members}}
                 .dump()
          << '\n';
    }
  }
}

// --idf corpus: a first pass that only counts document frequencies.
int LearnCorpus(const InputFlags& input, Engine* engine) {
  for (const auto& file : input.files) {
    if (file == "-") {
      std::cerr << "neardup dedup: --idf corpus reads the input twice: give files, not stdin\n";
      return kExitUsage;
    }
  }
  if (input.files.empty()) {
    std::cerr << "neardup dedup: --idf corpus reads the input twice: give files, not stdin\n";
    return kExitUsage;
  }
  JsonlReader reader(input, false);
  Progress progress("learning idf", !input.quiet);
  std::vector<Record> batch;
  uint64_t n = 0;
  while (true) {
    auto more = reader.Next(4096, &batch);
    if (!more.ok()) return Fail("dedup", more.status());
    if (!*more) break;
    for (const Record& rec : batch) {
      if (Status s = engine->LearnIdf(rec.text); !s.ok() && !SkipOrFail("dedup", input, rec, s)) {
        return kExitBadInput;
      }
    }
    n += batch.size();
    progress.Update(reader.bytes_read(), reader.total_bytes(), n);
  }
  progress.Finish();
  return kExitOk;
}

int RunDedup(const DedupFlags& f) {
  auto start = std::chrono::steady_clock::now();
  if (f.with_matches && f.emit != "all") {
    std::cerr << "neardup dedup: --with-matches needs --emit all\n";
    return kExitUsage;
  }
  int code = kExitOk;
  auto engine = OpenEngine("dedup", f.pipeline, &code);
  if (!engine) return code;
  auto out = Output::Open(f.output);
  if (!out.ok()) return Fail("dedup", out.status());

  InputFlags input = f.input;
  input.replace_invalid_utf8 = f.pipeline.replace_invalid_utf8;
  if (!LoadIdfFlag("dedup", f.pipeline, engine.get())) return kExitBadInput;
  if (f.pipeline.idf == "corpus") {
    if (int rc = LearnCorpus(input, engine.get()); rc != kExitOk) return rc;
  }
  JsonlReader reader(input, f.emit == "unique");
  Progress progress("dedup", !f.input.quiet);
  std::vector<DocRow> docs;
  std::vector<ClusterRow> clusters;
  std::unordered_map<std::string, uint32_t> cluster_of_root;  // engine cluster id -> index
  std::vector<Record> batch;
  std::vector<Document> pending;
  while (true) {
    auto more = reader.Next(4096, &batch);
    if (!more.ok()) return Fail("dedup", more.status());
    if (!*more) break;
    pending.clear();
    for (auto& r : batch) pending.push_back({IdKey(r.id), std::move(r.text), 0});
    auto results = engine->AddBatch(pending);
    for (size_t i = 0; i < results.size(); ++i) {
      Record& rec = batch[i];
      if (!results[i].ok()) {
        if (!SkipOrFail("dedup", f.input, rec, results[i].status())) return kExitBadInput;
        continue;
      }
      const uint32_t doc = static_cast<uint32_t>(docs.size());
      auto [it, added] =
          cluster_of_root.try_emplace(results[i]->cluster, static_cast<uint32_t>(clusters.size()));
      if (added) clusters.push_back({doc, {}, 0});
      clusters[it->second].members.push_back(doc);
      docs.push_back({std::move(rec.id), it->second, CodePoints(pending[i].text),
                      std::move(rec.raw),
                      f.with_matches ? MatchesJson(results[i]->matches) : nlohmann::json()});
    }
    progress.Update(reader.bytes_read(), reader.total_bytes(), docs.size());
  }
  progress.Finish();
  KeepPolicy keep = engine->options().keep;
  if (f.keep) keep = *ParseKeepPolicy(*f.keep);
  for (ClusterRow& c : clusters) ChooseKept(keep, docs, &c);
  Emit(f, docs, clusters, (*out)->stream());
  if (Status s = (*out)->Close(); !s.ok()) return Fail("dedup", s);
  if (!SaveIdfFlag("dedup", f.pipeline, *engine)) return kExitBadInput;

  if (f.stats || (!f.input.quiet && isatty(STDERR_FILENO))) {
    size_t multi = 0;
    for (const auto& c : clusters) multi += c.members.size() > 1;
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << "neardup dedup: " << docs.size() << " documents, " << clusters.size()
              << " clusters (" << multi << " with duplicates), " << docs.size() - clusters.size()
              << " duplicates removed, " << reader.skipped() << " skipped, " << secs << " s\n";
  }
  return kExitOk;
}

void SetupDedup(CLI::App* app, int* exit_code) {
  auto flags = std::make_shared<DedupFlags>();
  CLI::App* cmd = app->add_subcommand(
      "dedup",
      "Cluster near-duplicate documents of JSONL input.\n"
      "Each input line is a JSON object with a text field and an optional id. Output is JSONL:\n"
      "  --emit all       one line per document, input order:\n"
      "                   {\"id\":..,\"cluster\":..,\"cluster_size\":N,\"duplicate_of\":null|id}\n"
      "                   (--with-matches adds \"matches\": the evidence)\n"
      "  --emit unique    the input lines of the kept documents, unchanged\n"
      "  --emit clusters  one line per cluster of 2+: {\"cluster\":..,\"size\":N,\"kept\":..,"
      "\"members\":[..]}\n"
      "Exit codes: 0 ok, 1 bad input (file:line on stderr), 2 usage.");
  AddInputFlags(cmd, &flags->input);
  AddPipelineFlags(cmd, &flags->pipeline);
  cmd->add_option("--emit", flags->emit, "What to write: all|unique|clusters")
      ->check(CLI::IsMember({"all", "unique", "clusters"}))
      ->capture_default_str();
  cmd->add_option("--keep", flags->keep,
                  "Which document of a cluster is kept: first|smallest-id|longest "
                  "[profile default: first; qbank: smallest-id]")
      ->check(CLI::IsMember({"first", "smallest-id", "longest"}));
  cmd->add_option("-o,--output", flags->output, "Output file (default: stdout)");
  cmd->add_flag("--stats", flags->stats, "Print a summary to stderr");
  cmd->add_flag("--with-matches", flags->with_matches,
                "With --emit all: add \"matches\":[{\"id\",\"signal\",\"distance\","
                "\"similarity\",\"verified\"}], the evidence of each document's matches among "
                "earlier documents (distance only for signals that have one, verified only "
                "with --verify)");
  cmd->callback([flags, exit_code] { *exit_code = RunDedup(*flags); });
}

NEARDUP_REGISTER_COMMAND(10, SetupDedup);

}  // namespace
}  // namespace neardup::cli
