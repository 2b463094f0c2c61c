// SPDX-License-Identifier: Apache-2.0
#include "base/parallel.h"

#include <gtest/gtest.h>

#include <new>
#include <stdexcept>

namespace neardup::base {
namespace {

// An exception in any worker (the calling thread or another) comes back on
// the calling thread once all workers are done, and stops the hand-out;
// before, one in another thread ended the process.
TEST(ParallelForTest, AWorkersExceptionIsRethrownOnTheCallingThread) {
  for (int threads : {1, 2, 4}) {
    for (size_t bad : {size_t{0}, size_t{500}, size_t{999}}) {
      std::atomic<size_t> done{0};
      EXPECT_THROW(ParallelFor(1000, threads, 1,
                               [&](int, size_t begin, size_t) {
                                 if (begin == bad) throw std::bad_alloc();
                                 done.fetch_add(1);
                               }),
                   std::bad_alloc)
          << threads << " " << bad;
      EXPECT_LT(done.load(), 1000u);
    }
  }
  // Several throw: one of them is rethrown.
  EXPECT_THROW(ParallelFor(100, 4, 1, [](int, size_t, size_t) { throw std::runtime_error("x"); }),
               std::runtime_error);
}

TEST(FirstExceptionTest, KeepsTheFirst) {
  FirstException e;
  EXPECT_FALSE(e.caught());
  EXPECT_NO_THROW(e.RethrowIfAny());
  try {
    throw std::runtime_error("first");
  } catch (...) {
    e.Capture();
  }
  try {
    throw std::bad_alloc();
  } catch (...) {
    e.Capture();
  }
  EXPECT_TRUE(e.caught());
  try {
    e.RethrowIfAny();
    FAIL();
  } catch (const std::runtime_error& r) {
    EXPECT_STREQ(r.what(), "first");
  }
}

}  // namespace
}  // namespace neardup::base
