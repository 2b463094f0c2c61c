// SPDX-License-Identifier: Apache-2.0
#include "batch/spill_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "base/huge_pages.h"

// ThreadSanitizer tracks memory by address and does not follow pages that
// mremap moves; under it growth maps, copies and unmaps instead.
#if defined(__SANITIZE_THREAD__)
#define NEARDUP_REMAP_COPIES 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NEARDUP_REMAP_COPIES 1
#endif
#endif

namespace neardup::batch::internal {

size_t PageRound(size_t bytes) {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

void* MapBytes(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  base::AdviseHugePages(p, bytes);  // filled as the run goes: one fault per 2 MiB
  return p;
}

void* RemapBytes(void* p, size_t old_bytes, size_t new_bytes) {
#ifdef NEARDUP_REMAP_COPIES
  void* q = MapBytes(new_bytes);
  if (q == nullptr) return nullptr;
  std::memcpy(q, p, std::min(old_bytes, new_bytes));
  UnmapBytes(p, old_bytes);
  return q;
#else
  void* q = mremap(p, old_bytes, new_bytes, MREMAP_MAYMOVE);
  if (q == MAP_FAILED) return nullptr;
  base::AdviseHugePages(q, new_bytes);
  return q;
#endif
}

void UnmapBytes(void* p, size_t bytes) { munmap(p, bytes); }

}  // namespace neardup::batch::internal
