// SPDX-License-Identifier: Apache-2.0
// `neardup segment [FILE...]`: prints each input line's words.
//
// With the default profile `jieba` the output reproduces
// `python3 -m jieba -d ' '` (jieba.lcut(line, HMM=True) on the raw line):
// tokens joined by single spaces, punctuation and white space included as
// tokens. A white-space token is printed verbatim, so "a b" prints as
// "a   b" (token, separator, the space token, separator, token), exactly as
// jieba's command line does. `--format json` prints one JSON array of tokens
// per line instead, which is unambiguous (the agreement test uses it).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/command.h"
#include "neardup/options.h"
#include "neardup/text.h"

namespace neardup::cli {
namespace {

struct SegmentArgs {
  std::vector<std::string> files;
  std::string profile = "jieba";
  std::string format = "text";
  SegmenterOptions seg;
  bool no_cache = false;
};

int Run(const SegmentArgs& args) {
  SegmenterOptions opts = args.seg;
  opts.use_cache = !args.no_cache;
  opts.hmm = args.profile != "jieba-nohmm";
  // zh-news: the words that profile's pipeline fingerprints (the same object
  // the engine runs, so the two cannot drift apart).
  std::unique_ptr<Segmenter> segmenter;
  std::unique_ptr<TextPipeline> pipeline;
  if (args.profile == "zh-news") {
    auto o = EngineOptions::FromProfile("zh-news");
    if (o.ok()) o->features.user_dicts = opts.user_dicts;
    auto p = o.ok() ? TextPipeline::Create(*o) : Result<std::unique_ptr<TextPipeline>>(o.status());
    if (!p.ok()) {
      std::cerr << "neardup segment: " << p.status().ToString() << "\n";
      return kExitBadInput;
    }
    pipeline = std::move(*p);
  } else {
    auto seg = Segmenter::Create(opts);
    if (!seg.ok()) {
      std::cerr << "neardup segment: " << seg.status().ToString() << "\n";
      return kExitBadInput;
    }
    segmenter = std::move(*seg);
  }
  const bool json = args.format == "json";
  std::vector<std::string> files = args.files;
  if (files.empty()) files.push_back("-");
  std::vector<std::string> tokens;
  std::string out;
  for (const auto& file : files) {
    std::ifstream in;
    if (file != "-") {
      in.open(file, std::ios::binary);
      if (!in) {
        std::cerr << "neardup segment: cannot open " << file << "\n";
        return kExitBadInput;
      }
    }
    std::istream& is = file == "-" ? std::cin : in;
    std::string line;
    size_t line_no = 0;
    while (std::getline(is, line)) {
      ++line_no;
      while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
      tokens.clear();
      const Status st = pipeline ? pipeline->Words(line, &tokens) : segmenter->Cut(line, &tokens);
      if (!st.ok()) {
        std::cerr << "neardup segment: " << (file == "-" ? "<stdin>" : file) << ":" << line_no
                  << ": " << st.ToString() << "\n";
        return kExitBadInput;
      }
      out.clear();
      if (json) {
        nlohmann::json arr = nlohmann::json::array();
        for (const auto& t : tokens) arr.push_back(t);
        out = arr.dump(-1, ' ', false);
      } else {
        for (size_t i = 0; i < tokens.size(); ++i) {
          if (i) out += ' ';
          out += tokens[i];
        }
      }
      out += '\n';
      std::fwrite(out.data(), 1, out.size(), stdout);
    }
  }
  std::fflush(stdout);
  return kExitOk;
}

void SetupSegment(CLI::App* app, int* exit_code) {
  auto args = std::make_shared<SegmentArgs>();
  CLI::App* cmd = app->add_subcommand(
      "segment",
      "Print each line's words. The default profile reproduces `python3 -m jieba -d ' '` "
      "(jieba.lcut(line, HMM=True)) on the raw text.");
  cmd->add_option("files", args->files, "Input files (default: standard input)");
  cmd->add_option("--profile", args->profile,
                  "jieba: jieba's accurate mode with HMM on raw text (default); "
                  "jieba-nohmm: the same with HMM=False; zh-news: the words the zh-news profile "
                  "fingerprints (normalized, Traditional folded to Simplified, stop words and "
                  "one-character words dropped)")
      ->check(CLI::IsMember({"jieba", "jieba-nohmm", "zh-news"}));
  cmd->add_option("--format", args->format,
                  "text: tokens separated by single spaces, white-space tokens verbatim "
                  "(as jieba's CLI); json: one JSON array of tokens per line")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--dict-dir", args->seg.dict_dir,
                  "Directory with jieba.dict.utf8 and hmm_model.utf8 (default: " +
                      Segmenter::DefaultDictDir() + ")");
  cmd->add_option("--dict", args->seg.dict_path, "Main dictionary (jieba format: word freq [tag])");
  cmd->add_option("--user-dict", args->seg.user_dicts,
                  "User dictionary (word [freq] [tag]); may repeat");
  cmd->add_option("--hmm-model", args->seg.hmm_path, "HMM model (cppjieba hmm_model.utf8 format)");
  cmd->add_option(
      "--cache-dir", args->seg.cache_dir,
      "Where the built dictionary image is cached (default: " + Segmenter::DefaultCacheDir() + ")");
  cmd->add_flag("--no-cache", args->no_cache,
                "Build the dictionary without reading or writing the cache");
  cmd->callback([args, exit_code] { *exit_code = Run(*args); });
}

}  // namespace

NEARDUP_REGISTER_COMMAND(50, SetupSegment);

}  // namespace neardup::cli
