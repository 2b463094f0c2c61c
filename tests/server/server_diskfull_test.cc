// SPDX-License-Identifier: Apache-2.0
// The real server on a disk that fills up: a 48 MiB tmpfs mounted in a
// mount namespace of the test's own (so nothing outside sees it), mostly
// taken by a ballast file. Documents are added until the store answers 507;
// the server must keep serving reads, refuse writes cleanly, take writes
// again once the ballast is deleted, and after a restart hold exactly the
// acknowledged documents. Needs root (CAP_SYS_ADMIN) for the namespace;
// skipped with a message otherwise.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

#include "server/server_process.h"

namespace neardup::testing {
namespace {

using Json = nlohmann::json;

// A process that owns a mount namespace with a small tmpfs at `mnt` holding
// a ballast file, and waits; servers join its namespace with setns.
class Namespace {
 public:
  bool Create(const std::string& mnt, size_t size_mb, size_t ballast_mb, std::string* why) {
    int ready[2];
    if (pipe(ready) != 0) return false;
    pid_ = fork();
    if (pid_ == 0) {
      close(ready[0]);
      char ok = 0;
      if (unshare(CLONE_NEWNS) == 0 &&
          mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 &&
          mount("tmpfs", mnt.c_str(), "tmpfs", 0,
                ("size=" + std::to_string(size_mb) + "m").c_str()) == 0) {
        std::ofstream ballast(mnt + "/ballast", std::ios::binary);
        const std::string mb(1 << 20, 'b');
        for (size_t i = 0; i < ballast_mb; ++i) ballast << mb;
        ok = ballast.good() ? 1 : 0;
      }
      (void)!write(ready[1], &ok, 1);
      if (ok) pause();
      _exit(0);
    }
    close(ready[1]);
    char ok = 0;
    const bool got = read(ready[0], &ok, 1) == 1;
    close(ready[0]);
    if (!got || !ok) {
      *why = "cannot create a mount namespace with a tmpfs (needs root / CAP_SYS_ADMIN)";
      return false;
    }
    return true;
  }
  ~Namespace() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  // For the server's child: enter the namespace.
  std::function<bool()> Enter() const {
    const std::string ns = "/proc/" + std::to_string(pid_) + "/ns/mnt";
    return [ns] {
      const int fd = open(ns.c_str(), O_RDONLY | O_CLOEXEC);
      return fd >= 0 && setns(fd, CLONE_NEWNS) == 0;
    };
  }
  // A path inside the namespace, as seen from outside.
  std::string Inside(const std::string& path) const {
    return "/proc/" + std::to_string(pid_) + "/root" + path;
  }

 private:
  pid_t pid_ = -1;
};

std::string Text(std::mt19937& rng, int chars) {
  std::string s;
  std::uniform_int_distribution<int> cp(0x4e00, 0x4e00 + 6000);
  for (int i = 0; i < chars; ++i) {
    const int c = cp(rng);
    s += static_cast<char>(0xe0 | (c >> 12));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    s += static_cast<char>(0x80 | (c & 0x3f));
  }
  return s;
}

TEST(ServerDiskFullTest, FullDiskIs507ServerKeepsServingAndRecovers) {
  const std::string base = TempPath("diskfull");
  const std::string mnt = base + "/mnt";
  std::filesystem::create_directories(mnt);
  Namespace ns;
  std::string why;
  // 10 MiB free: about 350 documents of 3,000 characters fill it (830 with
  // 18 MiB free took twice as long under ASan, for nothing more).
  if (!ns.Create(mnt, 48, 38, &why)) {
    std::filesystem::remove_all(base);
    GTEST_SKIP() << why;
  }
  auto start = [&] {
    auto s =
        std::make_unique<ServerProcess>(mnt + "/store", std::vector<std::string>{"--ttl", "0"});
    s->set_port_file(base + "/port");  // outside the tmpfs: visible to the test
    s->set_child_setup(ns.Enter());
    return s;
  };
  auto server = start();
  ASSERT_TRUE(server->Start());
  auto c = server->Client();
  std::mt19937 rng(9);
  std::set<std::string> acked, refused;
  int full = 0;
  for (int i = 0; i < 20000 && full < 5; ++i) {
    const std::string id = "doc-" + std::to_string(i);
    auto r = c->Post("/v1/documents", Json{{"id", id}, {"text", Text(rng, 3000)}}.dump(),
                     "application/json");
    ASSERT_TRUE(r) << "the server died at " << id;
    if (r->status == 201) {
      acked.insert(id);
      continue;
    }
    ASSERT_EQ(r->status, 507) << r->body;
    EXPECT_EQ(Json::parse(r->body)["error"]["code"], "resource_exhausted");
    refused.insert(id);
    ++full;
  }
  ASSERT_EQ(full, 5) << "the disk never filled";
  ASSERT_GT(acked.size(), 100u);
  // Still serving: health, reads, queries.
  EXPECT_EQ(c->Get("/healthz")->status, 200);
  EXPECT_EQ(c->Get(("/v1/documents/" + *acked.begin()).c_str())->status, 200);
  EXPECT_EQ(c->Post("/v1/query", Json{{"text", Text(rng, 100)}}.dump(), "application/json")->status,
            200);
  EXPECT_EQ(c->Get(("/v1/documents/" + *refused.begin()).c_str())->status, 404);

  // Space comes back: writes are accepted again (the first may repair the store).
  ASSERT_TRUE(std::filesystem::remove(ns.Inside(mnt + "/ballast")));
  bool recovered = false;
  for (int i = 0; i < 200 && !recovered; ++i) {
    const std::string id = "after-" + std::to_string(i);
    auto r = c->Post("/v1/documents", Json{{"id", id}, {"text", Text(rng, 300)}}.dump(),
                     "application/json");
    ASSERT_TRUE(r);
    if (r->status == 201) {
      acked.insert(id);
      recovered = true;
    } else {
      ASSERT_EQ(r->status, 507) << r->body;
      refused.insert(id);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ASSERT_TRUE(recovered) << "writes never came back after space was freed";
  c.reset();
  EXPECT_EQ(server->Stop(), 0);

  // After a restart: every acknowledged document, no refused one.
  server = start();
  ASSERT_TRUE(server->Start());
  c = server->Client();
  for (const auto& id : acked) {
    auto r = c->Get(("/v1/documents/" + id).c_str());
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << "lost acknowledged " << id;
  }
  for (const auto& id : refused) {
    auto r = c->Get(("/v1/documents/" + id).c_str());
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 404) << "refused " << id << " appeared";
  }
  c.reset();
  EXPECT_EQ(server->Stop(), 0);
  std::filesystem::remove_all(base);
}

}  // namespace
}  // namespace neardup::testing
