// SPDX-License-Identifier: Apache-2.0
//
// Trimming a container after a restore without trimming it to the byte:
// capacity exactly at size makes the first insert afterwards grow (copy)
// the whole array under the writer lock, a stall that grows with the store.
// An eighth of headroom absorbs an eighth more documents before that, and
// costs at most an eighth of the array.
//
// Thread safety: as the container's.
#ifndef NEARDUP_BASE_HEADROOM_H_
#define NEARDUP_BASE_HEADROOM_H_

#include <cstddef>
#include <vector>

namespace neardup::base {

// The capacity to keep for `size` elements: an eighth more, and at least 64 more.
inline size_t WithHeadroom(size_t size) { return size + size / 8 + 64; }

// Shrinks *v to WithHeadroom(size()) when its capacity is larger (a copy);
// otherwise leaves it alone.
template <typename T>
void TrimWithHeadroom(std::vector<T>* v) {
  const size_t want = WithHeadroom(v->size());
  if (v->capacity() <= want) return;
  std::vector<T> trimmed;
  trimmed.reserve(want);
  trimmed.assign(std::make_move_iterator(v->begin()), std::make_move_iterator(v->end()));
  v->swap(trimmed);
}

}  // namespace neardup::base

#endif  // NEARDUP_BASE_HEADROOM_H_
