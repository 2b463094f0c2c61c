// SPDX-License-Identifier: Apache-2.0
// Fuzzes UTF-8 validation, repair and decoding (base/utf8.h,
// neardup/utf8.h) against each other: repair yields valid text, valid input
// is its own repair, the inline decoder agrees with the slow one, decoded
// code points are scalar values and re-encode to the input.
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/utf8.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace neardup;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const bool valid = ValidateUtf8(in).ok();
  const std::string fixed = ReplaceInvalidUtf8(in);
  FUZZ_CHECK(ValidateUtf8(fixed).ok());
  FUZZ_CHECK(valid == (fixed == in));
  FUZZ_CHECK(ReplaceInvalidUtf8(fixed) == fixed);

  bool any_bad = false;
  std::string reencoded;
  for (size_t pos = 0; pos < in.size();) {
    size_t slow_pos = pos;
    const int32_t cp = base::DecodeUtf8(in, &pos);
    const int32_t slow = base::DecodeUtf8Slow(in, &slow_pos);
    FUZZ_CHECK(cp == slow && pos == slow_pos);
    if (cp < 0) {
      any_bad = true;
      continue;
    }
    FUZZ_CHECK(cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF));
    base::AppendUtf8(cp, &reencoded);
  }
  FUZZ_CHECK(any_bad == !valid);
  if (valid) FUZZ_CHECK(reencoded == in);
  return 0;
}
