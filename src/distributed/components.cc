// SPDX-License-Identifier: Apache-2.0
#include "distributed/components.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "base/status_macros.h"

namespace neardup::distributed {
namespace {

void SortUnique(std::vector<uint32_t>* v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

size_t IndexOf(const std::vector<uint32_t>& sorted, uint32_t x) {
  return std::lower_bound(sorted.begin(), sorted.end(), x) - sorted.begin();
}

// The parents of this rank's documents [lo, hi), and lookups of others'.
class Forest {
 public:
  Forest(Comm& c, const LineRanges& ranges) : c_(c), ranges_(ranges), lo_(ranges.begin(c.rank())) {
    parent_.resize(ranges.end(c.rank()) - lo_);
    std::iota(parent_.begin(), parent_.end(), lo_);
  }

  // Values of `values` (indexed by own document) for the sorted `ids`.
  std::vector<uint32_t> Lookup(const std::vector<uint32_t>& ids,
                               const std::vector<uint32_t>& values) {
    return Query(
        c_, ids, [&](uint32_t d) { return ranges_.Owner(d); },
        [&](uint32_t d) { return values[d - lo_]; });
  }

  // One round of hooking over the edges not yet inside one tree (trees
  // are stars, so parents are roots); drops the others from *active.
  // Returns the proposals made over all ranks.
  uint64_t Hook(std::vector<batch::Edge>* active) {
    std::vector<uint32_t> ends;
    for (const batch::Edge& e : *active) ends.push_back(e.a), ends.push_back(e.b);
    SortUnique(&ends);
    const std::vector<uint32_t> roots = Lookup(ends, parent_);
    std::vector<std::vector<uint8_t>> out(c_.size());
    uint64_t proposals = 0;
    size_t kept = 0;
    for (const batch::Edge& e : *active) {
      const uint32_t ra = roots[IndexOf(ends, e.a)], rb = roots[IndexOf(ends, e.b)];
      if (ra == rb) continue;  // joined for good
      (*active)[kept++] = e;
      // The larger root under the smaller one.
      const uint32_t x = std::max(ra, rb), y = std::min(ra, rb);
      AppendPod(x, &out[ranges_.Owner(x)]);
      AppendPod(y, &out[ranges_.Owner(x)]);
      ++proposals;
    }
    active->resize(kept);
    const std::vector<uint32_t> in = FromBytes<uint32_t>(c_.Exchange(out));
    for (size_t i = 0; i + 1 < in.size(); i += 2) {
      uint32_t& p = parent_[in[i] - lo_];
      p = std::min(p, in[i + 1]);
    }
    return SumAll(c_, proposals);
  }

  // Pointer jumping until every tree is a star.
  void Jump() {
    std::vector<uint32_t> ps;
    while (true) {
      ps.clear();
      for (uint32_t i = 0; i < parent_.size(); ++i) {
        if (parent_[i] != lo_ + i) ps.push_back(parent_[i]);
      }
      SortUnique(&ps);
      const std::vector<uint32_t> grand = Lookup(ps, parent_);
      uint64_t changed = 0;
      for (uint32_t i = 0; i < parent_.size(); ++i) {
        const uint32_t p = parent_[i];
        if (p == lo_ + i) continue;
        const uint32_t g = grand[IndexOf(ps, p)];
        if (g != p) parent_[i] = g, ++changed;
      }
      if (SumAll(c_, changed) == 0) return;
    }
  }

  // Sizes: members counted per root on the root's owner, then looked up.
  Labels Finish() {
    std::unordered_map<uint32_t, uint32_t> count;
    for (uint32_t i = 0; i < parent_.size(); ++i) {
      if (parent_[i] != lo_ + i) ++count[parent_[i]];
    }
    std::vector<std::vector<uint8_t>> out(c_.size());
    for (const auto& [root, k] : count) {
      AppendPod(root, &out[ranges_.Owner(root)]);
      AppendPod(k, &out[ranges_.Owner(root)]);
    }
    std::vector<uint32_t> root_size(parent_.size(), 1);
    const std::vector<uint32_t> in = FromBytes<uint32_t>(c_.Exchange(out));
    for (size_t i = 0; i + 1 < in.size(); i += 2) root_size[in[i] - lo_] += in[i + 1];
    std::vector<uint32_t> roots;
    for (const auto& [root, k] : count) roots.push_back(root);
    std::sort(roots.begin(), roots.end());
    const std::vector<uint32_t> sizes = Lookup(roots, root_size);
    Labels l;
    l.root = parent_;
    l.size.assign(parent_.size(), 1);
    for (uint32_t i = 0; i < parent_.size(); ++i) {
      const uint32_t r = parent_[i];
      l.size[i] = r == lo_ + i ? root_size[i] : sizes[IndexOf(roots, r)];
    }
    return l;
  }

 private:
  Comm& c_;
  const LineRanges& ranges_;
  uint32_t lo_;
  std::vector<uint32_t> parent_;
};

// Replays `mine` (every edge of some oversized components) through a capped
// ClusterBuilder over their documents renumbered in order; appends
// (document, root, size) for each document to the message of its owner.
Status Replay(const std::vector<batch::Edge>& mine, const LineRanges& ranges, uint64_t cap,
              batch::TempDir* tmp, uint64_t sort_bytes, std::vector<std::vector<uint8_t>>* back,
              CapStats* stats) {
  std::vector<uint32_t> docs;
  for (const batch::Edge& e : mine) docs.push_back(e.a), docs.push_back(e.b);
  SortUnique(&docs);
  if (docs.empty()) return Status::OK();
  batch::ClusterBuilder builder(docs.size(), cap, tmp, sort_bytes);
  for (const batch::Edge& e : mine) {
    const auto a = static_cast<uint32_t>(IndexOf(docs, e.a));
    const auto b = static_cast<uint32_t>(IndexOf(docs, e.b));
    NEARDUP_RETURN_IF_ERROR(builder.Add({a, b, e.similarity}));
  }
  NEARDUP_ASSIGN_OR_RETURN(batch::Clustering cl, builder.Finish());
  stats->oversized_components += cl.stats.oversized_components;
  stats->refused_by_cap += cl.stats.refused_by_cap;
  for (uint32_t i = 0; i < docs.size(); ++i) {
    const uint32_t r = cl.root[i];
    std::vector<uint8_t>& to = (*back)[ranges.Owner(docs[i])];
    AppendPod(docs[i], &to);
    AppendPod(docs[r], &to);
    AppendPod(cl.size[r], &to);
  }
  return Status::OK();
}

}  // namespace

Labels Components(Comm& c, const LineRanges& ranges, const std::vector<batch::Edge>& edges,
                  uint64_t* rounds) {
  Forest forest(c, ranges);
  std::vector<batch::Edge> active = edges;  // edges whose ends have different roots
  while (forest.Hook(&active) > 0) {
    ++*rounds;
    forest.Jump();
  }
  return forest.Finish();
}

Status Cap(Comm& c, const LineRanges& ranges, const std::vector<batch::Edge>& edges, uint64_t cap,
           batch::TempDir* tmp, uint64_t sort_bytes, Labels* labels, CapStats* stats) {
  const uint32_t lo = ranges.begin(c.rank());
  // The root and size of every edge's component, from the owners.
  std::vector<uint32_t> ends;
  for (const batch::Edge& e : edges) ends.push_back(e.a);
  SortUnique(&ends);
  auto owner = [&](uint32_t d) { return ranges.Owner(d); };
  const std::vector<uint32_t> sizes =
      Query(c, ends, owner, [&](uint32_t d) { return labels->size[d - lo]; });
  const std::vector<uint32_t> roots =
      Query(c, ends, owner, [&](uint32_t d) { return labels->root[d - lo]; });
  std::vector<std::vector<uint8_t>> out(c.size());
  for (const batch::Edge& e : edges) {
    const size_t i = IndexOf(ends, e.a);
    if (sizes[i] > cap) AppendPod(e, &out[KeyOwner(roots[i], c.size())]);
  }
  const std::vector<batch::Edge> mine = FromBytes<batch::Edge>(c.Exchange(out));
  std::vector<std::vector<uint8_t>> back(c.size());
  const Status status = Replay(mine, ranges, cap, tmp, sort_bytes, &back, stats);
  const std::vector<uint32_t> in = FromBytes<uint32_t>(c.Exchange(back));
  for (size_t i = 0; i + 2 < in.size(); i += 3) {
    labels->root[in[i] - lo] = in[i + 1];
    labels->size[in[i] - lo] = in[i + 2];
  }
  return status;
}

}  // namespace neardup::distributed
