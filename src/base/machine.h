// SPDX-License-Identifier: Apache-2.0
//
// What this machine allows, for validating options before they are used: a
// memory budget no larger than the physical memory, a thread count no larger
// than a sane cap. An option past these is a usage error with a message
// naming the limit, never a std::bad_alloc or a failed thread start.
//
// Thread safety: pure functions (they read /proc and getrlimit).
#ifndef NEARDUP_BASE_MACHINE_H_
#define NEARDUP_BASE_MACHINE_H_

#include <cstdint>
#include <string>

#include "neardup/status.h"

namespace neardup::base {

// Physical memory: MemTotal of /proc/meminfo, or the cgroup's memory.max
// when that is lower; 0 when unknown.
uint64_t PhysicalMemoryBytes();

// The most worker threads an option may ask for: 4 per hardware thread but
// at least 64, at most 1024, and below the RLIMIT_NPROC soft limit.
int MaxThreads();

// InvalidArgument naming `what` and the limit when `threads` is over
// MaxThreads(); 0 and negative values mean "every core" and pass.
Status CheckThreads(int threads, const std::string& what);

// InvalidArgument naming `what` and the limit when `bytes` is over
// PhysicalMemoryBytes() (which is unknown: then anything passes).
Status CheckMemory(uint64_t bytes, const std::string& what);

// "1.5 GiB": bytes for messages.
std::string FormatBytes(uint64_t bytes);

// For a `catch (...)` at an API boundary: ResourceExhausted for the
// exception being handled when it is std::bad_alloc or std::system_error (a
// thread that could not start); any other exception is rethrown.
Status ResourceErrorOrRethrow();

// Runs fn() (which returns a Status or a Result) with ResourceErrorOrRethrow
// at the boundary, so that no such exception escapes the library.
template <typename Fn>
auto CatchResourceErrors(Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (...) {
    return ResourceErrorOrRethrow();
  }
}

}  // namespace neardup::base

#endif  // NEARDUP_BASE_MACHINE_H_
