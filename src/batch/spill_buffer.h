// SPDX-License-Identifier: Apache-2.0
//
// SpillBuffer<T>: a buffer of trivially copyable records whose memory follows
// its use, up to a limit set from the budget. It grows by doubling with
// mremap(2): the kernel moves the pages, so growth never holds an old and a
// new copy at once (std::vector's growth briefly needs up to 3x), and
// capacity the run never uses is never mapped. Reserving the whole limit up
// front instead maps address space in proportion to the budget, whatever the
// input: a two-record dedup then fails under `ulimit -v`, or with
// vm.overcommit_memory=2, and ASan pays for every reserved byte.
//
// When the buffer cannot grow (its limit is reached, or the kernel refuses
// the mapping), Room() returns false and the caller spills: a refused
// mapping degrades into more spilling, never into an abort.
//
// Thread safety: none (one owner at a time). Complexity: push_back O(1)
// amortized; growth O(1) page-table work per doubling, no copy.
#ifndef NEARDUP_BATCH_SPILL_BUFFER_H_
#define NEARDUP_BATCH_SPILL_BUFFER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <utility>

#include "base/status_macros.h"
#include "neardup/status.h"

namespace neardup::batch {

namespace internal {
// Maps `bytes` of anonymous memory; null when refused.
void* MapBytes(size_t bytes);
// Grows (or shrinks) a mapping of `old_bytes` made by MapBytes to
// `new_bytes`, moving it if needed; null when refused (the old mapping
// is then untouched).
void* RemapBytes(void* p, size_t old_bytes, size_t new_bytes);
void UnmapBytes(void* p, size_t bytes);
// Bytes rounded up to whole pages.
size_t PageRound(size_t bytes);
}  // namespace internal

template <typename T>
class SpillBuffer {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  // The first mapping: 64 KiB of records (or the limit, if smaller).
  static constexpr size_t kInitialBytes = 64 << 10;

  SpillBuffer() = default;
  // At most `limit` records (at least one).
  explicit SpillBuffer(size_t limit) : limit_(limit > 0 ? limit : 1) {}
  ~SpillBuffer() { Release(); }
  SpillBuffer(const SpillBuffer&) = delete;
  SpillBuffer& operator=(const SpillBuffer&) = delete;
  SpillBuffer(SpillBuffer&& o) noexcept { *this = std::move(o); }
  SpillBuffer& operator=(SpillBuffer&& o) noexcept {
    if (this != &o) {
      Release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      cap_ = std::exchange(o.cap_, 0);
      limit_ = o.limit_;
    }
    return *this;
  }

  // Sets the limit in records (at least one). A limit below the capacity
  // only stops further growth.
  void set_limit(size_t limit) { limit_ = limit > 0 ? limit : 1; }
  size_t limit() const { return limit_; }

  // True when `more` records fit now, growing the mapping (doubling, up to
  // the limit) if they do not; false when they can't: the caller spills.
  bool Room(size_t more) {
    const size_t want = size_ + more;
    if (want <= cap_) return true;
    if (want > limit_) return false;
    size_t cap = std::max(cap_ * 2, std::max<size_t>(kInitialBytes / sizeof(T), 1));
    cap = std::min(std::max(cap, want), limit_);
    return Grow(cap);
  }

  // Appends one record. Requires room (Room() returned true for it).
  void push_back(const T& v) {
    NEARDUP_CHECK(size_ < cap_);
    data_[size_++] = v;
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return cap_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  std::span<T> span() { return {data_, size_}; }
  std::span<const T> span() const { return {data_, size_}; }

  // Keeps the first `n` records (n <= size()); the memory stays.
  void truncate(size_t n) {
    NEARDUP_CHECK(n <= size_);
    size_ = n;
  }
  // Empties the buffer; the memory stays for reuse.
  void clear() { size_ = 0; }
  // Gives back the pages past the records (the buffer is kept as a run).
  void ShrinkToFit() {
    if (data_ == nullptr) return;
    if (size_ == 0) {
      Release();
      return;
    }
    const size_t bytes = internal::PageRound(size_ * sizeof(T));
    if (bytes >= internal::PageRound(cap_ * sizeof(T))) return;
    void* p = internal::RemapBytes(data_, internal::PageRound(cap_ * sizeof(T)), bytes);
    if (p == nullptr) return;  // keep the larger mapping
    data_ = static_cast<T*>(p);
    cap_ = bytes / sizeof(T);
  }
  // Frees the memory.
  void Release() {
    if (data_ != nullptr) internal::UnmapBytes(data_, internal::PageRound(cap_ * sizeof(T)));
    data_ = nullptr;
    size_ = cap_ = 0;
  }

 private:
  bool Grow(size_t cap) {
    const size_t bytes = internal::PageRound(cap * sizeof(T));
    void* p = data_ == nullptr
                  ? internal::MapBytes(bytes)
                  : internal::RemapBytes(data_, internal::PageRound(cap_ * sizeof(T)), bytes);
    if (p == nullptr) return false;
    data_ = static_cast<T*>(p);
    cap_ = bytes / sizeof(T);  // the rest of the last page is usable too
    return true;
  }

  T* data_ = nullptr;
  size_t size_ = 0, cap_ = 0;
  size_t limit_ = SIZE_MAX / sizeof(T);
};

// Appends `v` to `buf`, first handing a full buffer to `spill()` (which
// must empty it, e.g. sort it and write it as a run). Errors: spill's;
// ResourceExhausted when memory for even one record is refused.
template <typename T, typename Spill>
Status AppendOrSpill(SpillBuffer<T>* buf, const T& v, Spill&& spill) {
  if (!buf->Room(1)) {
    NEARDUP_RETURN_IF_ERROR(spill());
    if (!buf->Room(1)) return Status::ResourceExhausted("cannot allocate memory for a buffer");
  }
  buf->push_back(v);
  return Status::OK();
}

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_SPILL_BUFFER_H_
