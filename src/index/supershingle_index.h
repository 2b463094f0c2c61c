// SPDX-License-Identifier: Apache-2.0
//
// SuperShingleIndex: the inverted index of super-shingles (Broder 2000; the
// sketches come from sketch::SuperShingler). A document is keyed by each of
// its (position, super-shingle) pairs; a query collects the documents sharing
// at least `min_equal` of them.
//
// Thread safety: const calls may run concurrently; writers need exclusive
// access. Memory: two hash-map entries per super-shingle.
#ifndef NEARDUP_INDEX_SUPERSHINGLE_INDEX_H_
#define NEARDUP_INDEX_SUPERSHINGLE_INDEX_H_

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "neardup/status.h"

namespace neardup::index {

struct SuperShingleCandidate {
  uint64_t id;
  int equal;  // equal super-shingles, >= min_equal
};

// Inverted index from (position, super-shingle) to ids.
class SuperShingleIndex {
 public:
  SuperShingleIndex(int groups, int min_equal) : groups_(groups), min_equal_(min_equal) {}

  // Errors: InvalidArgument for a wrong size; AlreadyExists.
  Status Insert(uint64_t id, std::span<const uint64_t> supers);
  // Errors: NotFound.
  Status Remove(uint64_t id);
  // Stored ids with at least min_equal equal super-shingles, most equal first
  // (ties by id). Errors: InvalidArgument for a wrong size.
  Result<std::vector<SuperShingleCandidate>> Query(std::span<const uint64_t> supers) const;
  size_t size() const { return stored_.size(); }

 private:
  static uint64_t Key(int position, uint64_t super) {
    return super ^ (0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(position + 1));
  }
  int groups_;
  int min_equal_;
  std::unordered_map<uint64_t, std::vector<uint64_t>> postings_;  // key -> ids
  std::unordered_map<uint64_t, std::vector<uint64_t>> stored_;    // id -> supers
};

}  // namespace neardup::index

#endif  // NEARDUP_INDEX_SUPERSHINGLE_INDEX_H_
