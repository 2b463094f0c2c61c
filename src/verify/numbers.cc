// SPDX-License-Identifier: Apache-2.0
#include "verify/numbers.h"

#include <algorithm>

namespace neardup::verify {

std::vector<std::string_view> Numbers(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] < '0' || text[i] > '9') {
      ++i;
      continue;
    }
    const size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    out.push_back(text.substr(start, i - start));
  }
  return out;
}

bool ChangedNumbers(std::string_view a, std::string_view b) {
  std::vector<std::string_view> x = Numbers(a), y = Numbers(b);
  if (x.size() != y.size()) return false;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x != y;
}

}  // namespace neardup::verify
