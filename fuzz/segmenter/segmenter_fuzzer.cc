// SPDX-License-Identifier: Apache-2.0
// Fuzzes the jieba-compatible segmenter (tokenize/segmenter.h) with the
// shipped dictionary and HMM: valid UTF-8 is cut into non-empty tokens that
// are consecutive byte ranges covering the whole input; ill-formed UTF-8 is
// InvalidArgument. The first byte chooses HMM on or off.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "neardup/utf8.h"
#include "tokenize/segmenter.h"

namespace {

using neardup::tokenize::Segmenter;

const Segmenter& Get(bool hmm) {
  neardup::tokenize::SegmenterOptions o;
  o.hmm = hmm;
  auto s = Segmenter::Shared(o);
  FUZZ_CHECK(s.ok());
  return **s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool hmm = data[0] & 1;
  const std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<std::string_view> tokens;
  const neardup::Status s = Get(hmm).Cut(in, &tokens);
  if (!neardup::ValidateUtf8(in).ok()) {
    FUZZ_CHECK(s.code() == neardup::StatusCode::kInvalidArgument);
    return 0;
  }
  FUZZ_CHECK(s.ok());
  const char* next = in.data();
  for (std::string_view t : tokens) {
    FUZZ_CHECK(!t.empty());
    FUZZ_CHECK(t.data() == next);
    next += t.size();
  }
  FUZZ_CHECK(next == in.data() + in.size());
  return 0;
}
