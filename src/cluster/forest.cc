// SPDX-License-Identifier: Apache-2.0
#include "cluster/forest.h"

#include <algorithm>

#include "neardup/status.h"

namespace neardup::cluster {

Forest::Node& Forest::NodeAt(Slot s) {
  if (s >= nodes_.size()) nodes_.resize(std::max<size_t>(s + 1, nodes_.size() * 3 / 2));
  return nodes_[s];
}

Slot Forest::ChooseCluster(std::span<const Slot> near) const {
  Slot best = kNoSlot;
  for (Slot s : near) {
    NEARDUP_CHECK(IsLive(s));
    const Slot r = nodes_[s].root;
    if (r == best) continue;
    if (best == kNoSlot) {
      best = r;
      continue;
    }
    const Cluster& a = clusters_.at(r);
    const Cluster& b = clusters_.at(best);
    // Most members, then earliest created, then smallest root fingerprint.
    if (a.size != b.size) {
      if (a.size > b.size) best = r;
    } else if (a.created != b.created) {
      if (a.created < b.created) best = r;
    } else if (a.root_fp != b.root_fp) {
      if (a.root_fp < b.root_fp) best = r;
    } else if (a.seq < b.seq) {
      best = r;
    }
  }
  return best;
}

void Forest::Link(Slot doc, Cluster& c) {
  Node& n = nodes_[doc];
  n.prev = c.tail;
  n.next = kNoSlot;
  if (c.tail != kNoSlot) nodes_[c.tail].next = doc;
  else c.head = doc;
  c.tail = doc;
}

void Forest::Unlink(Slot doc, Cluster& c) {
  Node& n = nodes_[doc];
  if (n.prev != kNoSlot) nodes_[n.prev].next = n.next;
  else c.head = n.next;
  if (n.next != kNoSlot) nodes_[n.next].prev = n.prev;
  else c.tail = n.prev;
  n.prev = n.next = kNoSlot;
}

void Forest::SetRootTime(Slot root, int64_t time) {
  Node& r = nodes_[root];
  if (time <= r.time && roots_by_time_.count({r.time, root})) return;
  roots_by_time_.erase({r.time, root});
  r.time = std::max(r.time, time);
  roots_by_time_.insert({r.time, root});
}

void Forest::AddRoot(Slot doc, uint64_t fingerprint, int64_t time) {
  Node& n = NodeAt(doc);
  NEARDUP_CHECK(n.state == State::kFree);
  n = Node{doc, kNoSlot, kNoSlot, State::kLive, time};
  Cluster& c = clusters_[doc];
  c = Cluster{1, time, next_seq_++, fingerprint, kNoSlot, kNoSlot};
  Link(doc, c);
  roots_by_time_.insert({time, doc});
  ++live_;
}

void Forest::AddMember(Slot doc, Slot root, int64_t time) {
  Node& n = NodeAt(doc);
  NEARDUP_CHECK(n.state == State::kFree);
  NEARDUP_CHECK(root < nodes_.size() && nodes_[root].root == root);
  n = Node{root, kNoSlot, kNoSlot, State::kLive, time};
  Cluster& c = clusters_.at(root);
  ++c.size;
  Link(doc, c);
  SetRootTime(root, time);
  ++live_;
}

void Forest::Remove(Slot doc, std::vector<Slot>* released) {
  NEARDUP_CHECK(IsLive(doc));
  const Slot root = nodes_[doc].root;
  Cluster& c = clusters_.at(root);
  Unlink(doc, c);
  --c.size;
  --live_;
  if (doc == root) {
    nodes_[doc].state = State::kGhost;
  } else {
    nodes_[doc] = Node{};
    released->push_back(doc);
  }
  if (c.size == 0) {
    roots_by_time_.erase({nodes_[root].time, root});
    clusters_.erase(root);
    nodes_[root] = Node{};
    released->push_back(root);
  }
}

void Forest::Touch(Slot doc, int64_t time) {
  NEARDUP_CHECK(IsLive(doc));
  Node& n = nodes_[doc];
  // A root's time is keyed in roots_by_time_: only SetRootTime may change it.
  if (n.root != doc) n.time = std::max(n.time, time);
  SetRootTime(n.root, time);
}

void Forest::ExpiredRoots(int64_t cutoff, size_t max_trees, std::vector<Slot>* roots) const {
  for (auto it = roots_by_time_.begin();
       it != roots_by_time_.end() && it->first < cutoff && max_trees > 0; ++it, --max_trees) {
    roots->push_back(it->second);
  }
}

uint32_t Forest::Size(Slot root) const {
  auto it = clusters_.find(root);
  return it == clusters_.end() ? 0 : it->second.size;
}

int64_t Forest::CreatedTime(Slot root) const { return clusters_.at(root).created; }

void Forest::Members(Slot root, std::vector<Slot>* out, size_t limit) const {
  auto it = clusters_.find(root);
  if (it == clusters_.end()) return;
  for (Slot s = it->second.head; s != kNoSlot && limit > 0; s = nodes_[s].next, --limit) {
    out->push_back(s);
  }
}

size_t Forest::MemoryBytes() const {
  return nodes_.capacity() * sizeof(Node) + clusters_.size() * (sizeof(Cluster) + 32) +
         clusters_.bucket_count() * sizeof(void*) + roots_by_time_.size() * 48;
}

}  // namespace neardup::cluster
