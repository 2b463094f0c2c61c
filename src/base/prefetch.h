// SPDX-License-Identifier: Apache-2.0
//
// Prefetch: asks the CPU to bring the cache line at `p` into every cache
// level, ahead of the load that needs it, so that independent cache misses
// overlap instead of queueing one after another.
//
// Why not __builtin_prefetch: GCC 12 (Debian 12's compiler) deletes a
// __builtin_prefetch whose address it computed from a value loaded out of a
// container, as if it were a dead load (found here: the prefetches of
// BandRun::FindAll's directory and entries, and of IdTable's probes,
// compiled to nothing; clang keeps them). On x86-64 the instruction is
// issued through volatile inline assembly, which the compiler must keep;
// elsewhere __builtin_prefetch stands in.
//
// Any address may be passed (a prefetch never faults), but computing one
// past the end of an array is still undefined in C++: callers stay in range.
// Thread safety: none needed. Cost: one instruction.
#ifndef NEARDUP_BASE_PREFETCH_H_
#define NEARDUP_BASE_PREFETCH_H_

namespace neardup::base {

inline void Prefetch(const void* p) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  asm volatile("prefetcht0 (%0)" : : "r"(p));
#else
  __builtin_prefetch(p);
#endif
}

}  // namespace neardup::base

#endif  // NEARDUP_BASE_PREFETCH_H_
