// SPDX-License-Identifier: Apache-2.0
#include "tokenize/dictionary.h"

#include <xxhash.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "base/code_trie.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "resources/tables.h"

namespace neardup::tokenize {
namespace {

constexpr char kMagic[8] = {'N', 'D', 'J', 'D', 'I', 'C', 'T', '1'};
constexpr uint32_t kFormatVersion = 1;
constexpr uint32_t kEndianMarker = 0x01020304;

using FreqMap = std::unordered_map<std::u32string, uint64_t>;

bool IsAsciiAlnum(char32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// jieba's suggest_freq(word, tune=False): the product of the probabilities of
// the pieces of the word's no-HMM route, times the total, plus one; at least
// the word's current frequency.
uint64_t SuggestFreq(const std::u32string& word, const FreqMap& freq, uint64_t total) {
  const size_t n = word.size();
  const double log_total = std::log(static_cast<double>(total));
  auto get = [&](size_t a, size_t b) -> uint64_t {
    auto it = freq.find(word.substr(a, b - a));
    return it == freq.end() ? 0 : it->second;
  };
  std::vector<double> best(n + 1, 0.0);
  std::vector<size_t> next(n + 1, n);
  for (size_t i = n; i-- > 0;) {
    bool found = false;
    for (size_t x = i; x < n; ++x) {
      const uint64_t f = get(i, x + 1);
      if (f == 0) continue;
      const double cand = std::log(static_cast<double>(f)) - log_total + best[x + 1];
      if (!found || cand >= best[i]) {
        best[i] = cand;
        next[i] = x;
        found = true;
      }
    }
    if (!found) {
      best[i] = -log_total + best[i + 1];
      next[i] = i;
    }
  }
  const double ftotal = static_cast<double>(total);
  double p = 1.0;
  auto piece = [&](size_t a, size_t b) {
    auto it = freq.find(word.substr(a, b - a));
    p *= static_cast<double>(it == freq.end() ? 1 : it->second) / ftotal;
  };
  size_t eng = n;  // start of a run of single ASCII letters/digits
  for (size_t x = 0; x < n;) {
    const size_t y = next[x] + 1;
    if (y - x == 1 && IsAsciiAlnum(word[x])) {
      if (eng == n) eng = x;
    } else {
      if (eng != n) piece(eng, x), eng = n;
      piece(x, y);
    }
    x = y;
  }
  if (eng != n) piece(eng, n);
  const uint64_t suggested = static_cast<uint64_t>(p * ftotal) + 1;
  auto it = freq.find(word);
  const uint64_t current = it == freq.end() ? 1 : it->second;
  return std::max(suggested, current);
}

}  // namespace

std::string DefaultCacheDir() {
  if (const char* d = std::getenv("NEARDUP_CACHE_DIR"); d != nullptr && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d != nullptr && *d)
    return std::string(d) + "/neardup";
  if (const char* d = std::getenv("HOME"); d != nullptr && *d)
    return std::string(d) + "/.cache/neardup";
  return "";
}

Result<std::unique_ptr<Dictionary>> Dictionary::Load(const DictionaryOptions& options) {
  std::unique_ptr<Dictionary> dict(new Dictionary());
  std::string identity = "jieba-dict|v" + std::to_string(kFormatVersion);
  NEARDUP_ASSIGN_OR_RETURN(std::string id, base::FileIdentity(options.dict_path));
  identity += "|" + id;
  for (const auto& p : options.user_dict_paths) {
    NEARDUP_ASSIGN_OR_RETURN(std::string uid, base::FileIdentity(p));
    identity += "|user:" + uid;
  }
  const uint64_t key = XXH3_64bits(identity.data(), identity.size());
  const std::string dir = options.cache_dir.empty() ? DefaultCacheDir() : options.cache_dir;
  if (options.use_cache && !dir.empty()) {
    char name[64];
    std::snprintf(name, sizeof name, "/jieba-%016llx.bin", static_cast<unsigned long long>(key));
    dict->cache_path_ = dir + name;
    if (dict->TryLoadCache(key).ok()) {
      dict->from_cache_ = true;
      return dict;
    }
  }
  NEARDUP_RETURN_IF_ERROR(dict->Build(options));
  if (!dict->cache_path_.empty()) dict->SaveCache(key);
  return dict;
}

Status Dictionary::Build(const DictionaryOptions& options) {
  FreqMap freq;
  freq.reserve(1 << 19);
  uint64_t total = 0;
  NEARDUP_RETURN_IF_ERROR(resources::ForEachJiebaEntry(
      options.dict_path, false, [&](const resources::JiebaEntry& e) -> Status {
        NEARDUP_ASSIGN_OR_RETURN(std::u32string word, base::DecodeToCodePoints(e.word));
        freq[std::move(word)] = *e.freq;
        total += *e.freq;
        return Status::OK();
      }));
  for (const auto& path : options.user_dict_paths) {
    NEARDUP_RETURN_IF_ERROR(
        resources::ForEachJiebaEntry(path, true, [&](const resources::JiebaEntry& e) -> Status {
          NEARDUP_ASSIGN_OR_RETURN(std::u32string w, base::DecodeToCodePoints(e.word));
          const uint64_t f = e.freq ? *e.freq : SuggestFreq(w, freq, total);
          freq[std::move(w)] = f;
          total += f;
          return Status::OK();
        }));
  }
  if (total == 0) return Status::InvalidArgument(options.dict_path + ": dictionary has no words");

  std::vector<std::u32string> keys;
  std::vector<int32_t> ids;
  keys.reserve(freq.size());
  for (auto& [w, f] : freq) {
    if (f == 0) continue;  // jieba treats a zero frequency like an absent word
    ids.push_back(static_cast<int32_t>(freq_.size()));
    freq_.push_back(f);
    keys.push_back(w);
  }
  total_ = total;
  log_total_ = std::log(static_cast<double>(total));
  logp_.resize(freq_.size());
  for (size_t i = 0; i < freq_.size(); ++i) {
    logp_[i] = std::log(static_cast<double>(freq_[i])) - log_total_;
  }
  NEARDUP_ASSIGN_OR_RETURN(trie_, base::CodeTrie::Build(std::move(keys), std::move(ids)));
  return Status::OK();
}

Status Dictionary::TryLoadCache(uint64_t key) {
  std::string image;
  NEARDUP_RETURN_IF_ERROR(base::ReadWholeFile(cache_path_, &image));
  constexpr size_t kHeader = 8 + 4 + 4 + 8 + 8;
  if (image.size() < kHeader || std::memcmp(image.data(), kMagic, 8) != 0) {
    return Status::Corruption("not a dictionary cache");
  }
  uint32_t version, endian;
  uint64_t stored_key, hash;
  std::memcpy(&version, image.data() + 8, 4);
  std::memcpy(&endian, image.data() + 12, 4);
  std::memcpy(&stored_key, image.data() + 16, 8);
  std::memcpy(&hash, image.data() + 24, 8);
  std::string_view body(image.data() + kHeader, image.size() - kHeader);
  if (version != kFormatVersion || endian != kEndianMarker || stored_key != key ||
      XXH3_64bits(body.data(), body.size()) != hash) {
    return Status::Corruption("stale or damaged dictionary cache");
  }
  if (body.size() < 16) return Status::Corruption("short cache");
  std::memcpy(&total_, body.data(), 8);
  std::memcpy(&log_total_, body.data() + 8, 8);
  body.remove_prefix(16);
  uint64_t n;
  if (body.size() < 8) return Status::Corruption("short cache");
  std::memcpy(&n, body.data(), 8);
  body.remove_prefix(8);
  if (n > body.size() / 16) return Status::Corruption("short cache");
  freq_.resize(n);
  logp_.resize(n);
  std::memcpy(freq_.data(), body.data(), n * 8);
  std::memcpy(logp_.data(), body.data() + n * 8, n * 8);
  body.remove_prefix(n * 16);
  NEARDUP_ASSIGN_OR_RETURN(trie_, base::CodeTrie::Deserialize(&body));
  for (size_t s = 0; s < trie_.num_states(); ++s) {
    const int32_t v = trie_.Value(static_cast<int32_t>(s));
    if (v < -1 || v >= static_cast<int64_t>(n)) return Status::Corruption("word id out of range");
  }
  return Status::OK();
}

void Dictionary::SaveCache(uint64_t key) const {
  std::string body;
  body.append(reinterpret_cast<const char*>(&total_), 8);
  body.append(reinterpret_cast<const char*>(&log_total_), 8);
  const uint64_t n = freq_.size();
  body.append(reinterpret_cast<const char*>(&n), 8);
  body.append(reinterpret_cast<const char*>(freq_.data()), n * 8);
  body.append(reinterpret_cast<const char*>(logp_.data()), n * 8);
  trie_.Serialize(&body);
  std::string image(kMagic, 8);
  const uint64_t hash = XXH3_64bits(body.data(), body.size());
  image.append(reinterpret_cast<const char*>(&kFormatVersion), 4);
  image.append(reinterpret_cast<const char*>(&kEndianMarker), 4);
  image.append(reinterpret_cast<const char*>(&key), 8);
  image.append(reinterpret_cast<const char*>(&hash), 8);
  image += body;
  (void)base::AtomicWrite(cache_path_, image);  // a cache that cannot be written only costs speed
}

}  // namespace neardup::tokenize
