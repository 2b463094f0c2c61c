// SPDX-License-Identifier: Apache-2.0
//
// The results in input order. A record's cluster and kept member are named
// by their ids: rendered from the order keys the keep phase kept when they
// are exact integers, else re-read (a random read, cached by line).
// --with-matches lists each record's verified matches among earlier
// records, with the evidence recomputed from the two texts (Explain).
#include "batch/results.h"

#include <algorithm>
#include <cstring>

#include "base/status_macros.h"
#include "batch/sort.h"
#include "batch/spill_buffer.h"
#include "neardup/ids.h"
#include "neardup/utf8.h"

namespace neardup::batch {
namespace {

// A direct-mapped cache of record ids by line.
class IdCache {
 public:
  IdCache() : slots_(kSlots) {}
  Result<std::string_view> Get(const RunInput& input, uint64_t line, RecordParser* parser) {
    Slot& s = slots_[line % kSlots];
    if (s.line != line) {
      std::string_view id;
      NEARDUP_RETURN_IF_ERROR(input.ParseId(line, parser, &id));
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

class RecordWriter {
 public:
  explicit RecordWriter(RunResult* r)
      : r_(*r),
        input_(r->run->input),
        own_(input_.fields),
        pa_(input_.fields),
        pf_(input_.fields),
        pk_(input_.fields) {}
  Status Run(const std::function<Status(const BatchRecord&)>& fn);

 private:
  Status Names(uint32_t d, BatchRecord* out);
  // Names(), from a distributed share's names.
  void ShareNamesOf(uint32_t d, BatchRecord* out);
  Status OpenMatches();
  // The record of a matched line: from the input, or through r_.texts
  // (a distributed share's fetched records).
  Status ParseMatched(uint32_t line, ParsedRecord* out);
  // The verified matches of d among earlier records, best first.
  Status Matches(uint32_t d, const ParsedRecord& rec);

  RunResult& r_;
  const RunInput& input_;
  RecordParser own_, pa_, pf_, pk_;
  IdCache first_ids_, kept_ids_;
  // Per cluster root: IdOrderKey of its first member's id, set when the
  // pass reaches it (0: not yet, or a corpus record), if the budget allows.
  std::vector<uint64_t> first_keys_;
  std::string first_id_, kept_id_;
  std::unique_ptr<RunMerger<Edge, MatchLess>> matches_;
  Edge next_{};
  bool have_next_ = false;
  std::unique_ptr<SignatureScratch> scratch_;
  std::vector<BatchMatch> found_;
  std::vector<std::string> match_ids_;
  size_t next_name_ = 0;  // in r_.share->names
};

Status RecordWriter::Run(const std::function<Status(const BatchRecord&)>& fn) {
  const auto start = std::chrono::steady_clock::now();
  const ShareNames* share = r_.share.get();
  const uint64_t n = share ? share->end : input_.n();
  if (!share && r_.run->budget.Available() / 2 >= n * sizeof(uint64_t)) first_keys_.assign(n, 0);
  NEARDUP_RETURN_IF_ERROR(OpenMatches());
  scratch_ = r_.run->sig->NewScratch();
  std::string repaired;
  ParsedRecord rec;
  uint64_t d0 = input_.corpus_lines;
  if (share) d0 = std::max<uint64_t>(d0, share->begin);
  for (uint32_t d = static_cast<uint32_t>(d0); d < n; ++d) {
    if (input_.lines->state(d) != kRecord) continue;
    InputTexts::Line raw;
    NEARDUP_RETURN_IF_ERROR(input_.Parse(d, &own_, &rec, /*in_order=*/true, &raw));
    BatchRecord out;
    out.index = d;
    out.id = rec.id_json;
    if (share) {
      ShareNamesOf(d, &out);
    } else {
      NEARDUP_RETURN_IF_ERROR(Names(d, &out));
    }
    out.line = raw.text;
    if (input_.fields.replace_invalid_utf8 && !ValidateUtf8(out.line).ok()) {
      repaired = ReplaceInvalidUtf8(out.line);
      out.line = repaired;
    }
    NEARDUP_RETURN_IF_ERROR(Matches(d, rec));
    out.matches = found_;
    NEARDUP_RETURN_IF_ERROR(fn(out));
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r_.run->stats.phase_seconds.emplace_back(BatchPhase::kWrite, secs);
  r_.run->stats.peak_rss_bytes = PeakRssBytes();
  return Status::OK();
}

// The ids of d's cluster (its first member) and of its kept member.
Status RecordWriter::Names(uint32_t d, BatchRecord* out) {
  const uint32_t r = r_.clustering.root[d];
  const Kept& k = r_.kept;
  out->cluster_size = r_.clustering.size[r];
  if (out->cluster_size == 1) {
    out->cluster = out->kept = out->id;
    return Status::OK();
  }
  if (k.first[r] == d) {
    out->cluster = out->id;
    if (!first_keys_.empty()) first_keys_[r] = IdOrderKey(out->id);
  } else if (!first_keys_.empty() && IntegerIdOfOrderKey(first_keys_[r], &first_id_)) {
    out->cluster = first_id_;
  } else {
    NEARDUP_ASSIGN_OR_RETURN(out->cluster, first_ids_.Get(input_, k.first[r], &pf_));
  }
  if (k.kept[r] == k.first[r]) {
    out->kept = out->cluster;
  } else if (k.kept[r] == d) {
    out->kept = out->id;
  } else if (!k.kept_keys.empty() && IntegerIdOfOrderKey(k.kept_keys[r], &kept_id_)) {
    out->kept = kept_id_;
  } else {
    NEARDUP_ASSIGN_OR_RETURN(out->kept, kept_ids_.Get(input_, k.kept[r], &pk_));
  }
  out->is_kept = k.kept[r] == d;
  out->duplicates_corpus = k.first[r] < input_.corpus_lines;
  return Status::OK();
}

void RecordWriter::ShareNamesOf(uint32_t d, BatchRecord* out) {
  const std::vector<ShareNames::Name>& names = r_.share->names;
  while (next_name_ < names.size() && names[next_name_].line < d) ++next_name_;
  if (next_name_ == names.size() || names[next_name_].line != d) {
    out->cluster = out->kept = out->id;
    out->cluster_size = 1;
    return;
  }
  const ShareNames::Name& m = names[next_name_];
  out->cluster_size = m.size;
  out->cluster = m.first == d ? out->id : r_.share->ids.Get(m.first_id);
  out->kept = m.kept == d ? out->id : r_.share->ids.Get(m.kept_id);
  out->is_kept = m.kept == d;
  out->duplicates_corpus = m.first < input_.corpus_lines;
}

Status RecordWriter::OpenMatches() {
  if (!r_.matches) return Status::OK();
  NEARDUP_ASSIGN_OR_RETURN(matches_, r_.matches->Merge(16 << 20));
  r_.matches.reset();
  NEARDUP_ASSIGN_OR_RETURN(have_next_, matches_->Next(&next_));
  return Status::OK();
}

Status RecordWriter::ParseMatched(uint32_t line, ParsedRecord* out) {
  if (!r_.texts) return input_.Parse(line, &pa_, out);
  LineSource::Line l;
  NEARDUP_RETURN_IF_ERROR(ReadLine(*r_.texts, line, pa_.line_buffer(), &l));
  return input_.ParseLine(line, l, &pa_, out);
}

Status RecordWriter::Matches(uint32_t d, const ParsedRecord& rec) {
  const BatchSignature& sig = *r_.run->sig;
  const LineTable& lines = *input_.lines;
  found_.clear();
  ParsedRecord ra;
  while (have_next_ && next_.b <= d) {
    if (next_.b == d) {
      NEARDUP_RETURN_IF_ERROR(ParseMatched(next_.a, &ra));
      NEARDUP_ASSIGN_OR_RETURN(PairEvidence ev,
                               sig.Explain({next_.a, ra.text, lines.payload(next_.a)},
                                           {d, rec.text, lines.payload(d)}, scratch_.get()));
      BatchMatch bm;
      bm.id = std::string_view(nullptr, 0);
      if (match_ids_.size() <= found_.size()) match_ids_.resize(found_.size() + 1);
      match_ids_[found_.size()].assign(ra.id_json);
      bm.signal = ev.space >= 0 ? std::string_view(sig.spaces()[ev.space].name) : "?";
      bm.distance = ev.distance;
      bm.similarity = ev.similarity;
      if (next_.similarity >= 0) bm.verified = ReportedSimilarity(next_);
      found_.push_back(bm);
    }
    NEARDUP_ASSIGN_OR_RETURN(have_next_, matches_->Next(&next_));
  }
  // Ids, then best first: verified similarity, estimate, input order.
  for (size_t i = 0; i < found_.size(); ++i) found_[i].id = match_ids_[i];
  std::stable_sort(found_.begin(), found_.end(), [](const BatchMatch& x, const BatchMatch& y) {
    const double vx = x.verified.value_or(-1), vy = y.verified.value_or(-1);
    if (vx != vy) return vx > vy;
    return x.similarity > y.similarity;
  });
  const size_t max_matches = r_.run->options.engine.max_matches;
  if (found_.size() > max_matches) found_.resize(max_matches);
  return Status::OK();
}

using MemberRuns = RunSet<uint64_t, std::less<uint64_t>>;

// (first member, member) of every record in a cluster of two or more, sorted.
Status ClusterMembers(const RunResult& r, MemberRuns* runs) {
  const RunInput& input = r.run->input;
  SpillBuffer<uint64_t> buf(
      std::max<uint64_t>(1 << 16, r.run->budget.Available() / 2 / sizeof(uint64_t)));
  auto flush = [&](bool spill) {
    RadixSort(
        buf.span(), [](uint64_t v) { return v; }, std::less<uint64_t>());
    return runs->AddRun(&buf, spill);
  };
  for (uint32_t d = 0; d < input.n(); ++d) {
    if (input.lines->state(d) != kRecord) continue;
    const uint32_t root = r.clustering.root[d];
    if (r.clustering.size[root] < 2) continue;
    const uint64_t v = static_cast<uint64_t>(r.kept.first[root]) << 32 | d;
    NEARDUP_RETURN_IF_ERROR(AppendOrSpill(&buf, v, [&] { return flush(true); }));
  }
  return flush(runs->spilled_runs() > 0);
}

Status WriteShareClusters(const ShareNames& share,
                          const std::function<Status(const BatchCluster&)>& fn) {
  std::vector<std::string_view> views;
  for (const ShareNames::Cluster& c : share.clusters) {
    views.assign(c.members.begin(), c.members.end());
    BatchCluster out;
    out.cluster = views.front();
    out.size = views.size();
    out.kept = c.kept_id;
    out.members = views;
    NEARDUP_RETURN_IF_ERROR(fn(out));
  }
  return Status::OK();
}

}  // namespace

uint64_t StringArena::Add(std::string_view s) {
  const size_t need = sizeof(uint32_t) + s.size();
  if (blocks_.empty() || used_ + need > size_) {
    size_ = std::max(kBlock, need);
    blocks_.push_back(std::make_unique<char[]>(size_));
    bytes_ += size_;
    used_ = 0;
  }
  char* at = blocks_.back().get() + used_;
  const auto n = static_cast<uint32_t>(s.size());
  std::memcpy(at, &n, sizeof n);
  if (n > 0) std::memcpy(at + sizeof n, s.data(), n);
  const uint64_t handle = (blocks_.size() - 1) << 32 | used_;
  used_ += need;
  return handle;
}

std::string_view StringArena::Get(uint64_t handle) const {
  const char* at = blocks_[handle >> 32].get() + static_cast<uint32_t>(handle);
  uint32_t n;
  std::memcpy(&n, at, sizeof n);
  return {at + sizeof n, n};
}

Status WriteRecords(RunResult* r, const std::function<Status(const BatchRecord&)>& fn) {
  if (r->run->options.with_matches) {
    if (r->matches_read) {
      return Status::FailedPrecondition(
          "ForEachRecord with with_matches runs once: the matches were read");
    }
    r->matches_read = true;
  }
  RecordWriter w(r);
  return w.Run(fn);
}

Status WriteClusters(RunResult* r, const std::function<Status(const BatchCluster&)>& fn) {
  const RunInput& input = r->run->input;
  if (input.corpus_lines > 0) {
    return Status::FailedPrecondition("clusters are not listed against an index");
  }
  if (r->share) return WriteShareClusters(*r->share, fn);
  MemberRuns runs(r->run->tmp.get(), "members");
  NEARDUP_RETURN_IF_ERROR(ClusterMembers(*r, &runs));
  NEARDUP_ASSIGN_OR_RETURN(auto merger, runs.Merge(16 << 20));
  RecordParser parser(input.fields), pk(input.fields);
  std::vector<std::string> ids;
  std::vector<std::string_view> views;
  std::string kept;
  uint64_t v = 0;
  NEARDUP_ASSIGN_OR_RETURN(bool more, merger->Next(&v));
  while (more) {
    const uint32_t first = static_cast<uint32_t>(v >> 32);
    ids.clear();
    while (more && static_cast<uint32_t>(v >> 32) == first) {
      std::string_view id;
      NEARDUP_RETURN_IF_ERROR(input.ParseId(static_cast<uint32_t>(v), &parser, &id));
      ids.emplace_back(id);
      NEARDUP_ASSIGN_OR_RETURN(more, merger->Next(&v));
    }
    std::string_view kid;
    NEARDUP_RETURN_IF_ERROR(input.ParseId(r->kept.kept[r->clustering.root[first]], &pk, &kid));
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

Result<BatchDedup::Labels> LabelsOf(const RunResult& r, bool by_line) {
  if (r.share) {
    return Status::FailedPrecondition("a rank of a distributed run has no labels of every record");
  }
  const RunInput& input = r.run->input;
  const uint64_t n = input.n();
  std::vector<uint32_t> pos(n, UINT32_MAX);
  uint32_t next = 0;
  for (uint32_t d = static_cast<uint32_t>(input.corpus_lines); d < n; ++d) {
    if (by_line || input.lines->state(d) == kRecord) pos[d] = next++;
  }
  BatchDedup::Labels l;
  l.cluster.reserve(next);
  l.kept.reserve(next);
  l.size.reserve(next);
  for (uint32_t d = 0; d < n; ++d) {
    if (pos[d] == UINT32_MAX) continue;
    if (input.lines->state(d) != kRecord) {  // by line: a skipped or blank line alone
      l.cluster.push_back(pos[d]);
      l.kept.push_back(pos[d]);
      l.size.push_back(1);
      continue;
    }
    const uint32_t root = r.clustering.root[d];
    l.cluster.push_back(pos[r.kept.first[root]]);
    l.kept.push_back(pos[r.kept.kept[root]]);
    l.size.push_back(r.clustering.size[root]);
  }
  return l;
}

}  // namespace neardup::batch

namespace neardup {

Status BatchDedup::ForEachRecord(const std::function<Status(const BatchRecord&)>& fn) {
  return batch::WriteRecords(result_.get(), fn);
}

Status BatchDedup::ForEachCluster(const std::function<Status(const BatchCluster&)>& fn) {
  return batch::WriteClusters(result_.get(), fn);
}

Result<BatchDedup::Labels> BatchDedup::RecordLabels() { return batch::LabelsOf(*result_, false); }

}  // namespace neardup
