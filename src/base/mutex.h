// SPDX-License-Identifier: Apache-2.0
//
// Mutexes the thread-safety analysis understands (base/thread_annotations.h):
// std::mutex and std::shared_mutex with capability attributes, and scoped
// locks that acquire in the constructor and release in the destructor.
// Mutex is BasicLockable, so std::condition_variable_any waits on a MutexLock
// (CondVar below).
//
// Thread safety: as the std types they wrap.
#ifndef NEARDUP_BASE_MUTEX_H_
#define NEARDUP_BASE_MUTEX_H_

#include <condition_variable>
#include <mutex>
#include <shared_mutex>

#include "base/thread_annotations.h"

namespace neardup::base {

class CAPABILITY("mutex") Mutex {
 public:
  void lock() ACQUIRE() { mu_.lock(); }
  void unlock() RELEASE() { mu_.unlock(); }

 private:
  std::mutex mu_;
};

class CAPABILITY("mutex") SharedMutex {
 public:
  void lock() ACQUIRE() { mu_.lock(); }
  void unlock() RELEASE() { mu_.unlock(); }
  void lock_shared() ACQUIRE_SHARED() { mu_.lock_shared(); }
  void unlock_shared() RELEASE_SHARED() { mu_.unlock_shared(); }

 private:
  std::shared_mutex mu_;
};

// Holds a Mutex for its scope.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ACQUIRE(mu) : mu_(mu) { mu_.lock(); }
  ~MutexLock() RELEASE() { mu_.unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;
  // For CondVar: BasicLockable over the held mutex.
  void lock() ACQUIRE() { mu_.lock(); }
  void unlock() RELEASE() { mu_.unlock(); }

 private:
  Mutex& mu_;
};

// Holds a SharedMutex exclusively for its scope.
class SCOPED_CAPABILITY WriterLock {
 public:
  explicit WriterLock(SharedMutex& mu) ACQUIRE(mu) : mu_(mu) { mu_.lock(); }
  ~WriterLock() RELEASE() { mu_.unlock(); }
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;

 private:
  SharedMutex& mu_;
};

// Holds a SharedMutex shared for its scope.
class SCOPED_CAPABILITY ReaderLock {
 public:
  explicit ReaderLock(SharedMutex& mu) ACQUIRE_SHARED(mu) : mu_(mu) { mu_.lock_shared(); }
  ~ReaderLock() RELEASE() { mu_.unlock_shared(); }
  ReaderLock(const ReaderLock&) = delete;
  ReaderLock& operator=(const ReaderLock&) = delete;

 private:
  SharedMutex& mu_;
};

// A condition variable for Mutex: Wait() releases and reacquires the lock
// (the analysis sees the lock held throughout, as it is to the caller).
class CondVar {
 public:
  void Wait(MutexLock& lock) { cv_.wait(lock); }
  template <typename Pred>
  void Wait(MutexLock& lock, Pred pred) {
    cv_.wait(lock, pred);
  }
  template <typename Duration>
  std::cv_status WaitFor(MutexLock& lock, const Duration& d) {
    return cv_.wait_for(lock, d);
  }
  template <typename Duration, typename Pred>
  bool WaitFor(MutexLock& lock, const Duration& d, Pred pred) {
    return cv_.wait_for(lock, d, pred);
  }
  void NotifyOne() { cv_.notify_one(); }
  void NotifyAll() { cv_.notify_all(); }

 private:
  std::condition_variable_any cv_;
};

}  // namespace neardup::base

#endif  // NEARDUP_BASE_MUTEX_H_
