// SPDX-License-Identifier: Apache-2.0
//
// One JSONL record parsed with simdjson's DOM parser (Langdale and Lemire,
// "Parsing gigabytes of JSON per second", VLDB Journal 2019): the whole line
// is validated (JSON and UTF-8), then the text field and the id are read.
// The line is parsed in place when `readable` leaves simdjson's 64 bytes of
// padding after it (true inside a read chunk), else from a padded copy; the
// parser's buffers grow to the longest line once, so steady-state parsing
// allocates nothing.
//
// Errors keep the wording `neardup dedup` has always used (the caller adds
// "file:line: "):
//   ill-formed UTF-8          ValidateUtf8's message (or, with
//                             replace_invalid_utf8, the line is repaired)
//   "malformed JSON", "record is not a JSON object",
//   "missing field 'text'", "field 'text' is not a string",
//   "field 'id' must be a string or an integer"
// A UTF-8 byte order mark at the start of a line is skipped; a trailing '\r'
// is white space; unknown fields are ignored.
//
// Ids: the canonical JSON text of the id, as nlohmann::json::dump() writes it
// (integers in decimal, strings quoted with ", \ and control characters
// escaped), so 1 and "1" stay different ids and neardup/ids.h orders them.
// An absent or null id is the line number.
//
// Thread safety: one RecordParser per thread.
#ifndef NEARDUP_BATCH_JSONL_H_
#define NEARDUP_BATCH_JSONL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "neardup/status.h"

namespace neardup::batch {

struct JsonlFields {
  std::string text_field = "text";
  std::string id_field = "id";
  bool replace_invalid_utf8 = false;
};

struct ParsedRecord {
  std::string_view text;     // unescaped; valid until the next Parse
  std::string_view id_json;  // canonical JSON of the id; valid until the next Parse
};

// True for a line of only spaces, tabs and '\r' (skipped, not an error).
bool IsBlankLine(std::string_view line);

class RecordParser {
 public:
  explicit RecordParser(JsonlFields fields);
  ~RecordParser();
  RecordParser(const RecordParser&) = delete;
  RecordParser& operator=(const RecordParser&) = delete;

  // Parses `line` (without its '\n'); `readable` is how many bytes from
  // line.data() may be read (>= line.size()). `line_number` becomes the id
  // when the record has none. Errors: InvalidArgument as above.
  Status Parse(std::string_view line, size_t readable, uint64_t line_number, ParsedRecord* out);

  // Only the id (for output and keep policies), same rules.
  Status ParseId(std::string_view line, size_t readable, uint64_t line_number,
                 std::string_view* id_json);

  // A buffer for the caller to read a line into (TextStore::Read); records
  // parsed from it stay valid until the next read into it.
  std::string* line_buffer() { return &line_buffer_; }

 private:
  std::string line_buffer_;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Appends `s` as a JSON string the way nlohmann::json::dump() does.
void AppendJsonString(std::string_view s, std::string* out);

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_JSONL_H_
