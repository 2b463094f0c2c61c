// SPDX-License-Identifier: Apache-2.0
//
// GroupClusterer (include/neardup/group_cluster.h): verify the pairs of
// external candidate groups, then union-find under a size cap, best pairs
// first, so the result does not depend on group order except through ties.
#include "neardup/group_cluster.h"

#include <xxhash.h>

#include <algorithm>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "base/machine.h"
#include "base/parallel.h"
#include "base/status_macros.h"
#include "cluster/union_find.h"
#include "neardup/ids.h"
#include "pipeline/pipeline.h"
#include "pipeline/signals.h"
#include "verify/verifier.h"

namespace neardup {
namespace {

// Append-only storage for many small strings: views stay valid because
// chunks never move. Saves the 32-byte std::string header and the per-string
// heap block.
class StringArena {
 public:
  std::string_view Add(std::string_view s) {
    if (s.size() > kChunk / 4) {  // large strings get their own chunk
      big_.push_back(std::make_unique<char[]>(s.size()));
      std::copy(s.begin(), s.end(), big_.back().get());
      return {big_.back().get(), s.size()};
    }
    if (chunks_.empty() || used_ + s.size() > kChunk) {
      chunks_.push_back(std::make_unique<char[]>(kChunk));
      used_ = 0;
    }
    char* p = chunks_.back().get() + used_;
    std::copy(s.begin(), s.end(), p);
    used_ += s.size();
    return {p, s.size()};
  }

 private:
  static constexpr size_t kChunk = 1 << 20;
  std::vector<std::unique_ptr<char[]>> chunks_, big_;
  size_t used_ = 0;
};

uint64_t PairKey(uint32_t a, uint32_t b) {
  return (static_cast<uint64_t>(std::min(a, b)) << 32) | std::max(a, b);
}

}  // namespace

struct GroupClusterer::Impl {
  GroupClusterOptions options;
  cluster::KeepPolicy keep = cluster::KeepPolicy::kFirst;
  std::unique_ptr<pipeline::Pipeline> pipeline;  // normalization only
  std::unique_ptr<verify::Verifier> verifier;    // null: accept every pair

  // XXH3-64 of the wanted ids (a collision only keeps an unneeded text);
  // empty: keep every text. Freed when the groups pass starts.
  std::unordered_set<uint64_t> wanted;
  StringArena arena;  // ids and normalized texts
  std::vector<std::string_view> ids, texts;
  std::unordered_map<std::string_view, uint32_t> member_of;
  std::vector<size_t> lengths;  // code points of the original text

  struct Passed {
    uint32_t a, b;
    double similarity;
  };
  std::vector<Passed> passed;
  std::unordered_set<uint64_t> passed_keys;
  GroupClusterStats stats;

  // Verifies the pairs of groups[begin, end) into *out; counts into *st.
  Status VerifyRange(std::span<const std::vector<std::string>> groups, size_t begin, size_t end,
                     std::vector<Passed>* out, GroupClusterStats* st) const {
    std::vector<uint32_t> members;
    for (size_t g = begin; g < end; ++g) {
      members.clear();
      size_t missing = 0;
      for (const auto& id : groups[g]) {
        if (members.size() + missing >= options.max_group_size) break;
        auto it = member_of.find(id);
        if (it == member_of.end()) {
          ++missing;
        } else if (std::find(members.begin(), members.end(), it->second) == members.end()) {
          members.push_back(it->second);
        }
      }
      const size_t total = members.size() + missing;
      st->pairs_missing_text += total * (total - 1) / 2 - members.size() * (members.size() - 1) / 2;
      for (size_t i = 0; i < members.size(); ++i) {
        for (size_t j = i + 1; j < members.size(); ++j) {
          const uint32_t a = std::min(members[i], members[j]), b = std::max(members[i], members[j]);
          if (passed_keys.contains(PairKey(a, b))) continue;  // passed in an earlier batch
          double sim = 1.0;
          bool ok = true;
          if (verifier) {
            const verify::Verdict v = verifier->Verify(texts[a], texts[b]);
            sim = v.similarity;
            ok = v.passed;
            ++st->pairs_verified;
          }
          if (ok) out->push_back({a, b, sim});
        }
      }
    }
    return Status::OK();
  }
};

GroupClusterer::GroupClusterer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GroupClusterer::~GroupClusterer() = default;

Result<std::unique_ptr<GroupClusterer>> GroupClusterer::Create(const GroupClusterOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->keep = pipeline::ToClusterKeep(options.keep);
  if (options.max_group_size < 2) return Status::InvalidArgument("max_group_size must be >= 2");
  NEARDUP_RETURN_IF_ERROR(base::CheckThreads(options.threads, "threads"));
  // The engine's own normalization and verifier, from options of the same shape.
  EngineOptions eo;
  eo.threshold = options.threshold;
  eo.shingles = options.shingles;
  eo.verify.kind = options.verify;
  eo.verify.qbank_other_min = options.qbank_other_min;
  eo.normalize.t2s = options.t2s;
  eo.normalize.drop_punctuation =
      options.drop_punctuation.value_or(options.verify != VerifyKind::kQbank);
  eo.normalize.replace_invalid_utf8 = options.replace_invalid_utf8;
  NEARDUP_ASSIGN_OR_RETURN(impl->verifier, pipeline::BuildVerifier(eo));
  NEARDUP_ASSIGN_OR_RETURN(impl->pipeline, pipeline::Pipeline::Create(eo, false, false));
  return std::unique_ptr<GroupClusterer>(new GroupClusterer(std::move(impl)));
}

void GroupClusterer::Want(std::span<const std::string> ids) {
  for (const auto& id : ids) impl_->wanted.insert(XXH3_64bits(id.data(), id.size()));
}

Status GroupClusterer::AddText(const std::string& id, std::string_view text) {
  if (id.empty()) return Status::InvalidArgument("empty id");
  if (!impl_->wanted.empty() && !impl_->wanted.contains(XXH3_64bits(id.data(), id.size()))) {
    return Status::OK();
  }
  std::string normalized;
  NEARDUP_RETURN_IF_ERROR(impl_->pipeline->Normalize(text, &normalized));
  if (impl_->member_of.contains(id)) return Status::AlreadyExists("id " + id + " has two texts");
  size_t cps = 0;
  for (unsigned char c : text) cps += (c & 0xC0) != 0x80;
  const auto index = static_cast<uint32_t>(impl_->ids.size());
  impl_->ids.push_back(impl_->arena.Add(id));
  impl_->member_of.emplace(impl_->ids.back(), index);
  impl_->texts.push_back(impl_->arena.Add(normalized));
  impl_->lengths.push_back(cps);
  return Status::OK();
}

Status GroupClusterer::AddGroups(std::span<const std::vector<std::string>> groups) try {
  Impl& m = *impl_;
  std::unordered_set<uint64_t>().swap(m.wanted);  // the texts pass is over
  m.stats.groups += groups.size();
  // Results per chunk, merged in chunk order: the same for any thread count.
  constexpr size_t kChunk = 16;
  const size_t chunks = (groups.size() + kChunk - 1) / kChunk;
  std::vector<std::vector<Impl::Passed>> found(chunks);
  std::vector<GroupClusterStats> st(chunks);
  std::vector<Status> status(chunks);
  base::ParallelFor(groups.size(), m.options.threads, kChunk, [&](int, size_t begin, size_t end) {
    const size_t c = begin / kChunk;
    status[c] = m.VerifyRange(groups, begin, end, &found[c], &st[c]);
  });
  for (size_t t = 0; t < chunks; ++t) {
    NEARDUP_RETURN_IF_ERROR(status[t]);
    m.stats.pairs_verified += st[t].pairs_verified;
    m.stats.pairs_missing_text += st[t].pairs_missing_text;
    for (const auto& p : found[t]) {
      if (m.passed_keys.insert(PairKey(p.a, p.b)).second) m.passed.push_back(p);
    }
  }
  return Status::OK();
} catch (...) {
  return base::ResourceErrorOrRethrow();
}

GroupClustering GroupClusterer::Finish() {
  Impl& m = *impl_;
  GroupClustering r;
  // Best first; ties by member order so the result is deterministic.
  std::sort(m.passed.begin(), m.passed.end(), [](const auto& x, const auto& y) {
    if (x.similarity != y.similarity) return x.similarity > y.similarity;
    return x.a != y.a ? x.a < y.a : x.b < y.b;
  });
  cluster::CappedUnionFind uf(m.ids.size(), m.options.max_cluster_size);
  for (const auto& p : m.passed) {
    const cluster::UnionResult u = uf.Union(p.a, p.b);
    const PairOutcome o = u == cluster::UnionResult::kJoined    ? PairOutcome::kJoined
                          : u == cluster::UnionResult::kSameSet ? PairOutcome::kSameCluster
                                                                : PairOutcome::kCapExceeded;
    r.pairs.push_back({p.a, p.b, p.similarity, o});
    r.stats.joins += o == PairOutcome::kJoined;
    r.stats.refused_by_cap += o == PairOutcome::kCapExceeded;
  }
  std::vector<uint64_t> rank(m.ids.size());
  if (m.keep == cluster::KeepPolicy::kSmallestId) {
    std::vector<uint32_t> order(m.ids.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](uint32_t x, uint32_t y) { return IdLess(m.ids[x], m.ids[y]); });
    for (size_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
  }
  auto kept = cluster::KeptMembers(uf, m.keep, {.id_rank = rank, .length = m.lengths});
  NEARDUP_CHECK(kept.ok());
  auto first = cluster::KeptMembers(uf, cluster::KeepPolicy::kFirst, {.id_rank = {}, .length = {}});
  NEARDUP_CHECK(first.ok());
  r.ids.assign(m.ids.begin(), m.ids.end());
  r.kept.assign(kept->begin(), kept->end());
  r.cluster.assign(first->begin(), first->end());
  r.cluster_size.resize(m.ids.size());
  for (size_t i = 0; i < m.ids.size(); ++i)
    r.cluster_size[i] = static_cast<uint32_t>(uf.SetSize(i));
  r.stats.groups = m.stats.groups;
  r.stats.pairs_verified = m.stats.pairs_verified;
  r.stats.pairs_passed = m.passed.size();
  r.stats.pairs_missing_text = m.stats.pairs_missing_text;
  return r;
}

}  // namespace neardup
