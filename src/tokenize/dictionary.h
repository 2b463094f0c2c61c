// SPDX-License-Identifier: Apache-2.0
//
// Dictionary: jieba's prefix dictionary of word frequencies, as a base::CodeTrie.
//
// The text format is jieba's: one "word freq [tag]" per line. As in jieba
// (Sun Junyi, github.com/fxsjy/jieba, "gen_pfdict"), a repeated word keeps its
// last frequency, the total is the sum over all lines, and a word of
// frequency 0 behaves exactly like an absent word. User dictionaries use
// jieba's load_userdict format, "word [freq] [tag]"; a missing frequency is
// suggested as jieba's suggest_freq does (the product of the word's pieces'
// probabilities under the no-HMM route, plus one), and each user word adds its
// frequency to the total.
//
// Loading: building the trie from the 5 MB text takes about a second, so the
// built image is cached in `cache_dir` under a name keyed by the absolute
// paths, sizes and modification times of the source files. A cached load
// reads and checks one file (XXH3 checksum). A missing, stale or corrupt
// cache is rebuilt silently; an unwritable cache directory only costs speed.
//
// Ownership: immutable after Load(). Thread safety: const methods are
// thread-safe.
#ifndef NEARDUP_TOKENIZE_DICTIONARY_H_
#define NEARDUP_TOKENIZE_DICTIONARY_H_

#include <memory>
#include <string>
#include <vector>

#include "base/code_trie.h"
#include "neardup/status.h"

namespace neardup::tokenize {

struct DictionaryOptions {
  std::string dict_path;                     // jieba.dict.utf8
  std::vector<std::string> user_dict_paths;  // applied in order, after dict_path
  bool use_cache = true;
  std::string cache_dir;  // empty: DefaultCacheDir()
};

// $NEARDUP_CACHE_DIR, else $XDG_CACHE_HOME/neardup, else $HOME/.cache/neardup,
// else "" (no caching).
std::string DefaultCacheDir();

class Dictionary {
 public:
  // Errors: IOError when a file cannot be read; InvalidArgument (with file
  // and line) for a malformed entry or invalid UTF-8.
  static Result<std::unique_ptr<Dictionary>> Load(const DictionaryOptions& options);

  // The trie's values are word ids for LogProb() and Freq(); only words of
  // non-zero frequency are stored.
  const base::CodeTrie& trie() const { return trie_; }
  // log(freq) - log(total), computed as jieba does (double precision).
  double LogProb(int32_t id) const { return logp_[id]; }
  uint64_t Freq(int32_t id) const { return freq_[id]; }
  uint64_t total() const { return total_; }
  double log_total() const { return log_total_; }
  size_t num_words() const { return freq_.size(); }

  bool loaded_from_cache() const { return from_cache_; }
  const std::string& cache_path() const { return cache_path_; }

 private:
  Dictionary() = default;
  Status Build(const DictionaryOptions& options);
  Status TryLoadCache(uint64_t key);
  void SaveCache(uint64_t key) const;

  base::CodeTrie trie_;
  std::vector<double> logp_;
  std::vector<uint64_t> freq_;
  uint64_t total_ = 0;
  double log_total_ = 0;
  bool from_cache_ = false;
  std::string cache_path_;
};

}  // namespace neardup::tokenize

#endif  // NEARDUP_TOKENIZE_DICTIONARY_H_
