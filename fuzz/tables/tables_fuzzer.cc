// SPDX-License-Identifier: Apache-2.0
// Fuzzes the data-file parsers of resources/tables.h (idf.utf8, stop-word
// lists, OpenCC tables, jieba main and user dictionaries). The first byte
// picks the parser; the rest is the file. Properties of every accepted
// entry, as the header documents them: terms, words, keys and values are
// non-empty, word-list entries are trimmed, main-dictionary entries carry a
// frequency, and idf values are finite.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "resources/tables.h"

namespace {

using neardup::Status;
namespace resources = neardup::resources;

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int which = data[0] % 5;
  neardup::fuzz::MemFile file(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  const std::string& path = file.path();
  switch (which) {
    case 0:
      (void)resources::ForEachIdfEntry(path, [](std::string_view term, double idf) {
        FUZZ_CHECK(!term.empty());
        FUZZ_CHECK(std::isfinite(idf));
        return Status::OK();
      });
      break;
    case 1:
      if (auto words = resources::LoadWordList(path); words.ok()) {
        for (const auto& w : *words) {
          FUZZ_CHECK(!w.empty());
          FUZZ_CHECK(!IsSpace(w.front()) && !IsSpace(w.back()));
        }
      }
      break;
    case 2:
      (void)resources::ForEachOpenccEntry(path, [](std::string_view key, std::string_view value) {
        FUZZ_CHECK(!key.empty() && !value.empty());
        return Status::OK();
      });
      break;
    default: {
      const bool user = which == 4;
      (void)resources::ForEachJiebaEntry(path, user, [user](const resources::JiebaEntry& e) {
        FUZZ_CHECK(!e.word.empty());
        FUZZ_CHECK(user || e.freq.has_value());
        return Status::OK();
      });
      break;
    }
  }
  return 0;
}
