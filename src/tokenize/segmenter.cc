// SPDX-License-Identifier: Apache-2.0
#include "tokenize/segmenter.h"

#include <map>
#include <mutex>

#include "base/file_util.h"
#include "base/status_macros.h"
#include "base/utf8.h"
#include "resources/data_dir.h"

namespace neardup::tokenize {
namespace {

bool IsAsciiAlnumChar(char32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsAsciiDigit(char32_t c) { return c >= '0' && c <= '9'; }

}  // namespace

struct Segmenter::Scratch {
  std::vector<char32_t> cps;
  std::vector<uint32_t> offsets;
  std::vector<double> logp;
  std::vector<uint32_t> next;
  std::vector<uint8_t> hmm_states;
  std::vector<uint32_t> hmm_ends;
  std::vector<uint32_t> block_ends;
};

bool IsJiebaBlockChar(char32_t c) {
  return IsJiebaHan(c) || IsAsciiAlnumChar(c) || c == '+' || c == '#' || c == '&' || c == '.' ||
         c == '_' || c == '%' || c == '-';
}

Segmenter::Segmenter(SegmenterOptions options, std::unique_ptr<Dictionary> dict,
                     std::unique_ptr<HmmModel> hmm)
    : options_(std::move(options)), dict_(std::move(dict)), hmm_(std::move(hmm)) {}

Result<std::unique_ptr<Segmenter>> Segmenter::Create(const SegmenterOptions& options) {
  const std::string dir = options.dict_dir.empty() ? resources::JiebaDir() : options.dict_dir;
  DictionaryOptions dopt;
  dopt.dict_path = options.dict_path.empty() ? dir + "/jieba.dict.utf8" : options.dict_path;
  dopt.user_dict_paths = options.user_dict_paths;
  dopt.use_cache = options.use_cache;
  dopt.cache_dir = options.cache_dir;
  NEARDUP_ASSIGN_OR_RETURN(auto dict, Dictionary::Load(dopt));
  NEARDUP_ASSIGN_OR_RETURN(
      auto hmm,
      HmmModel::Load(options.hmm_path.empty() ? dir + "/hmm_model.utf8" : options.hmm_path));
  return std::unique_ptr<Segmenter>(new Segmenter(options, std::move(dict), std::move(hmm)));
}

Result<std::shared_ptr<const Segmenter>> Segmenter::Shared(const SegmenterOptions& options) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const Segmenter>> instances;
  std::string key = options.dict_dir + '\0' + options.dict_path + '\0' + options.hmm_path + '\0' +
                    (options.hmm ? "1" : "0") + (options.use_cache ? "1" : "0") + '\0' +
                    options.cache_dir;
  for (const auto& u : options.user_dict_paths) key += '\0' + u;
  std::lock_guard<std::mutex> lock(mu);
  auto it = instances.find(key);
  if (it != instances.end()) return it->second;
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<Segmenter> seg, Create(options));
  std::shared_ptr<const Segmenter> shared(std::move(seg));
  instances.emplace(key, shared);
  return shared;
}

Status Segmenter::Cut(std::string_view text, std::vector<std::string_view>* tokens) const {
  Scratch* s = ThreadScratch();
  s->cps.clear();
  s->offsets.clear();
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t at = pos;
    const int32_t cp = base::DecodeUtf8(text, &pos);
    if (cp < 0) return Status::InvalidArgument("invalid UTF-8 at byte " + std::to_string(at));
    s->cps.push_back(static_cast<char32_t>(cp));
    s->offsets.push_back(static_cast<uint32_t>(at));
  }
  s->offsets.push_back(static_cast<uint32_t>(text.size()));
  const size_t n = s->cps.size();
  const char32_t* cps = s->cps.data();
  auto emit = [&](size_t a, size_t b) {
    tokens->push_back(text.substr(s->offsets[a], s->offsets[b] - s->offsets[a]));
  };
  size_t i = 0;
  while (i < n) {
    size_t j = i;
    if (IsJiebaBlockChar(cps[i])) {
      while (j < n && IsJiebaBlockChar(cps[j])) ++j;
      s->block_ends.clear();
      CutBlock(cps + i, j - i, &s->block_ends);
      size_t start = i;
      for (uint32_t e : s->block_ends) {
        emit(start, i + e);
        start = i + e;
      }
    } else {
      while (j < n && !IsJiebaBlockChar(cps[j])) ++j;
      for (size_t k = i; k < j; ++k) {
        if (cps[k] == '\r' && k + 1 < j && cps[k + 1] == '\n') {
          emit(k, k + 2);
          ++k;
        } else {
          emit(k, k + 1);
        }
      }
    }
    i = j;
  }
  return Status::OK();
}

void Segmenter::Route(const char32_t* chars, size_t n, Scratch* s) const {
  const base::CodeTrie& trie = dict_->trie();
  s->logp.resize(n + 1);
  s->next.resize(n + 1);
  s->logp[n] = 0.0;
  s->next[n] = static_cast<uint32_t>(n);
  const double log_total = dict_->log_total();
  for (size_t idx = n; idx-- > 0;) {
    double best = 0.0;
    int64_t best_x = -1;
    int32_t state = base::CodeTrie::kRoot;
    for (size_t x = idx; x < n; ++x) {
      state = trie.Child(state, chars[x]);
      if (state == base::CodeTrie::kNone) break;
      const int32_t id = trie.Value(state);
      if (id < 0) continue;
      const double cand = dict_->LogProb(id) + s->logp[x + 1];
      if (best_x < 0 || cand >= best) {  // ties: the later end wins, as in jieba
        best = cand;
        best_x = static_cast<int64_t>(x);
      }
    }
    if (best_x < 0) {
      best = -log_total + s->logp[idx + 1];
      best_x = static_cast<int64_t>(idx);
    }
    s->logp[idx] = best;
    s->next[idx] = static_cast<uint32_t>(best_x);
  }
}

bool Segmenter::IsWord(const char32_t* chars, size_t n) const {
  const base::CodeTrie& trie = dict_->trie();
  int32_t state = base::CodeTrie::kRoot;
  for (size_t k = 0; k < n; ++k) {
    state = trie.Child(state, chars[k]);
    if (state == base::CodeTrie::kNone) return false;
  }
  return n > 0 && trie.Value(state) >= 0;
}

void Segmenter::CutBlock(const char32_t* chars, size_t n, std::vector<uint32_t>* ends) const {
  if (n == 0) return;
  Scratch* s = ThreadScratch();
  Route(chars, n, s);
  const bool hmm = options_.hmm;
  size_t run = n;  // start of the pending run of single-character pieces
  for (size_t x = 0; x < n;) {
    const size_t y = s->next[x] + 1;
    const bool gather = y - x == 1 && (hmm || IsAsciiAlnumChar(chars[x]));
    if (gather) {
      if (run == n) run = x;
    } else {
      if (run != n) {
        if (hmm) {
          FlushSingles(chars, run, x, s, ends);
        } else {
          ends->push_back(static_cast<uint32_t>(x));
        }
        run = n;
      }
      ends->push_back(static_cast<uint32_t>(y));
    }
    x = y;
  }
  if (run != n) {
    if (hmm) {
      FlushSingles(chars, run, n, s, ends);
    } else {
      ends->push_back(static_cast<uint32_t>(n));
    }
  }
}

void Segmenter::FlushSingles(const char32_t* chars, size_t a, size_t b, Scratch* s,
                             std::vector<uint32_t>* ends) const {
  if (b - a == 1) {
    ends->push_back(static_cast<uint32_t>(b));
  } else if (!IsWord(chars + a, b - a)) {
    FinalSeg(chars, a, b, s, ends);
  } else {
    for (size_t k = a; k < b; ++k) ends->push_back(static_cast<uint32_t>(k + 1));
  }
}

void Segmenter::FinalSeg(const char32_t* chars, size_t a, size_t b, Scratch* s,
                         std::vector<uint32_t>* ends) const {
  size_t k = a;
  while (k < b) {
    size_t e = k;
    if (IsJiebaHan(chars[k])) {
      while (e < b && IsJiebaHan(chars[e])) ++e;
      s->hmm_ends.clear();
      hmm_->Cut(chars + k, e - k, &s->hmm_states, &s->hmm_ends);
      for (uint32_t end : s->hmm_ends) ends->push_back(static_cast<uint32_t>(k + end));
      k = e;
      continue;
    }
    while (e < b && !IsJiebaHan(chars[e])) ++e;
    // [a-zA-Z0-9]+(?:\.\d+)?%? and the non-empty pieces between matches.
    size_t p = k;
    while (p < e) {
      if (!IsAsciiAlnumChar(chars[p])) {
        ++p;
        continue;
      }
      if (p > k) ends->push_back(static_cast<uint32_t>(p));
      size_t q = p;
      while (q < e && IsAsciiAlnumChar(chars[q])) ++q;
      if (q + 1 < e && chars[q] == '.' && IsAsciiDigit(chars[q + 1])) {
        q += 2;
        while (q < e && IsAsciiDigit(chars[q])) ++q;
      }
      if (q < e && chars[q] == '%') ++q;
      ends->push_back(static_cast<uint32_t>(q));
      p = k = q;
    }
    if (k < e) ends->push_back(static_cast<uint32_t>(e));
    k = e;
  }
}

Segmenter::Scratch* Segmenter::ThreadScratch() {
  thread_local Scratch scratch;
  return &scratch;
}

}  // namespace neardup::tokenize
