// SPDX-License-Identifier: Apache-2.0
#include "base/signal_cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>

namespace neardup::base {
namespace {

constexpr size_t kMaxPath = 4096;

// A slot is claimed by CAS on `used` and published by `ready` once its path
// is written, so the handler never reads a half-written path.
struct Slot {
  std::atomic<bool> used{false};
  std::atomic<bool> ready{false};
  CleanupKind kind = CleanupKind::kFile;
  char path[kMaxPath];
};
Slot g_slots[kMaxCleanupPaths];

struct LinuxDirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

// Unlinks the entries of the open directory `fd`, at most 256 listings'
// worth: a listing that other threads keep adding to need not end.
void UnlinkEntries(int fd) {
  alignas(8) char buf[4096];
  for (int listing = 0; listing < 256; ++listing) {
    const long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      auto* d = reinterpret_cast<LinuxDirent64*>(buf + off);
      off += d->d_reclen;
      if (std::strcmp(d->d_name, ".") == 0 || std::strcmp(d->d_name, "..") == 0) continue;
      unlinkat(fd, d->d_name, 0);
    }
  }
}

void OnSignal(int sig) {
  const int saved_errno = errno;
  for (Slot& s : g_slots) {
    if (!s.ready.load(std::memory_order_acquire)) continue;
    if (s.kind == CleanupKind::kFile) {
      unlink(s.path);
    } else {
      RemoveFlatDirNow(s.path);
    }
  }
  errno = saved_errno;
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void RemoveFlatDirNow(const char* dir) {
  // Workers of the dying process create files by path: renamed away, the
  // directory takes no more of them (under load, writers that kept adding
  // files made the listing below endless), so it empties in a round or two.
  char moved[kMaxPath + 8];
  const size_t n = std::strlen(dir);
  if (n + 7 <= kMaxPath) {
    std::memcpy(moved, dir, n);
    std::memcpy(moved + n, ".dying", 7);
    if (rename(dir, moved) == 0) dir = moved;
  }
  // A writer that resolved the path before the rename may still add a file
  // between the listing and rmdir; a few rounds catch it.
  for (int round = 0; round < 100; ++round) {
    const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    UnlinkEntries(fd);
    close(fd);
    if (rmdir(dir) == 0 || errno != ENOTEMPTY) return;
  }
}

int RegisterCleanupPath(std::string_view path, CleanupKind kind) {
  if (path.size() >= kMaxPath) return -1;
  for (int i = 0; i < kMaxCleanupPaths; ++i) {
    bool expected = false;
    if (!g_slots[i].used.compare_exchange_strong(expected, true)) continue;
    std::memcpy(g_slots[i].path, path.data(), path.size());
    g_slots[i].path[path.size()] = '\0';
    g_slots[i].kind = kind;
    g_slots[i].ready.store(true, std::memory_order_release);
    return i;
  }
  return -1;
}

void UnregisterCleanupPath(int handle) {
  if (handle < 0 || handle >= kMaxCleanupPaths) return;
  g_slots[handle].ready.store(false, std::memory_order_release);
  g_slots[handle].used.store(false, std::memory_order_release);
}

void InstallSignalCleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGABRT, SIGALRM, SIGUSR1, SIGUSR2,
                    SIGXCPU, SIGXFSZ}) {
      struct sigaction old {};
      if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
      struct sigaction sa {};
      sa.sa_handler = OnSignal;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = SA_RESETHAND;
      sigaction(sig, &sa, nullptr);
    }
  });
}

}  // namespace neardup::base
