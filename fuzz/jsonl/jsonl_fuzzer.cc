// SPDX-License-Identifier: Apache-2.0
// Fuzzes the library's JSONL reader (include/neardup/jsonl.h JsonlReader,
// the parser batch dedup runs) over a file holding the input. The first
// byte picks the options: bit 0 skips bad records and reads on, bit 1
// replaces ill-formed UTF-8 (the other bits are unused).
// Properties: records come in increasing line order with valid UTF-8 text
// and an id that is an integer or a quoted JSON string; a bad record is
// InvalidArgument naming the file and its line, after which reading goes on
// past that line.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "neardup/ids.h"
#include "neardup/jsonl.h"
#include "neardup/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const unsigned flags = data[0];
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  neardup::fuzz::MemFile file(input);
  neardup::JsonlOptions options;
  options.replace_invalid_utf8 = flags & 2;
  neardup::JsonlReader reader({file.path()}, options);
  neardup::JsonlRecord r;
  uint64_t last_line = 0;
  for (size_t rounds = 0; rounds <= input.size() + 1; ++rounds) {
    auto more = reader.Next(&r);
    if (!more.ok()) {
      FUZZ_CHECK(more.status().code() == neardup::StatusCode::kInvalidArgument);
      const std::string& m = more.status().message();
      FUZZ_CHECK(m.starts_with(file.path() + ":"));
      const uint64_t line = std::stoull(m.substr(file.path().size() + 1));
      FUZZ_CHECK(line > last_line);
      last_line = line;
      if (!(flags & 1)) return 0;
      continue;
    }
    if (!*more) {
      FUZZ_CHECK(reader.bytes_read() == input.size());
      return 0;
    }
    FUZZ_CHECK(r.file == file.path());
    FUZZ_CHECK(r.line > last_line);
    last_line = r.line;
    FUZZ_CHECK(!r.raw.empty() && r.raw.find('\n') == std::string_view::npos);
    FUZZ_CHECK(neardup::ValidateUtf8(r.text).ok());
    const bool quoted = r.id.size() >= 2 && r.id.front() == '"' && r.id.back() == '"';
    FUZZ_CHECK(quoted || neardup::IsIntegerId(r.id));
    FUZZ_CHECK(neardup::ValidateUtf8(r.id).ok());
  }
  FUZZ_CHECK(false);  // more rounds than the input has lines
  return 0;
}
