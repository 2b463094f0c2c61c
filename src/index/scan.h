// SPDX-License-Identifier: Apache-2.0
//
// Linear Hamming scan: the positions of every fingerprint within distance k of
// a query. Uses AVX-512 VPOPCNTQ (8 fingerprints per instruction) when the CPU
// has it, else the POPCNT instruction, else portable code; the choice is made
// once at start-up, so portable builds still run at full speed.
//
// Thread safety: stateless, any thread.
#ifndef NEARDUP_INDEX_SCAN_H_
#define NEARDUP_INDEX_SCAN_H_

#include <cstddef>
#include <cstdint>

namespace neardup::index {

// Writes to idx[0..c) the positions i < n with popcount(fps[i] ^ q) <= k,
// ascending, and returns c. `idx` must have room for n entries.
size_t ScanLinear(const uint64_t* fps, size_t n, uint64_t q, int k, uint32_t* idx);

// Packed sorted entries (see run.h): entry i of `data` is `width` (6 or 8)
// bytes; its value is hi | (raw & low). Writes to idx the positions i in
// [begin, end) whose value is within distance k of qp and returns how many.
// `idx` must have room for end - begin entries.
size_t ScanPacked(const uint8_t* data, int width, size_t begin, size_t end, uint64_t hi,
                  uint64_t low, uint64_t qp, int k, uint32_t* idx);

// The implementation ScanLinear dispatches to: "avx512", "popcnt" or "portable".
const char* ScanLinearImplementation();

// popcount(a ^ b) with the POPCNT instruction when the caller is compiled for it.
inline int HammingDistance(uint64_t a, uint64_t b) { return __builtin_popcountll(a ^ b); }

}  // namespace neardup::index

#endif  // NEARDUP_INDEX_SCAN_H_
