// SPDX-License-Identifier: Apache-2.0
#include "base/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <random>

#include "base/signal_cleanup.h"
#include "base/status_macros.h"

namespace neardup::base {
namespace {

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

// `path` + ".tmp-" + six random characters.
std::string TempName(const std::string& path) {
  thread_local std::mt19937_64 rng(
      std::random_device{}() ^ static_cast<uint64_t>(getpid()) ^
      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string name = path + ".tmp-";
  for (int i = 0; i < 6; ++i) name.push_back(kChars[rng() % (sizeof kChars - 1)]);
  return name;
}

std::string ParentOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The file a symbolic link names (the link itself when it dangles).
std::string Resolve(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
  char buf[PATH_MAX];
  return realpath(path.c_str(), buf) != nullptr ? std::string(buf) : path;
}

std::string StripSlashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

Status SyncPath(const std::string& path, int flags) {
  const int fd = open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return Status::IOError(Errno(path));
  const int rc = fsync(fd);
  const int e = errno;
  close(fd);
  errno = e;
  // Some file systems cannot fsync a directory (EINVAL): nothing to wait for.
  if (rc != 0 && errno != EINVAL) return Status::IOError(Errno(path + ": fsync"));
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<AtomicFile>> AtomicFile::Create(const std::string& path) {
  std::unique_ptr<AtomicFile> f(new AtomicFile());
  f->target_ = Resolve(path);
  struct stat st;
  const bool exists = stat(f->target_.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) return Status::IOError(path + ": is a directory");
  if (exists && !S_ISREG(st.st_mode)) {
    f->in_place_ = true;
    f->write_path_ = f->target_;
    f->fd_ = open(f->target_.c_str(), O_WRONLY | O_CLOEXEC);
    if (f->fd_ < 0) return Status::IOError(Errno(path));
    return f;
  }
  // Registered for removal on a signal before it exists, so that a signal
  // between its creation and its registration cannot leave it behind.
  for (int attempt = 0; attempt < 100 && f->fd_ < 0; ++attempt) {
    f->write_path_ = TempName(f->target_);
    f->cleanup_ = RegisterCleanupPath(f->write_path_, CleanupKind::kFile);
    f->fd_ = open(f->write_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (f->fd_ >= 0) break;
    const int e = errno;
    UnregisterCleanupPath(f->cleanup_);
    f->cleanup_ = -1;
    if (e != EEXIST) {
      errno = e;
      return Status::IOError(Errno(path + ": cannot create a file beside it"));
    }
  }
  if (f->fd_ < 0) return Status::IOError(path + ": no free temporary name beside it");
  if (exists) (void)fchmod(f->fd_, st.st_mode & 07777);
  return f;
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) close(fd_);
  UnregisterCleanupPath(cleanup_);
  if (!committed_ && !in_place_) unlink(write_path_.c_str());
}

Status AtomicFile::Append(std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = write(fd_, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::IOError(Errno(write_path_ + ": write failed"));
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::OK();
}

Status AtomicFile::Commit() {
  if (in_place_) {
    committed_ = true;
    return Status::OK();
  }
  if (fsync(fd_) != 0) return Status::IOError(Errno(target_ + ": fsync failed (disk full?)"));
  const int rc = close(fd_);
  fd_ = -1;
  if (rc != 0) return Status::IOError(Errno(target_ + ": write failed (disk full?)"));
  if (rename(write_path_.c_str(), target_.c_str()) != 0) {
    return Status::IOError(Errno(target_ + ": rename failed"));
  }
  committed_ = true;
  return SyncPath(ParentOf(target_), O_RDONLY | O_DIRECTORY);
}

Result<std::unique_ptr<AtomicDir>> AtomicDir::Create(const std::string& path_in) {
  const std::string path = StripSlashes(path_in);
  std::unique_ptr<AtomicDir> d(new AtomicDir());
  d->target_ = Resolve(path);
  struct stat st;
  if (stat(d->target_.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument(path + ": exists and is not a directory");
  }
  for (int attempt = 0; attempt < 100 && d->write_path_.empty(); ++attempt) {
    std::string name = TempName(d->target_);
    d->cleanup_ = RegisterCleanupPath(name, CleanupKind::kFlatDir);  // before it exists
    if (mkdir(name.c_str(), 0777) == 0) {
      d->write_path_ = std::move(name);
      break;
    }
    const int e = errno;
    UnregisterCleanupPath(d->cleanup_);
    d->cleanup_ = -1;
    if (e != EEXIST) {
      errno = e;
      return Status::IOError(Errno(path + ": cannot create a directory beside it"));
    }
  }
  if (d->write_path_.empty()) return Status::IOError(path + ": no free temporary name beside it");
  return d;
}

AtomicDir::~AtomicDir() {
  UnregisterCleanupPath(cleanup_);
  if (!committed_) RemoveFlatDirNow(write_path_.c_str());
}

Status AtomicDir::Commit() {
  DIR* dir = opendir(write_path_.c_str());
  if (dir == nullptr) return Status::IOError(Errno(write_path_));
  Status synced;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.' && (e->d_name[1] == '\0' || std::strcmp(e->d_name, "..") == 0)) {
      continue;
    }
    if (synced.ok()) synced = SyncPath(write_path_ + "/" + e->d_name, O_RDONLY);
  }
  closedir(dir);
  NEARDUP_RETURN_IF_ERROR(synced);
  NEARDUP_RETURN_IF_ERROR(SyncPath(write_path_, O_RDONLY | O_DIRECTORY));
  // An absent target or an empty directory is simply replaced.
  if (rename(write_path_.c_str(), target_.c_str()) == 0) {
    committed_ = true;
    return SyncPath(ParentOf(target_), O_RDONLY | O_DIRECTORY);
  }
  if (errno != ENOTEMPTY && errno != EEXIST) {
    return Status::IOError(Errno(target_ + ": rename failed"));
  }
  // Exchange the two directories, then remove the old one (now here).
  if (syscall(SYS_renameat2, AT_FDCWD, write_path_.c_str(), AT_FDCWD, target_.c_str(),
              RENAME_EXCHANGE) != 0) {
    return Status::IOError(Errno(target_ + ": cannot replace the directory"));
  }
  committed_ = true;
  RemoveFlatDirNow(write_path_.c_str());
  return SyncPath(ParentOf(target_), O_RDONLY | O_DIRECTORY);
}

bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  if (stat(a.c_str(), &sa) != 0 || stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace neardup::base
