// SPDX-License-Identifier: Apache-2.0
// Fuzzes the command line's JSONL reader (apps/cli/common.h JsonlReader)
// over a file holding the input. The first byte picks the flags (skip
// invalid records, replace ill-formed UTF-8, keep raw lines, batch size).
// Properties: records come in increasing line order with valid UTF-8 text
// and a string or integer id; without --skip-invalid the first bad record
// is an error that names the file and line, and reading stops.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/common.h"
#include "fuzz_util.h"
#include "neardup/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const unsigned flags = data[0];
  neardup::fuzz::MemFile file(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  neardup::cli::InputFlags in;
  in.files = {file.path()};
  in.skip_invalid = flags & 1;
  in.replace_invalid_utf8 = flags & 2;
  in.quiet = true;
  neardup::cli::JsonlReader reader(in, /*keep_raw=*/flags & 4);
  const size_t batch_size = 1 + ((flags >> 3) & 7);
  std::vector<neardup::cli::Record> batch;
  uint64_t last_line = 0;
  for (int rounds = 0; rounds < 100000; ++rounds) {
    auto more = reader.Next(batch_size, &batch);
    if (!more.ok()) {
      FUZZ_CHECK(!in.skip_invalid);
      FUZZ_CHECK(more.status().message().find(file.path() + ":") != std::string::npos);
      return 0;
    }
    for (const auto& r : batch) {
      FUZZ_CHECK(r.line > last_line);
      last_line = r.line;
      FUZZ_CHECK(neardup::ValidateUtf8(r.text).ok());
      FUZZ_CHECK(r.id.is_string() || r.id.is_number_integer() || r.id.is_number_unsigned());
      if (flags & 4) FUZZ_CHECK(!r.raw.empty());
    }
    if (!*more) return 0;
  }
  FUZZ_CHECK(false);  // more rounds than the input has lines
  return 0;
}
