// SPDX-License-Identifier: Apache-2.0
//
// Anchors: a sample of a document's windows of consecutive shingles, the
// units whose document frequency tells boilerplate (a site's footer, a
// copyright notice, an ad paragraph) from a story (verify/boilerplate.h).
//
// Method: the shingle hashes in text order (Shingler::Sequence) are read in
// windows of kAnchorShingles; a window's hash is a polynomial rolling hash
// of its shingles (Karp and Rabin, "Efficient randomized pattern-matching
// algorithms", IBM J. Res. Dev. 1987): the shingle hashes being uniform, so
// is the window's. A window is an anchor when its hash's top log2(p) bits
// are 0 (p = kAnchorSampling), the "0 mod p" sample of
// Broder ("On the resemblance and containment of documents", 1997) and of
// Schleimer, Wilkerson and Aiken (winnowing, SIGMOD 2003). The choice
// depends on the window's text alone, so a block of text repeated in many
// documents yields the same anchors in each. A shingle lies under an anchor
// with probability 1 - (1 - 1/p)^w away from a block's edges (w = 8, p = 4:
// 0.90), so a block whose anchors are frequent is about nine tenths covered.
//
// Thread safety: free functions. Complexity: O(n) in the sequence length.
#ifndef NEARDUP_FEATURES_ANCHORS_H_
#define NEARDUP_FEATURES_ANCHORS_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "features/shingles.h"

namespace neardup::features {

inline constexpr uint32_t kAnchorShingles = 8;  // shingles a window
inline constexpr uint64_t kAnchorSampling = 4;  // one window in p is an anchor

struct Anchor {
  uint64_t hash;  // of the window's shingles
  uint32_t pos;   // its first shingle's index in the sequence
};

// Replaces *out with the anchors of `sequence` (shingle hashes in text
// order), in text order. A sequence shorter than a window has none.
void SampleAnchors(std::span<const uint64_t> sequence, std::vector<Anchor>* out);
// The same of the sequence set[ranks[0]], set[ranks[1]], ...
void SampleAnchors(std::span<const uint32_t> ranks, std::span<const uint64_t> set,
                   std::vector<Anchor>* out);

// A text's shingles (ascending, distinct, as Shingler::Shingle gives them),
// the same in text order as their ranks in that set, and their anchors:
// what the boilerplate guard keeps of a text. O(n) plus the set's sort.
void ShingleInOrder(const Shingler& shingler, std::string_view normalized,
                    std::vector<uint64_t>* shingles, std::vector<uint32_t>* ranks,
                    std::vector<Anchor>* anchors);

// Each of `sequence` as its rank in `set` (ascending and distinct, holding
// every one of them), into *ranks: how a document keeps its shingles in text
// order at 4 bytes (or, varint coded, 1-2) a shingle. The set's hashes being
// uniform, an index of where each value of their top bits starts leaves
// about one step of search each: O(set + sequence).
void SequenceRanks(std::span<const uint64_t> set, std::span<const uint64_t> sequence,
                   std::vector<uint32_t>* ranks);

}  // namespace neardup::features

#endif  // NEARDUP_FEATURES_ANCHORS_H_
