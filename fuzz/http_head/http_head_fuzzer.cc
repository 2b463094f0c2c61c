// SPDX-License-Identifier: Apache-2.0
// Fuzzes the request-head scanner of the connection layer
// (apps/server/http_head.h). Properties of a complete head: it ends with an
// empty CRLF line within max_bytes and the buffer; the request line's parts
// are non-empty views inside it; scanning the head alone gives the same
// answer, and every shorter prefix is incomplete (so arrival in pieces
// never changes the framing); chunked never comes with a Content-Length.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "server/http_head.h"

using neardup::server::HeadScan;
using neardup::server::RequestHead;
using neardup::server::ScanRequestHead;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t max = 16 + data[0] * 4;
  const std::string buf(reinterpret_cast<const char*>(data) + 1, size - 1);
  RequestHead h;
  const HeadScan scan = ScanRequestHead(buf, max, &h);
  if (scan != HeadScan::kComplete) return 0;
  FUZZ_CHECK(h.size >= 4 && h.size <= buf.size() && h.size <= max);
  FUZZ_CHECK(buf.compare(h.size - 2, 2, "\r\n") == 0);
  FUZZ_CHECK(!h.method.empty() && !h.target.empty());
  FUZZ_CHECK(h.method.data() >= buf.data() &&
             h.target.data() + h.target.size() <= buf.data() + h.size);
  FUZZ_CHECK(!(h.chunked && h.content_length));
  RequestHead again;
  FUZZ_CHECK(ScanRequestHead(std::string_view(buf).substr(0, h.size), max, &again) ==
             HeadScan::kComplete);
  FUZZ_CHECK(again.size == h.size && again.content_length == h.content_length &&
             again.chunked == h.chunked && again.close == h.close &&
             again.authorization == h.authorization);
  for (size_t cut = 0; cut < h.size; cut += 1 + cut / 8) {
    RequestHead part;
    FUZZ_CHECK(ScanRequestHead(std::string_view(buf).substr(0, cut), max, &part) ==
               HeadScan::kIncomplete);
  }
  return 0;
}
