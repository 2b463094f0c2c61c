// SPDX-License-Identifier: Apache-2.0
// Fuzzes the Normalizer (normalize/normalizer.h) under every combination of
// its options, with and without the Traditional->Simplified folder: the
// result is valid UTF-8; ill-formed input is an error exactly when it is not
// being replaced.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "fuzz_util.h"
#include "neardup/utf8.h"
#include "normalize/normalizer.h"
#include "normalize/t2s.h"

namespace {

using neardup::normalize::Normalizer;
using neardup::normalize::NormalizerOptions;

const Normalizer& Get(unsigned flags) {
  static std::unique_ptr<Normalizer> cache[32];
  auto& n = cache[flags & 31];
  if (!n) {
    NormalizerOptions o;
    o.nfkc_casefold = flags & 1;
    o.drop_punctuation = flags & 2;
    o.replace_invalid_utf8 = flags & 4;
    o.keep_sentence_breaks = flags & 8;
    if (flags & 16) {
      auto folder = neardup::normalize::T2SFolder::Shared("", false);
      FUZZ_CHECK(folder.ok());
      o.folder = *folder;
    }
    auto created = Normalizer::Create(o);
    FUZZ_CHECK(created.ok());
    n = std::move(*created);
  }
  return *n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const unsigned flags = data[0];
  const std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Normalizer& n = Get(flags);
  std::string out;
  const neardup::Status s = n.Normalize(in, &out);
  const bool valid = neardup::ValidateUtf8(in).ok();
  if (valid || (flags & 4)) {
    FUZZ_CHECK(s.ok());
    FUZZ_CHECK(neardup::ValidateUtf8(out).ok());
  } else {
    FUZZ_CHECK(s.code() == neardup::StatusCode::kInvalidArgument);
  }
  return 0;
}
