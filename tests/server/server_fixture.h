// SPDX-License-Identifier: Apache-2.0
//
// ServerFixture: a gtest fixture that starts one `neardup serve` per test
// (ServerProcess) with a fresh store, optionally a token file, and removes
// both afterwards, checking the server stops cleanly. Test-only helper.
#ifndef NEARDUP_TESTS_SERVER_SERVER_FIXTURE_H_
#define NEARDUP_TESTS_SERVER_SERVER_FIXTURE_H_

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "server/server_process.h"

namespace neardup::testing {

class ServerFixture : public ::testing::Test {
 protected:
  // Starts a server with `flags` on a store named after `tag`.
  void Start(std::vector<std::string> flags, const std::string& tag = "server") {
    dir_ = TempPath(tag);
    server_ = std::make_unique<ServerProcess>(dir_, std::move(flags));
    ASSERT_TRUE(server_->Start());
  }
  // Writes `token` to a file and starts with --token-file too.
  void StartWithToken(const std::string& token, std::vector<std::string> flags = {}) {
    token_file_ = TempPath("token") + ".token";
    { std::ofstream(token_file_) << token << "\n"; }
    flags.push_back("--token-file");
    flags.push_back(token_file_);
    Start(std::move(flags));
  }
  void TearDown() override {
    if (server_) {
      EXPECT_EQ(server_->Stop(), 0);
    }
    std::filesystem::remove_all(dir_);
    std::filesystem::remove(dir_ + ".port");
    if (!token_file_.empty()) std::filesystem::remove(token_file_);
  }
  int port() const { return server_->port(); }

  std::unique_ptr<ServerProcess> server_;
  std::string dir_, token_file_;
};

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_SERVER_SERVER_FIXTURE_H_
