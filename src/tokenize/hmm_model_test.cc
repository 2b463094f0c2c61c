// SPDX-License-Identifier: Apache-2.0
#include "tokenize/hmm_model.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <random>

#include "base/file_util.h"
#include "resources/data_dir.h"

namespace neardup::tokenize {
namespace {

const char32_t kChars[] = {U'甲', U'乙', U'丙', U'丁', U'戊'};

// A random model in cppjieba's format over five characters; some emissions are
// missing so the -3.14e100 default matters.
std::string RandomModel(std::mt19937* rng, double* start, double (*trans)[4], double (*emit)[5]) {
  std::uniform_real_distribution<double> u(-12.0, -0.1);
  const bool allowed[4][4] = {{0, 1, 1, 0}, {1, 0, 0, 1}, {0, 1, 1, 0}, {1, 0, 0, 1}};
  std::string text = "# test model\n";
  for (int y = 0; y < 4; ++y)
    start[y] = (y == HmmModel::kE || y == HmmModel::kM) ? -3.14e100 : u(*rng);
  for (int y = 0; y < 4; ++y) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", start[y]);
    text += buf;
    text += y < 3 ? " " : "\n";
  }
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) {
      trans[a][b] = allowed[a][b] ? u(*rng) : -3.14e100;
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", trans[a][b]);
      text += buf;
      text += b < 3 ? " " : "\n";
    }
  }
  for (int y = 0; y < 4; ++y) {
    text += "#state\n";
    std::string line;
    for (int c = 0; c < 5; ++c) {
      if ((*rng)() % 5 == 0) {
        emit[y][c] = -3.14e100;
        continue;
      }
      emit[y][c] = u(*rng);
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", emit[y][c]);
      std::string utf8 = c == 0 ? "甲" : c == 1 ? "乙" : c == 2 ? "丙" : c == 3 ? "丁" : "戊";
      line += (line.empty() ? "" : ",") + utf8 + ":" + buf;
    }
    text += (line.empty() ? std::string("丙:-3.14e100") : line) + "\n";
    if (line.empty()) emit[y][2] = -3.14e100;
  }
  return text;
}

TEST(HmmModelTest, ViterbiMatchesBruteForce) {
  std::mt19937 rng(7);
  const auto dir =
      std::filesystem::temp_directory_path() / ("nd_hmm_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "hmm.utf8").string();
  const bool allowed[4][4] = {{0, 1, 1, 0}, {1, 0, 0, 1}, {0, 1, 1, 0}, {1, 0, 0, 1}};
  for (int round = 0; round < 30; ++round) {
    double start[4], trans[4][4], emit[4][5];
    ASSERT_TRUE(base::AtomicWrite(path, RandomModel(&rng, start, trans, emit)).ok());
    auto model = HmmModel::Load(path);
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    for (int len = 1; len <= 7; ++len) {
      std::u32string s;
      std::vector<int> idx;
      for (int i = 0; i < len; ++i) idx.push_back(rng() % 5), s.push_back(kChars[idx.back()]);
      // Brute force over all valid tag sequences ending in E or S.
      double best = 0;
      std::vector<int> best_tags;
      std::vector<int> tags(len, 0);
      for (int code = 0; code < (1 << (2 * len)); ++code) {
        for (int i = 0; i < len; ++i) tags[i] = (code >> (2 * i)) & 3;
        bool ok = tags[len - 1] == HmmModel::kE || tags[len - 1] == HmmModel::kS;
        for (int i = 1; i < len && ok; ++i) ok = allowed[tags[i - 1]][tags[i]];
        if (!ok) continue;
        double p = start[tags[0]] + emit[tags[0]][idx[0]];
        for (int i = 1; i < len; ++i) p = p + trans[tags[i - 1]][tags[i]] + emit[tags[i]][idx[i]];
        if (p > -1e99 && (best_tags.empty() || p > best)) best = p, best_tags = tags;
      }
      if (best_tags.empty()) continue;  // only astronomically unlikely paths: ties, skip
      std::vector<uint32_t> want;
      for (int i = 0; i < len; ++i) {
        if (best_tags[i] == HmmModel::kE || best_tags[i] == HmmModel::kS) want.push_back(i + 1);
      }
      std::vector<uint8_t> scratch;
      std::vector<uint32_t> got;
      (*model)->Cut(s.data(), s.size(), &scratch, &got);
      EXPECT_EQ(got, want) << "round " << round << " len " << len;
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(HmmModelTest, RealModelLoadsAndRejectsGarbage) {
  const std::string real = resources::JiebaFile(resources::kJiebaHmm);
  if (std::filesystem::exists(real)) {
    auto model = HmmModel::Load(real);
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    EXPECT_LT((*model)->Emit(HmmModel::kS, U'的'), 0.0);
    EXPECT_GT((*model)->Emit(HmmModel::kS, U'的'), -20.0);
  }
  const auto dir =
      std::filesystem::temp_directory_path() / ("nd_hmm_bad_" + std::to_string(::getpid()));
  const std::string path = (dir / "bad.utf8").string();
  ASSERT_TRUE(base::AtomicWrite(path, "# only\n1 2 3\n").ok());
  EXPECT_TRUE(HmmModel::Load(path).status().IsInvalidArgument());
  EXPECT_FALSE(HmmModel::Load((dir / "missing").string()).ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace neardup::tokenize
