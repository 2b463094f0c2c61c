// SPDX-License-Identifier: Apache-2.0
#include "server/server_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace neardup::testing {

std::string TempPath(const std::string& tag) {
  static int n = 0;
  return (std::filesystem::temp_directory_path() /
          ("neardup_e2e_" + tag + "_" + std::to_string(getpid()) + "_" + std::to_string(n++)))
      .string();
}

ServerProcess::ServerProcess(std::string data, std::vector<std::string> extra)
    : data_(std::move(data)), extra_(std::move(extra)) {}

ServerProcess::~ServerProcess() { Kill(); }

bool ServerProcess::Start() {
  const std::string port_file = port_file_.empty() ? data_ + ".port" : port_file_;
  std::filesystem::remove(port_file);
  std::vector<std::string> args = {NEARDUP_BINARY, "serve",       "--data",      data_,
                                   "--listen",     "127.0.0.1:0", "--port-file", port_file};
  args.insert(args.end(), extra_.begin(), extra_.end());
  pid_ = fork();
  if (pid_ == 0) {
    if (child_setup_ && !child_setup_()) _exit(77);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  if (pid_ < 0) return false;
  for (int i = 0; i < 600; ++i) {  // up to 30 s
    std::ifstream f(port_file);
    if (f >> port_) return true;
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

int ServerProcess::Stop() {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  for (int i = 0; i < 600; ++i) {
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  Kill();
  return -1;
}

void ServerProcess::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

std::unique_ptr<httplib::Client> ServerProcess::Client() const {
  auto c = std::make_unique<httplib::Client>("127.0.0.1", port_);
  c->set_read_timeout(30, 0);
  c->set_keep_alive(true);
  c->set_tcp_nodelay(true);
  return c;
}

}  // namespace neardup::testing
