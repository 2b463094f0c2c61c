// SPDX-License-Identifier: Apache-2.0
//
// ServerProcess: runs `neardup serve` as a child process on 127.0.0.1 with
// a free port, for end-to-end tests. Test-only helper.
#ifndef NEARDUP_TESTS_SERVER_SERVER_PROCESS_H_
#define NEARDUP_TESTS_SERVER_SERVER_PROCESS_H_

#include <httplib.h>
#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace neardup::testing {

class ServerProcess {
 public:
  // `data` is the store directory; `extra` more flags for `neardup serve`.
  ServerProcess(std::string data, std::vector<std::string> extra = {});
  ~ServerProcess();  // SIGKILL if still running

  // Starts and waits until the port is known (false on failure/timeout).
  bool Start();
  // SIGTERM and wait; returns the exit status (-1 on timeout).
  int Stop();
  // SIGKILL and reap.
  void Kill();

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  // Where the server writes its port (default: data + ".port").
  void set_port_file(std::string path) { port_file_ = std::move(path); }
  // Runs in the child before exec (e.g. to enter a mount namespace); a
  // false return makes the child exit 77 and Start() fail.
  void set_child_setup(std::function<bool()> setup) { child_setup_ = std::move(setup); }
  std::unique_ptr<httplib::Client> Client() const;

 private:
  std::string data_;
  std::vector<std::string> extra_;
  std::string port_file_;
  std::function<bool()> child_setup_;
  pid_t pid_ = -1;
  int port_ = 0;
};

// A fresh temporary directory name (not created).
std::string TempPath(const std::string& tag);

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_SERVER_SERVER_PROCESS_H_
