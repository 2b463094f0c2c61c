// SPDX-License-Identifier: Apache-2.0
#include "batch/temp_dir.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include "base/signal_cleanup.h"

namespace neardup::batch {
namespace {
constexpr size_t kMaxPath = 4096;
std::atomic<int> g_live{0};
}  // namespace

std::string DefaultTempParent() {
  const char* t = std::getenv("TMPDIR");
  return t != nullptr && *t != '\0' ? t : "/tmp";
}

Result<std::unique_ptr<TempDir>> TempDir::Create(const std::string& parent_in) {
  const std::string parent = parent_in.empty() ? DefaultTempParent() : parent_in;
  std::string templ = parent + "/neardup-XXXXXX";
  if (templ.size() >= kMaxPath) return Status::InvalidArgument(parent + ": path too long");
  if (g_live.fetch_add(1) >= kMaxLiveDirs) {
    g_live.fetch_sub(1);
    return Status::ResourceExhausted("too many temporary directories in use");
  }
  // As mkdtemp, but registered for removal on a signal before it exists:
  // a signal between its creation and its registration would leave it.
  thread_local std::mt19937_64 rng(std::random_device{}() ^ static_cast<uint64_t>(getpid()));
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  int e = EEXIST;
  for (int attempt = 0; attempt < 100 && e == EEXIST; ++attempt) {
    for (size_t i = templ.size() - 6; i < templ.size(); ++i) {
      templ[i] = kChars[rng() % (sizeof kChars - 1)];
    }
    const int slot = base::RegisterCleanupPath(templ, base::CleanupKind::kFlatDir);
    if (mkdir(templ.c_str(), 0700) == 0) return std::unique_ptr<TempDir>(new TempDir(templ, slot));
    e = errno;
    base::UnregisterCleanupPath(slot);
  }
  g_live.fetch_sub(1);
  return Status::IOError(parent + ": cannot create a temporary directory: " + std::strerror(e));
}

TempDir::~TempDir() {
  base::UnregisterCleanupPath(slot_);
  // Not in a signal handler: the whole tree goes, nested directories too
  // (the handler's flat removal would leave them, renamed "<path>.dying").
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  g_live.fetch_sub(1);
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
  base::RemoveFlatDirNow(dir.c_str());
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) return Status::IOError(dir + ": could not be removed");
  return Status::OK();
}

void InstallCleanupHandlers() { base::InstallSignalCleanup(); }

}  // namespace neardup::batch
