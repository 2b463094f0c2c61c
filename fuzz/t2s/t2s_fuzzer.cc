// SPDX-License-Identifier: Apache-2.0
// Fuzzes Traditional->Simplified folding (normalize/t2s.h). Mode 0/1: fold
// the input (repaired to valid UTF-8) with the shipped OpenCC tables, plain
// or Taiwan; the result is valid UTF-8 and folding ASCII-only text changes
// nothing. Mode 2: the input is an OpenCC table; when it loads, folding a
// sample text through it gives valid UTF-8.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "neardup/utf8.h"
#include "normalize/t2s.h"

namespace {

using neardup::normalize::T2SFolder;

const T2SFolder& Shipped(bool taiwan) {
  auto f = T2SFolder::Shared("", taiwan);
  FUZZ_CHECK(f.ok());
  return **f;
}

bool IsAscii(std::string_view s) {
  for (unsigned char c : s) {
    if (c >= 0x80) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int mode = data[0] % 3;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string out;
  if (mode < 2) {
    const std::string in = neardup::ReplaceInvalidUtf8(rest);
    Shipped(mode == 1).Fold(in, &out);
    FUZZ_CHECK(neardup::ValidateUtf8(out).ok());
    if (IsAscii(in)) FUZZ_CHECK(out == in);
    return 0;
  }
  neardup::fuzz::MemFile table(rest);
  auto folder = T2SFolder::LoadFiles({table.path()});
  if (!folder.ok()) return 0;
  (*folder)->Fold("國家統計局今天發佈數據顯示，程式設計與軟體 ABC 123", &out);
  FUZZ_CHECK(neardup::ValidateUtf8(out).ok());
  return 0;
}
