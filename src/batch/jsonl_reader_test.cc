// SPDX-License-Identifier: Apache-2.0
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "batch/temp_dir.h"
#include "neardup/ids.h"
#include "neardup/jsonl.h"

namespace neardup {
namespace {

// A record copied out of the reader, or the error it gave.
struct Read {
  Status status;
  std::string file;
  uint64_t line = 0;
  std::string id, text, raw;
};

class JsonlReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = batch::TempDir::Create("");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    dir_ = std::move(dir).value();
  }

  std::string Write(const std::string& name, const std::string& data) {
    const std::string path = dir_->File(name);
    std::ofstream(path, std::ios::binary) << data;
    return path;
  }

  // Every record and error until the end (or an I/O error), skipping bad records.
  static std::vector<Read> ReadAll(JsonlReader* reader) {
    std::vector<Read> out;
    JsonlRecord r;
    while (true) {
      Result<bool> more = reader->Next(&r);
      if (more.ok() && !*more) break;
      Read x;
      if (!more.ok()) {
        x.status = more.status();
        out.push_back(x);
        if (x.status.code() != StatusCode::kInvalidArgument) break;
        continue;
      }
      x = Read{Status::OK(),      std::string(r.file), r.line,
               std::string(r.id), std::string(r.text), std::string(r.raw)};
      out.push_back(x);
    }
    return out;
  }

  std::vector<Read> ReadText(const std::string& data, JsonlOptions options = {}) {
    JsonlReader reader({Write("in.jsonl", data)}, options);
    return ReadAll(&reader);
  }

  std::unique_ptr<batch::TempDir> dir_;
};

TEST_F(JsonlReaderTest, FilesInOrderWithLineNumbersAndIds) {
  const std::string a =
      Write("a.jsonl", "{\"id\":12,\"text\":\"caf\\u00e9\"}\n\n{\"text\":\"x\"}\n");
  const std::string b =
      Write("b.jsonl", "{\"id\":null,\"text\":\"y\"}\n{\"id\":\"k\",\"text\":\"z\"}");
  JsonlReader reader({a, b});
  const auto got = ReadAll(&reader);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].file, a);
  EXPECT_EQ(got[0].line, 1u);
  EXPECT_EQ(got[0].id, "12");
  EXPECT_EQ(got[0].text, "café");
  EXPECT_EQ(got[0].raw, "{\"id\":12,\"text\":\"caf\\u00e9\"}");
  EXPECT_EQ(got[1].line, 3u);  // the blank line counts
  // No id, several files: FILE:LINE (one file's ids are line numbers).
  EXPECT_EQ(got[1].id, "\"" + a + ":3\"");
  EXPECT_EQ(got[2].file, b);
  EXPECT_EQ(got[2].id, "\"" + b + ":1\"");  // null: its line within its own file
  EXPECT_EQ(got[3].id, "\"k\"");
  EXPECT_EQ(got[3].text, "z");  // a last line without '\n'
  EXPECT_GT(reader.total_bytes(), 0u);
  EXPECT_EQ(reader.bytes_read(), reader.total_bytes());
}

TEST_F(JsonlReaderTest, IntegerAndStringIdsAreDifferentIds) {
  const auto got = ReadText(
      "{\"id\":7,\"text\":\"a\"}\n{\"id\":\"7\",\"text\":\"b\"}\n"
      "{\"id\":-3,\"text\":\"c\"}\n{\"id\":18446744073709551615,\"text\":\"d\"}\n"
      "{\"id\":\"a\\\"b\\u0001\\u4e2d\",\"text\":\"e\"}\n");
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[0].id, "7");
  EXPECT_EQ(got[1].id, "\"7\"");
  EXPECT_NE(got[0].id, got[1].id);
  EXPECT_TRUE(IdLess(got[0].id, got[1].id));  // integers before strings
  EXPECT_FALSE(IdLess(got[1].id, got[0].id));
  EXPECT_EQ(got[2].id, "-3");
  EXPECT_TRUE(IdLess(got[2].id, got[0].id));
  EXPECT_EQ(got[3].id, "18446744073709551615");
  EXPECT_EQ(got[4].id, "\"a\\\"b\\u0001中\"");  // as nlohmann::json::dump() writes it
}

TEST_F(JsonlReaderTest, BadRecordsNameFileAndLineAndReadingGoesOn) {
  const std::string path =
      Write("bad.jsonl",
            "{\"id\":1,\"text\":\"ok\"}\n{\"id\":2,\"text\":\"broken\"\n[1,2]\n{\"id\":4}\n"
            "{\"id\":5,\"text\":7}\n{\"id\":[1],\"text\":\"x\"}\n{\"id\":1.5,\"text\":\"x\"}\n"
            "{\"id\":true,\"text\":\"x\"}\n{\"id\":99999999999999999999,\"text\":\"x\"}\n"
            "{\"id\":10,\"text\":\"last\"}\n");
  JsonlReader reader({path});
  const auto got = ReadAll(&reader);
  const std::vector<std::string> want = {"",
                                         path + ":2: malformed JSON",
                                         path + ":3: record is not a JSON object",
                                         path + ":4: missing field 'text'",
                                         path + ":5: field 'text' is not a string",
                                         path + ":6: field 'id' must be a string or an integer",
                                         path + ":7: field 'id' must be a string or an integer",
                                         path + ":8: field 'id' must be a string or an integer",
                                         path + ":9: malformed JSON",
                                         ""};
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].status.message(), want[i]) << i;
    if (!want[i].empty()) {
      EXPECT_EQ(got[i].status.code(), StatusCode::kInvalidArgument);
    }
  }
  EXPECT_EQ(got.back().text, "last");
}

TEST_F(JsonlReaderTest, InvalidUtf8IsRejectedOrRepaired) {
  const std::string data =
      "{\"id\":1,\"text\":\"bad \xff utf8\"}\n{\"id\":\"\xc3\",\"text\":\"x\"}\n";
  const auto rejected = ReadText(data);
  ASSERT_EQ(rejected.size(), 2u);
  for (const Read& r : rejected) {
    EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status.message().find("UTF-8"), std::string::npos) << r.status.message();
  }
  EXPECT_NE(rejected[1].status.message().find("in.jsonl:2: "), std::string::npos);
  JsonlOptions repair;
  repair.replace_invalid_utf8 = true;
  const auto repaired = ReadText(data, repair);
  ASSERT_EQ(repaired.size(), 2u);
  ASSERT_TRUE(repaired[0].status.ok()) << repaired[0].status.ToString();
  EXPECT_EQ(repaired[0].text, "bad \xEF\xBF\xBD utf8");
  EXPECT_EQ(repaired[0].raw, "{\"id\":1,\"text\":\"bad \xff utf8\"}");  // as read
  EXPECT_EQ(repaired[1].id, "\"\xEF\xBF\xBD\"");
}

TEST_F(JsonlReaderTest, ByteOrderMarkCrlfAndBlankLines) {
  const auto got =
      ReadText("\xEF\xBB\xBF{\"id\":1,\"text\":\"bom\"}\r\n \t\r\n\r\n{\"text\":\"crlf\"}\r\n\n");
  ASSERT_EQ(got.size(), 2u);
  ASSERT_TRUE(got[0].status.ok()) << got[0].status.ToString();
  EXPECT_EQ(got[0].text, "bom");
  EXPECT_EQ(got[1].line, 4u);
  EXPECT_EQ(got[1].id, "4");
  EXPECT_EQ(got[1].text, "crlf");
  EXPECT_EQ(got[1].raw, "{\"text\":\"crlf\"}\r");
  EXPECT_TRUE(ReadText("").empty());
  EXPECT_TRUE(ReadText("\n \n\t\n").empty());
}

TEST_F(JsonlReaderTest, FieldsAndRepeatedKeys) {
  JsonlOptions o;
  o.text_field = "body";
  o.id_field = "key";
  const auto got = ReadText(
      "{\"key\":\"k1\",\"body\":\"hello\",\"text\":\"no\",\"body\":\"2\"}\n"
      "{\"id\":3,\"text\":\"t\"}\n",
      o);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].id, "\"k1\"");
  EXPECT_EQ(got[0].text, "hello");  // the first of a repeated field
  EXPECT_EQ(got[1].status.message().substr(got[1].status.message().rfind(": ") + 2),
            "missing field 'body'");
}

TEST_F(JsonlReaderTest, HugeLinesBetweenSmallOnes) {
  std::string data;
  for (int i = 0; i < 3; ++i) {
    data += "{\"id\":" + std::to_string(2 * i) + ",\"text\":\"s\"}\n";
    data += "{\"id\":" + std::to_string(2 * i + 1) + ",\"text\":\"" +
            std::string((3 << 20) + i * 100000, 'x') + "\"}\n";
  }
  const auto got = ReadText(data);
  ASSERT_EQ(got.size(), 6u);
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(got[i].status.ok()) << got[i].status.ToString();
    EXPECT_EQ(got[i].id, std::to_string(i));
    EXPECT_EQ(got[i].text.size(), i % 2 == 0 ? 1u : (3u << 20) + i / 2 * 100000);
  }
}

TEST_F(JsonlReaderTest, StandardInput) {
  const int file = open(Write("stdin.jsonl", "{\"text\":\"from stdin\"}\n").c_str(), O_RDONLY);
  ASSERT_GE(file, 0);
  const int saved = dup(STDIN_FILENO);
  ASSERT_GE(dup2(file, STDIN_FILENO), 0);
  close(file);
  JsonlReader reader({});  // no files: standard input
  const auto got = ReadAll(&reader);
  dup2(saved, STDIN_FILENO);
  close(saved);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].file, "<stdin>");
  EXPECT_EQ(got[0].text, "from stdin");
  EXPECT_EQ(reader.total_bytes(), 0u);
}

TEST_F(JsonlReaderTest, MissingFilesAndDirectoriesEndTheInput) {
  const std::string missing = dir_->File("missing.jsonl");
  JsonlReader reader({Write("ok.jsonl", "{\"text\":\"a\"}\n"), missing});
  JsonlRecord r;
  ASSERT_TRUE(*reader.Next(&r));
  Result<bool> more = reader.Next(&r);
  ASSERT_FALSE(more.ok());
  EXPECT_EQ(more.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(more.status().message(), missing + ": cannot open file");
  EXPECT_EQ(reader.Next(&r).status(), more.status());  // sticky
  JsonlReader dir({dir_->path()});
  more = dir.Next(&r);
  ASSERT_FALSE(more.ok());
  EXPECT_EQ(more.status().code(), StatusCode::kIOError);
  EXPECT_NE(more.status().message().find(dir_->path() + ": "), std::string::npos);
}

}  // namespace
}  // namespace neardup
