// SPDX-License-Identifier: Apache-2.0
#include "cluster/forest.h"

#include <algorithm>
#include <functional>
#include <thread>
#include <vector>

#include "base/headroom.h"
#include "base/parallel.h"
#include "base/prefetch.h"
#include "base/status_macros.h"
#include "neardup/status.h"

namespace neardup::cluster {

Forest::Node& Forest::NodeAt(Slot s) {
  if (s >= nodes_.size()) {
    // Exactly to s: the vectors' own growth is geometric, and a restore's
    // headroom (ShrinkToFit) is then used before anything is copied. Growing
    // to 3/2 of the size here copied every node on the first add after a
    // restart (0.2-0.8 s at 10M documents).
    nodes_.resize(s + 1);
  }
  return nodes_[s];
}

Slot Forest::ChooseCluster(std::span<const Slot> near,
                           std::span<const uint64_t> fingerprints) const {
  Slot best = kNoSlot;
  for (Slot s : near) {
    NEARDUP_CHECK(IsLive(s));
    const Slot r = RootOf(s);
    if (r == best) continue;
    if (best == kNoSlot) {
      best = r;
      continue;
    }
    const Summary a = SummaryOf(r);
    const Summary b = SummaryOf(best);
    // Most members, then earliest created, then smallest root fingerprint,
    // then creation order.
    if (a.size != b.size) {
      if (a.size > b.size) best = r;
    } else if (a.created != b.created) {
      if (a.created < b.created) best = r;
    } else if (const uint64_t fa = FingerprintOf(r, fingerprints),
               fb = FingerprintOf(best, fingerprints);
               fa != fb) {
      if (fa < fb) best = r;
    } else if (a.seq < b.seq) {
      best = r;
    }
  }
  return best;
}

Forest::Summary Forest::SummaryOf(Slot root) const {
  const Node& n = nodes_[root];
  if (n.up == kAlone) return {1, n.time, uint64_t{n.prev} | uint64_t{n.next} << 32};
  const Cluster& c = clusters_[n.up];
  return {c.size, c.created, c.seq};
}

uint32_t Forest::NewRecord() {
  if (!free_clusters_.empty()) {
    const uint32_t idx = free_clusters_.back();
    free_clusters_.pop_back();
    return idx;
  }
  clusters_.emplace_back();
  return static_cast<uint32_t>(clusters_.size() - 1);
}

Forest::Cluster& Forest::Promote(Slot root) {
  if (!Alone(root)) return ClusterAt(root);
  const Summary alone = SummaryOf(root);
  const uint32_t idx = NewRecord();
  Node& r = nodes_[root];
  clusters_[idx] = Cluster{1, root, root, root, alone.created, alone.seq};
  r.up = idx;
  r.prev = r.next = kNoSlot;  // the member list of one
  return clusters_[idx];
}

template <typename Fn>
void Forest::ForEachCluster(Fn fn) const {
  // Records are in the order their roots arrived, so the roots' nodes are
  // read almost in order; then one pass over the nodes for the roots alone.
  for (const Cluster& c : clusters_) {
    if (c.size > 0) fn(c.root, c.size);
  }
  for (Slot s = 0; s < nodes_.size(); ++s) {
    if (nodes_[s].is_root && nodes_[s].up == kAlone) fn(s, uint32_t{1});
  }
}

uint64_t Forest::FingerprintOf(Slot root, std::span<const uint64_t> fingerprints) {
  NEARDUP_CHECK(root < fingerprints.size());
  return fingerprints[root];
}

void Forest::Link(Slot doc, Cluster& c) {
  Node& n = nodes_[doc];
  n.prev = c.tail;
  n.next = kNoSlot;
  if (c.tail != kNoSlot) {
    nodes_[c.tail].next = doc;
  } else {
    c.head = doc;
  }
  c.tail = doc;
}

void Forest::Unlink(Slot doc, Cluster& c) {
  Node& n = nodes_[doc];
  if (n.prev != kNoSlot) {
    nodes_[n.prev].next = n.next;
  } else {
    c.head = n.next;
  }
  if (n.next != kNoSlot) {
    nodes_[n.next].prev = n.prev;
  } else {
    c.tail = n.prev;
  }
  n.prev = n.next = kNoSlot;
}

void Forest::SetRootTime(Slot root, int64_t time) {
  if (time <= nodes_[root].time) return;
  Promote(root);  // the record keeps the time it was created at
  Node& r = nodes_[root];
  if (by_time_) {
    by_time_->Erase(r.time, root);
    by_time_->Insert(time, root);
  }
  r.time = time;
}

void Forest::Resize(Slot root, uint32_t from, uint32_t to) {
  if (!by_size_) return;
  if (from > 0) by_size_->Erase(from, root);
  if (to > 0) by_size_->Insert(to, root);
}

void Forest::OrderBy(const RootNames* names) {
  names_ = names;
  by_size_.reset();
  by_time_.reset();
  if (names == nullptr) return;
  by_size_ = std::make_unique<RootOrder>(names);
  by_time_ = std::make_unique<RootOrder>(names);
  RebuildOrders();
}

void Forest::Reserve(size_t slots) { nodes_.reserve(base::WithHeadroom(slots)); }

void Forest::PauseOrders() {
  by_size_.reset();
  by_time_.reset();
}

void Forest::RebuildOrders() {
  if (!by_size_) return;
  std::vector<std::pair<int64_t, Slot>> sizes, times;
  sizes.reserve(live_clusters_);
  times.reserve(live_clusters_);
  ForEachCluster([&](Slot root, uint32_t size) {
    sizes.emplace_back(size, root);
    times.emplace_back(nodes_[root].time, root);
  });
  // The two orders are independent and only read the roots' names: a large
  // forest builds the time order on a second thread (a restart's last
  // serial step).
  base::FirstException error;
  std::vector<std::thread> helper;
  auto by_time = [&] {
    try {
      by_time_->Rebuild(std::move(times));
    } catch (...) {
      error.Capture();
    }
  };
  constexpr size_t kThreadFrom = 1 << 16;  // clusters
  const bool beside = live_clusters_ >= kThreadFrom && base::TryAddThread(&helper, by_time);
  try {
    by_size_->Rebuild(std::move(sizes));
  } catch (...) {
    error.Capture();
  }
  if (beside) {
    helper[0].join();
  } else {
    by_time();
  }
  error.RethrowIfAny();
}

void Forest::AddRoot(Slot doc, int64_t time) {
  Node& n = NodeAt(doc);
  NEARDUP_CHECK(n.state == State::kFree);
  const uint64_t seq = next_seq_++;
  n = Node{kAlone, static_cast<Slot>(seq), static_cast<Slot>(seq >> 32), State::kLive, true, time};
  ++live_clusters_;
  ++live_;
  Resize(doc, 0, 1);
  if (by_time_) by_time_->Insert(time, doc);
}

void Forest::AddMember(Slot doc, Slot root, int64_t time) {
  Node& n = NodeAt(doc);
  NEARDUP_CHECK(n.state == State::kFree);
  NEARDUP_CHECK(IsRoot(root) && nodes_[root].state != State::kFree);
  n = Node{root, kNoSlot, kNoSlot, State::kLive, false, time};
  Cluster& c = Promote(root);
  ++c.size;
  Link(doc, c);
  Resize(root, c.size - 1, c.size);
  SetRootTime(root, time);
  ++live_;
}

void Forest::Adopt(Slot doc, Slot root) {
  NEARDUP_CHECK(doc != root && IsLive(doc) && IsRoot(doc) && SummaryOf(doc).size == 1);
  NEARDUP_CHECK(IsRoot(root) && nodes_[root].state != State::kFree);
  Resize(doc, 1, 0);
  const int64_t time = nodes_[doc].time;
  if (by_time_) by_time_->Erase(time, doc);
  if (!Alone(doc)) {
    Cluster& own = ClusterAt(doc);
    Unlink(doc, own);
    free_clusters_.push_back(nodes_[doc].up);
    own = Cluster{};
  }
  --live_clusters_;
  nodes_[doc] = Node{root, kNoSlot, kNoSlot, State::kLive, false, time};
  Cluster& c = Promote(root);
  ++c.size;
  Link(doc, c);
  Resize(root, c.size - 1, c.size);
  SetRootTime(root, time);
}

void Forest::Prefetch(Slot root, int stage) const {
  if (root >= nodes_.size()) return;
  if (stage == 0) {
    base::Prefetch(&nodes_[root]);
    return;
  }
  const Node& n = nodes_[root];
  if (!n.is_root || n.up >= clusters_.size()) return;
  const Cluster& c = clusters_[n.up];
  if (stage == 1) {
    base::Prefetch(&c);
  } else if (c.tail < nodes_.size()) {
    base::Prefetch(&nodes_[c.tail]);
  }
}

void Forest::Remove(Slot doc, std::vector<Slot>* released) {
  NEARDUP_CHECK(IsLive(doc));
  const Slot root = RootOf(doc);
  if (Alone(root)) {  // doc == root: the cluster of one is gone
    --live_;
    Resize(root, 1, 0);
    if (by_time_) by_time_->Erase(nodes_[root].time, root);
    nodes_[root] = Node{};
    --live_clusters_;
    released->push_back(root);
    return;
  }
  Cluster& c = ClusterAt(root);
  Unlink(doc, c);
  --c.size;
  --live_;
  Resize(root, c.size + 1, c.size);
  if (c.size == 0 && by_time_) by_time_->Erase(nodes_[root].time, root);
  if (doc == root) {
    nodes_[doc].state = State::kGhost;
  } else {
    nodes_[doc] = Node{};
    released->push_back(doc);
  }
  if (c.size == 0) {  // the cluster is gone
    free_clusters_.push_back(nodes_[root].up);
    c = Cluster{};
    --live_clusters_;
    nodes_[root] = Node{};
    released->push_back(root);
  }
}

void Forest::Touch(Slot doc, int64_t time) {
  NEARDUP_CHECK(IsLive(doc));
  Node& n = nodes_[doc];
  // A root's time keys the time order: only SetRootTime may change it.
  if (!n.is_root) n.time = std::max(n.time, time);
  SetRootTime(RootOf(doc), time);
}

void Forest::ExpiredRoots(int64_t cutoff, size_t max_trees, std::vector<Slot>* roots) {
  NEARDUP_CHECK(names_ != nullptr);  // expiry reads the time order
  if (!by_time_) OrderBy(names_);    // paused: build the orders now
  size_t taken = 0;
  by_time_->Scan(false, std::nullopt, [&](int64_t time, Slot root) {
    if (taken == max_trees || time >= cutoff) return false;
    roots->push_back(root);
    ++taken;
    return true;
  });
}

void Forest::Roots(std::vector<Slot>* roots) const {
  ForEachCluster([&](Slot root, uint32_t) { roots->push_back(root); });
}

uint32_t Forest::Size(Slot root) const {
  if (!IsRoot(root) || nodes_[root].state == State::kFree) return 0;
  return SummaryOf(root).size;
}

int64_t Forest::CreatedTime(Slot root) const { return SummaryOf(root).created; }

void Forest::Members(Slot root, std::vector<Slot>* out, size_t limit) const {
  if (!IsRoot(root) || nodes_[root].state == State::kFree) return;
  if (Alone(root)) {
    if (limit > 0) out->push_back(root);
    return;
  }
  for (Slot s = ClusterAt(root).head; s != kNoSlot && limit > 0; s = nodes_[s].next, --limit) {
    out->push_back(s);
  }
}

void Forest::ShrinkToFit() {
  size_t used = nodes_.size();
  while (used > 0 && nodes_[used - 1].state == State::kFree) --used;
  nodes_.resize(used);
  // Headroom, not shrink_to_fit: the first add would copy every array.
  base::TrimWithHeadroom(&free_clusters_);
  base::TrimWithHeadroom(&nodes_);
  base::TrimWithHeadroom(&clusters_);
  if (names_ != nullptr && !by_size_) {
    OrderBy(names_);  // paused: build them
  } else {
    RebuildOrders();
  }
}

size_t Forest::MemoryBytes() const {
  return nodes_.capacity() * sizeof(Node) + clusters_.capacity() * sizeof(Cluster) +
         free_clusters_.capacity() * sizeof(uint32_t) + (by_size_ ? by_size_->MemoryBytes() : 0) +
         (by_time_ ? by_time_->MemoryBytes() : 0);
}

}  // namespace neardup::cluster
