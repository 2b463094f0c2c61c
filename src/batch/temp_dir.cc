// SPDX-License-Identifier: Apache-2.0
#include "batch/temp_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace neardup::batch {
namespace {

constexpr size_t kMaxPath = 4096;

// Live directories; a slot is claimed by CAS on `used` and published by
// `ready` once its path is written, so the handler never reads a half path.
struct Slot {
  std::atomic<bool> used{false};
  std::atomic<bool> ready{false};
  char path[kMaxPath];
};
Slot g_slots[TempDir::kMaxLiveDirs];

struct LinuxDirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

// Async-signal-safe removal of a flat directory.
void RemoveFlatDirRaw(const char* path) {
  const int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    alignas(8) char buf[4096];
    for (;;) {
      const long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
      if (n <= 0) break;
      for (long off = 0; off < n;) {
        auto* d = reinterpret_cast<LinuxDirent64*>(buf + off);
        off += d->d_reclen;
        if (std::strcmp(d->d_name, ".") == 0 || std::strcmp(d->d_name, "..") == 0) continue;
        unlinkat(fd, d->d_name, 0);
      }
    }
    close(fd);
  }
  rmdir(path);
}

void OnSignal(int sig) {
  for (Slot& s : g_slots) {
    if (s.ready.load(std::memory_order_acquire)) RemoveFlatDirRaw(s.path);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

std::string DefaultTempParent() {
  const char* t = std::getenv("TMPDIR");
  return t != nullptr && *t != '\0' ? t : "/tmp";
}

Result<std::unique_ptr<TempDir>> TempDir::Create(const std::string& parent_in) {
  const std::string parent = parent_in.empty() ? DefaultTempParent() : parent_in;
  std::string templ = parent + "/neardup-XXXXXX";
  if (templ.size() >= kMaxPath) return Status::InvalidArgument(parent + ": path too long");
  int slot = -1;
  for (int i = 0; i < kMaxLiveDirs && slot < 0; ++i) {
    bool expected = false;
    if (g_slots[i].used.compare_exchange_strong(expected, true)) slot = i;
  }
  if (slot < 0) return Status::ResourceExhausted("too many temporary directories in use");
  if (mkdtemp(templ.data()) == nullptr) {
    const int e = errno;
    g_slots[slot].used.store(false);
    return Status::IOError(parent + ": cannot create a temporary directory: " + std::strerror(e));
  }
  std::memcpy(g_slots[slot].path, templ.c_str(), templ.size() + 1);
  g_slots[slot].ready.store(true, std::memory_order_release);
  return std::unique_ptr<TempDir>(new TempDir(templ, slot));
}

TempDir::~TempDir() {
  g_slots[slot_].ready.store(false, std::memory_order_release);
  RemoveFlatDirRaw(path_.c_str());
  g_slots[slot_].used.store(false, std::memory_order_release);
}

uint64_t TempDir::DiskBytes() const {
  DIR* d = opendir(path_.c_str());
  if (d == nullptr) return 0;
  uint64_t total = 0;
  while (dirent* e = readdir(d)) {
    struct stat st;
    if (fstatat(dirfd(d), e->d_name, &st, 0) == 0 && S_ISREG(st.st_mode)) {
      total += static_cast<uint64_t>(st.st_blocks) * 512;
    }
  }
  closedir(d);
  return total;
}

Status RemoveFlatDir(const std::string& dir) {
  RemoveFlatDirRaw(dir.c_str());
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) return Status::IOError(dir + ": could not be removed");
  return Status::OK();
}

void InstallCleanupHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
      struct sigaction sa {};
      sa.sa_handler = OnSignal;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = SA_RESETHAND;
      sigaction(sig, &sa, nullptr);
    }
  });
}

}  // namespace neardup::batch
