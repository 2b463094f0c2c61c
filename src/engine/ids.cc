// SPDX-License-Identifier: Apache-2.0
#include "neardup/ids.h"

#include <algorithm>
#include <string>

namespace neardup {
namespace {

// Compares two integer strings numerically without overflow.
bool IntegerLess(std::string_view a, std::string_view b) {
  const bool na = a[0] == '-', nb = b[0] == '-';
  if (na != nb) return na;
  if (na) return IntegerLess(b.substr(1), a.substr(1));
  a.remove_prefix(std::min(a.find_first_not_of('0'), a.size() - 1));
  b.remove_prefix(std::min(b.find_first_not_of('0'), b.size() - 1));
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

}  // namespace

bool IsIntegerId(std::string_view s) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool IdLess(std::string_view a, std::string_view b) {
  const bool ia = IsIntegerId(a), ib = IsIntegerId(b);
  if (ia != ib) return ia;
  return ia ? IntegerLess(a, b) : a < b;
}

namespace {
constexpr uint64_t kZero = 1ull << 62, kLarge = 1000000000000000000ull;  // 10^18
}  // namespace

uint64_t IdOrderKey(std::string_view id) {
  if (IsIntegerId(id)) {
    const bool negative = id[0] == '-';
    std::string_view digits = id.substr(negative ? 1 : 0);
    digits.remove_prefix(std::min(digits.find_first_not_of('0'), digits.size() - 1));
    uint64_t v = kLarge;  // more than 18 digits: at least 10^18
    if (digits.size() <= 18) {
      v = 0;
      for (char c : digits) v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    return negative ? kZero - v : kZero + v;
  }
  uint64_t k = 0;
  for (size_t i = 0; i < 7; ++i) k = k << 8 | (i < id.size() ? static_cast<uint8_t>(id[i]) : 0);
  return 1ull << 63 | k << 7;
}

bool IntegerIdOfOrderKey(uint64_t key, std::string* out) {
  if (key == 0 || key >= 1ull << 63) return false;
  const bool negative = key < kZero;
  const uint64_t v = negative ? kZero - key : key - kZero;
  if (v >= kLarge) return false;
  *out = std::to_string(v);
  if (negative) out->insert(out->begin(), '-');
  return true;
}

}  // namespace neardup
