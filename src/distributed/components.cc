// SPDX-License-Identifier: Apache-2.0
#include "distributed/components.h"

#include <algorithm>

#include "base/status_macros.h"
#include "distributed/forest.h"

namespace neardup::distributed {
namespace {

void SortUnique(std::vector<uint32_t>* v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

size_t IndexOf(const std::vector<uint32_t>& sorted, uint32_t x) {
  return std::lower_bound(sorted.begin(), sorted.end(), x) - sorted.begin();
}

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

Labels Components(Comm& c, const LineRanges& ranges, std::vector<batch::Edge> edges,
                  uint64_t* rounds, size_t slice) {
  Forest forest(c, ranges, slice);
  std::vector<batch::Edge>& active = edges;  // edges not known to be inside one tree
  do {
    ++*rounds;
  } while (forest.Round(&active) > 0);
  return forest.Finish();
}

std::vector<batch::Edge> JoinContained(Comm& c, const LineRanges& ranges,
                                       const std::vector<batch::Edge>& contained, Labels* labels,
                                       uint64_t* rounds, size_t slice) {
  const std::vector<batch::Edge> all = FromBytes<batch::Edge>(c.AllGather(AsBytes(contained)));
  if (all.empty()) return {};
  std::vector<uint32_t> ends;
  for (const batch::Edge& e : all) ends.push_back(e.a), ends.push_back(e.b);
  SortUnique(&ends);
  const uint32_t lo = ranges.begin(c.rank());
  auto owner = [&](uint32_t d) { return ranges.Owner(d); };
  const std::vector<uint32_t> roots =
      Query(c, ends, owner, [&](uint32_t d) { return labels->root[d - lo]; });
  std::vector<batch::Edge> chosen =
      batch::ChooseContained(all, [&](uint32_t d) { return roots[IndexOf(ends, d)]; });
  std::vector<batch::Edge> edges;
  for (uint32_t i = 0; i < labels->root.size(); ++i) {
    if (labels->root[i] != lo + i) edges.push_back({labels->root[i], lo + i, 1.0f});
  }
  if (c.rank() == 0) edges.insert(edges.end(), chosen.begin(), chosen.end());
  *labels = Components(c, ranges, std::move(edges), rounds, slice);
  return chosen;
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
