// SPDX-License-Identifier: Apache-2.0
//
// HugePageAllocator: a std::allocator for big index arrays. Blocks of 4 MiB
// or more are 2 MiB aligned and advised for transparent huge pages
// (madvise(MADV_HUGEPAGE)), which removes most TLB misses of random probes
// into tables of hundreds of megabytes. Smaller blocks use operator new.
// Elements constructed without arguments are left uninitialised.
//
// Thread safety: stateless.
#ifndef NEARDUP_INDEX_HUGE_ALLOC_H_
#define NEARDUP_INDEX_HUGE_ALLOC_H_

#include <cstddef>
#include <cstdlib>
#include <new>
#include <utility>

#include "base/huge_pages.h"

namespace neardup::index {

template <typename T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr size_t kHuge = size_t{2} << 20;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}  // NOLINT: rebinding

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < 2 * kHuge) return static_cast<T*>(::operator new(bytes));
    const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    void* p = std::aligned_alloc(kHuge, rounded);
    if (p == nullptr) throw std::bad_alloc();  // as std::allocator; the index runs out of memory
    base::AdviseHugePages(p, rounded);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) {
    if (n * sizeof(T) < 2 * kHuge) {
      ::operator delete(p);
    } else {
      std::free(p);
    }
  }
  // Default-initialises (no zeroing) when constructed without arguments:
  // `resize(n)` of a big array then costs no memset.
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0) {
      ::new (static_cast<void*>(p)) U;
    } else {
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
  }

  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
};

}  // namespace neardup::index

#endif  // NEARDUP_INDEX_HUGE_ALLOC_H_
