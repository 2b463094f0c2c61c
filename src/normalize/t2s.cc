// SPDX-License-Identifier: Apache-2.0
#include "normalize/t2s.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>

#include "base/status_macros.h"
#include "resources/data_dir.h"
#include "resources/tables.h"

namespace neardup::normalize {
namespace {

constexpr int kPairBits = 17;  // 16 KiB of filter per stage: it stays in L1

inline uint32_t PairSlot(uint32_t c1, uint32_t c2) {
  return static_cast<uint32_t>(((uint64_t{c1} << 21 | c2) * 0x9E3779B97F4A7C15ULL) >>
                               (64 - kPairBits));
}

constexpr uint32_t kBytes = 0x03FFFFFF;  // Stage::codes: length << 24 | bytes
constexpr uint32_t kMulti = 1u << 30;
constexpr uint32_t kEscape = 1u << 31;

inline uint32_t CharLength(unsigned char lead) {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

// One-character keys that change their character, below which a stage has
// them all ask the trie (kEscape): a text then stays in FoldStage's copying
// of runs, where otherwise the first of them would hand it to FoldDense.
constexpr size_t kSparseSingles = 256;

// What the fast path knows of the 1- or 3-byte character at p (`width`
// bytes; p[width..width+2] readable): its code, and whether the trie must
// decide (a longer key may start here, per the pair filter, or kEscape).
struct Probe {
  uint32_t code;
  bool walk;
};
template <uint32_t width>
inline Probe ProbeAt(const unsigned char* p, const uint32_t* codes, const uint64_t* pairs) {
  const uint32_t b0 = p[0], b1 = p[1], b2 = p[2];
  const uint32_t cp = width == 1 ? b0 : (b0 & 0x0F) << 12 | (b1 & 0x3F) << 6 | (b2 & 0x3F);
  const uint32_t code = codes[cp];
  const uint32_t d0 = p[width], d1 = p[width + 1], d2 = p[width + 2];
  const bool bmp2 = d0 < 0x80 || (d0 & 0xF0) == 0xE0;
  const uint32_t cp2 = d0 < 0x80 ? d0 : (d0 & 0x0F) << 12 | (d1 & 0x3F) << 6 | (d2 & 0x3F);
  const uint32_t slot = PairSlot(cp, cp2);
  const uint32_t pair = static_cast<uint32_t>(pairs[slot >> 6] >> (slot & 63)) & 1;
  const uint32_t multi = (code >> 30) & 1;
  const uint32_t walk = (code >> 31) | (multi & (pair | static_cast<uint32_t>(!bmp2)));
  return {code, walk != 0};
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
          keys.push_back(std::move(key));
          values.push_back(static_cast<int32_t>(f->replacements.size()));
          f->replacements.emplace_back(value);
          return Status::OK();
        }));
  }
  st.codes.assign(0x10000, 0);
  st.pairs.assign((size_t{1} << kPairBits) / 64, 0);
  size_t changing = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::u32string& key = keys[i];
    if (key[0] >= 0x10000) continue;  // the trie alone finds it
    uint32_t& code = st.codes[key[0]];
    if (key.size() > 1) {
      code |= kMulti;
      const uint32_t slot = PairSlot(key[0], key[1]);
      st.pairs[slot >> 6] |= 1ULL << (slot & 63);
      continue;
    }
    const std::string& value = f->replacements[values[i]];
    char utf8[4];
    const int len = base::EncodeUtf8(key[0], utf8);
    if (value == std::string_view(utf8, len)) continue;  // a key that changes nothing
    ++changing;
    if (value.empty() || value.size() > 3) {
      code |= kEscape;
      continue;
    }
    code |= static_cast<uint32_t>(value.size()) << 24;
    for (size_t b = 0; b < value.size(); ++b) {
      code |= uint32_t{static_cast<unsigned char>(value[b])} << (8 * b);
    }
  }
  if (changing < kSparseSingles) {
    for (uint32_t& code : st.codes) {
      if ((code & kBytes) != 0) code = (code & kMulti) | kEscape;
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
  // Each stage but the last writes to a buffer of its own; the next reads
  // that, or the same text when the stage matched nothing.
  thread_local std::string a, b;
  std::string_view text = in;
  for (size_t i = 0; i + 1 < stages_.size(); ++i) {
    std::string& dst = text.data() == a.data() ? b : a;
    dst.clear();
    if (FoldStage(stages_[i], text, &dst)) text = dst;
  }
  FoldStage(stages_.back(), text, out);
}

// The longest key at pos, from the trie: its index in replacements and its
// end, or -1. The labels are UTF-8 bytes, so the input is matched byte by
// byte; keys are whole characters, so every match ends on a character
// boundary.
std::pair<int32_t, size_t> T2SFolder::LongestKey(const Stage& stage, std::string_view in,
                                                 size_t pos) {
  int32_t state = base::CodeTrie::kRoot;
  std::pair<int32_t, size_t> match{-1, 0};
  for (size_t i = pos; i < in.size(); ++i) {
    state = stage.trie.ChildByLabel(state, static_cast<unsigned char>(in[i]) + 1u);
    if (state == base::CodeTrie::kNone) break;
    if (const int32_t v = stage.trie.Value(state); v >= 0) match = {v, i + 1};
  }
  return match;
}

bool T2SFolder::FoldStage(const Stage& stage, std::string_view in, std::string* out) {
  // Unchanged text is copied in runs: [copied, pos) is pending. Nothing is
  // written before the first match. A character that its code replaces
  // (not in a sparse stage, where those ask the trie) hands the rest of the
  // text to FoldDense: Simplified text rarely has one, Traditional text
  // has one in every few characters.
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  const uint32_t* codes = stage.codes.data();
  const uint64_t* pairs = stage.pairs.data();
  const size_t n = in.size();
  size_t pos = 0, copied = 0;
  bool changed = false;
  while (pos < n) {
    if (pos + 6 <= n) {
      const unsigned char lead = p[pos];
      Probe probe{0, true};
      uint32_t width = 0;
      if (lead >= 0xE0 && lead < 0xF0) {
        probe = ProbeAt<3>(p + pos, codes, pairs), width = 3;
      } else if (lead < 0x80) {
        probe = ProbeAt<1>(p + pos, codes, pairs), width = 1;
      }
      if (!probe.walk) {
        if ((probe.code & kBytes) == 0) {
          pos += width;
          continue;
        }
        out->append(in.data() + copied, pos - copied);
        FoldDense(stage, in, out, pos);
        return true;
      }
    }
    const auto [match, end] = LongestKey(stage, in, pos);
    if (match < 0) {
      pos += std::min<size_t>(CharLength(p[pos]), n - pos);
      continue;
    }
    if (!changed) out->reserve(out->size() + n + 16);
    out->append(in.data() + copied, pos - copied);
    out->append(stage.replacements[match]);
    pos = copied = end;
    changed = true;
  }
  out->append(in.data() + copied, n - copied);  // all of `in` if nothing matched
  return changed;
}

void T2SFolder::FoldDense(const Stage& stage, std::string_view in, std::string* out, size_t pos) {
  // From `pos` on, every character's code (its replacement, or itself) is
  // written: about a quarter of Traditional characters are keys, in no
  // order a branch predictor could learn, so a branch per replacement costs
  // more. Written
  // through local pointers: a store through char* may alias anything, so
  // members read in the loop would be reloaded after each one.
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  const uint32_t* codes = stage.codes.data();
  const uint64_t* pairs = stage.pairs.data();
  const size_t n = in.size();
  const size_t start = out->size();
  out->resize(start + (n - pos) + 16);
  char* w = out->data() + start;
  char* end = out->data() + out->size();
  auto room = [&](size_t k) {
    if (static_cast<size_t>(end - w) >= k) return;
    const size_t used = w - out->data();
    out->resize(std::max(2 * out->size(), used + k));
    w = out->data() + used;
    end = out->data() + out->size();
  };
  while (pos < n) {
    if (pos + 6 <= n && (p[pos] < 0x80 || (p[pos] & 0xF0) == 0xE0)) {
      const uint32_t width = p[pos] < 0x80 ? 1 : 3;
      const Probe probe =
          width == 1 ? ProbeAt<1>(p + pos, codes, pairs) : ProbeAt<3>(p + pos, codes, pairs);
      if (!probe.walk) {
        const uint32_t self =
            width << 24 | uint32_t{p[pos + 2]} << 16 | uint32_t{p[pos + 1]} << 8 | p[pos];
        const uint32_t v = (probe.code & kBytes) != 0 ? probe.code : self;
        room(3);
        w[0] = static_cast<char>(v);
        w[1] = static_cast<char>(v >> 8);
        w[2] = static_cast<char>(v >> 16);
        w += (v >> 24) & 3;
        pos += width;
        continue;
      }
    }
    const auto [match, match_end] = LongestKey(stage, in, pos);
    std::string_view piece;
    if (match >= 0) {
      piece = stage.replacements[match];
      pos = match_end;
    } else {  // one character stays (input is valid UTF-8)
      const size_t k = std::min<size_t>(CharLength(p[pos]), n - pos);
      piece = in.substr(pos, k);
      pos += k;
    }
    room(piece.size());
    std::memcpy(w, piece.data(), piece.size());
    w += piece.size();
  }
  out->resize(w - out->data());
}

}  // namespace neardup::normalize
