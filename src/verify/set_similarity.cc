// SPDX-License-Identifier: Apache-2.0
#include "verify/set_similarity.h"

#include "base/sorted_set.h"

#include <algorithm>
#include <cmath>

namespace neardup::verify {

std::vector<uint64_t> DistinctHashes(std::span<const features::Feature> features) {
  std::vector<uint64_t> h;
  h.reserve(features.size());
  for (const auto& f : features) h.push_back(f.hash);
  std::sort(h.begin(), h.end());
  h.erase(std::unique(h.begin(), h.end()), h.end());
  return h;
}

std::vector<std::pair<uint64_t, double>> TermFrequencies(
    std::span<const features::Feature> features) {
  std::vector<std::pair<uint64_t, double>> tf;
  tf.reserve(features.size());
  for (const auto& f : features) tf.emplace_back(f.hash, f.weight);
  std::sort(tf.begin(), tf.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  size_t out = 0;
  for (size_t i = 0; i < tf.size(); ++i) {
    if (out > 0 && tf[out - 1].first == tf[i].first) {
      tf[out - 1].second += tf[i].second;
    } else {
      tf[out++] = tf[i];
    }
  }
  tf.resize(out);
  return tf;
}

double ShingleJaccard(std::span<const features::Feature> a, std::span<const features::Feature> b) {
  const auto x = DistinctHashes(a), y = DistinctHashes(b);
  if (x.empty() && y.empty()) return 1.0;
  const size_t inter = SortedIntersectionSize<uint64_t>(x, y);
  return static_cast<double>(inter) / static_cast<double>(x.size() + y.size() - inter);
}

double TfCosine(std::span<const features::Feature> a, std::span<const features::Feature> b) {
  const auto x = TermFrequencies(a), y = TermFrequencies(b);
  if (x.empty() && y.empty()) return 1.0;
  double dot = 0, nx = 0, ny = 0;
  for (const auto& [h, w] : x) nx += w * w;
  for (const auto& [h, w] : y) ny += w * w;
  size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    if (x[i].first < y[j].first) {
      ++i;
    } else if (y[j].first < x[i].first) {
      ++j;
    } else {
      dot += x[i++].second * y[j++].second;
    }
  }
  if (nx == 0 || ny == 0) return 0.0;
  return std::clamp(dot / (std::sqrt(nx) * std::sqrt(ny)), -1.0, 1.0);
}

}  // namespace neardup::verify
