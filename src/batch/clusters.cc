// SPDX-License-Identifier: Apache-2.0
#include "batch/clusters.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "base/status_macros.h"
#include "batch/sort.h"
#include "batch/sorted_runs.h"
#include "batch/spill_buffer.h"
#include "cluster/union_find.h"

namespace neardup::batch {
namespace {

// The canonical order as one 64-bit radix key: the similarity's float bits
// inverted (descending; similarities are >= 0, so the bits order like the
// values), then a.
uint64_t CanonicalKey(const Edge& e) {
  uint32_t bits;
  static_assert(sizeof bits == sizeof e.similarity);
  std::memcpy(&bits, &e.similarity, sizeof bits);
  return (static_cast<uint64_t>(~bits) << 32) | e.a;
}

}  // namespace

ClusterBuilder::ClusterBuilder(uint64_t n, uint64_t cap, TempDir* tmp, size_t sort_bytes)
    : n_(n), cap_(cap), tmp_(tmp), sort_bytes_(sort_bytes), parent_(n), size_(n, 1) {
  std::iota(parent_.begin(), parent_.end(), 0u);
}

ClusterBuilder::~ClusterBuilder() {
  edges_.reset();
  if (!edges_path_.empty()) unlink(edges_path_.c_str());
}

uint32_t ClusterBuilder::Find(uint32_t x) {
  while (parent_[x] != x) {
    parent_[x] = parent_[parent_[x]];
    x = parent_[x];
  }
  return x;
}

Status ClusterBuilder::Add(const Edge& e) {
  NEARDUP_CHECK(e.a < n_ && e.b < n_);
  ++stats_.edges;
  if (IsContained(e)) {
    contained_.push_back(e);
    return Status::OK();
  }
  return Join(e);
}

Status ClusterBuilder::Join(const Edge& e) {
  if (cap_ > 0) {
    if (!edges_) {
      edges_ = std::make_unique<SpillWriter>();
      edges_path_ = tmp_->File("edges.bin");
      NEARDUP_RETURN_IF_ERROR(edges_->Open(edges_path_));
    }
    NEARDUP_RETURN_IF_ERROR(edges_->Append(&e, sizeof e));
  }
  uint32_t ra = Find(e.a), rb = Find(e.b);
  if (ra == rb) return Status::OK();
  if (size_[ra] < size_[rb]) std::swap(ra, rb);
  parent_[rb] = ra;
  size_[ra] += size_[rb];
  return Status::OK();
}

std::vector<Edge> ChooseContained(std::span<const Edge> contained,
                                  const std::function<uint32_t(uint32_t)>& root) {
  struct Choice {
    uint32_t root;
    Edge e;
  };
  std::vector<Choice> choices;
  for (const Edge& e : contained) {
    const uint32_t small = ContainedOf(e), large = small == e.a ? e.b : e.a;
    const uint32_t r = root(small);
    if (r != root(large)) choices.push_back({r, {e.a, e.b, ReportedSimilarity(e)}});
  }
  std::sort(choices.begin(), choices.end(), [](const Choice& x, const Choice& y) {
    if (x.root != y.root) return x.root < y.root;
    if (x.e.similarity != y.e.similarity) return x.e.similarity > y.e.similarity;
    return x.e.a != y.e.a ? x.e.a < y.e.a : x.e.b < y.e.b;
  });
  std::vector<Edge> out;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (i == 0 || choices[i].root != choices[i - 1].root) out.push_back(choices[i].e);
  }
  return out;
}

Result<Clustering> ClusterBuilder::Finish() {
  Clustering c;
  if (!contained_.empty()) {
    const std::vector<Edge> chosen =
        ChooseContained(contained_, [this](uint32_t d) { return Find(d); });
    stats_.containment_edges = contained_.size();
    stats_.containment_joined = chosen.size();
    std::vector<Edge>().swap(contained_);
    for (const Edge& e : chosen) NEARDUP_RETURN_IF_ERROR(Join(e));
  }
  for (uint32_t d = 0; d < n_; ++d) parent_[d] = Find(d);
  for (uint32_t d = 0; d < n_; ++d) {
    if (parent_[d] == d && size_[d] > cap_ && cap_ > 0) ++stats_.oversized_components;
  }
  if (stats_.oversized_components > 0) {
    NEARDUP_RETURN_IF_ERROR(edges_->Close());
    // Step 2: the oversized components' edges, canonically sorted, capped.
    RunSet<Edge, EdgeCanonicalLess> runs(tmp_, "capped");
    SpillBuffer<Edge> buf(std::max<size_t>(1024, sort_bytes_ / sizeof(Edge)));
    auto flush = [&](bool spill) -> Status {
      RadixSort(buf.span(), CanonicalKey, EdgeCanonicalLess());
      return runs.AddRun(&buf, spill);
    };
    SpillReader in;
    NEARDUP_RETURN_IF_ERROR(in.Open(edges_path_));
    Edge e;
    while (true) {
      NEARDUP_ASSIGN_OR_RETURN(bool more, in.Read(&e, sizeof e));
      if (!more) break;
      if (size_[parent_[e.a]] <= cap_) continue;
      NEARDUP_RETURN_IF_ERROR(AppendOrSpill(&buf, e, [&] { return flush(true); }));
      ++stats_.replayed_edges;
    }
    NEARDUP_RETURN_IF_ERROR(flush(runs.spilled_runs() > 0));
    in = SpillReader();
    unlink(edges_path_.c_str());
    edges_path_.clear();
    edges_.reset();
    NEARDUP_ASSIGN_OR_RETURN(auto merger, runs.Merge(sort_bytes_));
    cluster::CappedUnionFind capped(n_, cap_);
    while (true) {
      NEARDUP_ASSIGN_OR_RETURN(bool more, merger->Next(&e));
      if (!more) break;
      if (capped.Union(e.a, e.b) == cluster::UnionResult::kCapExceeded) ++stats_.refused_by_cap;
    }
    std::vector<bool> replayed(n_);
    for (uint32_t d = 0; d < n_; ++d) {
      if (size_[parent_[d]] <= cap_) continue;  // size_ is still the uncapped one here
      replayed[d] = true;
      parent_[d] = static_cast<uint32_t>(capped.Find(d));
    }
    for (uint32_t d = 0; d < n_; ++d) {
      if (replayed[d]) size_[parent_[d]] = static_cast<uint32_t>(capped.SetSize(d));
    }
  }
  c.root = std::move(parent_);
  c.size = std::move(size_);
  c.stats = stats_;
  return c;
}

}  // namespace neardup::batch
