// SPDX-License-Identifier: Apache-2.0
#include "normalize/t2s.h"

#include <map>
#include <mutex>
#include <unordered_map>

#include "base/status_macros.h"
#include "resources/data_dir.h"
#include "resources/tables.h"

namespace neardup::normalize {
namespace {

constexpr int kPairBits = 20;  // 128 KiB of filter per stage

inline uint32_t PairSlot(uint32_t c1, uint32_t c2) {
  return static_cast<uint32_t>(((uint64_t{c1} << 21 | c2) * 0x9E3779B97F4A7C15ULL) >>
                               (64 - kPairBits));
}

// The BMP code point of the 1- or 3-byte character at in[pos], or -1.
inline int32_t BmpAt(std::string_view in, size_t pos) {
  const auto lead = static_cast<unsigned char>(in[pos]);
  if (lead < 0x80) return lead;
  if (lead < 0xE0 || lead >= 0xF0 || pos + 2 >= in.size()) return -1;
  return static_cast<int32_t>(((lead & 0x0Fu) << 12) |
                              ((static_cast<unsigned char>(in[pos + 1]) & 0x3Fu) << 6) |
                              (static_cast<unsigned char>(in[pos + 2]) & 0x3Fu));
}

}  // namespace

std::string DefaultOpenccDir() { return resources::OpenccDir(); }

Result<std::unique_ptr<T2SFolder>> T2SFolder::Load(const std::string& dir, bool taiwan) {
  const std::string d = dir.empty() ? DefaultOpenccDir() : dir;
  std::unique_ptr<T2SFolder> f(new T2SFolder());
  if (taiwan) {
    NEARDUP_ASSIGN_OR_RETURN(Stage tw,
                             LoadStage({d + "/TWVariantsRevPhrases.txt", d + "/TWPhrasesRev.txt"}));
    f->stages_.push_back(std::move(tw));
  }
  NEARDUP_ASSIGN_OR_RETURN(Stage ts, LoadStage({d + "/TSPhrases.txt", d + "/TSCharacters.txt"}));
  f->stages_.push_back(std::move(ts));
  return f;
}

Result<std::unique_ptr<T2SFolder>> T2SFolder::LoadFiles(const std::vector<std::string>& paths) {
  std::unique_ptr<T2SFolder> f(new T2SFolder());
  NEARDUP_ASSIGN_OR_RETURN(Stage st, LoadStage(paths));
  f->stages_.push_back(std::move(st));
  return f;
}

size_t T2SFolder::num_entries() const {
  size_t n = 0;
  for (const auto& s : stages_) n += s.replacements.size();
  return n;
}

Result<T2SFolder::Stage> T2SFolder::LoadStage(const std::vector<std::string>& paths) {
  Stage st;
  st.starts.assign(0x10000 / 64, 0);
  Stage* f = &st;
  std::unordered_map<std::u32string, int32_t> index;
  std::vector<std::u32string> keys;
  std::vector<int32_t> values;
  for (const auto& path : paths) {
    NEARDUP_RETURN_IF_ERROR(resources::ForEachOpenccEntry(
        path, [&](std::string_view key_utf8, std::string_view value) -> Status {
          NEARDUP_ASSIGN_OR_RETURN(std::u32string key, base::DecodeToCodePoints(key_utf8));
          if (index.count(key)) return Status::OK();  // earlier tables win
          index.emplace(key, static_cast<int32_t>(f->replacements.size()));
          if (key[0] < 0x10000) st.starts[key[0] >> 6] |= 1ULL << (key[0] & 63);
          keys.push_back(std::move(key));
          values.push_back(static_cast<int32_t>(f->replacements.size()));
          f->replacements.emplace_back(value);
          return Status::OK();
        }));
  }
  st.single.assign(0x10000, -1);
  st.pairs.assign((size_t{1} << kPairBits) / 64, 0);
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::u32string& key = keys[i];
    if (key.size() == 1 && key[0] < 0x10000) st.single[key[0]] = values[i];
    if (key.size() > 1) {
      const uint32_t slot = PairSlot(key[0], key[1]);
      st.pairs[slot >> 6] |= 1ULL << (slot & 63);
    }
  }
  NEARDUP_ASSIGN_OR_RETURN(st.trie, base::CodeTrie::Build(std::move(keys), std::move(values)));
  return st;
}

Result<std::shared_ptr<const T2SFolder>> T2SFolder::Shared(const std::string& dir, bool taiwan) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const T2SFolder>> instances;
  const std::string key = dir + (taiwan ? "|tw" : "|");
  std::lock_guard<std::mutex> lock(mu);
  auto it = instances.find(key);
  if (it != instances.end()) return it->second;
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<T2SFolder> f, Load(dir, taiwan));
  std::shared_ptr<const T2SFolder> shared(std::move(f));
  instances.emplace(key, shared);
  return shared;
}

void T2SFolder::Fold(std::string_view in, std::string* out) const {
  if (stages_.size() == 1) return FoldStage(stages_[0], in, out);
  thread_local std::string a, b;
  a.assign(in);
  for (size_t i = 0; i + 1 < stages_.size(); ++i) {
    b.clear();
    FoldStage(stages_[i], a, &b);
    a.swap(b);
  }
  FoldStage(stages_.back(), a, out);
}

void T2SFolder::FoldStage(const Stage& stage, std::string_view in, std::string* out) {
  const auto& trie_ = stage.trie;
  const auto& replacements_ = stage.replacements;
  // The trie's labels are UTF-8 bytes, so the input is matched byte by byte;
  // keys are whole characters, so every match ends on a character boundary.
  // Unchanged text is copied in runs: [copied, pos) is pending.
  out->reserve(out->size() + in.size());
  size_t pos = 0, copied = 0;
  while (pos < in.size()) {
    // Fast paths for a BMP character: one that starts no key stays in the
    // run; one that no longer key can match here is replaced, or stays,
    // without walking the trie.
    const unsigned char lead = static_cast<unsigned char>(in[pos]);
    if (const int32_t cp = BmpAt(in, pos); cp >= 0) {
      const size_t next = pos + (lead < 0x80 ? 1 : 3);
      if (!((stage.starts[cp >> 6] >> (cp & 63)) & 1)) {
        pos = next;
        continue;
      }
      const int32_t c2 = next < in.size() ? BmpAt(in, next) : -1;
      const uint32_t slot = c2 >= 0 ? PairSlot(cp, c2) : 0;
      if (c2 >= 0 && !((stage.pairs[slot >> 6] >> (slot & 63)) & 1)) {
        if (const int32_t single = stage.single[cp]; single >= 0) {
          out->append(in.data() + copied, pos - copied);
          out->append(replacements_[single]);
          copied = next;
        }
        pos = next;
        continue;
      }
    }
    int32_t state = base::CodeTrie::kRoot;
    size_t match_end = 0;
    int32_t match = -1;
    for (size_t i = pos; i < in.size(); ++i) {
      state = trie_.ChildByLabel(state, static_cast<unsigned char>(in[i]) + 1u);
      if (state == base::CodeTrie::kNone) break;
      const int32_t v = trie_.Value(state);
      if (v >= 0) match = v, match_end = i + 1;
    }
    if (match >= 0) {
      out->append(in.data() + copied, pos - copied);
      out->append(replacements_[match]);
      pos = copied = match_end;
      continue;
    }
    // One character stays (its length from the lead byte; input is valid UTF-8).
    pos += lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
  }
  out->append(in.data() + copied, std::min(pos, in.size()) - copied);
}

}  // namespace neardup::normalize
