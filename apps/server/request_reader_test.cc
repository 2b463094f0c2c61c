// SPDX-License-Identifier: Apache-2.0
// RequestReader framing, fed in pieces as a slow peer sends them.
#include "server/request_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace neardup::server {
namespace {

using Step = RequestReader::Step;

// Feeds `pieces` one at a time and returns the steps seen (kNeedMore
// between pieces is not recorded).
std::vector<Step> Feed(RequestReader& reader, const std::vector<std::string>& pieces) {
  std::vector<Step> steps;
  for (const auto& piece : pieces) {
    reader.Append(piece);
    for (Step s = reader.Next(); s != Step::kNeedMore; s = reader.Next()) {
      steps.push_back(s);
      if (s == Step::kError || s == Step::kRequest) return steps;
    }
  }
  return steps;
}

constexpr char kChunkedHead[] =
    "POST /v1/documents HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";

// The last chunk "0\r\n" and its closing CRLF in separate reads: Beast 1.81
// asserts n >= 5 here (apps/server/boost_assert.cc). The request must come
// out whole with an empty body, and the next request after it too.
TEST(RequestReaderTest, EmptyChunkedBodyInPieces) {
  RequestReader reader({});
  const auto steps = Feed(reader, {kChunkedHead, "0\r\n", "\r", "\n"});
  ASSERT_EQ(steps, (std::vector<Step>{Step::kHead, Step::kRequest}));
  EXPECT_EQ(reader.TakeRequest().body, "");
  const auto next = Feed(reader, {"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"});
  EXPECT_EQ(next, (std::vector<Step>{Step::kHead, Step::kRequest}));
}

TEST(RequestReaderTest, ChunkedBodyByteByByte) {
  const std::string wire = std::string(kChunkedHead) + "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
  std::vector<std::string> bytes;
  for (char c : wire) bytes.emplace_back(1, c);
  RequestReader reader({});
  const auto steps = Feed(reader, bytes);
  ASSERT_EQ(steps, (std::vector<Step>{Step::kHead, Step::kRequest}));
  EXPECT_EQ(reader.TakeRequest().body, "abcde");
}

TEST(RequestReaderTest, BadChunkSizeIsFinal) {
  RequestReader reader({});
  const auto steps = Feed(reader, {std::string(kChunkedHead) + "zz\r\nabc\r\n0\r\n\r\n"});
  ASSERT_EQ(steps, (std::vector<Step>{Step::kHead, Step::kError}));
  EXPECT_EQ(reader.error().status, 400);
  // Nothing after a framing error is read as a request.
  reader.Append("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(reader.Next(), Step::kError);
}

TEST(RequestReaderTest, ChunkedBodyOverTheLimitFailsAsItArrives) {
  RequestReader reader({.max_header_bytes = 16 << 10, .max_body_bytes = 10});
  const auto steps = Feed(reader, {kChunkedHead, "8\r\n12345678\r\n", "8\r\n12345678\r\n"});
  ASSERT_EQ(steps, (std::vector<Step>{Step::kHead, Step::kError}));
  EXPECT_EQ(reader.error().status, 413);
}

// The header limit is on the whole head (request line plus fields), however
// it arrives: Beast alone checks each part against it per call.
TEST(RequestReaderTest, HeaderLimitIsOnTheWholeHead) {
  const std::string head =
      "POST /v1/documents HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
      "Authorization: Bearer t\r\n\r\n";
  const RequestReader::Limits fits{.max_header_bytes = head.size(), .max_body_bytes = 10};
  const RequestReader::Limits below{.max_header_bytes = head.size() - 1, .max_body_bytes = 10};
  for (size_t piece : {head.size() + 2, size_t{1}, size_t{7}}) {
    std::vector<std::string> pieces;
    const std::string wire = head + "{}";
    for (size_t at = 0; at < wire.size(); at += piece) pieces.push_back(wire.substr(at, piece));
    RequestReader ok(fits);
    EXPECT_EQ(Feed(ok, pieces), (std::vector<Step>{Step::kHead, Step::kRequest})) << piece;
    RequestReader over(below);
    const auto steps = Feed(over, pieces);
    ASSERT_FALSE(steps.empty());
    EXPECT_EQ(steps.back(), Step::kError) << piece;
    EXPECT_EQ(over.error().status, 431) << piece;
  }
}

}  // namespace
}  // namespace neardup::server
