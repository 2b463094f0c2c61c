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
// The record rules (fields, ids, blank lines, BOM, '\r') and the error
// wording are the public contract of neardup/jsonl.h; the caller adds
// "file:line: " to errors. This is the one parser: batch dedup's phases and
// JsonlReader both run it.
//
// Thread safety: one RecordParser per thread.
#ifndef NEARDUP_BATCH_JSONL_H_
#define NEARDUP_BATCH_JSONL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "neardup/jsonl.h"
#include "neardup/status.h"

namespace neardup::batch {

// The fields and the UTF-8 rule (neardup/jsonl.h, whose JsonlReader runs
// this parser).
using JsonlFields = JsonlOptions;

struct ParsedRecord {
  std::string_view text;     // unescaped; valid until the next Parse
  std::string_view id_json;  // canonical JSON of the id; valid until the next Parse
};

// Where a record is, which names a record without an id: its 1-based line
// number, or the JSON string "FILE:LINE" when `file` is not empty (a run over
// several files names the file, so two files' line numbers can't collide).
struct RecordPlace {
  std::string_view file;
  uint64_t line = 0;
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
  // line.data() may be read (>= line.size()). `place` names the record when
  // it has no id. Errors: InvalidArgument as above.
  Status Parse(std::string_view line, size_t readable, RecordPlace place, ParsedRecord* out);

  // Only the id (for output and keep policies), same rules.
  Status ParseId(std::string_view line, size_t readable, RecordPlace place,
                 std::string_view* id_json);

  // A buffer for the caller to read a line into (InputTexts::Read); records
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
