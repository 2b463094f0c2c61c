// SPDX-License-Identifier: Apache-2.0
#include "verify/edit_distance.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "base/utf8.h"

namespace neardup::verify {
namespace {

// Peq: for each distinct code point of the pattern, `blocks` words whose bit i
// is set where pattern[64*w + i] equals it. An open-addressing table (linear
// probing, load <= 1/2) keeps lookups allocation-free and cheap. The table is
// sized by the number of distinct code points, so memory is
// O(distinct * blocks) words, not O(|pattern|^2 / 64).
class PatternMasks {
 public:
  explicit PatternMasks(std::u32string_view pattern) : blocks_((pattern.size() + 63) / 64) {
    // Pass 1: the distinct code points, doubling the table past load 1/2.
    // Short patterns (the common case) start large enough never to grow.
    size_t cap = 16;
    while (cap < 2 * std::min<size_t>(pattern.size(), 512)) cap *= 2;
    Reset(cap);
    size_t distinct = 0;
    for (char32_t c : pattern) {
      if (Find(c) != keys_.size()) continue;
      if (2 * (distinct + 1) > keys_.size()) {
        std::vector<char32_t> old(std::move(keys_));
        Reset(2 * old.size());
        for (char32_t k : old)
          if (k != kEmpty) keys_[Probe(k)] = k;
      }
      keys_[Probe(c)] = c;
      ++distinct;
    }
    // Pass 2: the masks; the last row stays zero ("not in pattern").
    masks_.assign((keys_.size() + 1) * blocks_, 0);
    for (size_t i = 0; i < pattern.size(); ++i) {
      masks_[Find(pattern[i]) * blocks_ + i / 64] |= 1ULL << (i % 64);
    }
  }
  size_t blocks() const { return blocks_; }
  // The block masks of `c` (all zero when c is not in the pattern).
  const uint64_t* Of(char32_t c) const { return &masks_[Find(c) * blocks_]; }

 private:
  static constexpr char32_t kEmpty = 0xFFFFFFFFu;  // not a code point
  void Reset(size_t cap) {
    shift_ = 64 - std::countr_zero(cap);
    keys_.assign(cap, kEmpty);
  }
  // The slot holding `c` or, if absent, the empty slot where it would go.
  size_t Probe(char32_t c) const {
    const size_t mask = keys_.size() - 1;
    size_t i = (static_cast<uint64_t>(c) * 0x9E3779B97F4A7C15ULL) >> shift_;
    while (keys_[i] != c && keys_[i] != kEmpty) i = (i + 1) & mask;
    return i;
  }
  // The slot of `c`, or keys_.size() (the zero row) when absent.
  size_t Find(char32_t c) const {
    const size_t i = Probe(c);
    return keys_[i] == c ? i : keys_.size();
  }
  size_t blocks_;
  int shift_;
  std::vector<char32_t> keys_;
  std::vector<uint64_t> masks_;
};

// Myers' advance_block: updates block (pv, mv) for one text column given the
// horizontal delta `hin` entering from above; returns the delta leaving the
// block at row `high`.
int AdvanceBlock(uint64_t eq, int hin, uint64_t high, uint64_t* pv, uint64_t* mv) {
  const uint64_t xv = eq | *mv;
  if (hin < 0) eq |= 1;
  const uint64_t xh = (((eq & *pv) + *pv) ^ *pv) | eq;
  uint64_t ph = *mv | ~(xh | *pv);
  uint64_t mh = *pv & xh;
  const int hout = (ph & high) ? 1 : (mh & high) ? -1 : 0;
  ph <<= 1;
  mh <<= 1;
  if (hin < 0)
    mh |= 1;
  else if (hin > 0)
    ph |= 1;
  *pv = mh | ~(xv | ph);
  *mv = ph & xv;
  return hout;
}

}  // namespace

std::u32string DecodeCodePoints(std::string_view utf8) {
  std::u32string out;
  out.reserve(utf8.size());
  size_t pos = 0;
  while (pos < utf8.size()) {
    const int32_t cp = base::DecodeUtf8(utf8, &pos);
    out.push_back(cp < 0 ? U'\uFFFD' : static_cast<char32_t>(cp));
  }
  return out;
}

size_t LevenshteinDistance(std::u32string_view a, std::u32string_view b) {
  if (a.size() > b.size()) std::swap(a, b);  // the pattern is the shorter one
  const size_t m = a.size();
  if (m == 0) return b.size();
  const PatternMasks peq(a);
  const size_t blocks = peq.blocks();
  const uint64_t last_high = 1ULL << ((m - 1) % 64);
  int64_t score = static_cast<int64_t>(m);
  if (blocks == 1) {  // the common short-text case: registers only
    uint64_t pv = ~0ULL, mv = 0;
    for (char32_t c : b) score += AdvanceBlock(peq.Of(c)[0], 1, last_high, &pv, &mv);
    return static_cast<size_t>(score);
  }
  std::vector<uint64_t> pv(blocks, ~0ULL), mv(blocks, 0);
  for (char32_t c : b) {
    const uint64_t* eq = peq.Of(c);
    int carry = 1;  // D[0][j] - D[0][j-1] = +1
    for (size_t w = 0; w < blocks; ++w) {
      const uint64_t high = w + 1 == blocks ? last_high : (1ULL << 63);
      carry = AdvanceBlock(eq[w], carry, high, &pv[w], &mv[w]);
    }
    score += carry;  // carry is -1, 0 or +1
  }
  return static_cast<size_t>(score);
}

size_t LcsLength(std::u32string_view a, std::u32string_view b) {
  if (a.size() > b.size()) std::swap(a, b);
  const size_t m = a.size();
  if (m == 0) return 0;
  const PatternMasks peq(a);
  const size_t blocks = peq.blocks();
  std::vector<uint64_t> v(blocks, ~0ULL);
  for (char32_t c : b) {
    const uint64_t* match = peq.Of(c);
    uint64_t carry = 0;
    for (size_t w = 0; w < blocks; ++w) {
      const uint64_t u = v[w] & match[w];
      uint64_t sum;
      const bool c1 = __builtin_add_overflow(v[w], u, &sum);
      const bool c2 = __builtin_add_overflow(sum, carry, &sum);
      carry = c1 || c2;
      v[w] = sum | (v[w] & ~u);
    }
  }
  size_t ones = 0;
  for (size_t w = 0; w < blocks; ++w) {
    const size_t bits = std::min<size_t>(64, m - 64 * w);
    const uint64_t mask = bits == 64 ? ~0ULL : (1ULL << bits) - 1;
    ones += static_cast<size_t>(std::popcount(v[w] & mask));
  }
  return m - ones;
}

double LevenshteinSimilarity(std::u32string_view a, std::u32string_view b) {
  const size_t longest = std::max(a.size(), b.size());
  if (longest == 0) return 1.0;
  return 1.0 - static_cast<double>(LevenshteinDistance(a, b)) / static_cast<double>(longest);
}

double LcsRatio(std::u32string_view a, std::u32string_view b) {
  if (a.empty() && b.empty()) return 1.0;
  return 2.0 * static_cast<double>(LcsLength(a, b)) / static_cast<double>(a.size() + b.size());
}

}  // namespace neardup::verify
