// SPDX-License-Identifier: Apache-2.0
//
// neardup::JsonlReader: the one reader of JSONL records, the parser batch
// dedup runs (simdjson) behind a streaming interface. The CLI's fingerprint,
// eval, truth and cluster read their input with it.
//
// A record is a JSON object on one line with a text field (a string) and an
// optional id field:
//   - The id is a string or an integer. Its identity is its canonical JSON
//     text, the way nlohmann::json::dump() writes it: integers in decimal,
//     strings quoted with ", \ and control characters escaped (other
//     characters as they are). So the integer 7 (`7`) and the string "7"
//     (`"7"`) are two different ids, and an id is written back with the type
//     it was read with. neardup/ids.h orders these texts (integers first).
//   - An absent or null id is the 1-based line number within its file, or,
//     when several files are read together, the string "FILE:LINE" (FILE as
//     named on the command line), so two files' records can't collide.
//   - Unknown fields are ignored; of a repeated field the first counts.
// Lines: separated by '\n'; a trailing '\r' is white space; a UTF-8 byte
// order mark at the start of a line is skipped; a line of only spaces, tabs
// and '\r' is blank and skipped (it still counts for line numbers). Lines
// may be of any length (the buffer grows to the longest).
//
// Bad records are InvalidArgument, "FILE:LINE: reason", with these reasons:
//   ill-formed UTF-8 anywhere on the line (ValidateUtf8's message; with
//   replace_invalid_utf8 each ill-formed sequence becomes U+FFFD instead),
//   "malformed JSON", "record is not a JSON object", "missing field 'text'",
//   "field 'text' is not a string", "field 'id' must be a string or an
//   integer" (a float, boolean, array or object; an integer beyond 64 bits
//   is malformed JSON).
// FILE is the path as given, or "<stdin>" for "-".
//
// Thread safety: one reader per thread. Memory: a few times the longest line
// (the read buffer and simdjson's parser grow to it).
#ifndef NEARDUP_JSONL_H_
#define NEARDUP_JSONL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/status.h"

namespace neardup {

struct JsonlOptions {
  std::string text_field = "text";
  std::string id_field = "id";
  bool replace_invalid_utf8 = false;  // else ill-formed UTF-8 is a bad record
};

// One record. The views point into the reader and stay valid until the next
// call of Next() or the reader's destruction: copy what must outlive that.
struct JsonlRecord {
  std::string_view file;  // the name for messages: the path, or "<stdin>"
  uint64_t line = 0;      // 1-based line number within the file
  std::string_view id;    // canonical JSON of the id (see above)
  std::string_view text;  // the text field, unescaped (valid UTF-8)
  std::string_view raw;   // the line as read, without '\n' (not repaired)
};

class JsonlReader {
 public:
  // Reads `files` in order; "-" (or an empty list) is standard input, read
  // as a stream. Files are opened when reached.
  explicit JsonlReader(std::vector<std::string> files, JsonlOptions options = {});
  ~JsonlReader();
  JsonlReader(const JsonlReader&) = delete;
  JsonlReader& operator=(const JsonlReader&) = delete;

  // The next record into *out; false at the end of the input.
  // Errors: InvalidArgument "FILE:LINE: reason" for a bad record; the reader
  // has then moved past it, so a caller that skips bad records calls Next()
  // again. NotFound "FILE: cannot open file" for a missing file, IOError
  // naming the file otherwise (unreadable, a directory); these end the
  // input: later calls return the same error.
  Result<bool> Next(JsonlRecord* out);

  // Input bytes read so far, and the total size of the files that are not
  // standard input (for progress).
  uint64_t bytes_read() const;
  uint64_t total_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace neardup

#endif  // NEARDUP_JSONL_H_
