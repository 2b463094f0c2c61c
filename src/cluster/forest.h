// SPDX-License-Identifier: Apache-2.0
//
// The parent forest: online clustering where every cluster is a tree of
// height <= 2. The first document of a cluster is its root and the cluster's
// id; every later member hangs directly under the root. This is the scheme
// news platforms use for real-time dedup (see docs/design.md):
//
//   - A new document near members of exactly one cluster joins it.
//   - Near several clusters, it joins the one with the most members, then the
//     earliest created (root arrival time), then the one whose root
//     fingerprint is smallest, then the one created first (a total order).
//   - Otherwise it starts a new cluster.
//   - A document alone in its cluster may be adopted into the cluster of a
//     later document near it (Adopt; the engine's rule: Engine::Impl::
//     Gather). Trees of two or more never merge, so once a document has
//     company its cluster id never changes. The price: two clusters that
//     drift together stay apart. The gain: stable ids for clients and no
//     chaining, since a member only joins a cluster it is directly near
//     (distance to some member <= k), not transitively.
//
// Removing a root while members remain leaves a "ghost" root: the cluster
// keeps its id, the ghost counts for nothing, and the cluster disappears with
// its last live member. Every node carries a time; touching a member also
// touches its root, so a root is never older than its leaves and expiry can
// drop whole trees by root time.
//
// Slots are dense 32-bit handles owned by the caller (the engine).
// Thread safety: none; the engine serializes writers and guards readers.
// Complexity: O(1) per operation except ChooseCluster (O(matches)) and
// time-ordered expiry (O(log clusters) per touched root).
#ifndef NEARDUP_CLUSTER_FOREST_H_
#define NEARDUP_CLUSTER_FOREST_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "cluster/root_order.h"

namespace neardup::cluster {

inline constexpr Slot kNoSlot = std::numeric_limits<Slot>::max();

class Forest {
 public:
  enum class State : uint8_t { kFree, kLive, kGhost };

  // The cluster a new document joins, given slots of live documents it is
  // near (duplicates allowed), or kNoSlot for a new cluster.
  // `fingerprints[s]` is document s's fingerprint: the caller keeps them by
  // slot (the forest keeps no copy), and the tie-break reads those of the
  // roots (live or ghost), which must be in range.
  Slot ChooseCluster(std::span<const Slot> near, std::span<const uint64_t> fingerprints) const;

  // Makes `doc` (a free slot) the root of a new cluster.
  void AddRoot(Slot doc, int64_t time);
  // Adds `doc` (a free slot) as a member of the cluster rooted at `root`.
  void AddMember(Slot doc, Slot root, int64_t time);

  // Moves `doc`, the live root of a cluster of one, under the cluster
  // rooted at `root` (another live or ghost root) as its newest member: its
  // own cluster is gone, its time kept (refreshing the root's). O(log
  // clusters) with the orders kept.
  void Adopt(Slot doc, Slot root);

  // For a run of AddMember(_, root, _) calls (a restore): asks for what
  // one reads, a dependent step a stage: 0 the root's node, 1 its cluster
  // record (reading the node), 2 the node of the cluster's newest member
  // (reading the record). A hint: it changes nothing.
  void Prefetch(Slot root, int stage) const;

  // Removes live `doc`. Appends to *released the slots that became free
  // (the doc itself, unless it is a root that turned ghost; the ghost root
  // when its last member goes).
  void Remove(Slot doc, std::vector<Slot>* released);

  // Refreshes the time of `doc` and its root to max(current, time).
  void Touch(Slot doc, int64_t time);

  // Appends roots of up to `max_trees` clusters whose root time < cutoff,
  // oldest first, ties by name: it reads the time order, so the forest must
  // keep the orders (OrderBy with names; paused orders are built first).
  // They stay listed until their clusters are gone, so a caller may remove
  // only some of them. O(log clusters + returned).
  void ExpiredRoots(int64_t cutoff, size_t max_trees, std::vector<Slot>* roots);

  // Appends the root of every cluster, in no particular order. O(clusters).
  void Roots(std::vector<Slot>* roots) const;

  // Keeps the clusters ordered by size and by root time, ties broken by the
  // roots' names (RootOrder), for listing them a page at a time. `names`
  // must outlive the forest and name every root; null stops the ordering.
  // Expiry (ExpiredRoots) reads the time order, so a forest that expires
  // keeps them.
  // O(clusters log clusters) now, O(log clusters) per change after.
  void OrderBy(const RootNames* names);
  // Stops keeping the orders (a bulk load: each insert would cost two
  // O(log clusters) tree updates with name comparisons) until
  // ShrinkToFit(), which builds them once; ExpiredRoots() builds them too if
  // it comes first. The orders read null meanwhile.
  void PauseOrders();
  // Reserves the per-slot arrays for `slots` slots plus ShrinkToFit's
  // headroom, so that a restore of that many never copies them.
  void Reserve(size_t slots);
  // The orders, null until OrderBy and while paused.
  const RootOrder* by_size() const { return by_size_.get(); }
  const RootOrder* by_time() const { return by_time_.get(); }

  State state(Slot doc) const { return doc < nodes_.size() ? nodes_[doc].state : State::kFree; }
  bool IsLive(Slot doc) const { return state(doc) == State::kLive; }
  Slot RootOf(Slot doc) const { return nodes_[doc].is_root ? doc : nodes_[doc].up; }
  int64_t TimeOf(Slot doc) const { return nodes_[doc].time; }
  // Live members of the cluster rooted at `root` (excluding a ghost root).
  uint32_t Size(Slot root) const;
  int64_t CreatedTime(Slot root) const;
  // Live members of the cluster in the order they joined (root first when
  // live; a gathered document joins when it is gathered).
  void Members(Slot root, std::vector<Slot>* out, size_t limit = SIZE_MAX) const;

  size_t clusters() const { return live_clusters_; }
  size_t live() const { return live_; }
  size_t MemoryBytes() const;
  // Drops unused capacity beyond an eighth of
  // headroom (base/headroom.h), and packs the orders (or builds them, when
  // paused). O(slots + clusters log clusters).
  void ShrinkToFit();

 private:
  struct Node {  // 24 bytes per slot
    // A member's root; a root's record in clusters_ (so no per-slot map
    // from roots to records is kept beside the nodes), or kAlone.
    uint32_t up = kNoSlot;
    // The arrival-ordered member list of the cluster; of a kAlone root, its
    // creation seq (low and high 32 bits).
    Slot prev = kNoSlot;
    Slot next = kNoSlot;
    State state = State::kFree;
    bool is_root = false;  // live or ghost root
    int64_t time = 0;
  };
  struct Cluster {      // 32 bytes per cluster that has one, in a dense vector
    uint32_t size = 0;  // live members; 0 marks a free record
    Slot head = kNoSlot, tail = kNoSlot;
    Slot root = kNoSlot;
    int64_t created = 0;  // the root's arrival time
    uint64_t seq = 0;     // creation order: the last, deterministic tie-break
  };
  // A root's `up` while its cluster has no record: the root is live and
  // alone, and its time has not moved since it was created. The record
  // would say size 1, head = tail = root, created = the root's time; the
  // node keeps the seq. Most clusters of a stream stay so (a story nobody
  // reprints), and a record costs 32 bytes: Promote() makes it when a
  // second member comes or the root's time moves.
  static constexpr uint32_t kAlone = kNoSlot - 1;
  // What ChooseCluster reads of a cluster.
  struct Summary {
    uint32_t size;
    int64_t created;
    uint64_t seq;
  };

  Node& NodeAt(Slot s);
  bool Alone(Slot root) const { return nodes_[root].up == kAlone; }
  Summary SummaryOf(Slot root) const;
  // The record of the cluster rooted at `root`, made first when it has none.
  Cluster& Promote(Slot root);
  uint32_t NewRecord();
  // Calls fn(root, size) for every cluster: the records', then the roots alone.
  template <typename Fn>
  void ForEachCluster(Fn fn) const;
  static uint64_t FingerprintOf(Slot root, std::span<const uint64_t> fingerprints);
  Cluster& ClusterAt(Slot root) { return clusters_[nodes_[root].up]; }
  const Cluster& ClusterAt(Slot root) const { return clusters_[nodes_[root].up]; }
  bool IsRoot(Slot s) const { return s < nodes_.size() && nodes_[s].is_root; }
  void Link(Slot doc, Cluster& c);
  void Unlink(Slot doc, Cluster& c);
  void SetRootTime(Slot root, int64_t time);
  // Keeps the size order current when a cluster's size goes from `from`
  // to `to` (0: absent).
  void Resize(Slot root, uint32_t from, uint32_t to);
  void RebuildOrders();

  std::vector<Node> nodes_;
  std::vector<Cluster> clusters_;
  std::vector<uint32_t> free_clusters_;
  uint64_t next_seq_ = 0;
  size_t live_ = 0;
  size_t live_clusters_ = 0;
  const RootNames* names_ = nullptr;
  std::unique_ptr<RootOrder> by_size_, by_time_;
};

}  // namespace neardup::cluster

#endif  // NEARDUP_CLUSTER_FOREST_H_
