// SPDX-License-Identifier: Apache-2.0
#include "base/signal_cleanup.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace neardup::base {
namespace {

bool Exists(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

std::string TempBase(const std::string& name) {
  const char* t = std::getenv("TMPDIR");
  return std::string(t != nullptr && *t ? t : "/tmp") + "/neardup-cleanup-" + name + "-" +
         std::to_string(getpid());
}

// A child registers a file and a flat directory, then dies of `sig` (sent
// to itself); the parent sees the signal and neither path.
void ExpectRemovedOn(int sig) {
  const std::string file = TempBase("file"), dir = TempBase("dir");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    InstallSignalCleanup();
    std::ofstream(file) << "partial output";
    if (mkdir(dir.c_str(), 0700) != 0) _exit(3);
    std::ofstream(dir + "/spill.run") << "spill";
    if (RegisterCleanupPath(file, CleanupKind::kFile) < 0) _exit(4);
    if (RegisterCleanupPath(dir, CleanupKind::kFlatDir) < 0) _exit(5);
    raise(sig);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << sig << " " << status;
  EXPECT_FALSE(Exists(file)) << sig;
  EXPECT_FALSE(Exists(dir)) << sig;
  std::remove(file.c_str());
  RemoveFlatDirNow(dir.c_str());
}

TEST(SignalCleanupTest, RemovesRegisteredPathsAndDiesOfTheSignal) {
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT, SIGABRT, SIGUSR1, SIGXFSZ}) {
    ExpectRemovedOn(sig);
  }
}

// nohup: a signal the process ignores stays ignored.
TEST(SignalCleanupTest, LeavesIgnoredSignalsIgnored) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    signal(SIGHUP, SIG_IGN);
    InstallSignalCleanup();
    raise(SIGHUP);
    _exit(7);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 7) << status;
}

TEST(SignalCleanupTest, UnregisteredPathsStay) {
  const std::string file = TempBase("kept");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    InstallSignalCleanup();
    std::ofstream(file) << "committed";
    UnregisterCleanupPath(RegisterCleanupPath(file, CleanupKind::kFile));
    UnregisterCleanupPath(-1);  // ignored
    raise(SIGTERM);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  EXPECT_TRUE(Exists(file));
  std::remove(file.c_str());
}

TEST(SignalCleanupTest, RemoveFlatDirNowRemovesFilesThenTheDirectory) {
  const std::string dir = TempBase("flat");
  ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
  for (int i = 0; i < 300; ++i) std::ofstream(dir + "/f" + std::to_string(i)) << i;
  RemoveFlatDirNow(dir.c_str());
  EXPECT_FALSE(Exists(dir));
  RemoveFlatDirNow(dir.c_str());  // a missing directory is not an error
}

}  // namespace
}  // namespace neardup::base
