// SPDX-License-Identifier: Apache-2.0
//
// Pieces shared by the batch subcommands: engine flags, JSONL input in
// batches (the library's JsonlReader), output files and a progress line on
// stderr.
#ifndef NEARDUP_APPS_CLI_COMMON_H_
#define NEARDUP_APPS_CLI_COMMON_H_

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "base/atomic_file.h"
#include "base/status_macros.h"
#include "neardup/engine.h"
#include "neardup/ids.h"
#include "neardup/jsonl.h"
#include "neardup/options.h"

namespace neardup::cli {

// Flags that shape the pipeline; shared by dedup, fingerprint, explain, eval.
// Strings are parsed once, by MakeEngineOptions, into the typed options.
struct PipelineFlags {
  std::string profile = "default";
  std::optional<double> threshold;
  std::optional<std::string> shingles;  // script:C[,W] | char:N | word:N
  std::optional<std::string> signals;   // comma list: exact,simhash,minhash,...
  std::optional<std::string> verify;    // kind[:threshold][,ngram=N][,word_ngram=N][,other=X]
  std::optional<int> max_distance;      // simhash k
  std::optional<int> num_perm;
  std::optional<std::string> minhash_scheme;
  std::optional<int> bands, rows;
  std::optional<double> candidate_threshold;
  std::optional<int> short_chars;
  std::optional<double> edit_weight;
  std::optional<bool> short_numbers;
  std::optional<bool> short_words;
  std::optional<int> boilerplate_documents;
  std::optional<double> containment;
  std::optional<int> ngram;  // SimHash features
  std::optional<int> word_ngram;
  std::optional<double> minhash_threshold;  // older name of --candidate-threshold
  std::optional<int> minhash_ngram;         // older: shingles script:N,1
  bool keep_punctuation = false;
  bool replace_invalid_utf8 = false;
  int threads = 0;
  std::string data_dir;
  std::optional<std::string> features;  // char-ngram | words | longest-sentence[:N]
  std::optional<std::string> weights;   // tf | tfidf
  std::optional<int> top_n;
  bool t2s = false, no_t2s = false;
  bool t2s_taiwan = false, no_t2s_taiwan = false;
  std::vector<std::string> user_dicts;
  std::optional<std::string> spotsig_stop_words;  // en | zh | a file
  std::string idf;       // "" (profile), jieba, corpus (two passes), stream
  std::string idf_load;  // a saved document-frequency table to start from
  std::string idf_save;  // where to save the learned table after the run
};
void AddPipelineFlags(CLI::App* cmd, PipelineFlags* flags);
// A decimal number. Errors: InvalidArgument naming `what`.
Result<double> ParseDouble(std::string_view s, std::string_view what);
// The profile's options with the explicit flags applied on top.
Result<EngineOptions> MakeEngineOptions(const PipelineFlags& flags);

// Loads --idf-load into a new engine, if given. Returns false after printing
// the error (then exit with kExitBadInput).
bool LoadIdfFlag(const std::string& cmd, const PipelineFlags& flags, Engine* engine);
// Saves the learned table to --idf-save, if given; false after printing.
bool SaveIdfFlag(const std::string& cmd, const PipelineFlags& flags, const Engine& engine);

// Where to find fields in each JSONL record.
struct InputFlags {
  std::vector<std::string> files;  // empty or "-" means stdin
  std::string text_field = "text";
  std::string id_field = "id";
  bool skip_invalid = false;
  bool quiet = false;
  bool replace_invalid_utf8 = false;  // set from PipelineFlags by the command
};
void AddInputFlags(CLI::App* cmd, InputFlags* flags);

// A record read by RecordBatches, owning its strings.
struct Record {
  std::string file;
  uint64_t line = 0;  // 1-based line number within the file
  std::string id;     // canonical JSON of the id, or the line number (neardup/jsonl.h)
  std::string text;
};

// Reads JSONL records in batches with the library's reader (neardup/jsonl.h).
// A bad record is an error naming file and line, or under --skip-invalid is
// skipped with a warning on stderr (unless --quiet).
class RecordBatches {
 public:
  explicit RecordBatches(const InputFlags& flags);
  // Fills *batch with up to `max` records. Returns false at the end of input.
  // Errors: InvalidArgument (bad record), NotFound/IOError (unreadable file).
  Result<bool> Next(size_t max, std::vector<Record>* batch);
  uint64_t skipped() const { return skipped_; }
  uint64_t bytes_read() const { return reader_.bytes_read(); }
  uint64_t total_bytes() const { return reader_.total_bytes(); }  // 0 when unknown (stdin)

 private:
  JsonlReader reader_;
  bool skip_invalid_, quiet_;
  uint64_t skipped_ = 0;
};

// JSON ids (of --groups and truth files) as the reader keys them: the
// canonical JSON text, so 1 and "1" differ (neardup/jsonl.h).
inline std::string IdKey(const nlohmann::json& id) { return id.dump(); }

// Output to a file (-o) or stdout. A file is written beside its target as
// PATH.tmp-XXXXXX (base/atomic_file.h) and renamed over it by Close(), after
// an fsync: a run that fails, is interrupted or fills the disk leaves an
// earlier file untouched, and its temporary file is removed (also on
// SIGINT, SIGTERM, SIGHUP: main installs base::InstallSignalCleanup).
class Output {
 public:
  // Errors: InvalidArgument when `path` is one of `inputs` (the same file:
  // device and inode); IOError if the file cannot be created.
  static Result<std::unique_ptr<Output>> Open(const std::string& path,
                                              const std::vector<std::string>& inputs = {});
  std::ostream& stream() { return *out_; }
  // The file being written (a temporary one until Close), "" for stdout.
  std::string write_path() const { return atomic_ ? atomic_->write_path() : ""; }
  // What messages call it: the path given, or "<stdout>".
  std::string name() const { return atomic_ ? path_ : "<stdout>"; }
  // Makes the file appear. Errors: IOError if any write failed (e.g. disk
  // full); the target is then left as it was.
  Status Close();

 private:
  std::string path_;
  std::unique_ptr<base::AtomicFile> atomic_;
  std::unique_ptr<std::ofstream> file_;
  std::ostream* out_ = nullptr;
};

// InvalidArgument when `output` names the same file as one of `inputs`:
// writing it would destroy the input before it is read.
Status CheckNotAnInput(const std::string& output, const std::vector<std::string>& inputs);

// Output::Open for a command: on failure prints the error and sets
// *exit_code (kExitUsage for an output that is an input, else kExitBadInput).
std::unique_ptr<Output> OpenOutput(const std::string& cmd, const std::string& path,
                                   const std::vector<std::string>& inputs, int* exit_code);

// A progress line on stderr, shown only when stderr is a terminal.
class Progress {
 public:
  Progress(std::string label, bool enabled);
  void Update(uint64_t bytes, uint64_t total_bytes, uint64_t docs);
  void Finish();

 private:
  std::string label_;
  bool enabled_;
  std::chrono::steady_clock::time_point start_, last_;
};

// Prints "neardup <cmd>: <message>" to stderr and returns kExitBadInput.
int Fail(const std::string& cmd, const Status& status);

// Creates the engine for a command. On failure prints the error and returns
// nullptr with *exit_code set to kExitUsage (bad options are usage errors).
std::unique_ptr<Engine> OpenEngine(const std::string& cmd, const PipelineFlags& flags,
                                   int* exit_code);

// Handles a record that failed: returns true to go on (with a warning under
// --skip-invalid), false after printing the error (then exit with
// kExitBadInput).
bool SkipOrFail(const std::string& cmd, const InputFlags& flags, const Record& rec,
                const Status& status);

}  // namespace neardup::cli

#endif  // NEARDUP_APPS_CLI_COMMON_H_
