// SPDX-License-Identifier: Apache-2.0
//
// The rounds of Shiloach and Vishkin, "An O(log n) parallel connectivity
// algorithm" (J. Algorithms 3(1), 1982): conditional hooking, hooking of
// stagnant stars, one shortcut; hooking whole stars only, as in Awerbuch
// and Shiloach, "New connectivity and MSF algorithms for shuffle-exchange
// network and PRAM" (IEEE Trans. Computers 36(10), 1987). A round, over a
// forest of parent pointers (p), with the stars (trees of height <= 1)
// known:
//   1. star hooking: the root r of a star hangs under the smallest p[v] < r
//      over its edges (u, v);
//   2. stagnant stars: a star that step 1 neither hung nor hung anything
//      under hangs under the smallest p[v] over its edges (u, v) to other
//      trees (p[v] as step 1 left it);
//   3. shortcut: p[d] = p[p[d]] for every d; a tree ends a star iff it was
//      at most 2 deep, which the same lookups tell.
// The loop ends after a round that changes nothing.
//
// No cycles: in step 1 only star roots move, each to a smaller document,
// and a star's p[v] is its root; in step 2 two stagnant stars are never
// adjacent (the larger would have hooked in step 1), so they hang under
// trees whose roots stay.
//
// Rounds: at most floor(log_{3/2} s) + 2 for a largest component of s
// documents. Weigh a tree 1 if a star, else its height, and leave out the
// stars that are whole components (they never change). Every other star
// joins a tree in a round (it hangs in step 1, something hangs under it, or
// it is stagnant and hangs in step 2). A tree after the round is a base B
// (a tree whose root stayed) and m stars hung into it; each star of a
// chain hung in step 1 adds one level, step 2 one more, so its height is at
// most W = max(h(B), 1) + m, its weight before the round; the shortcut
// leaves ceil(W / 2) <= 2W/3, as W >= 2 (m >= 1, or B not a star). So the
// weight of a component, s at most at first, shrinks by 2/3 per round;
// below 1 every tree is a whole component and the next round changes
// nothing.
#include "distributed/forest.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "base/status_macros.h"

namespace neardup::distributed {
namespace {

// Sorts by the high 32 bits (two passes of 16 bits; stable).
void SortByHigh(std::vector<uint64_t>* v) {
  if (std::is_sorted(v->begin(), v->end())) return;  // ids often come in order
  std::vector<uint64_t> tmp(v->size());
  for (int shift : {32, 48}) {
    std::vector<size_t> start(65537, 0);
    for (uint64_t x : *v) ++start[(x >> shift & 0xffff) + 1];
    std::partial_sum(start.begin(), start.end(), start.begin());
    for (uint64_t x : *v) tmp[start[x >> shift & 0xffff]++] = x;
    v->swap(tmp);
  }
}

void SortUniqueIds(std::vector<uint32_t>* v) {
  std::vector<uint64_t> keyed(v->begin(), v->end());
  for (uint64_t& x : keyed) x <<= 32;
  SortByHigh(&keyed);
  v->clear();
  for (uint64_t x : keyed) {
    if (v->empty() || v->back() != x >> 32) v->push_back(x >> 32);
  }
}

// A proposal to hang `root` under `under`.
uint64_t Hooking(uint32_t root, uint32_t under) { return uint64_t{root} << 32 | under; }

// Keeps, sorted by root, the proposal with the smallest `under` for each
// root.
void KeepSmallest(std::vector<uint64_t>* hooks) {
  SortByHigh(hooks);
  size_t kept = 0;
  for (size_t k = 0; k < hooks->size(); ++k) {
    const uint64_t h = (*hooks)[k];
    if (kept > 0 && (*hooks)[kept - 1] >> 32 == h >> 32) {
      (*hooks)[kept - 1] = std::min((*hooks)[kept - 1], h);
    } else {
      (*hooks)[kept++] = h;
    }
  }
  hooks->resize(kept);
}

// Per own document, for the current round.
enum : uint8_t {
  kStar = 1,      // in a star at the round's start
  kHooked = 2,    // a root that step 1 hung
  kReceived = 4,  // step 1 hung a tree under it
  kHasChild = 8,  // during step 3
  kDeep = 16,     // during step 3: a root whose tree was more than 2 deep
};

}  // namespace

Forest::Forest(Comm& c, const LineRanges& ranges, size_t slice)
    : c_(c), ranges_(ranges), lo_(ranges.begin(c.rank())), slice_(std::max<size_t>(1, slice)) {
  parent_.resize(ranges.end(c.rank()) - lo_);
  std::iota(parent_.begin(), parent_.end(), lo_);
  proposal_.assign(parent_.size(), UINT32_MAX);
  flags_.assign(parent_.size(), kStar);
}

template <typename T>
std::vector<T> Forest::Fetch(
    const std::vector<uint32_t>& ids,
    const std::function<std::vector<T>(std::span<const uint32_t>)>& query) {
  NEARDUP_CHECK(ids.size() <= UINT32_MAX);
  std::vector<uint64_t> keyed(ids.size());
  for (size_t k = 0; k < ids.size(); ++k) keyed[k] = uint64_t{ids[k]} << 32 | k;
  SortByHigh(&keyed);
  std::vector<uint32_t> distinct;
  for (uint64_t x : keyed) {
    if (distinct.empty() || distinct.back() != x >> 32) distinct.push_back(x >> 32);
  }
  const std::vector<T> got = query(distinct);
  std::vector<T> out(ids.size());
  size_t j = 0;
  for (uint64_t x : keyed) {
    if (distinct[j] != x >> 32) ++j;
    out[static_cast<uint32_t>(x)] = got[j];
  }
  return out;
}

template <typename T>
std::vector<T> Forest::Lookup(const std::vector<uint32_t>& ids,
                              const std::function<T(uint32_t)>& answer) {
  return Fetch<T>(ids, [&](std::span<const uint32_t> distinct) {
    return QueryAs<T>(
        c_, distinct, [&](uint32_t d) { return Owner(d); },
        [&](uint32_t d) { return answer(d - lo_); });
  });
}

uint64_t Forest::Round(std::vector<batch::Edge>* active) {
  const std::vector<uint32_t> under = HookStars(active);
  uint64_t changes = under.size() + HookStagnant(*active, under);
  changes += ShortcutAndFindStars();
  return SumAll(c_, changes);
}

// Step 1, a slice of the edges at a time: the owners tell each end's
// parent and whether it is in a star; edges inside one tree are dropped
// for good, and each star root's proposals go to its owner. Then the own
// roots hang. Returns what the roots hung on this rank went under. 3
// exchanges a slice.
std::vector<uint32_t> Forest::HookStars(std::vector<batch::Edge>* active) {
  size_t kept = 0;  // edges kept so far, moved to the front (kept <= k)
  std::vector<uint32_t> ids;
  InSlices(active->size(), [&](size_t begin, size_t end) {
    ids.clear();
    for (size_t k = begin; k < end; ++k)
      ids.push_back((*active)[k].a), ids.push_back((*active)[k].b);
    const std::vector<Answer> at = Lookup<Answer>(ids, [&](uint32_t i) {
      return Answer{parent_[i], (flags_[i] & kStar) != 0u};
    });
    std::vector<uint64_t> hooks;
    for (size_t k = begin; k < end; ++k) {
      const Answer a = at[2 * (k - begin)], b = at[2 * (k - begin) + 1];
      if (a.parent == b.parent) continue;  // inside one tree for good
      (*active)[kept++] = (*active)[k];
      if (a.bit != 0 && a.parent > b.parent) hooks.push_back(Hooking(a.parent, b.parent));
      if (b.bit != 0 && b.parent > a.parent) hooks.push_back(Hooking(b.parent, a.parent));
    }
    Propose(std::move(hooks));
  });
  active->resize(kept);
  return HangProposed();
}

// Step 2. The trees hung under in step 1 (`under`) learn it first (1
// exchange); then the edges, a slice at a time (HookStagnantSlice), and
// the own stagnant roots hang.
uint64_t Forest::HookStagnant(const std::vector<batch::Edge>& active,
                              const std::vector<uint32_t>& under) {
  std::vector<uint32_t> marks = under;
  SortUniqueIds(&marks);
  std::vector<std::vector<uint8_t>> out(c_.size());
  internal::AppendByOwner(
      marks, [&](uint32_t d) { return Owner(d); }, &out);
  for (uint32_t d : FromBytes<uint32_t>(c_.Exchange(out))) flags_[d - lo_] |= kReceived;
  InSlices(active.size(), [&](size_t begin, size_t end) {
    HookStagnantSlice(std::span<const batch::Edge>(active.data() + begin, end - begin));
  });
  return HangProposed().size();
}

// A slice of step 2. An end that was in a star when the round began, and
// is not a root that step 1 hung, still has that star's root as its
// parent (step 1 moves roots only; a star whose root it moved is not
// stagnant). The owners of those roots tell whether they are stagnant, and
// the other ends' owners their parents now; a stagnant root's proposals go
// to its owner. 5 exchanges.
void Forest::HookStagnantSlice(std::span<const batch::Edge> edges) {
  std::vector<uint32_t> ids;
  for (const batch::Edge& e : edges) ids.push_back(e.a), ids.push_back(e.b);
  const std::vector<Answer> at = Lookup<Answer>(ids, [&](uint32_t i) {
    return Answer{parent_[i], (flags_[i] & (kStar | kHooked)) == kStar};
  });
  std::vector<uint32_t> asks;  // pairs: a star's root, the other end
  for (size_t k = 0; k < edges.size(); ++k) {
    if (at[2 * k].bit != 0) asks.push_back(at[2 * k].parent), asks.push_back(edges[k].b);
    if (at[2 * k + 1].bit != 0) asks.push_back(at[2 * k + 1].parent), asks.push_back(edges[k].a);
  }
  const std::vector<Answer> now = Lookup<Answer>(asks, [&](uint32_t i) {
    const bool stagnant = Root(i) && (flags_[i] & (kStar | kHooked | kReceived)) == kStar;
    return Answer{parent_[i], stagnant};
  });
  std::vector<uint64_t> hooks;
  for (size_t k = 0; k + 1 < now.size(); k += 2) {
    if (now[k].bit != 0) hooks.push_back(Hooking(asks[k], now[k + 1].parent));
  }
  Propose(std::move(hooks));
}

void Forest::Propose(std::vector<uint64_t> hooks) {
  KeepSmallest(&hooks);
  std::vector<std::vector<uint8_t>> out(c_.size());
  for (uint64_t h : hooks) AppendPod(h, &out[Owner(h >> 32)]);
  for (uint64_t h : FromBytes<uint64_t>(c_.Exchange(out))) {
    uint32_t& p = proposal_[static_cast<uint32_t>(h >> 32) - lo_];
    p = std::min(p, static_cast<uint32_t>(h));
  }
}

std::vector<uint32_t> Forest::HangProposed() {
  std::vector<uint32_t> under;
  for (uint32_t i = 0; i < proposal_.size(); ++i) {
    if (proposal_[i] == UINT32_MAX) continue;
    NEARDUP_CHECK(Root(i) && proposal_[i] != lo_ + i);
    parent_[i] = proposal_[i];
    flags_[i] |= kHooked;
    under.push_back(proposal_[i]);
    proposal_[i] = UINT32_MAX;
  }
  return under;
}

// Step 3: one lookup of grandparents, which also tells each owner which of
// its documents have a child; then one exchange that marks the roots of
// trees more than 2 deep (a document 2 deep has a child) and asks each
// document's new parent whether it is an unmarked root. 4 exchanges.
uint64_t Forest::ShortcutAndFindStars() {
  std::fill(flags_.begin(), flags_.end(), 0);
  std::vector<uint32_t> ps, below;  // parents of non-roots, and those non-roots
  for (uint32_t i = 0; i < parent_.size(); ++i) {
    if (!Root(i)) ps.push_back(parent_[i]), below.push_back(i);
  }
  const std::vector<uint32_t> up = Lookup<uint32_t>(ps, [&](uint32_t i) {
    flags_[i] |= kHasChild;
    return parent_[i];
  });
  std::vector<uint32_t> marks;
  uint64_t changed = 0;
  for (size_t k = 0; k < below.size(); ++k) {
    if (up[k] == ps[k]) continue;  // the parent is a root
    ++changed;
    if ((flags_[below[k]] & kHasChild) != 0) marks.push_back(up[k]);
  }
  SortUniqueIds(&marks);
  const std::vector<uint32_t> star = Fetch<uint32_t>(up, [&](std::span<const uint32_t> distinct) {
    return MarkThenQuery<uint32_t>(
        c_, marks, distinct, [&](uint32_t d) { return Owner(d); },
        [&](uint32_t d) { flags_[d - lo_] |= kDeep; },
        [&](uint32_t d) { return Root(d - lo_) && (flags_[d - lo_] & kDeep) == 0 ? 1u : 0u; });
  });
  for (uint32_t i = 0; i < parent_.size(); ++i) {
    flags_[i] = Root(i) && (flags_[i] & kDeep) == 0 ? kStar : 0;
  }
  for (size_t k = 0; k < below.size(); ++k) {
    parent_[below[k]] = up[k];
    if (star[k] != 0) flags_[below[k]] = kStar;
  }
  return changed;
}

// The smallest member and the size of a tree.
struct TreeLabel {
  uint32_t least, size;
};

// Every tree is a star. Per root, its members on this rank and the
// smallest of them go to the root's owner; then every document looks up
// its root's totals.
Labels Forest::Finish() {
  struct Tally {
    uint32_t root, count, least;
  };
  std::unordered_map<uint32_t, Tally> tally;
  std::vector<uint32_t> roots;  // of the own non-roots
  for (uint32_t i = 0; i < parent_.size(); ++i) {
    if (Root(i)) continue;
    ++tally.try_emplace(parent_[i], Tally{parent_[i], 0, lo_ + i}).first->second.count;
    roots.push_back(parent_[i]);
  }
  std::vector<std::vector<uint8_t>> out(c_.size());
  for (const auto& [root, t] : tally) AppendPod(t, &out[Owner(root)]);
  std::vector<TreeLabel> own(parent_.size());
  for (uint32_t i = 0; i < own.size(); ++i) own[i] = {lo_ + i, 1};
  for (const Tally& t : FromBytes<Tally>(c_.Exchange(out))) {
    TreeLabel& l = own[t.root - lo_];
    l.least = std::min(l.least, t.least);
    l.size += t.count;
  }
  const std::vector<TreeLabel> theirs =
      Lookup<TreeLabel>(roots, [&](uint32_t i) { return own[i]; });
  Labels labels;
  labels.root.resize(parent_.size());
  labels.size.resize(parent_.size());
  size_t k = 0;
  for (uint32_t i = 0; i < parent_.size(); ++i) {
    const TreeLabel l = Root(i) ? own[i] : theirs[k++];
    labels.root[i] = l.least;
    labels.size[i] = l.size;
  }
  return labels;
}

}  // namespace neardup::distributed
