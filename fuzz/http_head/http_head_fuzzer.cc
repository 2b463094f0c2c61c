// SPDX-License-Identifier: Apache-2.0
// Fuzzes the request framing of the HTTP service (apps/server/
// request_reader.h, Boost.Beast's parser with our limits) over a stream of
// bytes as one connection sends it. Properties:
//   - arrival in pieces never changes the framing: the stream fed at once
//     and fed in pieces of fuzzed sizes give the same heads and requests
//     (only the final error of a broken or oversized head may be reported
//     as another status, or not yet; see below);
//   - every body is within max_body_bytes, and a request with a
//     Content-Length has exactly that many bytes;
//   - after an error nothing more is framed (no request after a framing
//     error: no smuggling), and an error is 400, 413 or 431;
//   - a head is reported before its request, once.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "server/request_reader.h"

namespace {

using neardup::server::Request;
using neardup::server::RequestReader;
using Step = RequestReader::Step;

// What a reader framed: one line per event.
std::vector<std::string> Frame(std::string_view stream, RequestReader::Limits limits,
                               const std::vector<size_t>& pieces) {
  RequestReader reader(limits);
  std::vector<std::string> events;
  size_t at = 0, piece = 0;
  bool head_seen = false;
  for (;;) {
    const Step step = reader.Next();
    if (step == Step::kNeedMore) {
      if (at == stream.size()) break;
      const size_t n = std::min(stream.size() - at,
                                pieces.empty() ? stream.size() : pieces[piece++ % pieces.size()]);
      reader.Append(stream.substr(at, n));
      at += n;
      continue;
    }
    if (step == Step::kHead) {
      FUZZ_CHECK(!head_seen);
      head_seen = true;
      const Request& h = reader.head();
      FUZZ_CHECK(!h.method.empty() && !h.target.empty());
      events.push_back("head " + h.method + " " + h.target + " " + std::to_string(h.version));
      continue;
    }
    if (step == Step::kRequest) {
      FUZZ_CHECK(head_seen);
      head_seen = false;
      const auto length = reader.content_length();
      const bool keep = reader.keep_alive();
      Request r = reader.TakeRequest();
      FUZZ_CHECK(r.body.size() <= limits.max_body_bytes);
      if (length) FUZZ_CHECK(r.body.size() == *length);
      events.push_back("request " + std::to_string(keep) + " " + r.body);
      continue;
    }
    const int status = reader.error().status;
    FUZZ_CHECK(status == 400 || status == 413 || status == 431);
    FUZZ_CHECK(reader.Next() == Step::kError);
    events.push_back("error " + std::to_string(status));
    break;
  }
  return events;
}

// The events without a final error.
std::vector<std::string> WithoutError(std::vector<std::string> events) {
  if (!events.empty() && events.back().starts_with("error ")) events.pop_back();
  return events;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const RequestReader::Limits limits{size_t{64} + data[0] * 8u, size_t{data[1]} * 4u};
  std::vector<size_t> pieces;
  for (uint8_t b = data[2]; pieces.size() < 4; b = static_cast<uint8_t>(b * 7 + 3)) {
    pieces.push_back(1 + b % 23);
  }
  const std::string_view stream(reinterpret_cast<const char*>(data) + 3, size - 3);
  const auto whole = Frame(stream, limits, {});
  const auto split = Frame(stream, limits, pieces);
  // Beast's checks of a broken or oversized head depend on where the
  // pieces end: its header limit is enforced a few bytes early or late
  // (it keeps 3 bytes of look-behind for CRLFCRLF), so one side may report
  // 431 where the other reports 400 or waits for more (the connection's
  // timer then closes it), and a malformed line of an unfinished head may
  // be seen only once more bytes arrive. Only the final error may differ:
  // every head and request framed is the same, in the same order, and
  // nothing is framed after an error.
  const bool same_framing = WithoutError(whole) == WithoutError(split);
  if (whole != split && !same_framing) {
    for (const auto& e : whole) std::fprintf(stderr, "whole: %s\n", e.c_str());
    for (const auto& e : split) std::fprintf(stderr, "split: %s\n", e.c_str());
  }
  FUZZ_CHECK(whole == split || same_framing);
  return 0;
}
