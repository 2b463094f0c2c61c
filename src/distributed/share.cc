// SPDX-License-Identifier: Apache-2.0
#include "distributed/share.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "base/status_macros.h"
#include "base/utf8.h"
#include "batch/monitor.h"
#include "batch/spill_file.h"
#include "neardup/ids.h"

namespace neardup::distributed {
namespace {

struct Member {
  uint32_t root, line, code_points;
  std::string_view id;
};

// The members' messages of step 1, split into passes by root: in memory
// when there is one pass, else one spill file a pass (written while the
// records are read, read back a pass at a time).
class Parts {
 public:
  Parts(size_t passes, batch::TempDir* tmp) : passes_(passes), tmp_(tmp), memory_(passes) {}
  Status Add(uint32_t root, const std::vector<uint8_t>& message) {
    const size_t p = root % passes_;
    if (passes_ == 1) {
      memory_[0].insert(memory_[0].end(), message.begin(), message.end());
      return Status::OK();
    }
    if (files_.empty()) {
      for (size_t k = 0; k < passes_; ++k) {
        files_.push_back(std::make_unique<batch::SpillWriter>());
        NEARDUP_RETURN_IF_ERROR(
            files_[k]->Open(tmp_->File("names-" + std::to_string(k)), 64 << 10));
      }
    }
    return files_[p]->Append(message.data(), message.size());
  }
  // The messages of pass p (once).
  Result<std::vector<uint8_t>> Take(size_t p) {
    if (files_.empty()) return std::move(memory_[p]);
    const std::string path = files_[p]->path();
    NEARDUP_RETURN_IF_ERROR(files_[p]->Close());
    std::vector<uint8_t> bytes(files_[p]->bytes());
    batch::SpillReader r;
    NEARDUP_RETURN_IF_ERROR(r.Open(path, 1 << 20, /*release=*/true));
    if (!bytes.empty()) NEARDUP_RETURN_IF_ERROR(r.Read(bytes.data(), bytes.size()).status());
    std::remove(path.c_str());
    return bytes;
  }

 private:
  size_t passes_;
  batch::TempDir* tmp_;
  std::vector<std::vector<uint8_t>> memory_;
  std::vector<std::unique_ptr<batch::SpillWriter>> files_;
};

// Step 1: (root, line, code points, id) of each own record in a cluster of
// two or more, into its root's pass. Counts the own singletons.
Status SendMembers(const LineRanges& ranges, int rank, const batch::RunInput& input,
                   const Labels& labels, KeepPolicy keep, Parts* parts, uint64_t* singletons,
                   uint64_t* bad_line) {
  batch::RecordParser parser(input.fields);
  batch::ParsedRecord rec;
  const uint32_t begin = ranges.begin(rank);
  std::vector<uint8_t> m;
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
    m.clear();
    AppendPod(labels.root[i], &m);
    AppendPod(d, &m);
    AppendPod(code_points, &m);
    AppendString(id, &m);
    NEARDUP_RETURN_IF_ERROR(parts->Add(labels.root[i], m));
  }
  return Status::OK();
}

// A pass's messages to the owners of their roots.
std::vector<std::vector<uint8_t>> ByRootOwner(const std::vector<uint8_t>& bytes,
                                              const LineRanges& ranges, int ranks) {
  std::vector<std::vector<uint8_t>> out(ranks);
  for (MessageReader r(bytes); !r.done();) {
    const size_t at = r.position();
    const uint32_t root = r.Pod<uint32_t>();
    r.Pod<uint32_t>();
    r.Pod<uint32_t>();
    r.String();
    std::vector<uint8_t>& to = out[ranges.Owner(root)];
    to.insert(to.end(), bytes.begin() + at, bytes.begin() + r.position());
  }
  return out;
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

// The names of a pass's members into *share (unsorted); counts the new
// records that are not kept.
void ReadNames(const std::vector<uint8_t>& in, const LineRanges& ranges, int rank,
               const Labels& labels, uint64_t corpus_lines, batch::ShareNames* share,
               uint64_t* duplicates) {
  for (MessageReader r(in); !r.done();) {
    batch::ShareNames::Name n;
    n.line = r.Pod<uint32_t>();
    n.first = r.Pod<uint32_t>();
    n.kept = r.Pod<uint32_t>();
    const std::string_view first_id = r.String(), kept_id = r.String();
    n.first_id = share->ids.Add(first_id);
    n.kept_id = n.kept == n.first ? n.first_id : share->ids.Add(kept_id);
    n.size = labels.size[n.line - ranges.begin(rank)];
    *duplicates += n.line >= corpus_lines && n.kept != n.line;
    share->names.push_back(n);
  }
}

void ReadClusters(const std::vector<uint8_t>& in, std::vector<batch::ShareNames::Cluster>* out) {
  for (MessageReader r(in); !r.done();) {
    batch::ShareNames::Cluster cl;
    cl.first = r.Pod<uint32_t>();
    const uint32_t n = r.Pod<uint32_t>();
    cl.kept_id = r.String();
    cl.members.reserve(n);
    for (uint32_t k = 0; k < n; ++k) cl.members.emplace_back(r.String());
    out->push_back(std::move(cl));
  }
}

}  // namespace

Result<std::unique_ptr<batch::ShareNames>> NameShare(Comm& c, const LineRanges& ranges,
                                                     const batch::RunInput& input,
                                                     const Labels& labels, KeepPolicy keep,
                                                     bool clusters, const NameLimits& limits,
                                                     ShareCounts* counts) {
  // Passes: as many as keep a pass's messages and their replies (about
  // kBytesPerMember a member) within the bytes.
  uint64_t members = 0;
  for (uint32_t i = 0; i < labels.size.size(); ++i) members += labels.size[i] >= 2;
  // Every rank makes the passes the rank with the least room needs (the
  // ranks' budgets differ).
  const uint64_t bytes = members * kBytesPerMember;
  const size_t passes = static_cast<size_t>(MaxAll(
      c, std::min<uint64_t>(kMaxPasses, bytes / std::max<uint64_t>(1, limits.round_bytes) + 1)));
  Parts parts(passes, limits.tmp);
  uint64_t singletons = 0, bad_line = 0;
  const Status s =
      SendMembers(ranges, c.rank(), input, labels, keep, &parts, &singletons, &bad_line);
  NEARDUP_RETURN_IF_ERROR(Agree(c, s, bad_line));
  auto share = std::make_unique<batch::ShareNames>();
  share->begin = ranges.begin(c.rank());
  share->end = ranges.end(c.rank());
  uint64_t duplicates = 0, clusters_counted = 0;
  for (size_t p = 0; p < passes; ++p) {
    Result<std::vector<uint8_t>> mine = parts.Take(p);
    NEARDUP_RETURN_IF_ERROR(Agree(c, mine.status(), 0));
    Replies replies;
    {
      const std::vector<uint8_t> in = c.Exchange(ByRootOwner(*mine, ranges, c.size()));
      mine = std::vector<uint8_t>();
      replies = NameClusters(c, ranges, in, keep, input.corpus_lines, clusters);
    }
    clusters_counted += replies.clusters_counted;
    ReadNames(c.Exchange(replies.names), ranges, c.rank(), labels, input.corpus_lines, share.get(),
              &duplicates);
    replies.names.clear();
    if (clusters) ReadClusters(c.Exchange(replies.clusters), &share->clusters);
    replies = Replies();
    batch::ReleaseFreedMemory();  // the pass's messages
  }
  std::sort(share->names.begin(), share->names.end(),
            [](const auto& a, const auto& b) { return a.line < b.line; });
  share->names.shrink_to_fit();
  std::sort(share->clusters.begin(), share->clusters.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  counts->clusters = SumAll(c, singletons + clusters_counted);
  counts->multi_clusters = SumAll(c, clusters_counted);
  counts->duplicates = SumAll(c, duplicates);
  return share;
}

}  // namespace neardup::distributed
