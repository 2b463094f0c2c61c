// SPDX-License-Identifier: Apache-2.0
#include "base/machine.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <new>
#include <system_error>
#include <thread>

namespace neardup::base {

uint64_t PhysicalMemoryBytes() {
  uint64_t total = 0;
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  uint64_t kb = 0;
  while (meminfo >> key >> kb >> unit) {
    if (key == "MemTotal:") {
      total = kb * 1024;
      break;
    }
  }
  std::ifstream cgroup("/sys/fs/cgroup/memory.max");
  uint64_t limit = 0;
  if (cgroup >> limit && limit > 0 && (total == 0 || limit < total)) total = limit;
  return total;
}

int MaxThreads() {
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  int cap = std::min(1024, std::max(64, 4 * cores));
  rlimit r{};
  if (getrlimit(RLIMIT_NPROC, &r) == 0 && r.rlim_cur != RLIM_INFINITY) {
    cap = static_cast<int>(
        std::min<rlim_t>(static_cast<rlim_t>(cap), r.rlim_cur > 1 ? r.rlim_cur - 1 : 1));
  }
  return std::max(1, cap);
}

Status CheckThreads(int threads, const std::string& what) {
  const int cap = MaxThreads();
  if (threads <= cap) return Status::OK();
  return Status::InvalidArgument(what + " " + std::to_string(threads) + " is over the limit of " +
                                 std::to_string(cap) +
                                 " threads on this machine (4 per core, at least 64, at most "
                                 "1024, below the process limit RLIMIT_NPROC)");
}

Status CheckMemory(uint64_t bytes, const std::string& what) {
  const uint64_t ram = PhysicalMemoryBytes();
  if (ram == 0 || bytes <= ram) return Status::OK();
  return Status::InvalidArgument(what + " " + FormatBytes(bytes) +
                                 " is more than this machine's memory (" + FormatBytes(ram) + ")");
}

Status ResourceErrorOrRethrow() {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return Status::ResourceExhausted("out of memory");
  } catch (const std::system_error& e) {
    return Status::ResourceExhausted(std::string("cannot start a thread: ") + e.what());
  }
}

std::string FormatBytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) v /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, kUnits[u]);
  return buf;
}

}  // namespace neardup::base
