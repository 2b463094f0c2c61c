// SPDX-License-Identifier: Apache-2.0
//
// Small file helpers shared by the tokenize, normalize and features data
// loaders: whole-file reads, atomic writes, and a cheap identity of a file
// (absolute path, size, modification time) for cache keys.
//
// Thread safety: pure functions; AtomicWrite uses a unique temporary name.
#ifndef NEARDUP_BASE_FILE_UTIL_H_
#define NEARDUP_BASE_FILE_UTIL_H_

#include <string>
#include <string_view>

#include "base/status_macros.h"
#include "neardup/status.h"

namespace neardup::base {

// Replaces *out with the contents of `path`. Errors: NotFound (no such file),
// IOError (other failures), both naming the path.
Status ReadWholeFile(const std::string& path, std::string* out);

// Writes `data` to `path` through a temporary file, fsync and rename(2)
// (base/atomic_file.h), creating the parent directory if needed.
// Errors: IOError.
Status AtomicWrite(const std::string& path, std::string_view data);

// "absolute-path|size|mtime-ns" of `path`. Errors: IOError when stat fails.
Result<std::string> FileIdentity(const std::string& path);

// Calls fn(line, line_number) for each line of `text` ('\n' separated, a
// trailing '\r' removed). Stops early and returns the first non-OK status.
template <typename Fn>
Status ForEachLine(std::string_view text, Fn&& fn) {
  size_t line_no = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    NEARDUP_RETURN_IF_ERROR(fn(line, ++line_no));
  }
  return Status::OK();
}

// Strips ASCII white space (and a UTF-8 byte order mark) from both ends.
std::string_view TrimAscii(std::string_view s);

}  // namespace neardup::base

#endif  // NEARDUP_BASE_FILE_UTIL_H_
