// SPDX-License-Identifier: Apache-2.0
#include "sketch/spotsig.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>

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

double SortedSetJaccard(std::span<const uint64_t> a, std::span<const uint64_t> b) {
  if (a.empty() && b.empty()) return 0.0;
  size_t i = 0, j = 0, inter = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] < b[j])
      ++i;
    else if (b[j] < a[i])
      ++j;
    else
      ++inter, ++i, ++j;
  }
  return static_cast<double>(inter) / static_cast<double>(a.size() + b.size() - inter);
}

namespace {

// Smallest overlap a set of size n needs with any set to reach Jaccard tau.
size_t MinOverlap(size_t n, double tau) {
  return std::max<size_t>(1, static_cast<size_t>(std::ceil(tau * static_cast<double>(n) - 1e-9)));
}

}  // namespace

Result<SpotSigIndex> SpotSigIndex::Create(double threshold) {
  if (!(threshold > 0.0 && threshold <= 1.0)) {
    return Status::InvalidArgument("SpotSig threshold must be in (0, 1]");
  }
  return SpotSigIndex(threshold);
}

size_t SpotSigIndex::PartitionOf(size_t size) const {
  size_t k = 0;
  for (size_t lo = 1;; ++k) {
    const size_t next =
        std::max(lo + 1, static_cast<size_t>(std::floor(static_cast<double>(lo) / threshold_)) + 1);
    if (size < next) return k;
    lo = next;
  }
}

Status SpotSigIndex::Insert(uint64_t id, std::span<const uint64_t> signatures) {
  if (docs_.contains(id)) return Status::AlreadyExists("id " + std::to_string(id));
  for (size_t i = 1; i < signatures.size(); ++i) {
    if (signatures[i - 1] >= signatures[i]) {
      return Status::InvalidArgument("SpotSig signatures must be sorted and distinct");
    }
  }
  docs_.emplace(id, std::vector<uint64_t>(signatures.begin(), signatures.end()));
  if (signatures.empty()) return Status::OK();
  Postings& postings = partitions_[PartitionOf(signatures.size())];
  for (uint64_t s : signatures) postings[s].push_back(id);
  return Status::OK();
}

Status SpotSigIndex::Remove(uint64_t id) {
  auto it = docs_.find(id);
  if (it == docs_.end()) return Status::NotFound("id " + std::to_string(id));
  if (!it->second.empty()) {
    auto part = partitions_.find(PartitionOf(it->second.size()));
    NEARDUP_CHECK(part != partitions_.end());
    for (uint64_t s : it->second) {
      auto list = part->second.find(s);
      NEARDUP_CHECK(list != part->second.end());
      auto pos = std::find(list->second.begin(), list->second.end(), id);
      NEARDUP_CHECK(pos != list->second.end());
      *pos = list->second.back();
      list->second.pop_back();
      if (list->second.empty()) part->second.erase(list);
    }
    if (part->second.empty()) partitions_.erase(part);
  }
  docs_.erase(it);
  return Status::OK();
}

std::vector<SpotSigMatch> SpotSigIndex::Query(std::span<const uint64_t> signatures) const {
  std::vector<SpotSigMatch> out;
  const size_t n = signatures.size();
  if (n == 0) return out;
  const double tau = threshold_;
  const size_t min_size = MinOverlap(n, tau);
  const size_t max_size = static_cast<size_t>(std::floor(static_cast<double>(n) / tau + 1e-9));
  const size_t probes = n - MinOverlap(n, tau) + 1;
  std::vector<uint64_t> candidates;
  std::vector<std::pair<size_t, uint64_t>> lists;  // (posting length, signature)
  for (auto part = partitions_.lower_bound(PartitionOf(min_size));
       part != partitions_.end() && part->first <= PartitionOf(max_size); ++part) {
    lists.clear();
    for (uint64_t s : signatures) {
      auto it = part->second.find(s);
      lists.emplace_back(it == part->second.end() ? 0 : it->second.size(), s);
    }
    // Probe the shortest lists; any match owns one of these signatures.
    std::partial_sort(lists.begin(), lists.begin() + static_cast<ptrdiff_t>(probes), lists.end());
    for (size_t i = 0; i < probes; ++i) {
      if (lists[i].first == 0) continue;
      const auto& ids = part->second.at(lists[i].second);
      candidates.insert(candidates.end(), ids.begin(), ids.end());
    }
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  for (uint64_t id : candidates) {
    const auto& other = docs_.at(id);
    if (other.size() < min_size || other.size() > max_size) continue;
    const double j = SortedSetJaccard(signatures, other);
    if (j >= tau - 1e-12) out.push_back({id, j});
  }
  std::sort(out.begin(), out.end(), [](const SpotSigMatch& a, const SpotSigMatch& b) {
    return a.jaccard != b.jaccard ? a.jaccard > b.jaccard : a.id < b.id;
  });
  return out;
}

}  // namespace neardup::sketch
