// SPDX-License-Identifier: Apache-2.0
#include "resources/tables.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "base/file_util.h"
#include "base/status_macros.h"
#include "neardup/utf8.h"

namespace neardup::resources {
namespace {

// Calls fn(line, number) for every non-empty trimmed line of `path`, adding
// "path:line: " to the errors it returns.
template <typename Fn>
Status ForEachTrimmedLine(const std::string& path, bool trim, Fn&& fn) {
  std::string text;
  NEARDUP_RETURN_IF_ERROR(base::ReadWholeFile(path, &text));
  return base::ForEachLine(text, [&](std::string_view line, size_t no) -> Status {
    if (trim) {
      line = base::TrimAscii(line);
    } else if (no == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") {
      line.remove_prefix(3);
    }
    if (line.empty()) return Status::OK();
    Status s = ValidateUtf8(line);
    if (s.ok()) s = fn(line);
    return s.ok() ? s : s.WithContext(path + ":" + std::to_string(no));
  });
}

bool ParseFreq(std::string_view s, uint64_t* freq) {
  if (s.empty() || s.size() > 18) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *freq = v;
  return true;
}

bool IsTag(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < 'a' || c > 'z') return false;
  return true;
}

}  // namespace

Status ForEachIdfEntry(const std::string& path,
                       const std::function<Status(std::string_view, double)>& fn) {
  return ForEachTrimmedLine(path, true, [&](std::string_view line) -> Status {
    const size_t sp = line.rfind(' ');
    double v = 0;
    const char* end = line.data() + line.size();
    if (sp == std::string_view::npos || sp == 0 ||
        std::from_chars(line.data() + sp + 1, end, v).ptr != end || sp + 1 == line.size()) {
      return Status::InvalidArgument("expected 'term idf'");
    }
    // Tables keep idf values as float: no infinities, NaN or overflow.
    if (!std::isfinite(v) || std::abs(v) > std::numeric_limits<float>::max()) {
      return Status::InvalidArgument("idf must be a finite number in float range");
    }
    return fn(line.substr(0, sp), v);
  });
}

Result<std::vector<std::string>> LoadWordList(const std::string& path) {
  std::vector<std::string> words;
  NEARDUP_RETURN_IF_ERROR(ForEachTrimmedLine(path, true, [&](std::string_view line) {
    words.emplace_back(line);
    return Status::OK();
  }));
  return words;
}

Status ForEachOpenccEntry(const std::string& path,
                          const std::function<Status(std::string_view, std::string_view)>& fn) {
  return ForEachTrimmedLine(path, false, [&](std::string_view line) -> Status {
    if (line[0] == '#') return Status::OK();
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos || tab == 0) {
      return Status::InvalidArgument("expected key<TAB>value");
    }
    std::string_view value = base::TrimAscii(line.substr(tab + 1));
    value = value.substr(0, value.find(' '));
    if (value.empty()) return Status::InvalidArgument("empty value");
    return fn(line.substr(0, tab), value);
  });
}

Status ForEachJiebaEntry(const std::string& path, bool user,
                         const std::function<Status(const JiebaEntry&)>& fn) {
  return ForEachTrimmedLine(path, true, [&](std::string_view line) -> Status {
    JiebaEntry e;
    if (!user) {
      const size_t sp = line.find(' ');
      if (sp == std::string_view::npos || sp == 0) {
        return Status::InvalidArgument("expected 'word freq [tag]'");
      }
      std::string_view rest = line.substr(sp + 1);
      const size_t sp2 = rest.find(' ');
      uint64_t f = 0;
      if (!ParseFreq(rest.substr(0, sp2), &f)) {
        return Status::InvalidArgument("bad frequency '" + std::string(rest.substr(0, sp2)) + "'");
      }
      e.word = line.substr(0, sp);
      e.freq = f;
      if (sp2 != std::string_view::npos) e.tag = rest.substr(sp2 + 1);
      return fn(e);
    }
    // jieba: ^(.+?)( [0-9]+)?( [a-z]+)?$
    std::string_view word = line;
    size_t sp = word.rfind(' ');
    if (sp != std::string_view::npos && sp > 0 && IsTag(word.substr(sp + 1))) {
      e.tag = word.substr(sp + 1);
      word = word.substr(0, sp);
    }
    sp = word.rfind(' ');
    uint64_t f = 0;
    if (sp != std::string_view::npos && sp > 0 && ParseFreq(word.substr(sp + 1), &f)) {
      e.freq = f;
      word = word.substr(0, sp);
    }
    e.word = word;
    return fn(e);
  });
}

}  // namespace neardup::resources
