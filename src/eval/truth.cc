// SPDX-License-Identifier: Apache-2.0
// Prefix-filtered all-pairs Jaccard join; see include/neardup/eval.h for the method.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <numeric>
#include <thread>

#include "base/parallel.h"
#include "base/sorted_set.h"
#include "neardup/eval.h"

namespace neardup::eval {
namespace {

// Tolerance for comparing a rational Jaccard value against the threshold.
constexpr double kEps = 1e-9;

size_t Overlap(const std::vector<uint32_t>& x, const std::vector<uint32_t>& y) {
  return SortedIntersectionSize<uint32_t>(x, y);
}

size_t PrefixLength(size_t size, double t) {
  const size_t need = static_cast<size_t>(std::ceil(t * size - kEps));
  return size - std::max<size_t>(need, 1) + 1;
}

// Rewrites every set as sorted token ranks, rarest token first.
std::vector<std::vector<uint32_t>> RankTokens(const std::vector<std::vector<uint64_t>>& sets) {
  std::vector<uint64_t> all;
  size_t total = 0;
  for (const auto& s : sets) total += s.size();
  all.reserve(total);
  for (const auto& s : sets) all.insert(all.end(), s.begin(), s.end());
  std::sort(all.begin(), all.end());
  std::vector<uint64_t> uniq;
  std::vector<uint32_t> freq;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j] == all[i]) ++j;
    uniq.push_back(all[i]);
    freq.push_back(static_cast<uint32_t>(j - i));
    i = j;
  }
  all.clear();
  all.shrink_to_fit();
  std::vector<uint32_t> order(uniq.size()), rank(uniq.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return freq[a] < freq[b]; });
  for (uint32_t r = 0; r < order.size(); ++r) rank[order[r]] = r;
  std::vector<std::vector<uint32_t>> out(sets.size());
  for (size_t d = 0; d < sets.size(); ++d) {
    out[d].reserve(sets[d].size());
    for (uint64_t h : sets[d]) {
      const size_t u = std::lower_bound(uniq.begin(), uniq.end(), h) - uniq.begin();
      out[d].push_back(rank[u]);
    }
    std::sort(out[d].begin(), out[d].end());
  }
  return out;
}

struct Index {
  std::vector<uint32_t> order;     // set ids by (size, id)
  std::vector<size_t> start;       // CSR offsets per token
  std::vector<uint32_t> postings;  // positions in `order`, ascending per token
};

Index BuildIndex(const std::vector<std::vector<uint32_t>>& ranked, size_t tokens, double t) {
  Index ix;
  ix.order.resize(ranked.size());
  std::iota(ix.order.begin(), ix.order.end(), 0);
  std::stable_sort(ix.order.begin(), ix.order.end(),
                   [&](uint32_t a, uint32_t b) { return ranked[a].size() < ranked[b].size(); });
  ix.start.assign(tokens + 1, 0);
  for (uint32_t d : ix.order) {
    const auto& s = ranked[d];
    for (size_t i = 0, p = s.empty() ? 0 : PrefixLength(s.size(), t); i < p; ++i)
      ++ix.start[s[i] + 1];
  }
  std::partial_sum(ix.start.begin(), ix.start.end(), ix.start.begin());
  ix.postings.resize(ix.start.back());
  std::vector<size_t> fill(ix.start.begin(), ix.start.end() - 1);
  for (uint32_t pos = 0; pos < ix.order.size(); ++pos) {
    const auto& s = ranked[ix.order[pos]];
    for (size_t i = 0, p = s.empty() ? 0 : PrefixLength(s.size(), t); i < p; ++i) {
      ix.postings[fill[s[i]]++] = pos;
    }
  }
  return ix;
}

// Finds the partners of the set at position `pos` among smaller positions.
void Probe(const std::vector<std::vector<uint32_t>>& ranked, const Index& ix, double t,
           uint32_t pos, std::vector<uint32_t>* stamp, std::vector<uint32_t>* cands,
           std::vector<SimilarPair>* out) {
  const uint32_t x = ix.order[pos];
  const auto& sx = ranked[x];
  if (sx.empty()) return;
  const double min_size = t * sx.size() - kEps;
  cands->clear();
  for (size_t i = 0, p = PrefixLength(sx.size(), t); i < p; ++i) {
    const uint32_t tok = sx[i];
    for (size_t k = ix.start[tok]; k < ix.start[tok + 1]; ++k) {
      const uint32_t q = ix.postings[k];
      if (q >= pos) break;
      if ((*stamp)[q] == pos + 1) continue;
      (*stamp)[q] = pos + 1;
      if (ranked[ix.order[q]].size() >= min_size) cands->push_back(q);
    }
  }
  for (uint32_t q : *cands) {
    const uint32_t y = ix.order[q];
    const size_t o = Overlap(sx, ranked[y]);
    const double j = static_cast<double>(o) / (sx.size() + ranked[y].size() - o);
    if (j + kEps >= t) out->push_back({std::min(x, y), std::max(x, y), j});
  }
}

}  // namespace

Result<std::vector<SimilarPair>> AllPairsJaccard(const std::vector<std::vector<uint64_t>>& sets,
                                                 double threshold, int threads) {
  if (!(threshold > 0 && threshold <= 1)) {
    return Status::InvalidArgument("Jaccard threshold must be in (0, 1]");
  }
  if (sets.size() >= UINT32_MAX) return Status::OutOfRange("too many sets for the join");
  for (const auto& s : sets) {
    for (size_t i = 1; i < s.size(); ++i) {
      if (s[i - 1] >= s[i]) return Status::InvalidArgument("sets must be sorted and unique");
    }
  }
  const auto ranked = RankTokens(sets);
  size_t tokens = 0;
  for (const auto& s : ranked) tokens = std::max<size_t>(tokens, s.empty() ? 0 : s.back() + 1);
  const Index ix = BuildIndex(ranked, tokens, threshold);

  constexpr size_t kChunk = 256;
  const int workers = base::NumWorkers(sets.size(), threads, kChunk);
  std::vector<std::vector<SimilarPair>> found(workers);
  std::vector<std::vector<uint32_t>> stamps(workers), cands(workers);
  base::ParallelFor(sets.size(), threads, kChunk, [&](int w, size_t begin, size_t end) {
    if (stamps[w].empty()) stamps[w].assign(sets.size(), 0);
    for (size_t pos = begin; pos < end; ++pos) {
      Probe(ranked, ix, threshold, static_cast<uint32_t>(pos), &stamps[w], &cands[w], &found[w]);
    }
  });

  std::vector<SimilarPair> out;
  for (auto& f : found) out.insert(out.end(), f.begin(), f.end());
  std::sort(out.begin(), out.end(), [](const SimilarPair& p, const SimilarPair& q) {
    return p.a != q.a ? p.a < q.a : p.b < q.b;
  });
  return out;
}

}  // namespace neardup::eval
