// SPDX-License-Identifier: Apache-2.0
//
// Exact duplicates: a 128-bit hash of the normalized text, checked before any
// near-duplicate signal. Two documents whose normalized texts are byte-equal
// get equal hashes; distinct texts collide with probability about 2^-128 per
// pair, so a 100M-record bank (5e15 pairs) expects no false match.
//
// Hash: XXH3-128 with seed kExactSeed over the UTF-8 bytes of the normalized
// text. The hash and seed are part of the on-disk format.
//
// Thread safety: values and pure functions.
#ifndef NEARDUP_SKETCH_EXACT_HASH_H_
#define NEARDUP_SKETCH_EXACT_HASH_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace neardup::sketch {

inline constexpr uint64_t kExactSeed = 0;

struct Hash128 {
  uint64_t lo = 0;
  uint64_t hi = 0;

  friend bool operator==(const Hash128&, const Hash128&) = default;
  friend auto operator<=>(const Hash128&, const Hash128&) = default;

  // 32 lower-case hex digits, high half first (the XXH128 canonical order).
  std::string ToHex() const;
  // Parses ToHex() output; nullopt for anything else.
  static std::optional<Hash128> FromHex(std::string_view hex);
};

// XXH3-128(seed kExactSeed) of `normalized`.
Hash128 ExactHash(std::string_view normalized);

// For unordered containers: the low half is already uniformly distributed.
struct Hash128Hasher {
  size_t operator()(const Hash128& h) const { return static_cast<size_t>(h.lo); }
};

}  // namespace neardup::sketch

#endif  // NEARDUP_SKETCH_EXACT_HASH_H_
