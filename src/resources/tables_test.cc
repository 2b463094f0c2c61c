// SPDX-License-Identifier: Apache-2.0
#include "resources/tables.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace neardup::resources {
namespace {

// Each test runs in its own process (ctest -j runs them at once): the pid
// keeps two tests from writing one file.
std::string Write(const std::string& name, const std::string& content) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("neardup_tables_" + std::to_string(getpid()) + "_" + name))
                               .string();
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

Status Idf(const std::string& content) {
  return ForEachIdfEntry(Write("idf", content),
                         [](std::string_view, double) { return Status::OK(); });
}

TEST(TablesTest, IdfParsesTermsWithSpacesAndRejectsBadNumbers) {
  std::vector<std::pair<std::string, double>> got;
  ASSERT_TRUE(
      ForEachIdfEntry(Write("idf_ok", "\xEF\xBB\xBF中国 8.5\nNew York 3\n"), [&](std::string_view t,
                                                                                 double v) {
        got.emplace_back(t, v);
        return Status::OK();
      }).ok());
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].first, "New York");
  EXPECT_EQ(Idf("word\n").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Idf("word x\n").code(), StatusCode::kInvalidArgument);
}

// Found by fuzz/idf: an idf beyond float range became an infinite weight
// (and an infinite default); from_chars also accepts "inf" and "nan".
TEST(TablesTest, IdfMustBeAFiniteFloat) {
  for (const char* v :
       {"inf", "nan", "-inf", "1e39", "444444444444444444444444444444444444444444"}) {
    const Status s = Idf(std::string("word ") + v + "\n");
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << v;
    EXPECT_NE(s.message().find(":1:"), std::string::npos) << s.ToString();
  }
  EXPECT_TRUE(Idf("word 3.4e38\nother -2\n").ok());
}

// Found by fuzz/t2s: an OpenCC value that was not UTF-8 made folding emit
// ill-formed text. Every table format now rejects such a line.
TEST(TablesTest, LinesMustBeUtf8) {
  const std::string path = Write("opencc", "國\t国\n軟體\t\xE8\xBD\xE4\n");
  const Status s =
      ForEachOpenccEntry(path, [](std::string_view, std::string_view) { return Status::OK(); });
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find(path + ":2"), std::string::npos) << s.ToString();
  EXPECT_EQ(LoadWordList(Write("words", "ok\n\xFF\n")).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ForEachJiebaEntry(Write("jieba", "词 \xC0\x80 3\n"), true,
                              [](const JiebaEntry&) { return Status::OK(); })
                .code(),
            StatusCode::kInvalidArgument);
}

TEST(TablesTest, MissingFileIsNotFound) {
  EXPECT_EQ(LoadWordList("/nonexistent/neardup/words").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace neardup::resources
