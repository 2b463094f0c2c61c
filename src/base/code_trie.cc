// SPDX-License-Identifier: Apache-2.0
#include "base/code_trie.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "base/utf8.h"

namespace neardup::base {
namespace {

// Incremental double-array construction; see the file comment in the header.
class Builder {
 public:
  Builder(const std::vector<std::u32string>& coded, const std::vector<int32_t>& values,
          const std::vector<uint32_t>& order)
      : coded_(coded), values_(values), order_(order) {
    Ensure(1024);
    Occupy(0, -2);
  }

  void Insert(int32_t state, size_t lo, size_t hi, size_t depth) {
    if (coded_[order_[lo]].size() == depth) value_[state] = values_[order_[lo++]];
    if (lo == hi) return;
    std::vector<uint32_t> labels;
    std::vector<size_t> bounds;  // start of each child's key range, plus hi
    for (size_t i = lo; i < hi; ++i) {
      const uint32_t label = coded_[order_[i]][depth];
      if (labels.empty() || labels.back() != label) {
        labels.push_back(label);
        bounds.push_back(i);
      }
    }
    bounds.push_back(hi);
    const int64_t b = FindBase(labels);
    base_[state] = static_cast<int32_t>(b);
    for (uint32_t l : labels) Occupy(b + l, state);
    for (size_t c = 0; c < labels.size(); ++c) {
      Insert(static_cast<int32_t>(b + labels[c]), bounds[c], bounds[c + 1], depth + 1);
    }
  }

  void Finish(std::vector<int32_t>* base, std::vector<int32_t>* check,
              std::vector<int32_t>* value) {
    size_t n = check_.size();
    while (n > 1 && check_[n - 1] == -1) --n;
    base_.resize(n);
    check_.resize(n);
    value_.resize(n);
    *base = std::move(base_);
    *check = std::move(check_);
    *value = std::move(value_);
  }

 private:
  void Ensure(size_t n) {
    if (check_.size() >= n) return;
    const size_t size = (std::max(n, check_.size() * 3 / 2) + 63) & ~size_t{63};
    occupied_.resize(size / 64, 0);
    base_.resize(size, 0);
    check_.resize(size, -1);
    value_.resize(size, -1);
  }

  // The first free cell at or after `pos` (the array grows as needed).
  int64_t NextFree(int64_t pos) {
    while (true) {
      Ensure(pos + 1);
      const size_t w = static_cast<size_t>(pos) >> 6;
      const uint64_t free_bits = ~occupied_[w] & (~0ULL << (pos & 63));
      if (free_bits != 0) {
        const int64_t f = static_cast<int64_t>(w << 6) + __builtin_ctzll(free_bits);
        Ensure(f + 1);
        return f;
      }
      pos = static_cast<int64_t>((w + 1) << 6);
    }
  }

  void Occupy(int64_t t, int32_t parent) {
    check_[t] = parent;
    max_used_ = std::max(max_used_, t);
    occupied_[static_cast<size_t>(t) >> 6] |= 1ULL << (t & 63);
  }

  int64_t FindBase(const std::vector<uint32_t>& labels) {
    const int64_t first = labels.front(), last = labels.back();
    // Cells below kMaxLabel + 1 fit only small labels and may stay empty, so
    // scanning starts past them, at the first free cell.
    next_check_pos_ = NextFree(std::max<int64_t>(next_check_pos_, kMaxLabel + 1));
    const int64_t start = std::max<int64_t>(first + 1, next_check_pos_);
    int64_t pos = start, tries = 0, b = 0;
    while (true) {
      pos = NextFree(pos);
      b = pos - first;
      Ensure(b + last + 1);
      bool fits = true;
      for (size_t i = 1; i < labels.size() && fits; ++i) fits = check_[b + labels[i]] == -1;
      if (fits) break;
      // A sibling set that does not fit among scattered holes goes past the
      // last used cell, where it always fits (wasting at most 256 cells).
      if (++tries == kMaxTries) pos = std::max(pos, max_used_ + 1) - 1;
      ++pos;
    }
    // As in darts: a stretch that was scanned and found 95% full is skipped
    // by later searches.
    if (start == next_check_pos_ && pos - start > 64 && tries * 20 < pos - start) {
      next_check_pos_ = pos;
    }
    return b;
  }

  const std::vector<std::u32string>& coded_;
  const std::vector<int32_t>& values_;
  const std::vector<uint32_t>& order_;
  std::vector<int32_t> base_, check_, value_;
  std::vector<uint64_t> occupied_;  // bit per cell: check_ != -1
  int64_t next_check_pos_ = 1;
  int64_t max_used_ = 0;
  static constexpr int64_t kMaxTries = 16;
  static constexpr int64_t kMaxLabel = 256;
};

template <typename T>
void PutVector(const std::vector<T>& v, std::string* out) {
  const uint64_t n = v.size();
  out->append(reinterpret_cast<const char*>(&n), sizeof n);
  out->append(reinterpret_cast<const char*>(v.data()), n * sizeof(T));
}

template <typename T>
bool GetVector(std::string_view* in, std::vector<T>* v) {
  uint64_t n;
  if (in->size() < sizeof n) return false;
  std::memcpy(&n, in->data(), sizeof n);
  in->remove_prefix(sizeof n);
  if (n > in->size() / sizeof(T)) return false;
  v->resize(n);
  std::memcpy(v->data(), in->data(), n * sizeof(T));
  in->remove_prefix(n * sizeof(T));
  return true;
}

}  // namespace

Result<CodeTrie> CodeTrie::Build(std::vector<std::u32string> keys, std::vector<int32_t> values) {
  if (keys.size() != values.size())
    return Status::InvalidArgument("keys and values differ in size");
  for (const auto& k : keys) {
    if (k.empty()) return Status::InvalidArgument("empty trie key");
  }
  for (int32_t v : values) {
    if (v < 0) return Status::InvalidArgument("negative trie value");
  }
  // Labels are UTF-8 bytes plus one, so every sibling set spans at most 256 cells.
  for (auto& k : keys) {
    std::u32string labels;
    for (char32_t cp : k) {
      char buf[4];
      const int n = EncodeUtf8(cp, buf);
      for (int i = 0; i < n; ++i) labels.push_back(static_cast<unsigned char>(buf[i]) + 1u);
    }
    k = std::move(labels);
  }
  CodeTrie trie;
  std::vector<uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  for (size_t i = 1; i < order.size(); ++i) {
    if (keys[order[i]] == keys[order[i - 1]]) return Status::InvalidArgument("duplicate trie key");
  }
  Builder builder(keys, values, order);
  if (!order.empty()) builder.Insert(kRoot, 0, order.size(), 0);
  builder.Finish(&trie.base_, &trie.check_, &trie.value_);
  return trie;
}

int32_t CodeTrie::Find(std::u32string_view key) const {
  int32_t s = kRoot;
  for (char32_t cp : key) {
    s = Child(s, cp);
    if (s == kNone) return kNone;
  }
  return key.empty() ? kNone : Value(s);
}

size_t CodeTrie::MemoryBytes() const { return check_.size() * 3 * sizeof(int32_t); }

void CodeTrie::Serialize(std::string* out) const {
  PutVector(base_, out);
  PutVector(check_, out);
  PutVector(value_, out);
}

Result<CodeTrie> CodeTrie::Deserialize(std::string_view* in) {
  CodeTrie t;
  if (!GetVector(in, &t.base_) || !GetVector(in, &t.check_) || !GetVector(in, &t.value_)) {
    return Status::Corruption("truncated trie image");
  }
  const size_t n = t.check_.size();
  if (n == 0 || t.base_.size() != n || t.value_.size() != n) {
    return Status::Corruption("inconsistent trie image");
  }
  for (size_t s = 0; s < n; ++s) {
    if (t.base_[s] < 0 || t.check_[s] < -2 || t.check_[s] >= static_cast<int64_t>(n)) {
      return Status::Corruption("trie state out of range");
    }
  }
  return t;
}

Result<std::u32string> DecodeToCodePoints(std::string_view utf8) {
  std::u32string out;
  out.reserve(utf8.size());
  size_t pos = 0;
  while (pos < utf8.size()) {
    const size_t at = pos;
    const int32_t cp = base::DecodeUtf8(utf8, &pos);
    if (cp < 0) return Status::InvalidArgument("invalid UTF-8 at byte " + std::to_string(at));
    out.push_back(static_cast<char32_t>(cp));
  }
  return out;
}

}  // namespace neardup::base
