// SPDX-License-Identifier: Apache-2.0
#include "sketch/imatch.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>

#include "sketch/mix.h"

namespace neardup::sketch {

void DocumentFrequencies::AddDocument(std::span<const uint64_t> terms) {
  std::vector<uint64_t> distinct(terms.begin(), terms.end());
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  for (uint64_t t : distinct) ++df_[t];
  ++num_documents_;
}

IMatcher::IMatcher(const IMatchOptions& options, std::unordered_set<uint64_t> lexicon)
    : options_(options), lexicon_(std::move(lexicon)) {
  uint64_t state = options.seed;
  for (int k = 0; k < options.extra_lexicons; ++k) extra_seeds_.push_back(SplitMix64(&state));
  extra_cut_ = options.extra_drop >= 1.0
                   ? ~0ULL
                   : static_cast<uint64_t>(std::ldexp(options.extra_drop, 64) *
                                           (1.0 - 1e-16));  // stay below 2^64
}

Result<IMatcher> IMatcher::FromIdf(std::vector<std::pair<uint64_t, double>> idf,
                                   const IMatchOptions& options) {
  if (!(options.drop_low >= 0 && options.drop_high >= 0 &&
        options.drop_low + options.drop_high < 1)) {
    return Status::InvalidArgument("I-Match drop fractions must be >= 0 and sum to < 1");
  }
  if (!(options.extra_drop >= 0 && options.extra_drop < 1) || options.extra_lexicons < 0) {
    return Status::InvalidArgument("I-Match extra lexicons: count >= 0, drop fraction in [0, 1)");
  }
  if (idf.empty()) return Status::InvalidArgument("I-Match lexicon from an empty collection");
  // Sort by IDF, ties by term hash so the band is deterministic.
  std::sort(idf.begin(), idf.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second < b.second : a.first < b.first;
  });
  const size_t n = idf.size();
  const size_t lo = static_cast<size_t>(std::floor(options.drop_low * n));
  const size_t hi = n - static_cast<size_t>(std::floor(options.drop_high * n));
  std::unordered_set<uint64_t> lexicon;
  for (size_t i = lo; i < hi; ++i) lexicon.insert(idf[i].first);
  return IMatcher(options, std::move(lexicon));
}

Result<IMatcher> IMatcher::FromDocumentFrequencies(const DocumentFrequencies& df,
                                                   const IMatchOptions& options) {
  if (df.num_documents() == 0) {
    return Status::InvalidArgument("I-Match lexicon from an empty collection");
  }
  std::vector<std::pair<uint64_t, double>> idf;
  idf.reserve(df.df().size());
  const double n = static_cast<double>(df.num_documents());
  for (const auto& [term, count] : df.df()) idf.emplace_back(term, std::log(n / count));
  return FromIdf(std::move(idf), options);
}

bool IMatcher::InExtra(uint64_t term, int k) const {
  return Mix64(term ^ extra_seeds_[static_cast<size_t>(k)]) >= extra_cut_;
}

std::vector<std::optional<Hash128>> IMatcher::Signatures(std::span<const uint64_t> terms) const {
  std::vector<uint64_t> kept;
  for (uint64_t t : terms) {
    if (lexicon_.contains(t)) kept.push_back(t);
  }
  std::sort(kept.begin(), kept.end());
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());

  std::vector<std::optional<Hash128>> out;
  auto sign = [&](const std::vector<uint64_t>& set, uint64_t lexicon_no) {
    if (set.size() < options_.min_terms) {
      out.emplace_back(std::nullopt);
      return;
    }
    const XXH128_hash_t h =
        XXH3_128bits_withSeed(set.data(), set.size() * sizeof(uint64_t), lexicon_no);
    out.emplace_back(Hash128{h.low64, h.high64});
  };
  sign(kept, 0);
  std::vector<uint64_t> sub;
  for (int k = 0; k < options_.extra_lexicons; ++k) {
    sub.clear();
    for (uint64_t t : kept) {
      if (InExtra(t, k)) sub.push_back(t);
    }
    sign(sub, static_cast<uint64_t>(k) + 1);
  }
  return out;
}

bool IMatchSignaturesMatch(std::span<const std::optional<Hash128>> a,
                           std::span<const std::optional<Hash128>> b) {
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i] && b[i] && *a[i] == *b[i]) return true;
  }
  return false;
}

}  // namespace neardup::sketch
