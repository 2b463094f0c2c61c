// SPDX-License-Identifier: Apache-2.0
//
// The records the batch pipeline sorts and spills, and their one order each:
//
//   KeyEntry  (bucket key, doc)  12 bytes  key, then doc
//   Pair      a << 32 | b << 1 | decided   8 bytes  as an integer: (a, b)
//   Edge      (a, b, similarity) 12 bytes  similarity descending, then (a, b)
//
// Documents are dense ids (positions in the input, < 2^31). A bucket key's
// top kSpaceBits bits name its key space (which signal made it, or the id
// space used to find repeated ids); the rest is a hash.
#ifndef NEARDUP_BATCH_RECORDS_H_
#define NEARDUP_BATCH_RECORDS_H_

#include <cstdint>

namespace neardup::batch {

inline constexpr int kSpaceBits = 4;
inline constexpr int kMaxSpaces = (1 << kSpaceBits) - 1;  // the last space is for ids
inline constexpr uint32_t kIdSpace = kMaxSpaces;
inline constexpr uint32_t kMaxDocs = 1u << 31;

inline uint64_t MakeKey(uint32_t space, uint64_t hash) {
  return (static_cast<uint64_t>(space) << (64 - kSpaceBits)) | (hash >> kSpaceBits);
}
inline uint32_t SpaceOf(uint64_t key) { return static_cast<uint32_t>(key >> (64 - kSpaceBits)); }

#pragma pack(push, 4)
struct KeyEntry {
  uint64_t key;
  uint32_t doc;
};
#pragma pack(pop)
static_assert(sizeof(KeyEntry) == 12);

struct KeyEntryLess {
  bool operator()(const KeyEntry& x, const KeyEntry& y) const {
    return x.key != y.key ? x.key < y.key : x.doc < y.doc;
  }
};

// A candidate pair a < b; `decided` is set when a key space that decides
// without verification proposed it (KeySpace::decides).
using Pair = uint64_t;
inline Pair MakePair(uint32_t a, uint32_t b, bool decided) {
  return (static_cast<uint64_t>(a) << 32) | (static_cast<uint64_t>(b) << 1) | (decided ? 1 : 0);
}
inline uint32_t PairA(Pair p) { return static_cast<uint32_t>(p >> 32); }
inline uint32_t PairB(Pair p) { return static_cast<uint32_t>(p >> 1) & 0x7FFFFFFFu; }
inline bool PairDecided(Pair p) { return (p & 1) != 0; }

struct Edge {
  uint32_t a;
  uint32_t b;
  float similarity;
};
static_assert(sizeof(Edge) == 12);

// A containment edge (verify/verifier.h: the pair passed by containment,
// its similarity J under the threshold) keeps 2 + J when a is the smaller,
// contained record and 4 + J when b is; a decided edge (no verification)
// keeps a negative similarity. Clusters join containment edges after the
// others, under their own rule (clusters.h).
inline constexpr float kContainedA = 2.0f, kContainedB = 4.0f;
inline float ContainedSimilarity(double j, char smaller) {
  return (smaller == 'a' ? kContainedA : kContainedB) + static_cast<float>(j);
}
inline bool IsContained(const Edge& e) { return e.similarity >= kContainedA; }
// The contained record of a containment edge.
inline uint32_t ContainedOf(const Edge& e) { return e.similarity >= kContainedB ? e.b : e.a; }
// The similarity to report: J of a containment edge, 1 of a decided one.
inline float ReportedSimilarity(const Edge& e) {
  if (e.similarity < 0) return 1.0f;
  if (e.similarity >= kContainedB) return e.similarity - kContainedB;
  if (e.similarity >= kContainedA) return e.similarity - kContainedA;
  return e.similarity;
}

// The canonical order of verified edges: the cap is applied in this order.
struct EdgeCanonicalLess {
  bool operator()(const Edge& x, const Edge& y) const {
    if (x.similarity != y.similarity) return x.similarity > y.similarity;
    return x.a != y.a ? x.a < y.a : x.b < y.b;
  }
};

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_RECORDS_H_
