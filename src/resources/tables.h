// SPDX-License-Identifier: Apache-2.0
//
// One parser per data-file format. Each reads a whole file and calls `fn`
// once per entry, in file order; an error from `fn` or from the format stops
// the scan and comes back with "path:line: " in front.
//
//   idf.utf8          "term idf"            ForEachIdfEntry
//   stop_words.utf8   one word a line       LoadWordList
//   OpenCC tables     "key<TAB>value ..."   ForEachOpenccEntry
//   jieba dictionary  "word freq [tag]"     ForEachJiebaEntry (user = false)
//   user dictionary   "word [freq] [tag]"   ForEachJiebaEntry (user = true)
//
// Lines are '\n'-separated, a trailing '\r' is dropped, and a UTF-8 byte order
// mark and surrounding ASCII white space are trimmed (OpenCC keys excepted:
// the tab is the separator). Empty lines are skipped; so are '#' comments in
// OpenCC tables.
//
// Errors: NotFound (no such file) or IOError (unreadable), naming the path;
// InvalidArgument "path:line: ..." for a malformed line, including a line
// that is not valid UTF-8 and an idf that is not a finite float.
// Thread safety: pure functions. Complexity: O(file size).
#ifndef NEARDUP_RESOURCES_TABLES_H_
#define NEARDUP_RESOURCES_TABLES_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/status.h"

namespace neardup::resources {

// "term idf": the last space separates the term from a decimal number.
Status ForEachIdfEntry(const std::string& path,
                       const std::function<Status(std::string_view term, double idf)>& fn);

// Every non-empty line, trimmed.
Result<std::vector<std::string>> LoadWordList(const std::string& path);

// "key<TAB>value [value...]": the key and its first value (never empty).
Status ForEachOpenccEntry(
    const std::string& path,
    const std::function<Status(std::string_view key, std::string_view value)>& fn);

struct JiebaEntry {
  std::string_view word;
  std::optional<uint64_t> freq;  // always set for the main dictionary
  std::string_view tag;          // part of speech, may be empty
};

// The main dictionary (`user` false) requires "word freq [tag]"; a user
// dictionary follows jieba's ^(.+?)( [0-9]+)?( [a-z]+)?$.
Status ForEachJiebaEntry(const std::string& path, bool user,
                         const std::function<Status(const JiebaEntry&)>& fn);

}  // namespace neardup::resources

#endif  // NEARDUP_RESOURCES_TABLES_H_
