// SPDX-License-Identifier: Apache-2.0
//
// RootOrder: the clusters of the forest kept in one order, for listing them
// a page at a time (GET /v1/clusters?sort=size|recent). Each entry is a
// cluster's root slot with an integer key (its size or its time); entries
// are ordered by key, then by the root's name (its id, given by the
// caller), so the order is total and a cursor (key, name) resumes a page
// even after its cluster is gone.
//
// A B+ tree (Bayer and McCreight, "Organization and maintenance of large
// ordered indexes", 1972; leaves chained both ways as in the B+ variant)
// with up to kFanout entries per node. An entry takes 12 bytes in a leaf,
// about 16 with the usual fill, against about 64 in a std::set. Erase frees
// a node when it empties but does not merge half-empty ones; Rebuild()
// packs the tree again.
//
// Complexity: Insert and Erase O(log n) comparisons, each a key compare and
// at worst a name compare; a page O(log n + page). Memory O(n).
// Thread safety: none (the forest's caller serializes writers).
#ifndef NEARDUP_CLUSTER_ROOT_ORDER_H_
#define NEARDUP_CLUSTER_ROOT_ORDER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace neardup::cluster {

using Slot = uint32_t;

// The names that break ties between equal keys. Must stay valid for every
// slot in a RootOrder while it is there.
class RootNames {
 public:
  virtual ~RootNames() = default;
  virtual std::string_view Name(Slot root) const = 0;
};

class RootOrder {
 public:
  static constexpr int kFanout = 64;

  explicit RootOrder(const RootNames* names);
  ~RootOrder();
  RootOrder(const RootOrder&) = delete;
  RootOrder& operator=(const RootOrder&) = delete;

  // Adds (key, root); the root must not be present.
  void Insert(int64_t key, Slot root);
  // Removes (key, root), which must be present.
  void Erase(int64_t key, Slot root);
  // Removes every entry and loads `entries` (any order).
  void Rebuild(std::vector<std::pair<int64_t, Slot>> entries);

  // Calls fn(key, root) for the entries in ascending order (descending when
  // `descending`), starting after the position `after` = (key, name) when
  // given, until fn returns false.
  void Scan(bool descending, const std::optional<std::pair<int64_t, std::string_view>>& after,
            const std::function<bool(int64_t, Slot)>& fn) const;

  size_t size() const { return size_; }
  size_t MemoryBytes() const;

 private:
  struct Node;
  struct Leaf;
  struct Inner;
  struct Entry {
    int64_t key;
    Slot root;
  };
  // Three-way compare of an entry with (key, name).
  int Compare(int64_t key, Slot root, int64_t other_key, std::string_view other_name) const;
  bool Less(const Entry& a, const Entry& b) const;
  // Rebuild's sort: by (key, name), names read 8 bytes at a time.
  struct Decorated;
  void SortByKeyAndName(std::vector<std::pair<int64_t, Slot>>* entries) const;
  void SortTies(std::vector<Decorated>* d, size_t lo, size_t hi, size_t offset) const;
  static bool ByKeyAndChunk(const Decorated& a, const Decorated& b);
  // Binary searches of a node's entries: how many are <= e; how many are
  // < (key, name), or <= it with `or_equal`.
  int UpperBound(const int64_t* keys, const Slot* roots, int n, const Entry& e) const;
  int Count(const int64_t* keys, const Slot* roots, int n, int64_t key, std::string_view name,
            bool or_equal) const;
  // The same over an inner node's separators, which keep names, not roots.
  int UpperBound(const Inner* in, const Entry& e) const;
  int Count(const Inner* in, int64_t key, std::string_view name, bool or_equal) const;
  Leaf* FindLeaf(const Entry& e, std::vector<std::pair<Inner*, int>>* path) const;
  void InsertInParent(std::vector<std::pair<Inner*, int>>& path, Node* left, int64_t sep_key,
                      std::string sep_name, Node* right);
  // Unlinks the child at path.back() (emptied and freed) from its parent.
  void RemoveFromParent(std::vector<std::pair<Inner*, int>>& path);
  void Free(Node* n);
  static size_t SeparatorHeapBytes(const Node* n);

  const RootNames* names_;
  Node* root_ = nullptr;
  Leaf* first_ = nullptr;
  Leaf* last_ = nullptr;
  size_t size_ = 0;
  size_t leaves_ = 0, inners_ = 0;
};

}  // namespace neardup::cluster

#endif  // NEARDUP_CLUSTER_ROOT_ORDER_H_
