// SPDX-License-Identifier: Apache-2.0
//
// Transparent huge pages for big, freshly touched buffers. Where the kernel
// gives them on request (/sys/kernel/mm/transparent_hugepage/enabled set to
// "madvise", as on Debian 12), a buffer advised with MADV_HUGEPAGE is filled
// by one page fault per 2 MiB instead of one per 4 KiB. On the 2-core
// reference VM a page fault costs about 10 µs, and the batch pipeline's
// first touches of its key, pair and form buffers were a fifth of a run's
// page faults and most of its verify phase (docs/benchmarks.md).
//
// Thread safety: stateless. Errors: none (the advice is a hint; a kernel
// without THP ignores it).
#ifndef NEARDUP_BASE_HUGE_PAGES_H_
#define NEARDUP_BASE_HUGE_PAGES_H_

#include <cstddef>

namespace neardup::base {

// Buffers smaller than this are not advised (their waste would outweigh
// the faults saved).
inline constexpr size_t kHugePageAdviceBytes = size_t{4} << 20;

// Advises the whole 2 MiB-aligned pages inside [p, p + bytes) for huge
// pages, when bytes >= kHugePageAdviceBytes. `p` is anonymous memory
// (malloc'd or mmap'd).
void AdviseHugePages(void* p, size_t bytes);

}  // namespace neardup::base

#endif  // NEARDUP_BASE_HUGE_PAGES_H_
