// SPDX-License-Identifier: Apache-2.0
#include "sketch/spotsig.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>

#include "base/status_macros.h"
#include "base/utf8.h"
#include "normalize/char_class.h"
#include "resources/tables.h"

namespace neardup::sketch {
namespace {

using normalize::CharClass;

uint64_t TokenHash(std::string_view token) { return XXH3_64bits(token.data(), token.size()); }

constexpr std::string_view kEnglishAntecedents[] = {
    "a",   "an",   "the", "is",   "are",   "was", "were",  "be",   "been", "there", "said",
    "has", "have", "had", "will", "would", "can", "could", "this", "that", "these", "those"};
constexpr std::string_view kEnglishStopWords[] = {
    "to",   "of",   "in",    "on",    "at",    "by",   "for",   "with",  "from", "and",
    "or",   "but",  "not",   "it",    "its",   "as",   "he",    "she",   "they", "we",
    "you",  "i",    "his",   "her",   "their", "our",  "my",    "which", "who",  "whom",
    "what", "when", "where", "if",    "then",  "than", "so",    "do",    "does", "did",
    "no",   "up",   "out",   "about", "into",  "over", "after", "also",  "more", "most",
    "some", "any",  "all",   "such",  "only",  "just", "very",  "him",   "them", "us"};
constexpr std::string_view kChineseAntecedents[] = {"的", "了", "是", "在", "和", "有", "也",
                                                    "就", "都", "而", "与", "及", "将", "被",
                                                    "把", "对", "这", "之", "其", "为"};

size_t CodePoints(std::string_view s) {
  size_t n = 0, pos = 0;
  while (pos < s.size()) {
    base::DecodeUtf8(s, &pos);
    ++n;
  }
  return n;
}

bool AllNoSpace(std::string_view s) {
  size_t pos = 0;
  while (pos < s.size()) {
    const int32_t cp = base::DecodeUtf8(s, &pos);
    if (cp < 0 || normalize::Classify(cp) != CharClass::kNoSpace) return false;
  }
  return !s.empty();
}

}  // namespace

SpotSigOptions EnglishSpotSigOptions() {
  SpotSigOptions o;
  o.antecedents.assign(std::begin(kEnglishAntecedents), std::end(kEnglishAntecedents));
  o.stop_words.assign(std::begin(kEnglishStopWords), std::end(kEnglishStopWords));
  return o;
}

Result<std::vector<std::string>> LoadStopWords(const std::string& path) {
  NEARDUP_ASSIGN_OR_RETURN(std::vector<std::string> words, resources::LoadWordList(path));
  for (auto& w : words) {
    for (char& c : w) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return words;
}

Result<SpotSigOptions> ChineseSpotSigOptions(const std::string& stop_words_path) {
  NEARDUP_ASSIGN_OR_RETURN(std::vector<std::string> words, LoadStopWords(stop_words_path));
  SpotSigOptions o = EnglishSpotSigOptions();
  const std::unordered_set<std::string> listed(words.begin(), words.end());
  for (std::string_view a : kChineseAntecedents) {
    if (listed.contains(std::string(a))) o.antecedents.emplace_back(a);
  }
  if (o.antecedents.size() == std::size(kEnglishAntecedents)) {
    return Status::InvalidArgument(stop_words_path + " lists none of the Chinese antecedents");
  }
  o.stop_words.insert(o.stop_words.end(), words.begin(), words.end());
  return o;
}

SpotSigExtractor::SpotSigExtractor(const SpotSigOptions& options) : options_(options) {
  auto add_stop = [&](std::string_view w) {
    stop_.insert(TokenHash(w));
    if (AllNoSpace(w)) max_stop_chars_ = std::max(max_stop_chars_, CodePoints(w));
  };
  for (const auto& w : options.stop_words) add_stop(w);
  for (const auto& w : options.antecedents) {
    add_stop(w);
    antecedents_.insert(TokenHash(w));
  }
}

Result<SpotSigExtractor> SpotSigExtractor::Create(const SpotSigOptions& options) {
  if (options.antecedents.empty()) return Status::InvalidArgument("SpotSig needs antecedents");
  if (options.chain_length < 1 || options.spot_distance < 1) {
    return Status::InvalidArgument("SpotSig chain_length and spot_distance must be >= 1");
  }
  return SpotSigExtractor(options);
}

bool SpotSigExtractor::IsStop(std::string_view token) const {
  return stop_.contains(TokenHash(token));
}
bool SpotSigExtractor::IsAntecedent(std::string_view token) const {
  return antecedents_.contains(TokenHash(token));
}

void SpotSigExtractor::Tokenize(std::string_view text,
                                std::vector<std::string_view>* tokens) const {
  std::vector<size_t> run;  // byte offsets of the current no-space run's characters
  size_t word_start = std::string_view::npos;
  auto end_word = [&](size_t end) {
    if (word_start != std::string_view::npos)
      tokens->push_back(text.substr(word_start, end - word_start));
    word_start = std::string_view::npos;
  };
  auto end_run = [&](size_t end) {
    if (run.empty()) return;
    run.push_back(end);
    const size_t chars = run.size() - 1;
    for (size_t i = 0; i < chars;) {
      size_t len = 1;
      for (size_t l = std::min(max_stop_chars_, chars - i); l >= 2; --l) {
        if (IsStop(text.substr(run[i], run[i + l] - run[i]))) {
          len = l;
          break;
        }
      }
      tokens->push_back(text.substr(run[i], run[i + len] - run[i]));
      i += len;
    }
    run.clear();
  };
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t start = pos;
    const int32_t cp = base::DecodeUtf8(text, &pos);
    const CharClass cls = cp < 0 ? CharClass::kControl : normalize::Classify(cp);
    if (cls == CharClass::kNoSpace) {
      end_word(start);
      run.push_back(start);
    } else if (cls == CharClass::kWord) {
      end_run(start);
      if (word_start == std::string_view::npos) word_start = start;
    } else {
      end_word(start);
      end_run(start);
    }
  }
  end_word(text.size());
  end_run(text.size());
}

std::vector<std::string> SpotSigExtractor::ExtractStrings(std::string_view normalized) const {
  std::vector<std::string_view> tokens;
  Tokenize(normalized, &tokens);
  std::vector<char> stop(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) stop[i] = IsStop(tokens[i]);
  std::vector<std::string> out;
  const int c = options_.chain_length, d = options_.spot_distance;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (!IsAntecedent(tokens[i])) continue;
    std::string sig(tokens[i]);
    int taken = 0, seen = 0;
    for (size_t j = i + 1; j < tokens.size() && taken < c; ++j) {
      if (stop[j]) continue;
      if (++seen % d != 0) continue;
      sig += ':';
      sig += tokens[j];
      ++taken;
    }
    if (taken == c) out.push_back(std::move(sig));
  }
  return out;
}

std::vector<uint64_t> SpotSigExtractor::Extract(std::string_view normalized) const {
  std::vector<uint64_t> out;
  for (const auto& s : ExtractStrings(normalized)) out.push_back(TokenHash(s));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace neardup::sketch
