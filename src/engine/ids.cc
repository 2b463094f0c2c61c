// SPDX-License-Identifier: Apache-2.0
#include "neardup/ids.h"

#include <algorithm>

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

}  // namespace neardup
