// SPDX-License-Identifier: Apache-2.0
#include "features/longest_sentence.h"

#include <algorithm>
#include <charconv>
#include <string>

#include "base/status_macros.h"

namespace neardup::features {
namespace {

constexpr int kMaxSentences = 64;

size_t NonSpaceChars(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80 && c != ' ' && c != '\t';
  return n;
}

}  // namespace

Result<int> ParseLongestSentenceSpec(std::string_view spec) {
  constexpr std::string_view kName = "longest-sentence";
  if (spec.substr(0, kName.size()) != kName) {
    return Status::InvalidArgument("expected longest-sentence[:N], got '" + std::string(spec) +
                                   "'");
  }
  spec.remove_prefix(kName.size());
  if (spec.empty()) return 1;
  int n = 0;
  if (spec[0] != ':' ||
      std::from_chars(spec.data() + 1, spec.data() + spec.size(), n).ptr !=
          spec.data() + spec.size() ||
      n < 1 || n > kMaxSentences) {
    return Status::InvalidArgument("longest-sentence:N needs 1 <= N <= 64");
  }
  return n;
}

Result<std::unique_ptr<LongestSentenceExtractor>> LongestSentenceExtractor::Create(
    int sentences, std::unique_ptr<FeatureExtractor> inner) {
  if (sentences < 1 || sentences > kMaxSentences) {
    return Status::InvalidArgument("sentences must be in [1, 64]");
  }
  if (!inner) return Status::InvalidArgument("null inner extractor");
  return std::unique_ptr<LongestSentenceExtractor>(
      new LongestSentenceExtractor(sentences, std::move(inner)));
}

void LongestSentenceExtractor::Sentences(std::string_view text,
                                         std::vector<std::string_view>* out) const {
  struct Sent {
    size_t len, order;
    std::string_view text;
  };
  std::vector<Sent> all;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view s = text.substr(start, end - start);
    const size_t len = NonSpaceChars(s);
    if (len > 0) all.push_back({len, all.size(), s});
    start = end + 1;
  }
  const size_t n = std::min(all.size(), static_cast<size_t>(n_));
  std::partial_sort(all.begin(), all.begin() + n, all.end(), [](const Sent& a, const Sent& b) {
    return a.len != b.len ? a.len > b.len : a.order < b.order;
  });
  all.resize(n);
  std::sort(all.begin(), all.end(), [](const Sent& a, const Sent& b) { return a.order < b.order; });
  for (const auto& s : all) out->push_back(s.text);
}

Status LongestSentenceExtractor::Extract(std::string_view normalized,
                                         std::vector<Feature>* out) const {
  std::vector<std::string_view> chosen;
  Sentences(normalized, &chosen);
  for (auto s : chosen) NEARDUP_RETURN_IF_ERROR(inner_->Extract(s, out));
  return Status::OK();
}

}  // namespace neardup::features
