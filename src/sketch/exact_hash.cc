// SPDX-License-Identifier: Apache-2.0
#include "sketch/exact_hash.h"

#include <xxhash.h>

namespace neardup::sketch {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendHex(uint64_t v, std::string* out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (int shift = 60; shift >= 0; shift -= 4) out->push_back(kDigits[(v >> shift) & 0xF]);
}

}  // namespace

std::string Hash128::ToHex() const {
  std::string s;
  s.reserve(32);
  AppendHex(hi, &s);
  AppendHex(lo, &s);
  return s;
}

std::optional<Hash128> Hash128::FromHex(std::string_view hex) {
  if (hex.size() != 32) return std::nullopt;
  Hash128 h;
  for (size_t i = 0; i < 32; ++i) {
    const int v = HexValue(hex[i]);
    if (v < 0) return std::nullopt;
    uint64_t& half = i < 16 ? h.hi : h.lo;
    half = (half << 4) | static_cast<uint64_t>(v);
  }
  return h;
}

Hash128 ExactHash(std::string_view normalized) {
  const XXH128_hash_t h = XXH3_128bits_withSeed(normalized.data(), normalized.size(), kExactSeed);
  return Hash128{h.low64, h.high64};
}

}  // namespace neardup::sketch
