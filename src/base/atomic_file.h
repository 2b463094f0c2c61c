// SPDX-License-Identifier: Apache-2.0
//
// Outputs that appear whole or not at all. An AtomicFile is written as
// `PATH.tmp-XXXXXX` beside its target; Commit() fsyncs it, renames it over
// the target and fsyncs the directory. Until then the target keeps whatever
// it held, and a file that is dropped (an error, an exception, or a signal
// after base::InstallSignalCleanup) leaves no temporary behind. An AtomicDir
// is the same for a flat directory of files (a batch index).
//
// A target that exists and is not a regular file (/dev/null, a FIFO, a
// terminal) cannot be replaced: AtomicFile then writes it in place. A
// symbolic link is followed: the file it names is replaced, the link kept.
//
// Thread safety: one object per thread; distinct objects are independent.
#ifndef NEARDUP_BASE_ATOMIC_FILE_H_
#define NEARDUP_BASE_ATOMIC_FILE_H_

#include <memory>
#include <string>
#include <string_view>

#include "neardup/status.h"

namespace neardup::base {

class AtomicFile {
 public:
  // Creates the temporary file (mode 0666 less the umask, or the target's
  // mode when it exists). Errors: IOError naming the directory.
  static Result<std::unique_ptr<AtomicFile>> Create(const std::string& path);
  ~AtomicFile();  // removes the temporary file unless committed
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Where to write: the temporary file (the target itself when in place).
  const std::string& write_path() const { return write_path_; }
  // Appends to the file through its descriptor. Errors: IOError.
  Status Append(std::string_view data);
  // Makes the written bytes the target's. Errors: IOError (e.g. a full disk;
  // the temporary file is removed and the target left as it was).
  Status Commit();

 private:
  AtomicFile() = default;
  std::string target_, write_path_;
  int fd_ = -1;
  int cleanup_ = -1;  // the signal_cleanup handle
  bool in_place_ = false, committed_ = false;
};

class AtomicDir {
 public:
  // Creates `PATH.tmp-XXXXXX` beside `path`. Errors: IOError; InvalidArgument
  // when `path` exists and is not a directory.
  static Result<std::unique_ptr<AtomicDir>> Create(const std::string& path);
  ~AtomicDir();  // removes the temporary directory unless committed
  AtomicDir(const AtomicDir&) = delete;
  AtomicDir& operator=(const AtomicDir&) = delete;

  const std::string& write_path() const { return write_path_; }
  // Fsyncs the files, then puts the directory in the target's place (an
  // existing target is exchanged with it and then removed, so readers see
  // the old or the new directory, never a mix). Errors: IOError.
  Status Commit();

 private:
  AtomicDir() = default;
  std::string target_, write_path_;
  int cleanup_ = -1;
  bool committed_ = false;
};

// Whether two paths name the same file (device and inode); false when
// either does not exist.
bool SameFile(const std::string& a, const std::string& b);

}  // namespace neardup::base

#endif  // NEARDUP_BASE_ATOMIC_FILE_H_
