// SPDX-License-Identifier: Apache-2.0
#include "cli/common.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "cli/command.h"
#include "neardup/utf8.h"

namespace neardup::cli {

void AddPipelineFlags(CLI::App* cmd, PipelineFlags* f) {
  std::string profiles;
  for (const auto& n : EngineOptions::ProfileNames()) profiles += (profiles.empty() ? "" : "|") + n;
  cmd->add_option("--profile", f->profile, "Pipeline profile: " + profiles)->capture_default_str();
  cmd->add_option("-k,--max-distance", f->max_distance,
                  "Hamming distance (0-32) within which fingerprints are near-duplicates "
                  "[profile default: 3]");
  cmd->add_option("--ngram", f->ngram, "Characters per feature in Han/no-space runs [3]");
  cmd->add_option("--word-ngram", f->word_ngram, "Words per feature in spaced scripts [1]");
  cmd->add_flag("--keep-punctuation", f->keep_punctuation,
                "Keep punctuation and symbols as features (default: dropped)");
  cmd->add_flag("--replace-invalid-utf8", f->replace_invalid_utf8,
                "Replace ill-formed UTF-8 with U+FFFD instead of rejecting the record");
  cmd->add_option("-j,--threads", f->threads, "Fingerprinting threads (0 = all cores)")
      ->capture_default_str();
  cmd->add_option("--data-dir", f->data_dir, "Directory of dictionaries (default: built-in)");
  cmd->add_option("--features", f->features,
                  "char-ngram (n-grams of Han, words elsewhere), words (jieba segmentation of "
                  "Han, ICU words elsewhere) or longest-sentence[:N] (n-grams of the N longest "
                  "sentences) [profile default]");
  cmd->add_option(
      "--weights", f->weights,
      "tf, or tfidf (jieba's idf.utf8; median IDF for unknown words) [profile default]");
  cmd->add_option("--top-n", f->top_n, "With tfidf: keep only the N heaviest words (0 = all)");
  cmd->add_option("--idf", f->idf,
                  "With tfidf, where IDF comes from: jieba (idf.utf8, the default), corpus (learned "
                  "from the input in a first pass; files only), stream (learned as documents "
                  "arrive)")
      ->check(CLI::IsMember({"jieba", "corpus", "stream"}));
  cmd->add_option("--idf-load", f->idf_load,
                  "Start from a saved document-frequency table (implies learned IDF)");
  cmd->add_option("--idf-save", f->idf_save, "Save the learned document-frequency table here");
  cmd->add_flag("--t2s", f->t2s,
                "Fold Traditional to Simplified Chinese (OpenCC t2s) [on in zh-* and auto]");
  cmd->add_flag("--no-t2s", f->no_t2s, "Do not fold Traditional to Simplified");
  cmd->add_flag("--t2s-taiwan", f->t2s_taiwan,
                "With T2S, first map Taiwan usage to mainland usage (OpenCC tw2sp: 程式->程序) "
                "[on in zh-* and auto]");
  cmd->add_flag("--no-t2s-taiwan", f->no_t2s_taiwan, "Plain t2s, without Taiwan usage");
  cmd->add_option(
      "--user-dict", f->user_dicts,
      "Extra jieba user dictionary for --features words (word [freq] [tag]); may repeat");
  cmd->add_option("--algorithm", f->algorithm,
                  "Candidate signals, comma-separated, first gives the evidence: "
                  "simhash|minhash|supershingle|imatch|spotsig|exact, e.g. exact,simhash,minhash "
                  "[profile default: simhash]");
  cmd->add_option("--verify", f->verify,
                  "Verify candidates before clustering: levenshtein[:0.8], lcs[:0.8], "
                  "jaccard[:0.8][,ngram=5], cosine[:0.9][,ngram=3], qbank[:0.8][,other=1.0], "
                  "or none [profile default: none; zh-short: levenshtein:0.8]");
  cmd->add_option("--minhash-threshold", f->minhash_threshold,
                  "Jaccard threshold of minhash (LSH bands and estimate) [0.8]");
  cmd->add_option("--minhash-ngram", f->minhash_ngram,
                  "Characters per shingle of minhash and supershingle; 0 = the pipeline's "
                  "features [5]");
  cmd->add_option("--spotsig-stop-words", f->spotsig_stop_words,
                  "spotsig stop words: en (built-in), zh (jieba's stop_words.utf8 plus English) "
                  "or a file [profile default]");
}

Result<EngineOptions> MakeEngineOptions(const PipelineFlags& f) {
  NEARDUP_ASSIGN_OR_RETURN(EngineOptions o, EngineOptions::FromProfile(f.profile));
  if (f.max_distance) o.max_distance = *f.max_distance;
  if (f.ngram) o.ngram = *f.ngram;
  if (f.word_ngram) o.word_ngram = *f.word_ngram;
  if (f.keep_punctuation) o.drop_punctuation = false;
  if (f.replace_invalid_utf8) o.replace_invalid_utf8 = true;
  o.threads = f.threads;
  if (!f.data_dir.empty()) o.data_dir = f.data_dir;
  if (f.features) o.features = *f.features;
  if (f.weights) o.weights = *f.weights;
  if (f.top_n) o.top_n = *f.top_n;
  if (f.idf == "jieba") o.idf = "jieba";
  if (f.idf == "corpus" || f.idf == "stream" || !f.idf_load.empty() || !f.idf_save.empty()) {
    if (f.idf == "jieba") return Status::InvalidArgument("--idf-load/--idf-save need learned IDF");
    o.idf = "learned";
  }
  o.learn_idf = f.idf == "stream";
  if (o.idf == "learned" && o.weights != "tfidf") {
    return Status::InvalidArgument(
        "learned IDF needs TF-IDF weights (--profile zh-news, or --features words --weights tfidf)");
  }
  if (f.t2s) o.fold_t2s = true;
  if (f.no_t2s) o.fold_t2s = false;
  if (f.t2s_taiwan) o.t2s_taiwan = true;
  if (f.no_t2s_taiwan) o.t2s_taiwan = false;
  if (!f.user_dicts.empty()) o.user_dicts = f.user_dicts;
  if (f.algorithm) o.algorithms = *f.algorithm;
  if (f.verify) o.verify = *f.verify;
  if (f.minhash_threshold) o.minhash_threshold = *f.minhash_threshold;
  if (f.minhash_ngram) o.minhash_ngram = *f.minhash_ngram;
  if (f.spotsig_stop_words) o.spotsig_stop_words = *f.spotsig_stop_words;
  return o;
}

void AddInputFlags(CLI::App* cmd, InputFlags* f) {
  cmd->add_option("files", f->files, "JSONL input files (default or '-': stdin)");
  cmd->add_option("--text-field", f->text_field, "Field holding the text")->capture_default_str();
  cmd->add_option("--id-field", f->id_field,
                  "Field holding the id (string or number); the line number when absent")
      ->capture_default_str();
  cmd->add_flag("--skip-invalid", f->skip_invalid,
                "Skip bad records with a warning instead of stopping with exit code 1");
  cmd->add_flag("-q,--quiet", f->quiet, "No progress or summary on stderr");
}

JsonlReader::JsonlReader(const InputFlags& flags, bool keep_raw)
    : flags_(flags), keep_raw_(keep_raw) {
  if (flags_.files.empty()) flags_.files.push_back("-");
  for (const auto& f : flags_.files) {
    struct stat st;
    if (f != "-" && stat(f.c_str(), &st) == 0) total_bytes_ += st.st_size;
  }
}

Status JsonlReader::OpenNext() {
  const std::string& name = flags_.files[file_index_];
  line_ = 0;
  if (name == "-") {
    current_name_ = "<stdin>";
    file_.reset();
    in_ = &std::cin;
    return Status::OK();
  }
  current_name_ = name;
  file_ = std::make_unique<std::ifstream>(name, std::ios::binary);
  if (!*file_) return Status::NotFound(name + ": cannot open file");
  in_ = file_.get();
  return Status::OK();
}

Status JsonlReader::Parse(std::string&& line, Record* rec) {
  if (Status s = ValidateUtf8(line); !s.ok()) {
    if (!flags_.replace_invalid_utf8) return s;
    line = ReplaceInvalidUtf8(line);
  }
  auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument("malformed JSON");
  if (!j.is_object()) return Status::InvalidArgument("record is not a JSON object");
  auto t = j.find(flags_.text_field);
  if (t == j.end()) return Status::InvalidArgument("missing field '" + flags_.text_field + "'");
  if (!t->is_string())
    return Status::InvalidArgument("field '" + flags_.text_field + "' is not a string");
  rec->text = t->get<std::string>();
  auto id = j.find(flags_.id_field);
  if (id == j.end() || id->is_null()) {
    rec->id = line_;
  } else if (id->is_string() || id->is_number_integer() || id->is_number_unsigned()) {
    rec->id = *id;
  } else {
    return Status::InvalidArgument("field '" + flags_.id_field +
                                   "' must be a string or an integer");
  }
  if (keep_raw_) rec->raw = std::move(line);
  return Status::OK();
}

Result<bool> JsonlReader::Next(size_t max, std::vector<Record>* batch) {
  batch->clear();
  std::string line;
  while (batch->size() < max) {
    if (in_ == nullptr) {
      if (file_index_ >= flags_.files.size()) break;
      NEARDUP_RETURN_IF_ERROR(OpenNext());
    }
    if (!std::getline(*in_, line)) {
      if (in_->bad()) return Status::IOError(current_name_ + ": read error");
      in_ = nullptr;
      ++file_index_;
      continue;
    }
    ++line_;
    bytes_read_ += line.size() + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;  // blank line
    Record rec;
    rec.file = current_name_;
    rec.line = line_;
    Status s = Parse(std::move(line), &rec);
    if (!s.ok()) {
      s = s.WithContext(current_name_ + ":" + std::to_string(line_));
      if (!flags_.skip_invalid) return s;
      if (!flags_.quiet) std::cerr << "neardup: skipping " << s.message() << "\n";
      ++skipped_;
      continue;
    }
    batch->push_back(std::move(rec));
  }
  return !batch->empty();
}

Result<std::unique_ptr<Output>> Output::Open(const std::string& path) {
  auto o = std::make_unique<Output>();
  o->path_ = path;
  if (path.empty() || path == "-") {
    o->out_ = &std::cout;
  } else {
    o->file_ = std::make_unique<std::ofstream>(path, std::ios::binary | std::ios::trunc);
    if (!*o->file_) return Status::IOError(path + ": cannot create file");
    o->out_ = o->file_.get();
  }
  return o;
}

Status Output::Close() {
  out_->flush();
  if (file_) file_->close();
  if (out_->fail() || (file_ && file_->fail())) {
    return Status::IOError((path_.empty() || path_ == "-" ? "<stdout>" : path_) +
                           ": write failed (disk full?)");
  }
  return Status::OK();
}

Progress::Progress(std::string label, bool enabled)
    : label_(std::move(label)), enabled_(enabled && isatty(STDERR_FILENO)) {
  start_ = last_ = std::chrono::steady_clock::now();
}

void Progress::Update(uint64_t bytes, uint64_t total, uint64_t docs) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (now - last_ < std::chrono::milliseconds(200)) return;
  last_ = now;
  const double secs = std::chrono::duration<double>(now - start_).count();
  if (total > 0) {
    const double frac = std::min(1.0, static_cast<double>(bytes) / total);
    const int width = 30, filled = static_cast<int>(frac * width);
    std::fprintf(stderr, "\r%s [%s%s] %5.1f%% %.1f/%.1f MB %llu docs %.1fs", label_.c_str(),
                 std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(),
                 100 * frac, bytes / 1e6, total / 1e6, static_cast<unsigned long long>(docs), secs);
  } else {
    std::fprintf(stderr, "\r%s %.1f MB %llu docs %.1fs", label_.c_str(), bytes / 1e6,
                 static_cast<unsigned long long>(docs), secs);
  }
  std::fflush(stderr);
}

void Progress::Finish() {
  if (enabled_) std::fprintf(stderr, "\r\033[K");
}

int Fail(const std::string& cmd, const Status& status) {
  std::cerr << "neardup " << cmd << ": " << status.message() << "\n";
  return kExitBadInput;
}

std::unique_ptr<Engine> OpenEngine(const std::string& cmd, const PipelineFlags& flags,
                                   int* exit_code) {
  auto options = MakeEngineOptions(flags);
  auto engine =
      options.ok() ? Engine::Create(*options) : Result<std::unique_ptr<Engine>>(options.status());
  if (!engine.ok()) {
    Fail(cmd, engine.status());
    *exit_code = kExitUsage;
    return nullptr;
  }
  return std::move(engine).value();
}

bool LoadIdfFlag(const std::string& cmd, const PipelineFlags& flags, Engine* engine) {
  if (flags.idf_load.empty()) return true;
  Status s = engine->LoadIdf(flags.idf_load);
  if (!s.ok()) Fail(cmd, s.WithContext(flags.idf_load));
  return s.ok();
}

bool SaveIdfFlag(const std::string& cmd, const PipelineFlags& flags, const Engine& engine) {
  if (flags.idf_save.empty()) return true;
  Status s = engine.SaveIdf(flags.idf_save);
  if (!s.ok()) Fail(cmd, s.WithContext(flags.idf_save));
  return s.ok();
}

bool SkipOrFail(const std::string& cmd, const InputFlags& flags, const Record& rec,
                const Status& status) {
  Status s = status.WithContext(rec.file + ":" + std::to_string(rec.line));
  if (!flags.skip_invalid) {
    Fail(cmd, s);
    return false;
  }
  if (!flags.quiet) std::cerr << "neardup: skipping " << s.message() << "\n";
  return true;
}

}  // namespace neardup::cli
