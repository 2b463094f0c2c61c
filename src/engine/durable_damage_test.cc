// SPDX-License-Identifier: Apache-2.0
// DurableEngine on a damaged store: Open refuses it and leaves every file as
// it was; RepairStore recovers what the files still hold and the engine
// opens the result with its clusters intact. The kinds of damage one by one
// are in src/store/store_corruption_test.cc and tests/store_cli_test.py.
#include <filesystem>
#include <fstream>
#include <map>

#include "engine/durable_test_util.h"

namespace neardup {
namespace {

namespace fs = std::filesystem;
using testing_util::Edit;
using testing_util::OpenOrDie;
using testing_util::Opts;
using testing_util::Story;
using testing_util::TempDir;

std::map<std::string, uintmax_t> Files(const std::string& dir) {
  std::map<std::string, uintmax_t> out;
  for (const auto& e : fs::directory_iterator(dir)) out[e.path().filename()] = e.file_size();
  return out;
}

TEST(DurableDamageTest, LostLogIsRefusedUnchangedAndRepairKeepsTheRest) {
  TempDir dir, crashed;
  std::mt19937 rng(11);
  std::vector<std::string> bases;
  for (int i = 0; i < 8; ++i) bases.push_back(Story(rng, 120));
  auto add = [&](DurableEngine& d, int from, int to) {
    for (int i = from; i < to; ++i) {
      IncomingDocument doc{"d" + std::to_string(i), Edit(rng, bases[i % 8], 1), 1000 + i, ""};
      ASSERT_TRUE(d.Add(doc, OnConflict::kError).ok());
    }
  };
  std::string clusters_before;
  {
    auto d = OpenOrDie(Opts(dir.str()));
    add(*d, 0, 40);
    ASSERT_TRUE(d->Remove("d0").ok());  // a root turns ghost: its row stays
  }                                     // flushed to table files
  {
    auto d = OpenOrDie(Opts(dir.str()));
    for (const auto& c : d->ListClusters({}))
      clusters_before += c.id + ":" + std::to_string(c.size) + " ";
    add(*d, 40, 60);                                                  // only in the log
    fs::copy(dir.str(), crashed.str(), fs::copy_options::recursive);  // the crash
  }
  fs::remove(crashed.str() + "/LOCK");
  for (const auto& e : fs::directory_iterator(crashed.str())) {
    if (e.path().extension() == ".log") fs::remove(e.path());
  }
  const auto before = Files(crashed.str());
  auto refused = DurableEngine::Open(Opts(crashed.str()));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kCorruption);
  EXPECT_NE(refused.status().message().find("write-ahead log"), std::string::npos)
      << refused.status().ToString();
  EXPECT_EQ(Files(crashed.str()), before);

  auto check = CheckStore(crashed.str());
  ASSERT_TRUE(check.ok());
  EXPECT_FALSE(check->ok());
  auto repair = RepairStore(crashed.str(), true);
  ASSERT_TRUE(repair.ok()) << repair.status().ToString();
  EXPECT_TRUE(repair->applied);
  EXPECT_EQ(repair->documents, 39u);  // 40 less the removed root
  ASSERT_FALSE(repair->lost.empty());
  EXPECT_NE(repair->lost.back().find("arrival numbers 40 to 59"), std::string::npos)
      << repair->lost.back();
  {
    auto d = OpenOrDie(Opts(crashed.str()));
    EXPECT_EQ(d->Stats().engine.documents, 39u);
    std::string clusters_after;
    for (const auto& c : d->ListClusters({}))
      clusters_after += c.id + ":" + std::to_string(c.size) + " ";
    EXPECT_EQ(clusters_after, clusters_before);
    add(*d, 60, 61);  // writable again
  }
  EXPECT_TRUE(CheckStore(crashed.str())->ok());
  fs::remove_all(repair->kept);
}

}  // namespace
}  // namespace neardup
