// SPDX-License-Identifier: Apache-2.0
#include "base/atomic_file.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace neardup::base {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* t = std::getenv("TMPDIR");
    dir_ = std::string(t != nullptr && *t ? t : "/tmp") + "/neardup-atomic-" +
           std::to_string(getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::vector<std::string> Names() {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }
  std::string dir_;
};

TEST_F(AtomicFileTest, TheTargetChangesOnlyAtCommit) {
  const std::string out = dir_ + "/out.jsonl";
  std::ofstream(out) << "old\n";
  chmod(out.c_str(), 0640);
  auto f = AtomicFile::Create(out);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_NE((*f)->write_path(), out);
  EXPECT_EQ((*f)->write_path().rfind(out + ".tmp-", 0), 0u) << (*f)->write_path();
  ASSERT_TRUE((*f)->Append("new\n").ok());
  EXPECT_EQ(Read(out), "old\n");
  ASSERT_TRUE((*f)->Commit().ok());
  EXPECT_EQ(Read(out), "new\n");
  struct stat st;
  ASSERT_EQ(stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);  // the target's mode is kept
  f->reset();
  EXPECT_EQ(Names(), std::vector<std::string>{"out.jsonl"});
}

TEST_F(AtomicFileTest, ADroppedFileLeavesTheTargetAndNoTemporary) {
  const std::string out = dir_ + "/out.jsonl";
  std::ofstream(out) << "old\n";
  {
    auto f = AtomicFile::Create(out);
    ASSERT_TRUE(f.ok());
    std::ofstream((*f)->write_path()) << "half of a failed run";
  }
  EXPECT_EQ(Read(out), "old\n");
  EXPECT_EQ(Names(), std::vector<std::string>{"out.jsonl"});
  // A new target appears only when committed.
  {
    auto f = AtomicFile::Create(dir_ + "/new.jsonl");
    ASSERT_TRUE(f.ok());
  }
  EXPECT_EQ(Names(), std::vector<std::string>{"out.jsonl"});
}

TEST_F(AtomicFileTest, SymlinksAreFollowedAndDevicesWrittenInPlace) {
  const std::string real = dir_ + "/real.txt", link = dir_ + "/link.txt";
  std::ofstream(real) << "old";
  fs::create_symlink(real, link);
  auto f = AtomicFile::Create(link);
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)->Append("new").ok());
  ASSERT_TRUE((*f)->Commit().ok());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(Read(real), "new");
  auto null = AtomicFile::Create("/dev/null");
  ASSERT_TRUE(null.ok());
  EXPECT_EQ((*null)->write_path(), "/dev/null");
  ASSERT_TRUE((*null)->Append("discarded").ok());
  ASSERT_TRUE((*null)->Commit().ok());
  EXPECT_FALSE(AtomicFile::Create(dir_).ok());  // a directory
  EXPECT_FALSE(AtomicFile::Create(dir_ + "/missing/out").ok());
}

TEST_F(AtomicFileTest, SameFileComparesDeviceAndInode) {
  const std::string a = dir_ + "/a", b = dir_ + "/b";
  std::ofstream(a) << "x";
  std::ofstream(b) << "x";
  EXPECT_TRUE(SameFile(a, a));
  EXPECT_TRUE(SameFile(a, dir_ + "/./a"));
  ASSERT_EQ(link(a.c_str(), (dir_ + "/hard").c_str()), 0);
  EXPECT_TRUE(SameFile(a, dir_ + "/hard"));
  EXPECT_FALSE(SameFile(a, b));
  EXPECT_FALSE(SameFile(a, dir_ + "/missing"));
}

TEST_F(AtomicFileTest, ADirectoryReplacesAnotherWhole) {
  const std::string target = dir_ + "/index";
  {
    auto d = AtomicDir::Create(target);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    std::ofstream((*d)->write_path() + "/index.json") << "v1";
    ASSERT_TRUE((*d)->Commit().ok());
  }
  EXPECT_EQ(Read(target + "/index.json"), "v1");
  {
    auto d = AtomicDir::Create(target + "/");
    ASSERT_TRUE(d.ok());
    std::ofstream((*d)->write_path() + "/index.json") << "v2";
    std::ofstream((*d)->write_path() + "/keys.run") << "keys";
    EXPECT_EQ(Read(target + "/index.json"), "v1");  // until the commit
    ASSERT_TRUE((*d)->Commit().ok());
  }
  EXPECT_EQ(Read(target + "/index.json"), "v2");
  EXPECT_EQ(Names(), std::vector<std::string>{"index"});  // the old one is gone
  {
    auto d = AtomicDir::Create(target);  // dropped: the index stays
    ASSERT_TRUE(d.ok());
    std::ofstream((*d)->write_path() + "/index.json") << "v3";
  }
  EXPECT_EQ(Read(target + "/index.json"), "v2");
  EXPECT_EQ(Names(), std::vector<std::string>{"index"});
  std::ofstream(dir_ + "/file") << "x";
  EXPECT_TRUE(AtomicDir::Create(dir_ + "/file").status().IsInvalidArgument());
}

}  // namespace
}  // namespace neardup::base
