// SPDX-License-Identifier: Apache-2.0
//
// The keep policy and the results in input order. Keep policies compare
// members with one order each: first (input order), smallest-id (the one id
// order, neardup/ids.h IdLess on the canonical JSON ids), longest (code
// points of the text field, ties to the first). Each cluster's first
// member and kept member are found in one pass over the records in input
// order, re-reading ids and texts from the TextStore, so the policy holds
// however the run was split or spilled.
#include <algorithm>

#include "base/status_macros.h"
#include "batch/batch_run.h"
#include "batch/sort.h"
#include "batch/spill_buffer.h"
#include "neardup/ids.h"
#include "neardup/utf8.h"

namespace neardup {
namespace {

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// A direct-mapped cache of record ids by line.
class IdCache {
 public:
  IdCache() : slots_(kSlots) {}
  Result<std::string_view> Get(const BatchDedup::Impl& m, uint64_t line,
                               batch::RecordParser* parser) {
    Slot& s = slots_[line % kSlots];
    if (s.line != line) {
      std::string_view id;
      NEARDUP_RETURN_IF_ERROR(m.ParseId(line, parser, &id));
      s.id.assign(id);
      s.line = line;
    }
    return std::string_view(s.id);
  }

 private:
  static constexpr size_t kSlots = 4096;
  struct Slot {
    uint64_t line = UINT64_MAX;
    std::string id;
  };
  std::vector<Slot> slots_;
};

}  // namespace

Status BatchDedup::Impl::KeepPhase() {
  const std::vector<uint32_t>& root = clustering.root;
  const std::vector<uint32_t>& size = clustering.size;
  first.assign(n, UINT32_MAX);
  kept.assign(n, UINT32_MAX);
  batch::RecordParser pd(fields), pk(fields);
  batch::ParsedRecord rd, rk;
  const KeepPolicy keep = options.engine.keep;
  // Each cluster's kept member's key (IdOrderKey of its id, or its code
  // points for --keep longest), when it fits the budget:
  // members are then compared without re-reading the kept one (a random
  // read each, from disk when the input exceeds the page cache).
  std::vector<uint64_t> best;
  if (keep != KeepPolicy::kFirst && Available() / 2 >= n * sizeof(uint64_t)) best.resize(n);
  const bool keyed = !best.empty();
  auto key_of = [&](const batch::ParsedRecord& r) {
    return keep == KeepPolicy::kSmallestId ? IdOrderKey(r.id_json) : CodePoints(r.text);
  };
  for (uint32_t d = 0; d < n; ++d) {
    if (lines->state(d) != batch::kRecord) continue;
    const uint32_t r = root[d];
    if (first[r] == UINT32_MAX) {
      first[r] = kept[r] = d;
      // (Clusters with corpus records take the path without keys.)
      if (keyed && size[r] > 1 && d >= corpus_lines) {
        NEARDUP_RETURN_IF_ERROR(Parse(d, &pd, &rd, /*in_order=*/true));
        best[r] = key_of(rd);
      }
      continue;
    }
    if (keep == KeepPolicy::kFirst) continue;
    // Against an index the corpus keeps its member: a new record never
    // replaces a corpus record (corpus lines come first).
    if (kept[r] < corpus_lines && d >= corpus_lines) continue;
    NEARDUP_RETURN_IF_ERROR(Parse(d, &pd, &rd, /*in_order=*/true));
    bool better = false;
    const uint64_t key = keyed ? key_of(rd) : 0;
    if (keyed && first[r] >= corpus_lines && (key != best[r] || keep == KeepPolicy::kLongest)) {
      better = keep == KeepPolicy::kSmallestId ? key < best[r] : key > best[r];
    } else {
      NEARDUP_RETURN_IF_ERROR(Parse(kept[r], &pk, &rk));
      better = keep == KeepPolicy::kSmallestId ? IdLess(rd.id_json, rk.id_json)
                                               : CodePoints(rd.text) > CodePoints(rk.text);
    }
    if (better) {
      kept[r] = d;
      if (keyed) best[r] = key;
    }
  }
  // Counts over the reported records (the new ones, against an index).
  uint64_t clusters = 0, multi = 0, duplicates = 0;
  std::vector<bool> seen(n);
  for (uint32_t d = static_cast<uint32_t>(corpus_lines); d < n; ++d) {
    if (lines->state(d) != batch::kRecord) continue;
    const uint32_t r = root[d];
    duplicates += kept[r] != d;
    if (seen[r]) continue;
    seen[r] = true;
    ++clusters;
    multi += size[r] > 1;
  }
  if (keep == KeepPolicy::kSmallestId) kept_keys = std::move(best);
  stats.clusters = clusters;
  stats.multi_clusters = multi;
  stats.duplicates = duplicates;
  return Status::OK();
}

Status BatchDedup::ForEachRecord(const std::function<Status(const BatchRecord&)>& fn) {
  Impl& m = *impl_;
  if (m.options.with_matches) {
    if (matches_read_) {
      return Status::FailedPrecondition(
          "ForEachRecord with with_matches runs once: the matches were read");
    }
    matches_read_ = true;
  }
  const auto start = std::chrono::steady_clock::now();
  batch::RecordParser own(m.fields), pa(m.fields), pf(m.fields), pk(m.fields);
  IdCache first_ids, kept_ids;
  // Per cluster root: IdOrderKey of its first member's id, set when the
  // pass reaches it (0: not yet, or a corpus record), if the budget allows.
  std::vector<uint64_t> first_keys;
  if (m.Available() / 2 >= m.n * sizeof(uint64_t)) first_keys.assign(m.n, 0);
  std::string first_id, kept_id;
  std::vector<std::string> match_ids;
  std::vector<uint32_t> found_lines;
  std::unique_ptr<batch::RunMerger<batch::Edge, batch::MatchLess>> matches;
  if (m.matches) {
    NEARDUP_ASSIGN_OR_RETURN(matches, m.matches->Merge(16 << 20));
    m.matches.reset();
  }
  batch::Edge next{};
  bool have_next = false;
  if (matches) {
    NEARDUP_ASSIGN_OR_RETURN(have_next, matches->Next(&next));
  }
  auto scratch = m.sig->NewScratch();
  std::vector<BatchMatch> found;
  std::string repaired;
  batch::ParsedRecord rec, ra;
  const size_t max_matches = m.options.engine.max_matches;
  for (uint32_t d = static_cast<uint32_t>(m.corpus_lines); d < m.n; ++d) {
    if (m.lines->state(d) != batch::kRecord) continue;
    batch::TextStore::Line raw;
    NEARDUP_RETURN_IF_ERROR(m.Parse(d, &own, &rec, /*in_order=*/true, &raw));
    BatchRecord out;
    out.index = d;
    out.id = rec.id_json;
    const uint32_t r = m.clustering.root[d];
    out.cluster_size = m.clustering.size[r];
    if (out.cluster_size == 1) {
      out.cluster = out.kept = out.id;
    } else {
      // Ids of the first and kept members: rendered from their order keys
      // when exact, else re-read (a random read, cached by line).
      if (m.first[r] == d) {
        out.cluster = out.id;
        if (!first_keys.empty()) first_keys[r] = IdOrderKey(out.id);
      } else if (!first_keys.empty() && IntegerIdOfOrderKey(first_keys[r], &first_id)) {
        out.cluster = first_id;
      } else {
        NEARDUP_ASSIGN_OR_RETURN(out.cluster, first_ids.Get(m, m.first[r], &pf));
      }
      if (m.kept[r] == m.first[r]) {
        out.kept = out.cluster;
      } else if (m.kept[r] == d) {
        out.kept = out.id;
      } else if (!m.kept_keys.empty() && IntegerIdOfOrderKey(m.kept_keys[r], &kept_id)) {
        out.kept = kept_id;
      } else {
        NEARDUP_ASSIGN_OR_RETURN(out.kept, kept_ids.Get(m, m.kept[r], &pk));
      }
      out.is_kept = m.kept[r] == d;
      out.duplicates_corpus = m.first[r] < m.corpus_lines;
    }
    out.line = raw.text;
    if (m.fields.replace_invalid_utf8 && !ValidateUtf8(out.line).ok()) {
      repaired = ReplaceInvalidUtf8(out.line);
      out.line = repaired;
    }
    found.clear();
    found_lines.clear();
    while (have_next && next.b <= d) {
      if (next.b == d) {
        NEARDUP_RETURN_IF_ERROR(m.Parse(next.a, &pa, &ra));
        NEARDUP_ASSIGN_OR_RETURN(batch::PairEvidence ev,
                                 m.sig->Explain({next.a, ra.text, m.lines->payload(next.a)},
                                                {d, rec.text, m.lines->payload(d)}, scratch.get()));
        BatchMatch bm;
        bm.id = std::string_view(nullptr, 0);
        found_lines.push_back(next.a);
        bm.signal = ev.space >= 0 ? std::string_view(m.sig->spaces()[ev.space].name) : "?";
        bm.distance = ev.distance;
        bm.similarity = ev.similarity;
        if (next.similarity >= 0) bm.verified = next.similarity;
        found.push_back(bm);
      }
      NEARDUP_ASSIGN_OR_RETURN(have_next, matches->Next(&next));
    }
    // Ids, then best first: verified similarity, estimate, input order.
    match_ids.resize(std::max(match_ids.size(), found.size()));
    for (size_t i = 0; i < found.size(); ++i) {
      std::string_view id;
      NEARDUP_RETURN_IF_ERROR(m.ParseId(found_lines[i], &pa, &id));
      match_ids[i].assign(id);
      found[i].id = match_ids[i];
    }
    std::stable_sort(found.begin(), found.end(), [](const BatchMatch& x, const BatchMatch& y) {
      const double vx = x.verified.value_or(-1), vy = y.verified.value_or(-1);
      if (vx != vy) return vx > vy;
      return x.similarity > y.similarity;
    });
    if (found.size() > max_matches) found.resize(max_matches);
    out.matches = found;
    NEARDUP_RETURN_IF_ERROR(fn(out));
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  m.stats.phase_seconds.emplace_back(BatchPhase::kWrite, secs);
  m.stats.peak_rss_bytes = batch::PeakRssBytes();
  return Status::OK();
}

Status BatchDedup::ForEachCluster(const std::function<Status(const BatchCluster&)>& fn) {
  Impl& m = *impl_;
  if (m.corpus_lines > 0) {
    return Status::FailedPrecondition("clusters are not listed against an index");
  }
  // (first member, member) of every record in a cluster of two or more, sorted.
  using Runs = batch::RunSet<uint64_t, std::less<uint64_t>>;
  Runs runs(m.tmp.get(), "members");
  batch::SpillBuffer<uint64_t> buf(
      std::max<uint64_t>(1 << 16, m.Available() / 2 / sizeof(uint64_t)));
  auto flush = [&](bool spill) {
    batch::RadixSort(
        buf.span(), [](uint64_t v) { return v; }, std::less<uint64_t>());
    return runs.AddRun(&buf, spill);
  };
  for (uint32_t d = 0; d < m.n; ++d) {
    if (m.lines->state(d) != batch::kRecord) continue;
    const uint32_t r = m.clustering.root[d];
    if (m.clustering.size[r] < 2) continue;
    NEARDUP_RETURN_IF_ERROR(batch::AppendOrSpill(&buf, static_cast<uint64_t>(m.first[r]) << 32 | d,
                                                 [&] { return flush(true); }));
  }
  NEARDUP_RETURN_IF_ERROR(flush(runs.spilled_runs() > 0));
  NEARDUP_ASSIGN_OR_RETURN(auto merger, runs.Merge(16 << 20));
  batch::RecordParser parser(m.fields), pk(m.fields);
  std::vector<std::string> ids;
  std::vector<std::string_view> views;
  std::string kept;
  uint64_t v = 0;
  bool more = true;
  NEARDUP_ASSIGN_OR_RETURN(more, merger->Next(&v));
  while (more) {
    const uint32_t first = static_cast<uint32_t>(v >> 32);
    ids.clear();
    while (more && static_cast<uint32_t>(v >> 32) == first) {
      std::string_view id;
      NEARDUP_RETURN_IF_ERROR(m.ParseId(static_cast<uint32_t>(v), &parser, &id));
      ids.emplace_back(id);
      NEARDUP_ASSIGN_OR_RETURN(more, merger->Next(&v));
    }
    std::string_view kid;
    NEARDUP_RETURN_IF_ERROR(m.ParseId(m.kept[m.clustering.root[first]], &pk, &kid));
    kept.assign(kid);
    views.assign(ids.begin(), ids.end());
    BatchCluster c;
    c.cluster = ids.front();
    c.size = ids.size();
    c.kept = kept;
    c.members = views;
    NEARDUP_RETURN_IF_ERROR(fn(c));
  }
  return Status::OK();
}

Result<BatchDedup::Labels> LabelsOf(const BatchDedup::Impl& m, bool by_line) {
  std::vector<uint32_t> pos(m.n, UINT32_MAX);
  uint32_t next = 0;
  for (uint32_t d = static_cast<uint32_t>(m.corpus_lines); d < m.n; ++d) {
    if (by_line || m.lines->state(d) == batch::kRecord) pos[d] = next++;
  }
  BatchDedup::Labels l;
  l.cluster.reserve(next);
  l.kept.reserve(next);
  l.size.reserve(next);
  for (uint32_t d = 0; d < m.n; ++d) {
    if (pos[d] == UINT32_MAX) continue;
    if (m.lines->state(d) != batch::kRecord) {  // by line: a skipped or blank line alone
      l.cluster.push_back(pos[d]);
      l.kept.push_back(pos[d]);
      l.size.push_back(1);
      continue;
    }
    const uint32_t r = m.clustering.root[d];
    l.cluster.push_back(pos[m.first[r]]);
    l.kept.push_back(pos[m.kept[r]]);
    l.size.push_back(m.clustering.size[r]);
  }
  return l;
}

Result<BatchDedup::Labels> BatchDedup::RecordLabels() { return LabelsOf(*impl_, false); }

}  // namespace neardup
