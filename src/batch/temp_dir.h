// SPDX-License-Identifier: Apache-2.0
//
// TempDir: a private directory for one batch run's spill files, removed with
// everything in it when the TempDir is destroyed (success, error or
// exception unwinding), and also when the process dies of a signal after
// InstallCleanupHandlers(): each live TempDir is registered with
// base/signal_cleanup.h, whose handler removes it with async-signal-safe
// system calls, then re-raises the signal with its default action. Spill
// directories are flat (no subdirectories), which keeps the handler simple;
// the destructor removes nested directories too.
//
// Thread safety: Create/destroy from any thread (at most kMaxLiveDirs live at
// once).
#ifndef NEARDUP_BATCH_TEMP_DIR_H_
#define NEARDUP_BATCH_TEMP_DIR_H_

#include <cstdint>
#include <memory>
#include <string>

#include "neardup/status.h"

namespace neardup::batch {

class TempDir {
 public:
  static constexpr int kMaxLiveDirs = 16;

  // Creates `<parent>/neardup-XXXXXX` (parent "" = $TMPDIR, else /tmp).
  // Errors: IOError naming the parent (missing, not writable, full);
  // ResourceExhausted when kMaxLiveDirs are live.
  static Result<std::unique_ptr<TempDir>> Create(const std::string& parent);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path()/name.
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  // Total bytes of the files in the directory now (st_blocks * 512).
  uint64_t DiskBytes() const;

 private:
  TempDir(std::string path, int slot) : path_(std::move(path)), slot_(slot) {}
  std::string path_;
  int slot_;  // base::RegisterCleanupPath's handle
};

// Installs the signal handlers described above (base::InstallSignalCleanup;
// idempotent). Programs call it once at start-up; the library never installs
// handlers by itself.
void InstallCleanupHandlers();

// Removes every file in `dir` and then `dir` (flat directories only).
// Errors: IOError.
Status RemoveFlatDir(const std::string& dir);

// The parent TempDir::Create uses for "".
std::string DefaultTempParent();

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_TEMP_DIR_H_
