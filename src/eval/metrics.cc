// SPDX-License-Identifier: Apache-2.0
#include <sys/resource.h>

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "neardup/eval.h"

namespace neardup::eval {
namespace {

uint64_t Choose2(uint64_t n) { return n * (n - (n > 0)) / 2; }

uint32_t Find(std::vector<uint32_t>& parent, uint32_t x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

// Sum over clusters of C(size, 2).
uint64_t PairsWithin(const Labels& labels) {
  std::unordered_map<uint32_t, uint64_t> size;
  for (uint32_t l : labels) ++size[l];
  uint64_t s = 0;
  for (const auto& [l, c] : size) s += Choose2(c);
  return s;
}

// Sum over the contingency table of C(n_ij, 2): pairs together in both.
uint64_t PairsWithinBoth(const Labels& a, const Labels& b) {
  std::unordered_map<uint64_t, uint64_t> cell;
  for (size_t i = 0; i < a.size(); ++i) ++cell[(uint64_t{a[i]} << 32) | b[i]];
  uint64_t s = 0;
  for (const auto& [k, c] : cell) s += Choose2(c);
  return s;
}

}  // namespace

GroundTruth GroundTruth::FromLabels(Labels labels) {
  GroundTruth t;
  t.labels = std::move(labels);
  return t;
}

GroundTruth GroundTruth::FromPairs(uint32_t n, std::vector<Pair> pairs) {
  GroundTruth t;
  t.from_pairs = true;
  for (auto& p : pairs) {
    if (p.first > p.second) std::swap(p.first, p.second);
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  std::erase_if(pairs, [](const Pair& p) { return p.first == p.second; });
  t.pairs = std::move(pairs);
  t.labels = Components(n, t.pairs);
  return t;
}

Labels Components(uint32_t n, const std::vector<Pair>& pairs) {
  std::vector<uint32_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  for (const auto& [a, b] : pairs) {
    uint32_t ra = Find(parent, a), rb = Find(parent, b);
    if (ra != rb) parent[std::max(ra, rb)] = std::min(ra, rb);
  }
  Labels out(n);
  for (uint32_t i = 0; i < n; ++i) out[i] = Find(parent, i);
  return out;
}

double AdjustedRandIndex(const Labels& a, const Labels& b) {
  const uint64_t n = a.size();
  const double total = static_cast<double>(Choose2(n));
  const double both = static_cast<double>(PairsWithinBoth(a, b));
  const double sa = static_cast<double>(PairsWithin(a));
  const double sb = static_cast<double>(PairsWithin(b));
  const double expected = total == 0 ? 0 : sa * sb / total;
  const double max_index = (sa + sb) / 2;
  if (max_index == expected) return 1.0;  // degenerate: both trivial partitions
  return (both - expected) / (max_index - expected);
}

Quality Evaluate(const Labels& predicted, const GroundTruth& truth) {
  Quality q;
  q.predicted_pairs = PairsWithin(predicted);
  if (truth.from_pairs) {
    q.truth_pairs = truth.pairs.size();
    for (const auto& [a, b] : truth.pairs) q.true_positives += predicted[a] == predicted[b];
  } else {
    q.truth_pairs = PairsWithin(truth.labels);
    q.true_positives = PairsWithinBoth(predicted, truth.labels);
  }
  if (q.predicted_pairs > 0)
    q.precision = static_cast<double>(q.true_positives) / q.predicted_pairs;
  if (q.truth_pairs > 0) q.recall = static_cast<double>(q.true_positives) / q.truth_pairs;
  q.f1 = q.precision + q.recall > 0 ? 2 * q.precision * q.recall / (q.precision + q.recall) : 0;
  q.ari = AdjustedRandIndex(predicted, truth.labels);
  return q;
}

uint64_t PeakRssBytes() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<uint64_t>(ru.ru_maxrss) * 1024;  // Linux reports KiB
}

}  // namespace neardup::eval
