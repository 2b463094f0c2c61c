// SPDX-License-Identifier: Apache-2.0
#include "distributed/share.h"

#include <algorithm>
#include <span>
#include <string_view>

#include "base/status_macros.h"
#include "base/utf8.h"
#include "neardup/ids.h"

namespace neardup::distributed {
namespace {

struct Member {
  uint32_t root, line, code_points;
  std::string_view id;
};

// Step 1: (root, line, code points, id) of each own record in a cluster of
// two or more, to the owner of its root. Counts the own singletons.
Status SendMembers(Comm& c, const LineRanges& ranges, const batch::RunInput& input,
                   const Labels& labels, KeepPolicy keep, std::vector<std::vector<uint8_t>>* out,
                   uint64_t* singletons, uint64_t* bad_line) {
  batch::RecordParser parser(input.fields);
  batch::ParsedRecord rec;
  const uint32_t begin = ranges.begin(c.rank());
  for (uint32_t i = 0; i < labels.root.size(); ++i) {
    const uint32_t d = begin + i;
    if (input.lines->state(d) != batch::kRecord) continue;
    if (labels.size[i] < 2) {
      *singletons += d >= input.corpus_lines;
      continue;
    }
    // The text only for --keep longest: the id alone is cheaper to find.
    std::string_view id;
    uint32_t code_points = 0;
    Status s;
    if (keep == KeepPolicy::kLongest) {
      s = input.Parse(d, &parser, &rec, /*in_order=*/true);
      id = rec.id_json;
      code_points = static_cast<uint32_t>(base::CodePointCount(rec.text));
    } else {
      s = input.ParseId(d, &parser, &id, /*in_order=*/true);
    }
    if (!s.ok()) {
      *bad_line = d;
      return s;
    }
    std::vector<uint8_t>& m = (*out)[ranges.Owner(labels.root[i])];
    AppendPod(labels.root[i], &m);
    AppendPod(d, &m);
    AppendPod(code_points, &m);
    AppendString(id, &m);
  }
  return Status::OK();
}

// The member the keep phase keeps among `g` (sorted by line).
size_t Kept(std::span<const Member> g, KeepPolicy keep, uint64_t corpus_lines) {
  size_t k = 0;
  if (keep == KeepPolicy::kFirst) return k;
  for (size_t j = 1; j < g.size(); ++j) {
    if (g[k].line < corpus_lines && g[j].line >= corpus_lines) continue;
    const bool better = keep == KeepPolicy::kSmallestId ? IdLess(g[j].id, g[k].id)
                                                        : g[j].code_points > g[k].code_points;
    if (better) k = j;
  }
  return k;
}

struct Replies {
  std::vector<std::vector<uint8_t>> names, clusters;
  uint64_t clusters_counted = 0;
};

// Step 2 for one cluster (its members sorted by line).
void NameCluster(const LineRanges& ranges, std::span<const Member> g, KeepPolicy keep,
                 uint64_t corpus_lines, bool clusters, Replies* out) {
  const Member& first = g.front();
  const Member& kept = g[Kept(g, keep, corpus_lines)];
  out->clusters_counted += g.back().line >= corpus_lines;  // it has new records
  for (const Member& m : g) {
    std::vector<uint8_t>& b = out->names[ranges.Owner(m.line)];
    AppendPod(m.line, &b);
    AppendPod(first.line, &b);
    AppendPod(kept.line, &b);
    AppendString(first.id, &b);
    AppendString(kept.id, &b);
  }
  if (!clusters) return;
  std::vector<uint8_t>& b = out->clusters[ranges.Owner(first.line)];
  AppendPod(first.line, &b);
  AppendPod(static_cast<uint32_t>(g.size()), &b);
  AppendString(kept.id, &b);
  for (const Member& m : g) AppendString(m.id, &b);
}

Replies NameClusters(Comm& c, const LineRanges& ranges, const std::vector<uint8_t>& in,
                     KeepPolicy keep, uint64_t corpus_lines, bool clusters) {
  std::vector<Member> members;
  for (MessageReader r(in); !r.done();) {
    Member m;
    m.root = r.Pod<uint32_t>();
    m.line = r.Pod<uint32_t>();
    m.code_points = r.Pod<uint32_t>();
    m.id = r.String();
    members.push_back(m);
  }
  std::sort(members.begin(), members.end(), [](const Member& a, const Member& b) {
    return a.root != b.root ? a.root < b.root : a.line < b.line;
  });
  Replies out;
  out.names.resize(c.size());
  out.clusters.resize(c.size());
  for (size_t i = 0, j = 0; i < members.size(); i = j) {
    while (j < members.size() && members[j].root == members[i].root) ++j;
    NameCluster(ranges, std::span<const Member>(members).subspan(i, j - i), keep, corpus_lines,
                clusters, &out);
  }
  return out;
}

std::vector<batch::ShareNames::Name> ReadNames(const std::vector<uint8_t>& in,
                                               const LineRanges& ranges, int rank,
                                               const Labels& labels) {
  std::vector<batch::ShareNames::Name> names;
  for (MessageReader r(in); !r.done();) {
    batch::ShareNames::Name n;
    n.line = r.Pod<uint32_t>();
    n.first = r.Pod<uint32_t>();
    n.kept = r.Pod<uint32_t>();
    n.first_id = r.String();
    n.kept_id = r.String();
    n.size = labels.size[n.line - ranges.begin(rank)];
    names.push_back(std::move(n));
  }
  std::sort(names.begin(), names.end(),
            [](const auto& a, const auto& b) { return a.line < b.line; });
  return names;
}

std::vector<batch::ShareNames::Cluster> ReadClusters(const std::vector<uint8_t>& in) {
  std::vector<batch::ShareNames::Cluster> clusters;
  for (MessageReader r(in); !r.done();) {
    batch::ShareNames::Cluster cl;
    cl.first = r.Pod<uint32_t>();
    const uint32_t n = r.Pod<uint32_t>();
    cl.kept_id = r.String();
    cl.members.reserve(n);
    for (uint32_t k = 0; k < n; ++k) cl.members.emplace_back(r.String());
    clusters.push_back(std::move(cl));
  }
  std::sort(clusters.begin(), clusters.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return clusters;
}

}  // namespace

Result<std::unique_ptr<batch::ShareNames>> NameShare(Comm& c, const LineRanges& ranges,
                                                     const batch::RunInput& input,
                                                     const Labels& labels, KeepPolicy keep,
                                                     bool clusters, ShareCounts* counts) {
  std::vector<std::vector<uint8_t>> out(c.size());
  uint64_t singletons = 0, bad_line = 0;
  const Status s = SendMembers(c, ranges, input, labels, keep, &out, &singletons, &bad_line);
  if (Status agreed = Agree(c, s, bad_line); !agreed.ok()) return agreed;
  Replies replies;
  {
    const std::vector<uint8_t> in = c.Exchange(out);
    out.clear();
    replies = NameClusters(c, ranges, in, keep, input.corpus_lines, clusters);
  }
  auto share = std::make_unique<batch::ShareNames>();
  share->begin = ranges.begin(c.rank());
  share->end = ranges.end(c.rank());
  share->names = ReadNames(c.Exchange(replies.names), ranges, c.rank(), labels);
  replies.names.clear();
  if (clusters) share->clusters = ReadClusters(c.Exchange(replies.clusters));
  uint64_t duplicates = 0;
  for (const batch::ShareNames::Name& n : share->names) {
    duplicates += n.line >= input.corpus_lines && n.kept != n.line;
  }
  counts->clusters = SumAll(c, singletons + replies.clusters_counted);
  counts->multi_clusters = SumAll(c, replies.clusters_counted);
  counts->duplicates = SumAll(c, duplicates);
  return share;
}

}  // namespace neardup::distributed
