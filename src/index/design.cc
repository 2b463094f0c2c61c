// SPDX-License-Identifier: Apache-2.0
//
// Table layouts and the cost model (see design.h for the method). The cost
// model is analytic: probes cost a random memory access, candidates a
// popcount over contiguous entries; constants were fitted on the reference
// machine with bench/hamming_bench (docs/index.md).
#include "index/design.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <tuple>

namespace neardup::index {
namespace {

constexpr int kMaxTables = 64;
constexpr int kMaxBlocks = 24;                 // the cost model's search range
constexpr size_t kSmallRun = size_t{1} << 20;  // runs below this keep at most 4 tables
constexpr int kSmallRunTables = 4;
constexpr double kProbeNsFar = 45;    // directory + bucket miss in DRAM
constexpr double kProbeNsNear = 8;    // the same in cache
constexpr double kCandidateNs = 1.1;  // one verified entry, bucket prefetched
constexpr double kScanNs = 0.3;       // one fingerprint of a linear scan
constexpr double kCacheBytes = 8 << 20;

double Choose(int n, int r) {  // sum_{j<=r} C(n, j)
  double total = 0, c = 1;
  for (int j = 0; j <= std::min(n, r); ++j) {
    total += c;
    c = c * (n - j) / (j + 1);
  }
  return total;
}

int BlockWidth(int blocks, int i) { return 64 / blocks + (i < 64 % blocks ? 1 : 0); }
int GroupSize(int blocks, int groups, int j) {
  return blocks / groups + (j < blocks % groups ? 1 : 0);
}

// Cost for the adversary to defeat every t-subset of a group of s blocks at radius r.
int DefeatCost(int s, int t, int r) {
  if (r < 0) return 0;
  return (r + 1) + (s - t) * ((r + 1 + t - 1) / t);
}

std::vector<int> RadiiFor(const std::vector<int>& group_size, int t, int k) {
  std::vector<int> radii(group_size.size(), -1);
  int total = 0;
  for (size_t g = 0; total <= k; g = (g + 1) % radii.size()) {
    total -= DefeatCost(group_size[g], t, radii[g]);
    ++radii[g];
    total += DefeatCost(group_size[g], t, radii[g]);
  }
  return radii;
}

int TableCount(int blocks, int groups, int t) {
  double tables = 0;
  for (int j = 0; j < groups; ++j) {
    int s = GroupSize(blocks, groups, j);
    if (s < t) return std::numeric_limits<int>::max();
    double c = 1;
    for (int i = 0; i < t; ++i) c = c * (s - i) / (i + 1);
    tables += std::round(c);
  }
  return tables > kMaxTables ? std::numeric_limits<int>::max() : static_cast<int>(tables);
}

// Cost of one table with `key_bits` bits probed at radius r over n entries.
void AddTableCost(size_t n, int key_bits, int r, CostEstimate* e) {
  const int d = DirectoryBits(n, key_bits);
  const double width = d >= 16 ? 6 : 8;
  e->bytes_per_doc += width + 4.0 * std::ldexp(1.0, d) / std::max<size_t>(n, 1);
  if (r < 0) return;
  const double probes = Choose(d, r);
  const double bucket = n / std::ldexp(1.0, d);
  double cands = probes * bucket;
  if (r == 0 && key_bits > d) cands = n / std::ldexp(1.0, key_bits) + std::log2(bucket + 1);
  const double probe_ns = n * width > kCacheBytes ? kProbeNsFar : kProbeNsNear;
  e->probes += probes;
  e->candidates += cands;
  e->ns_per_query += probes * probe_ns + cands * kCandidateNs;
}

CostEstimate EstimateParams(size_t n, int k, int blocks, int groups, int t) {
  CostEstimate e;
  std::vector<int> sizes(groups);
  for (int j = 0; j < groups; ++j) sizes[j] = GroupSize(blocks, groups, j);
  const std::vector<int> radii = RadiiFor(sizes, t, k);
  const int key_bits = static_cast<int>(std::lround(64.0 * t / blocks));
  for (int j = 0; j < groups; ++j) {
    double c = 1;
    for (int i = 0; i < t; ++i) c = c * (sizes[j] - i) / (i + 1);
    for (int i = 0; i < std::lround(c); ++i) AddTableCost(n, key_bits, radii[j], &e);
  }
  e.bytes_per_doc += 4;  // slots beside table 0
  return e;
}

// Appends the permutation segments of the blocks in `order` placed from bit 63 down.
BitPermutation PlaceFromTop(const std::vector<int>& order, int blocks) {
  BitPermutation p;
  int top = 64;
  for (int b : order) {
    int lo = 0;
    for (int i = 0; i < b; ++i) lo += BlockWidth(blocks, i);
    const int w = BlockWidth(blocks, b);
    top -= w;
    auto& segs = p.segments;
    if (!segs.empty() && segs.back().src == lo + w && segs.back().dst == top + w) {
      const int width = std::popcount(segs.back().mask) + w;
      segs.back().src = lo;
      segs.back().dst = top;
      segs.back().mask = width >= 64 ? ~0ULL : (1ULL << width) - 1;
    } else {
      segs.push_back(
          {static_cast<uint8_t>(lo), static_cast<uint8_t>(top), w >= 64 ? ~0ULL : (1ULL << w) - 1});
    }
  }
  return p;
}

}  // namespace

BitPermutation BitPermutation::Inverse() const {
  BitPermutation inv;
  for (const Segment& s : segments) inv.segments.push_back({s.dst, s.src, s.mask});
  return inv;
}

Design Design::Linear() { return Design(); }

bool Design::Valid(int blocks, int groups, int key_blocks) {
  if (blocks < 1 || blocks > 64 || groups < 1 || groups > blocks || key_blocks < 1) return false;
  return TableCount(blocks, groups, key_blocks) <= kMaxTables;
}

Design Design::Make(int blocks, int groups, int key_blocks) {
  Design d;
  if (!Valid(blocks, groups, key_blocks)) return d;
  d.blocks_ = blocks;
  d.key_blocks_ = key_blocks;
  d.num_groups_ = groups;
  int first = 0;
  for (int g = 0; g < groups; ++g) {
    const int s = GroupSize(blocks, groups, g);
    d.group_size_.push_back(s);
    // Every t-subset of blocks [first, first + s), via a bitmask over the group.
    for (uint64_t sub = 0; sub < (1ULL << s); ++sub) {
      if (std::popcount(sub) != key_blocks) continue;
      std::vector<int> order;
      TableSpec spec;
      spec.group = g;
      for (int b = blocks - 1; b >= 0; --b) {
        const bool in_key = b >= first && b < first + s && ((sub >> (b - first)) & 1);
        if (!in_key) continue;
        order.push_back(b);
        spec.key_bits += BlockWidth(blocks, b);
        int lo = 0;
        for (int i = 0; i < b; ++i) lo += BlockWidth(blocks, i);
        const int w = BlockWidth(blocks, b);
        spec.key_mask |= (w >= 64 ? ~0ULL : ((1ULL << w) - 1)) << lo;
      }
      for (int b = blocks - 1; b >= 0; --b) {
        if (std::find(order.begin(), order.end(), b) == order.end()) order.push_back(b);
      }
      // The key occupies order's first t entries; the rest follow.
      spec.permute = PlaceFromTop(order, blocks);
      spec.unpermute = spec.permute.Inverse();
      d.tables_.push_back(std::move(spec));
    }
    first += s;
  }
  return d;
}

std::vector<int> Design::Radii(int k) const {
  if (linear()) return {};
  return RadiiFor(group_size_, key_blocks_, k);
}

std::string Design::ToString() const {
  if (linear()) return "linear";
  return "m=" + std::to_string(blocks_) + " g=" + std::to_string(num_groups_) +
         " t=" + std::to_string(key_blocks_) + " tables=" + std::to_string(tables_.size());
}

int DirectoryBits(size_t n, int key_bits) {
  int log2n = 0;
  while ((size_t{2} << log2n) <= n) ++log2n;
  return std::clamp(std::min(key_bits, log2n - 2), 0, 26);
}

CostEstimate Estimate(const Design& design, size_t n, int k) {
  CostEstimate e;
  if (design.linear()) {
    e.ns_per_query = n * kScanNs;
    e.candidates = n;
    e.bytes_per_doc = 12;
    return e;
  }
  const std::vector<int> radii = design.Radii(k);
  for (const TableSpec& t : design.tables()) AddTableCost(n, t.key_bits, radii[t.group], &e);
  e.bytes_per_doc += 4;
  return e;
}

Design ChooseDesign(size_t n, int k, double budget_bytes_per_doc, const HammingLayout& ov) {
  if (ov.linear) return Design::Linear();
  if (ov.blocks > 0) return Design::Make(ov.blocks, ov.groups, ov.key_blocks);
  // The choice changes slowly with n: cache it per quarter octave of n.
  static std::mutex mu;
  static std::map<std::tuple<int, int, double>, std::tuple<int, int, int>> cache;
  const int octave =
      n == 0 ? -1 : static_cast<int>(std::floor(4 * std::log2(static_cast<double>(n))));
  const auto key = std::make_tuple(octave, k, budget_bytes_per_doc);
  {
    std::lock_guard lk(mu);
    auto it = cache.find(key);
    if (it != cache.end()) {
      const auto [m, g, t] = it->second;
      return m == 0 ? Design::Linear() : Design::Make(m, g, t);
    }
  }
  double best = n * kScanNs;
  int bm = 0, bg = 0, bt = 0;
  for (int m = 1; m <= kMaxBlocks; ++m) {
    for (int g = 1; g <= m; ++g) {
      for (int t = 1; t <= m / g; ++t) {
        // Small runs are rebuilt by every merge and fit in cache anyway: keep
        // them cheap to build.
        if (TableCount(m, g, t) > (n < kSmallRun ? kSmallRunTables : kMaxTables)) continue;
        const CostEstimate e = EstimateParams(n, k, m, g, t);
        if (e.bytes_per_doc + kSlotBytes > budget_bytes_per_doc) continue;
        if (e.ns_per_query < best) {
          best = e.ns_per_query;
          bm = m, bg = g, bt = t;
        }
      }
    }
  }
  {
    std::lock_guard lk(mu);
    cache[key] = {bm, bg, bt};
  }
  return bm == 0 ? Design::Linear() : Design::Make(bm, bg, bt);
}

}  // namespace neardup::index
