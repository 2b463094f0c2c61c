// SPDX-License-Identifier: Apache-2.0
// Fuzzes the service's request-body parsing (apps/server/json_io.h) with
// small limits so that every limit is reached. The first byte picks: one
// document body, a batch body (JSON array or NDJSON), an id, or a count
// parameter. Properties: an accepted document satisfies every limit (id
// checks, text and meta sizes, meta an object, time in [0, 2^53)); a batch
// has at most max_batch slots; a body that parses serializes and parses
// back to the same value; an accepted count is all digits and <= max.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "neardup/utf8.h"
#include "server/json_io.h"

namespace {

using namespace neardup::server;
using neardup::IncomingDocument;
using neardup::Result;

const Limits kLimits{.max_body_bytes = 1 << 16,
                     .max_doc_bytes = 256,
                     .max_batch = 8,
                     .max_id_bytes = 32,
                     .max_meta_bytes = 128,
                     .max_depth = 8};

void CheckDocument(const Result<IncomingDocument>& d) {
  if (!d.ok()) {
    FUZZ_CHECK(HttpStatus(d.status()) == 400 || HttpStatus(d.status()) == 413);
    return;
  }
  FUZZ_CHECK(CheckId(d->id, kLimits).ok());
  FUZZ_CHECK(d->text.size() <= kLimits.max_doc_bytes);
  FUZZ_CHECK(neardup::ValidateUtf8(d->text).ok());
  FUZZ_CHECK(d->time >= 0 && d->time < (int64_t{1} << 53));
  FUZZ_CHECK(d->meta.size() <= kLimits.max_meta_bytes);
  if (!d->meta.empty()) FUZZ_CHECK(MetaJson(d->meta).is_object());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int which = data[0] % 4;
  const std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (which) {
    case 0: {
      auto body = ParseBody(in, kLimits);
      if (!body.ok()) break;
      auto again = ParseBody(Dump(*body), kLimits);
      FUZZ_CHECK(again.ok() && *again == *body);
      CheckDocument(ParseDocument(*body, kLimits));
      break;
    }
    case 1: {
      std::vector<Result<IncomingDocument>> docs;
      if (!ParseBatch(in, kLimits, &docs).ok()) break;
      FUZZ_CHECK(!docs.empty() && docs.size() <= kLimits.max_batch);
      for (const auto& d : docs) CheckDocument(d);
      break;
    }
    case 2:
      if (CheckId(in, kLimits).ok()) {
        FUZZ_CHECK(!in.empty() && in.size() <= kLimits.max_id_bytes);
        for (unsigned char c : in) FUZZ_CHECK(c >= 0x20 && c != 0x7f);
      }
      break;
    default:
      if (auto n = ParseCount(in, "n", 1000); n.ok()) {
        FUZZ_CHECK(*n <= 1000 && !in.empty());
        for (char c : in) FUZZ_CHECK(c >= '0' && c <= '9');
      }
      break;
  }
  return 0;
}
