// SPDX-License-Identifier: Apache-2.0
// RootOrder (root_order.h): a B+ tree of (key, root) entries. Inner node i
// has n separators and n + 1 children; child c holds the entries in
// [separator c-1, separator c). A separator keeps its key and a copy of its
// root's name, not the root: it stays a valid bound when its entry is
// erased, so erasing never touches it, but the root's slot may then be
// released and hold another name, which would move the bound. An emptied
// node is unlinked.
#include "cluster/root_order.h"

#include <algorithm>

#include "base/status_macros.h"

namespace neardup::cluster {

struct RootOrder::Node {
  bool leaf;
  int n = 0;  // entries (leaf) or separators (inner)
  explicit Node(bool is_leaf) : leaf(is_leaf) {}
};

struct RootOrder::Leaf : Node {
  Leaf() : Node(true) {}
  int64_t keys[kFanout];
  Slot roots[kFanout];
  Leaf* prev = nullptr;
  Leaf* next = nullptr;
};

struct RootOrder::Inner : Node {
  Inner() : Node(false) {}
  int64_t keys[kFanout];
  std::string names[kFanout];  // the separators' names, copied
  Node* child[kFanout + 1];
};

RootOrder::RootOrder(const RootNames* names) : names_(names) {
  Leaf* l = new Leaf();
  root_ = first_ = last_ = l;
  leaves_ = 1;
}

RootOrder::~RootOrder() { Free(root_); }

void RootOrder::Free(Node* n) {
  if (!n->leaf) {
    Inner* in = static_cast<Inner*>(n);
    for (int i = 0; i <= in->n; ++i) Free(in->child[i]);
    delete in;
  } else {
    delete static_cast<Leaf*>(n);
  }
}

int RootOrder::Compare(int64_t key, Slot root, int64_t other_key,
                       std::string_view other_name) const {
  if (key != other_key) return key < other_key ? -1 : 1;
  const int c = names_->Name(root).compare(other_name);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

int RootOrder::UpperBound(const Inner* in, const Entry& e) const {
  int lo = 0, hi = in->n;  // binary search: the first separator > e
  std::string_view name;   // e's, read once when a key ties
  bool named = false;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    bool less;
    if (e.key != in->keys[mid]) {
      less = e.key < in->keys[mid];
    } else {
      if (!named) name = names_->Name(e.root), named = true;
      less = name < in->names[mid];
    }
    if (less) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

int RootOrder::Count(const Inner* in, int64_t key, std::string_view name, bool or_equal) const {
  int lo = 0, hi = in->n;  // separators < (key, name), or <= it with or_equal
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    const int c = in->keys[mid] != key ? (in->keys[mid] < key ? -1 : 1)
                                       : std::string_view(in->names[mid]).compare(name);
    if (c < 0 || (or_equal && c == 0)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

bool RootOrder::Less(const Entry& a, const Entry& b) const {
  if (a.key != b.key) return a.key < b.key;
  return a.root != b.root && names_->Name(a.root) < names_->Name(b.root);
}

int RootOrder::UpperBound(const int64_t* keys, const Slot* roots, int n, const Entry& e) const {
  int lo = 0, hi = n;  // binary search: the first entry > e
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (Less(e, Entry{keys[mid], roots[mid]})) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

int RootOrder::Count(const int64_t* keys, const Slot* roots, int n, int64_t key,
                     std::string_view name, bool or_equal) const {
  int lo = 0, hi = n;  // entries < (key, name), or <= with or_equal
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    const int c = Compare(keys[mid], roots[mid], key, name);
    if (c < 0 || (or_equal && c == 0)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

RootOrder::Leaf* RootOrder::FindLeaf(const Entry& e,
                                     std::vector<std::pair<Inner*, int>>* path) const {
  Node* n = root_;
  while (!n->leaf) {
    Inner* in = static_cast<Inner*>(n);
    const int i = UpperBound(in, e);  // separators <= e
    if (path) path->emplace_back(in, i);
    n = in->child[i];
  }
  return static_cast<Leaf*>(n);
}

void RootOrder::Insert(int64_t key, Slot root) {
  const Entry e{key, root};
  std::vector<std::pair<Inner*, int>> path;
  Leaf* l = FindLeaf(e, &path);
  int pos = UpperBound(l->keys, l->roots, l->n, e);  // entries are distinct
  ++size_;
  if (l->n == kFanout) {  // split: the upper half moves to a new right leaf
    Leaf* r = new Leaf();
    ++leaves_;
    const int half = kFanout / 2;
    r->n = kFanout - half;
    std::copy(l->keys + half, l->keys + kFanout, r->keys);
    std::copy(l->roots + half, l->roots + kFanout, r->roots);
    l->n = half;
    r->next = l->next;
    r->prev = l;
    (l->next ? l->next->prev : last_) = r;
    l->next = r;
    if (pos > half) {
      pos -= half;
      l = r;
    }
    std::copy_backward(l->keys + pos, l->keys + l->n, l->keys + l->n + 1);
    std::copy_backward(l->roots + pos, l->roots + l->n, l->roots + l->n + 1);
    l->keys[pos] = key;
    l->roots[pos] = root;
    ++l->n;
    Node* left = l == r ? r->prev : l;
    InsertInParent(path, left, r->keys[0], std::string(names_->Name(r->roots[0])), r);
    return;
  }
  std::copy_backward(l->keys + pos, l->keys + l->n, l->keys + l->n + 1);
  std::copy_backward(l->roots + pos, l->roots + l->n, l->roots + l->n + 1);
  l->keys[pos] = key;
  l->roots[pos] = root;
  ++l->n;
}

void RootOrder::InsertInParent(std::vector<std::pair<Inner*, int>>& path, Node* left,
                               int64_t sep_key, std::string sep_name, Node* right) {
  if (path.empty()) {
    Inner* in = new Inner();
    ++inners_;
    in->n = 1;
    in->keys[0] = sep_key;
    in->names[0] = std::move(sep_name);
    in->child[0] = left;
    in->child[1] = right;
    root_ = in;
    return;
  }
  auto [p, idx] = path.back();
  path.pop_back();
  const int total = p->n + 1;
  if (total <= kFanout) {  // room: shift the separators and children right of idx
    std::move_backward(p->keys + idx, p->keys + p->n, p->keys + p->n + 1);
    std::move_backward(p->names + idx, p->names + p->n, p->names + p->n + 1);
    std::move_backward(p->child + idx + 1, p->child + p->n + 1, p->child + p->n + 2);
    p->keys[idx] = sep_key;
    p->names[idx] = std::move(sep_name);
    p->child[idx + 1] = right;
    p->n = total;
    return;
  }
  // All separators and children with the new ones in place, then a split.
  int64_t keys[kFanout + 1];
  std::string names[kFanout + 1];
  Node* child[kFanout + 2];
  std::copy(p->keys, p->keys + idx, keys);
  std::move(p->names, p->names + idx, names);
  keys[idx] = sep_key;
  names[idx] = std::move(sep_name);
  std::copy(p->keys + idx, p->keys + p->n, keys + idx + 1);
  std::move(p->names + idx, p->names + p->n, names + idx + 1);
  std::copy(p->child, p->child + idx + 1, child);
  child[idx + 1] = right;
  std::copy(p->child + idx + 1, p->child + p->n + 1, child + idx + 2);
  const int mid = total / 2;  // keys[mid] moves up
  Inner* r = new Inner();
  ++inners_;
  p->n = mid;
  std::copy(keys, keys + mid, p->keys);
  std::move(names, names + mid, p->names);
  std::copy(child, child + mid + 1, p->child);
  r->n = total - mid - 1;
  std::copy(keys + mid + 1, keys + total, r->keys);
  std::move(names + mid + 1, names + total, r->names);
  std::copy(child + mid + 1, child + total + 1, r->child);
  InsertInParent(path, p, keys[mid], std::move(names[mid]), r);
}

void RootOrder::Erase(int64_t key, Slot root) {
  const Entry e{key, root};
  std::vector<std::pair<Inner*, int>> path;
  Leaf* l = FindLeaf(e, &path);
  const int pos = UpperBound(l->keys, l->roots, l->n, e) - 1;  // the last entry <= e
  NEARDUP_CHECK_MSG(pos >= 0 && l->keys[pos] == key && l->roots[pos] == root,
                    "RootOrder::Erase of an absent entry");
  std::copy(l->keys + pos + 1, l->keys + l->n, l->keys + pos);
  std::copy(l->roots + pos + 1, l->roots + l->n, l->roots + pos);
  --l->n;
  --size_;
  if (l->n > 0 || path.empty()) return;
  (l->prev ? l->prev->next : first_) = l->next;
  (l->next ? l->next->prev : last_) = l->prev;
  delete l;
  --leaves_;
  RemoveFromParent(path);
}

void RootOrder::RemoveFromParent(std::vector<std::pair<Inner*, int>>& path) {
  auto [p, idx] = path.back();
  path.pop_back();
  if (p->n == 0) {  // its only child is gone: the parent goes too
    delete p;
    --inners_;
    if (path.empty()) {  // the tree is empty
      Leaf* l = new Leaf();
      ++leaves_;
      root_ = first_ = last_ = l;
      return;
    }
    return RemoveFromParent(path);
  }
  const int sep = idx > 0 ? idx - 1 : 0;  // the bound that went with the child
  std::copy(p->keys + sep + 1, p->keys + p->n, p->keys + sep);
  std::move(p->names + sep + 1, p->names + p->n, p->names + sep);
  p->names[p->n - 1].clear();
  std::copy(p->child + idx + 1, p->child + p->n + 1, p->child + idx);
  --p->n;
  if (p == root_ && p->n == 0) {  // a root with one child: the child is the root
    root_ = p->child[0];
    delete p;
    --inners_;
  }
}

// An entry of SortByKeyAndName: 8 bytes of the root's name at a time,
// big-endian and zero-padded, so that comparing chunks compares the bytes
// as std::string_view does (unsigned).
struct RootOrder::Decorated {
  int64_t key;
  uint64_t chunk;
  Slot root;
};

namespace {

uint64_t Chunk(std::string_view name, size_t offset) {
  uint64_t c = 0;
  for (size_t i = 0; i < 8; ++i) {
    const size_t at = offset + i;
    c = (c << 8) | (at < name.size() ? static_cast<uint8_t>(name[at]) : 0);
  }
  return c;
}

}  // namespace

bool RootOrder::ByKeyAndChunk(const Decorated& a, const Decorated& b) {
  return a.key != b.key ? a.key < b.key : a.chunk < b.chunk;
}

// The runs [lo, hi) of `d` whose names share their first `offset` bytes
// (and whose keys are equal) sort by the next 8 bytes, recursively; a run of
// names that all end within `offset` bytes (names that differ only in
// trailing zero bytes or length) falls back to full comparisons.
void RootOrder::SortTies(std::vector<Decorated>* d, size_t lo, size_t hi, size_t offset) const {
  auto& v = *d;
  size_t longest = 0;
  for (size_t i = lo; i < hi; ++i) {
    const std::string_view name = names_->Name(v[i].root);
    longest = std::max(longest, name.size());
    v[i].chunk = Chunk(name, offset);
  }
  if (longest <= offset) {
    std::sort(v.begin() + lo, v.begin() + hi, [&](const Decorated& a, const Decorated& b) {
      return Less(Entry{a.key, a.root}, Entry{b.key, b.root});
    });
    return;
  }
  std::sort(v.begin() + lo, v.begin() + hi, ByKeyAndChunk);
  for (size_t a = lo; a < hi;) {
    size_t b = a + 1;
    while (b < hi && v[b].chunk == v[a].chunk) ++b;
    if (b - a > 1) SortTies(d, a, b, offset + 8);
    a = b;
  }
}

// std::sort with Less() fetches two names per comparison (cache misses in
// the id table, log n times per entry): at 10M roots, most of them of size
// 1, that was most of the rebuild. Here a name is read once per 8 bytes
// that tie (an MSD radix sort on the names' bytes, in the manner of
// multikey quicksort: Bentley and Sedgewick, SODA 1997).
void RootOrder::SortByKeyAndName(std::vector<std::pair<int64_t, Slot>>* entries) const {
  // By key first; only the entries that tie on their key read their names.
  std::vector<Decorated> d(entries->size());
  for (size_t i = 0; i < d.size(); ++i) d[i] = {(*entries)[i].first, 0, (*entries)[i].second};
  std::sort(d.begin(), d.end(), ByKeyAndChunk);
  for (size_t a = 0; a < d.size();) {
    size_t b = a + 1;
    while (b < d.size() && d[b].key == d[a].key) ++b;
    if (b - a > 1) SortTies(&d, a, b, 0);
    a = b;
  }
  for (size_t i = 0; i < d.size(); ++i) (*entries)[i] = {d[i].key, d[i].root};
}

void RootOrder::Rebuild(std::vector<std::pair<int64_t, Slot>> entries) {
  Free(root_);
  leaves_ = inners_ = 0;
  SortByKeyAndName(&entries);
  size_ = entries.size();
  // Leaves 7/8 full, so that the next inserts rarely split.
  constexpr int kFill = kFanout - kFanout / 8;
  struct Bounded {
    Node* node;
    int64_t key;  // its smallest entry's key and name
    std::string name;
  };
  std::vector<Bounded> level;
  Leaf* prev = nullptr;
  for (size_t i = 0; i < entries.size() || level.empty(); i += kFill) {
    Leaf* l = new Leaf();
    ++leaves_;
    const size_t end = std::min(entries.size(), i + kFill);
    for (size_t j = i; j < end; ++j) {
      l->keys[l->n] = entries[j].first;
      l->roots[l->n++] = entries[j].second;
    }
    l->prev = prev;
    (prev ? prev->next : first_) = l;
    prev = l;
    level.push_back(
        {l, l->n ? l->keys[0] : 0, l->n ? std::string(names_->Name(l->roots[0])) : std::string()});
  }
  last_ = prev;
  while (level.size() > 1) {
    std::vector<Bounded> up;
    for (size_t i = 0; i < level.size(); i += kFill + 1) {
      Inner* in = new Inner();
      ++inners_;
      const size_t end = std::min(level.size(), i + kFill + 1);
      in->child[0] = level[i].node;
      for (size_t j = i + 1; j < end; ++j) {
        in->keys[in->n] = level[j].key;
        in->names[in->n] = std::move(level[j].name);
        in->child[++in->n] = level[j].node;
      }
      up.push_back({in, level[i].key, std::move(level[i].name)});
    }
    // An inner node needs two children: a lone last child joins its
    // neighbour, which has room (kFill + 1 children of kFanout + 1).
    if (up.size() > 1 && static_cast<Inner*>(up.back().node)->n == 0) {
      Inner* lone = static_cast<Inner*>(up.back().node);
      Inner* left = static_cast<Inner*>(up[up.size() - 2].node);
      left->keys[left->n] = up.back().key;
      left->names[left->n] = std::move(up.back().name);
      left->child[++left->n] = lone->child[0];
      delete lone;
      --inners_;
      up.pop_back();
    }
    level = std::move(up);
  }
  root_ = level[0].node;
}

void RootOrder::Scan(bool descending,
                     const std::optional<std::pair<int64_t, std::string_view>>& after,
                     const std::function<bool(int64_t, Slot)>& fn) const {
  const Leaf* l;
  int pos;
  if (!after) {
    l = descending ? last_ : first_;
    pos = descending ? l->n - 1 : 0;
  } else {
    const auto& [key, name] = *after;
    const Node* n = root_;
    while (!n->leaf) {
      const Inner* in = static_cast<const Inner*>(n);
      // Ascending: separators <= after; descending: separators < after.
      n = in->child[Count(in, key, name, !descending)];
    }
    l = static_cast<const Leaf*>(n);
    // Descending: the last entry < after; ascending: the first entry > after.
    pos = descending ? Count(l->keys, l->roots, l->n, key, name, false) - 1
                     : Count(l->keys, l->roots, l->n, key, name, true);
  }
  while (l != nullptr) {
    if (descending) {
      for (; pos >= 0; --pos) {
        if (!fn(l->keys[pos], l->roots[pos])) return;
      }
      l = l->prev;
      if (l) pos = l->n - 1;
    } else {
      for (; pos < l->n; ++pos) {
        if (!fn(l->keys[pos], l->roots[pos])) return;
      }
      l = l->next;
      pos = 0;
    }
  }
}

size_t RootOrder::MemoryBytes() const {
  return leaves_ * sizeof(Leaf) + inners_ * sizeof(Inner) + SeparatorHeapBytes(root_);
}

// The separators' names longer than a string's inline buffer: a block each.
// O(inner nodes), about one for 2,000 entries.
size_t RootOrder::SeparatorHeapBytes(const Node* n) {
  if (n->leaf) return 0;
  const Inner* in = static_cast<const Inner*>(n);
  size_t bytes = 0;
  for (int i = 0; i < in->n; ++i) {
    if (in->names[i].capacity() > std::string().capacity()) bytes += in->names[i].capacity() + 1;
  }
  if (in->child[0]->leaf) return bytes;
  for (int i = 0; i <= in->n; ++i) bytes += SeparatorHeapBytes(in->child[i]);
  return bytes;
}

}  // namespace neardup::cluster
