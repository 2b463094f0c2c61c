// SPDX-License-Identifier: Apache-2.0
#include "cli/common.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iostream>

#include "base/machine.h"
#include "cli/command.h"
#include "neardup/utf8.h"

namespace neardup::cli {

Result<double> ParseDouble(std::string_view s, std::string_view what) {
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) {
    return Status::InvalidArgument("bad " + std::string(what) + " '" + std::string(s) + "'");
  }
  return v;
}

void AddPipelineFlags(CLI::App* cmd, PipelineFlags* f) {
  std::string profiles;
  for (const auto& n : EngineOptions::ProfileNames()) profiles += (profiles.empty() ? "" : "|") + n;
  cmd->add_option("--profile", f->profile, "Pipeline profile: " + profiles + " (docs/profiles.md)")
      ->capture_default_str();
  cmd->add_option("-t,--threshold", f->threshold,
                  "Similarity (0..1) at which two texts are near-duplicates; the one knob "
                  "[profile default: 0.6; simhash: 1-k/64]")
      ->check(CLI::Range(0.0, 1.0));
  auto* g = cmd->add_option_group("Pipeline details", "Override parts of the profile");
  g->add_option("--shingles", f->shingles,
                "Shingle sets for MinHash and verification: script:C[,W] (C-character n-grams of "
                "Han, W-word n-grams elsewhere), char:N, word:N [profile default: script:3,2]");
  g->add_option("--signals,--algorithm", f->signals,
                "Candidate signals, comma-separated, the first gives the evidence: "
                "exact|simhash|minhash|containment|supershingle|imatch|spotsig [profile default: "
                "exact,minhash,containment]");
  g->add_option("--verify", f->verify,
                "How a candidate pair is decided: similarity (shingle Jaccard, edit similarity "
                "for short texts), jaccard, containment, cosine, levenshtein, lcs, qbank, or "
                "none; KIND:T also sets the threshold [profile default: similarity]");
  g->add_option("-k,--max-distance", f->max_distance,
                "SimHash: Hamming distance (0-32) within which fingerprints are candidates "
                "[default: from the threshold, 1-k/64]");
  g->add_option("--num-perm", f->num_perm, "MinHash permutations [128]");
  g->add_option("--minhash-scheme", f->minhash_scheme,
                "How the MinHash signature is computed: permutations (P independent), oph (one "
                "permutation, densified bins), cminhash (two permutations, circulant) "
                "[profile default]");
  g->add_option("--bands", f->bands, "MinHash LSH bands [chosen from the threshold]");
  g->add_option("--rows", f->rows, "MinHash LSH rows per band [chosen from the threshold]");
  g->add_option("--candidate-threshold,--minhash-threshold", f->candidate_threshold,
                "Similarity the LSH bands aim at [threshold - 0.1]");
  g->add_option("--minhash-ngram", f->minhash_ngram, "Older spelling of --shingles script:N,1");
  g->add_option("--edit-weight", f->edit_weight,
                "similarity verifier: an edit of a short text counts this many times its share "
                "of the text [profile default]");
  g->add_option("--short-numbers", f->short_numbers,
                "similarity verifier: texts up to --short-chars with a number or an expression "
                "replaced are not near-duplicates (\"3+5\" vs \"3+6\", \"a+b\" vs \"a-b\"): "
                "true or false [true]");
  g->add_option("--short-words", f->short_words,
                "similarity verifier: texts up to --short-chars, mostly Han, with a Latin word "
                "replaced are not near-duplicates (\"求 x\" vs \"求 y\"): true or false [true]");
  g->add_option("--boilerplate-documents", f->boilerplate_documents,
                "similarity verifier, engines: text repeated by this many documents that "
                "started clusters (a site's footer, an ad) is left out of the similarity of "
                "texts over --short-chars; 0 turns the guard off [8]");
  g->add_option("--containment", f->containment,
                "similarity verifier: a pair under the threshold is still a near-duplicate when "
                "the smaller text (100 shingles of its own at least, not both under "
                "--short-chars) lies this much inside the larger: an excerpt, a story with a "
                "paragraph added; 0 turns the rule off [0.8]")
      ->check(CLI::Range(0.0, 1.0));
  g->add_option("--short-chars", f->short_chars,
                "similarity verifier: texts up to this many characters also get the edit "
                "similarity [200]");
  g->add_option("--ngram", f->ngram, "SimHash features: characters per Han/no-space n-gram [3]");
  g->add_option("--word-ngram", f->word_ngram, "SimHash features: words per shingle [1]");
  g->add_flag("--keep-punctuation", f->keep_punctuation,
              "Keep punctuation and symbols as features (default: dropped)");
  cmd->add_flag("--replace-invalid-utf8", f->replace_invalid_utf8,
                "Replace ill-formed UTF-8 with U+FFFD instead of rejecting the record");
  cmd->add_option("-j,--threads", f->threads, "Worker threads (0 = all cores)")
      ->capture_default_str();
  cmd->add_option("--data-dir", f->data_dir, "Directory of dictionaries (default: built-in)");
  g->add_option("--features", f->features,
                "SimHash features: char-ngram, words (jieba) or longest-sentence[:N] "
                "[profile default]");
  g->add_option("--weights", f->weights,
                "SimHash weights: tf, or tfidf (jieba's idf.utf8) [profile default]");
  g->add_option("--top-n", f->top_n, "With tfidf: keep only the N heaviest words (0 = all)");
  g->add_option("--idf", f->idf,
                "With tfidf, where IDF comes from: jieba (idf.utf8, the default), corpus (learned "
                "from the input in a first pass; files only), stream (learned as documents "
                "arrive)")
      ->check(CLI::IsMember({"jieba", "corpus", "stream"}));
  g->add_option("--idf-load", f->idf_load,
                "Start from a saved document-frequency table (implies learned IDF)");
  g->add_option("--idf-save", f->idf_save, "Save the learned document-frequency table here");
  g->add_flag("--t2s", f->t2s, "Fold Traditional to Simplified Chinese (on by default)");
  g->add_flag("--no-t2s", f->no_t2s, "Do not fold Traditional to Simplified");
  g->add_flag("--t2s-taiwan", f->t2s_taiwan,
              "With T2S, first map Taiwan usage to mainland usage (程式->程序) (on by default)");
  g->add_flag("--no-t2s-taiwan", f->no_t2s_taiwan, "Plain t2s, without Taiwan usage");
  g->add_option("--user-dict", f->user_dicts,
                "Extra jieba user dictionary for --features words (word [freq] [tag])");
  g->add_option("--spotsig-stop-words", f->spotsig_stop_words,
                "spotsig stop words: en (built-in), zh (jieba's plus English) or a file");
}

Result<EngineOptions> MakeEngineOptions(const PipelineFlags& f) {
  NEARDUP_ASSIGN_OR_RETURN(EngineOptions o, EngineOptions::FromProfile(f.profile));
  if (f.threshold) o.threshold = *f.threshold;
  if (f.max_distance) {
    o.simhash.max_distance = *f.max_distance;
    if (!f.threshold && o.verify.kind == VerifyKind::kNone)
      o.threshold = 1.0 - *f.max_distance / 64.0;
  }
  if (f.minhash_ngram) o.shingles = {ShingleKind::kScript, *f.minhash_ngram, 1};
  if (f.shingles) {
    NEARDUP_ASSIGN_OR_RETURN(o.shingles, ParseShingles(*f.shingles));
  }
  if (f.signals) {
    NEARDUP_ASSIGN_OR_RETURN(o.signals, ParseSignals(*f.signals));
  }
  if (f.verify) {
    NEARDUP_ASSIGN_OR_RETURN(const VerifySpec v, ParseVerifySpec(*f.verify));
    ApplyVerifySpec(v, &o);  // KIND:T sets the threshold, over -t
  }
  if (f.num_perm) o.minhash.num_perm = *f.num_perm;
  if (f.minhash_scheme) {
    NEARDUP_ASSIGN_OR_RETURN(o.minhash.scheme, ParseMinHashScheme(*f.minhash_scheme));
  }
  if (f.bands) o.minhash.bands = *f.bands;
  if (f.rows) o.minhash.rows = *f.rows;
  if (f.candidate_threshold) o.minhash.candidate_threshold = *f.candidate_threshold;
  if (f.short_chars) o.verify.short_chars = *f.short_chars;
  if (f.edit_weight) o.verify.edit_weight = *f.edit_weight;
  if (f.short_numbers) o.verify.short_numbers = *f.short_numbers;
  if (f.short_words) o.verify.short_words = *f.short_words;
  if (f.boilerplate_documents) o.verify.boilerplate_documents = *f.boilerplate_documents;
  if (f.containment) o.verify.containment = *f.containment;
  if (f.ngram) o.features.ngram = *f.ngram;
  if (f.word_ngram) o.features.word_ngram = *f.word_ngram;
  if (f.keep_punctuation) o.normalize.drop_punctuation = false;
  if (f.replace_invalid_utf8) o.normalize.replace_invalid_utf8 = true;
  NEARDUP_RETURN_IF_ERROR(base::CheckThreads(f.threads, "-j"));
  o.threads = f.threads;
  if (!f.data_dir.empty()) o.data_dir = f.data_dir;
  if (f.features) {
    std::string_view kind = *f.features;
    if (kind.starts_with("longest-sentence:")) {
      NEARDUP_ASSIGN_OR_RETURN(double n, ParseDouble(kind.substr(17), "sentence count"));
      o.features.longest_sentences = static_cast<int>(n);
      kind = "longest-sentence";
    }
    NEARDUP_ASSIGN_OR_RETURN(o.features.kind, ParseFeatureKind(kind));
  }
  if (f.weights) {
    NEARDUP_ASSIGN_OR_RETURN(o.features.weights, ParseWeights(*f.weights));
  }
  if (f.top_n) o.features.top_n = *f.top_n;
  if (f.idf == "jieba") o.features.idf = IdfSource::kJieba;
  if (f.idf == "corpus" || f.idf == "stream" || !f.idf_load.empty() || !f.idf_save.empty()) {
    if (f.idf == "jieba") return Status::InvalidArgument("--idf-load/--idf-save need learned IDF");
    o.features.idf = IdfSource::kLearned;
  }
  o.features.learn_idf = f.idf == "stream";
  if (o.features.idf == IdfSource::kLearned && o.features.weights != Weights::kTfIdf) {
    return Status::InvalidArgument(
        "learned IDF needs TF-IDF weights (--profile zh-news, or --features words --weights "
        "tfidf)");
  }
  if (f.t2s && o.normalize.t2s == T2S::kOff) o.normalize.t2s = T2S::kTaiwan;
  if (f.no_t2s) o.normalize.t2s = T2S::kOff;
  if (f.t2s_taiwan && o.normalize.t2s != T2S::kOff) o.normalize.t2s = T2S::kTaiwan;
  if (f.no_t2s_taiwan && o.normalize.t2s == T2S::kTaiwan) o.normalize.t2s = T2S::kPhrases;
  if (!f.user_dicts.empty()) o.features.user_dicts = f.user_dicts;
  if (f.spotsig_stop_words) o.spotsig.stop_words = *f.spotsig_stop_words;
  if (f.max_distance &&
      std::find(o.signals.begin(), o.signals.end(), SignalKind::kSimHash) == o.signals.end()) {
    return Status::InvalidArgument(
        "-k sets the SimHash distance, but profile '" + o.profile +
        "' has no simhash signal: use --threshold, or --profile simhash");
  }
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

RecordBatches::RecordBatches(const InputFlags& flags)
    : reader_(flags.files,
              JsonlOptions{flags.text_field, flags.id_field, flags.replace_invalid_utf8}),
      skip_invalid_(flags.skip_invalid),
      quiet_(flags.quiet) {}

Result<bool> RecordBatches::Next(size_t max, std::vector<Record>* batch) {
  batch->clear();
  JsonlRecord rec;
  while (batch->size() < max) {
    Result<bool> more = reader_.Next(&rec);
    if (!more.ok()) {
      // A bad record; I/O errors end the input.
      if (!skip_invalid_ || more.status().code() != StatusCode::kInvalidArgument) {
        return more.status();
      }
      if (!quiet_) std::cerr << "neardup: skipping " << more.status().message() << "\n";
      ++skipped_;
      continue;
    }
    if (!*more) break;
    batch->push_back(
        Record{std::string(rec.file), rec.line, std::string(rec.id), std::string(rec.text)});
  }
  return !batch->empty();
}

Status CheckNotAnInput(const std::string& output, const std::vector<std::string>& inputs) {
  if (output.empty() || output == "-") return Status::OK();
  for (const auto& in : inputs) {
    if (in != "-" && base::SameFile(output, in)) {
      return Status::InvalidArgument("the output " + output + " is the input " + in +
                                     "; writing it would destroy the input: give another -o");
    }
  }
  return Status::OK();
}

Result<std::unique_ptr<Output>> Output::Open(const std::string& path,
                                             const std::vector<std::string>& inputs) {
  NEARDUP_RETURN_IF_ERROR(CheckNotAnInput(path, inputs));
  auto o = std::make_unique<Output>();
  o->path_ = path;
  if (path.empty() || path == "-") {
    o->out_ = &std::cout;
    return o;
  }
  NEARDUP_ASSIGN_OR_RETURN(o->atomic_, base::AtomicFile::Create(path));
  o->file_ =
      std::make_unique<std::ofstream>(o->atomic_->write_path(), std::ios::binary | std::ios::trunc);
  if (!*o->file_) return Status::IOError(path + ": cannot create file");
  o->out_ = o->file_.get();
  return o;
}

Status Output::Close() {
  out_->flush();
  if (file_) file_->close();
  if (out_->fail() || (file_ && file_->fail())) {
    return Status::IOError((path_.empty() || path_ == "-" ? "<stdout>" : path_) +
                           ": write failed (disk full?)");
  }
  return atomic_ ? atomic_->Commit() : Status::OK();
}

std::unique_ptr<Output> OpenOutput(const std::string& cmd, const std::string& path,
                                   const std::vector<std::string>& inputs, int* exit_code) {
  auto out = Output::Open(path, inputs);
  if (out.ok()) return std::move(out).value();
  Fail(cmd, out.status());
  *exit_code = out.status().IsInvalidArgument() ? kExitUsage : kExitBadInput;
  return nullptr;
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
