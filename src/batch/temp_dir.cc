// SPDX-License-Identifier: Apache-2.0
#include "batch/temp_dir.h"

#include <dirent.h>
#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

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
  if (mkdtemp(templ.data()) == nullptr) {
    const int e = errno;
    g_live.fetch_sub(1);
    return Status::IOError(parent + ": cannot create a temporary directory: " + std::strerror(e));
  }
  const int slot = base::RegisterCleanupPath(templ, base::CleanupKind::kFlatDir);
  return std::unique_ptr<TempDir>(new TempDir(templ, slot));
}

TempDir::~TempDir() {
  base::UnregisterCleanupPath(slot_);
  base::RemoveFlatDirNow(path_.c_str());
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
