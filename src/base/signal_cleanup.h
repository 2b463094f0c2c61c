// SPDX-License-Identifier: Apache-2.0
//
// Temporary paths that must not outlive the process: a batch run's spill
// directory, an output file being written beside its target. Each is
// registered here while it exists; when the process dies of a signal that
// can be caught (InstallSignalCleanup), the handler removes every registered
// path with async-signal-safe system calls (unlink, openat, getdents64,
// unlinkat, rmdir), then re-raises the signal with its default action, so
// the exit status still says which signal ended the process.
//
// A registered directory must be flat (files only). Other threads may still
// create files in it while the handler runs: it empties the directory and
// retries rmdir until it succeeds (a removed directory takes no new files).
//
// Thread safety: Register/Unregister from any thread; the registry is a
// fixed array of slots claimed with atomics (at most kMaxCleanupPaths live).
#ifndef NEARDUP_BASE_SIGNAL_CLEANUP_H_
#define NEARDUP_BASE_SIGNAL_CLEANUP_H_

#include <string_view>

namespace neardup::base {

inline constexpr int kMaxCleanupPaths = 64;

enum class CleanupKind { kFile, kFlatDir };

// Registers `path` for removal on a fatal signal. Returns a handle for
// UnregisterCleanupPath, or -1 when the table is full or the path too long
// (the path then simply is not cleaned up on a signal).
int RegisterCleanupPath(std::string_view path, CleanupKind kind);
// Forgets a handle (-1 is ignored). The caller removes the path itself.
void UnregisterCleanupPath(int handle);

// Installs the handler for SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT,
// SIGABRT, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU and SIGXFSZ, leaving alone a
// signal the process ignores (nohup). Idempotent. Programs call it once at
// start-up; the library never installs handlers by itself.
void InstallSignalCleanup();

// Removes the files of `dir`, then `dir`, with async-signal-safe calls only;
// renames it away first, so threads of the process that create files by
// its path stop adding to it, and retries for those already past that.
// Ignores errors.
void RemoveFlatDirNow(const char* dir);

}  // namespace neardup::base

#endif  // NEARDUP_BASE_SIGNAL_CLEANUP_H_
