// SPDX-License-Identifier: Apache-2.0
#include "batch/jsonl.h"

#include <gtest/gtest.h>

#include <string>

namespace neardup::batch {
namespace {

struct Parsed {
  Status status;
  std::string text, id;
};

Parsed ParseLine(const std::string& line, JsonlFields fields = {}, uint64_t line_no = 7) {
  RecordParser p(fields);
  ParsedRecord r;
  Parsed out;
  // Exactly the bytes of the line: the parser must copy to get its padding.
  out.status = p.Parse(line, line.size(), {{}, line_no}, &r);
  if (out.status.ok()) {
    out.text.assign(r.text);
    out.id.assign(r.id_json);
  }
  return out;
}

TEST(RecordParserTest, TextAndIds) {
  auto r = ParseLine(R"({"id":12,"text":"caf\u00e9 \"q\""})");
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.text, "café \"q\"");
  EXPECT_EQ(r.id, "12");
  EXPECT_EQ(ParseLine(R"({"id":"a\"b\\c\u0001\n","text":"x"})").id, "\"a\\\"b\\\\c\\u0001\\n\"");
  EXPECT_EQ(ParseLine(R"({"id":"\u4e2d","text":"x"})").id, "\"中\"");  // as nlohmann dumps it
  EXPECT_EQ(ParseLine(R"({"id":-5,"text":"x"})").id, "-5");
  EXPECT_EQ(ParseLine(R"({"id":18446744073709551615,"text":"x"})").id, "18446744073709551615");
  EXPECT_EQ(ParseLine(R"({"text":"x"})").id, "7");            // the line number
  EXPECT_EQ(ParseLine(R"({"id":null,"text":"x"})").id, "7");  // null too
  // Unknown fields, nesting and a trailing CR are fine.
  auto u = ParseLine("{\"meta\":{\"a\":[1,2,{\"b\":null}]},\"text\":\"t\",\"id\":\"k\"}\r");
  ASSERT_TRUE(u.status.ok());
  EXPECT_EQ(u.text, "t");
  EXPECT_EQ(u.id, "\"k\"");
}

// A record without an id is named by its line, or by FILE:LINE (a JSON
// string, escaped) when the run reads several files; an id wins over both.
TEST(RecordParserTest, RecordsWithoutIdsAreNamedByTheirPlace) {
  RecordParser p(JsonlFields{});
  ParsedRecord r;
  const std::string line = "{\"text\":\"t\"}";
  ASSERT_TRUE(p.Parse(line, line.size(), {{}, 12}, &r).ok());
  EXPECT_EQ(r.id_json, "12");
  ASSERT_TRUE(p.Parse(line, line.size(), {"dir/a \"b\".jsonl", 12}, &r).ok());
  EXPECT_EQ(r.id_json, "\"dir/a \\\"b\\\".jsonl:12\"");
  const std::string with_id = "{\"id\":\"x\",\"text\":\"t\"}";
  ASSERT_TRUE(p.Parse(with_id, with_id.size(), {"a.jsonl", 3}, &r).ok());
  EXPECT_EQ(r.id_json, "\"x\"");
}

TEST(RecordParserTest, ByteOrderMarkIsSkipped) {
  auto r = ParseLine("\xEF\xBB\xBF{\"id\":1,\"text\":\"bom\"}");
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.text, "bom");
}

TEST(RecordParserTest, FieldNames) {
  JsonlFields f;
  f.text_field = "body";
  f.id_field = "key";
  auto r = ParseLine(R"({"key":"k1","body":"hello","text":"no"})", f);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.text, "hello");
  EXPECT_EQ(r.id, "\"k1\"");
}

TEST(RecordParserTest, ErrorsKeepTheirWording) {
  auto msg = [](const std::string& line) { return ParseLine(line).status.message(); };
  EXPECT_EQ(msg(R"({"id":2,"text":"broken")"), "malformed JSON");
  EXPECT_EQ(msg(R"({"id":1,"text":"x","m":{"a":tru}})"), "malformed JSON");  // deep inside
  EXPECT_EQ(msg(R"([1,2])"), "record is not a JSON object");
  EXPECT_EQ(msg(R"({"id":2})"), "missing field 'text'");
  EXPECT_EQ(msg(R"({"id":3,"text":7})"), "field 'text' is not a string");
  EXPECT_EQ(msg(R"({"id":[1],"text":"x"})"), "field 'id' must be a string or an integer");
  EXPECT_EQ(msg(R"({"id":1.5,"text":"x"})"), "field 'id' must be a string or an integer");
  EXPECT_EQ(msg(R"({"id":true,"text":"x"})"), "field 'id' must be a string or an integer");
}

TEST(RecordParserTest, InvalidUtf8RejectedOrRepaired) {
  const std::string bad = "{\"id\":2,\"text\":\"bad \xff utf8\"}";
  auto r = ParseLine(bad);
  EXPECT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("UTF-8"), std::string::npos) << r.status.message();
  JsonlFields f;
  f.replace_invalid_utf8 = true;
  auto fixed = ParseLine(bad, f);
  ASSERT_TRUE(fixed.status.ok()) << fixed.status.ToString();
  EXPECT_EQ(fixed.text, "bad \xEF\xBF\xBD utf8");
  // Ill-formed UTF-8 outside the text is reported the same way.
  EXPECT_NE(ParseLine("{\"id\":\"\xc3\",\"text\":\"x\"}").status.message().find("UTF-8"),
            std::string::npos);
}

TEST(RecordParserTest, HugeLinesAndReuse) {
  RecordParser p(JsonlFields{});
  ParsedRecord r;
  std::string big = "{\"id\":1,\"text\":\"" + std::string(5 << 20, 'x') + "\"}";
  ASSERT_TRUE(p.Parse(big, big.size(), {{}, 1}, &r).ok());
  EXPECT_EQ(r.text.size(), 5u << 20);
  // A small line after it, parsed in place with padding available.
  std::string small = "{\"id\":2,\"text\":\"y\"}";
  small.append(64, ' ');
  ASSERT_TRUE(p.Parse(std::string_view(small).substr(0, 20), small.size(), {{}, 2}, &r).ok());
  EXPECT_EQ(r.text, "y");
  std::string_view id;
  ASSERT_TRUE(p.ParseId(std::string_view(small).substr(0, 20), small.size(), {{}, 2}, &id).ok());
  EXPECT_EQ(id, "2");
}

TEST(RecordParserTest, BlankLines) {
  EXPECT_TRUE(IsBlankLine(""));
  EXPECT_TRUE(IsBlankLine(" \t\r"));
  EXPECT_FALSE(IsBlankLine(" {}"));
}

TEST(AppendJsonStringTest, LikeNlohmannDump) {
  std::string out;
  AppendJsonString("a/b\x7f\t", &out);
  EXPECT_EQ(out, "\"a/b\x7f\\t\"");
}

}  // namespace
}  // namespace neardup::batch
