// SPDX-License-Identifier: Apache-2.0
//
// Queue: a blocking FIFO between threads, bounded by `capacity`. Push()
// waits for room, Pop() for an item; Close() wakes both, after which Pop()
// drains what is left and then returns nullopt, and Push() no longer waits.
//
// Thread safety: every method may be called from any thread.
#ifndef NEARDUP_BASE_QUEUE_H_
#define NEARDUP_BASE_QUEUE_H_

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

namespace neardup::base {

template <typename T>
class Queue {
 public:
  explicit Queue(size_t capacity = SIZE_MAX) : capacity_(capacity) {}
  void Push(T v) {
    std::unique_lock<std::mutex> lock(mu_);
    not_full_.wait(lock, [&] { return q_.size() < capacity_ || closed_; });
    q_.push_back(std::move(v));
    not_empty_.notify_one();
  }
  std::optional<T> Pop() {
    std::unique_lock<std::mutex> lock(mu_);
    not_empty_.wait(lock, [&] { return !q_.empty() || closed_; });
    if (q_.empty()) return std::nullopt;
    T v = std::move(q_.front());
    q_.pop_front();
    not_full_.notify_one();
    return v;
  }
  // Pop with a timeout: nullopt on timeout or when closed and drained.
  std::optional<T> PopFor(std::chrono::milliseconds d, bool* closed) {
    std::unique_lock<std::mutex> lock(mu_);
    not_empty_.wait_for(lock, d, [&] { return !q_.empty() || closed_; });
    *closed = closed_ && q_.empty();
    if (q_.empty()) return std::nullopt;
    T v = std::move(q_.front());
    q_.pop_front();
    not_full_.notify_one();
    return v;
  }
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    not_empty_.notify_all();
    not_full_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable not_empty_, not_full_;
  std::deque<T> q_;
  size_t capacity_;
  bool closed_ = false;
};

}  // namespace neardup::base

#endif  // NEARDUP_BASE_QUEUE_H_
