// SPDX-License-Identifier: Apache-2.0
// Request framing with Boost.Beast's parser (request_reader.h).
#include "server/request_reader.h"

#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

namespace neardup::server {

namespace http = boost::beast::http;

struct RequestReader::Parser {
  http::request_parser<http::string_body> p;
};

RequestReader::RequestReader(Limits limits) : limits_(limits) {}

RequestReader::~RequestReader() = default;

void RequestReader::Append(std::string_view bytes) {
  if (pos_ > 0 && pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  } else if (pos_ > (64 << 10) && pos_ * 2 > buf_.size()) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  buf_.append(bytes);
}

void RequestReader::StartRequest() {
  parser_ = std::make_unique<Parser>();
  parser_->p.header_limit(static_cast<std::uint32_t>(
      std::min<size_t>(limits_.max_header_bytes, std::numeric_limits<std::uint32_t>::max())));
  parser_->p.body_limit(static_cast<std::uint64_t>(limits_.max_body_bytes));
  parser_->p.eager(false);  // stop after the head
  ClearRequest();
}

// The per-request state, for the next request.
void RequestReader::ClearRequest() {
  started_ = false;
  head_done_ = false;
  head_bytes_ = 0;
  head_ = Request();
}

RequestReader::Step RequestReader::Fail(int status, std::string code, std::string message) {
  failed_ = true;
  error_ = Refusal{status, std::move(code), std::move(message), {}};
  return Step::kError;
}

// Beast checks its header limit per call and per part (the request line,
// then the fields), so a head over the limit can pass when it arrives in one
// piece. The limit is on the whole head: bytes parsed into it so far plus,
// while it is unfinished, the bytes waiting (which then all belong to it).
bool RequestReader::HeadOverLimit(size_t parsed, bool head_done) {
  head_bytes_ += parsed;
  const size_t waiting = head_done ? 0 : buf_.size() - pos_;
  return head_bytes_ + waiting > limits_.max_header_bytes;
}

RequestReader::Step RequestReader::HeadTooLarge() {
  return Fail(
      431, "header_too_large",
      "request line and headers over " + std::to_string(limits_.max_header_bytes) + " bytes");
}

RequestReader::Step RequestReader::Next() {
  if (failed_) return Step::kError;
  if (!parser_) StartRequest();
  auto& p = parser_->p;
  for (;;) {
    if (p.is_header_done() && !head_done_) {
      head_done_ = true;
      const auto& msg = p.get();
      head_.method = std::string(msg.method_string());
      head_.target = std::string(msg.target());
      head_.version = msg.version();
      for (const auto& field : msg) {
        head_.headers.push_back({std::string(field.name_string()), std::string(field.value())});
      }
      p.eager(true);  // from here on, parse the body as it comes
      return Step::kHead;
    }
    if (p.is_done()) return Step::kRequest;
    if (pos_ == buf_.size()) return Step::kNeedMore;
    boost::system::error_code ec;
    const size_t n = p.put(boost::asio::buffer(buf_.data() + pos_, buf_.size() - pos_), ec);
    pos_ += n;
    if (n > 0) started_ = true;
    if (ec && ec != http::error::need_more) return ParseError(ec);
    if (!head_done_ && HeadOverLimit(n, p.is_header_done())) return HeadTooLarge();
    if (ec && n == 0) return Step::kNeedMore;
  }
}

RequestReader::Step RequestReader::ParseError(const boost::system::error_code& ec) {
  if (ec == http::error::header_limit) return HeadTooLarge();
  if (ec == http::error::body_limit) {
    return Fail(
        413, "payload_too_large",
        "request body over the limit of " + std::to_string(limits_.max_body_bytes) + " bytes");
  }
  return Fail(400, "bad_request", "malformed request: " + ec.message());
}

std::optional<uint64_t> RequestReader::content_length() const {
  if (!parser_) return std::nullopt;
  const auto n = parser_->p.content_length();
  return n ? std::optional<uint64_t>(*n) : std::nullopt;
}

bool RequestReader::chunked() const { return parser_ && parser_->p.chunked(); }

bool RequestReader::keep_alive() const { return parser_ && parser_->p.keep_alive(); }

bool RequestReader::expects_continue() const {
  return head_done_ && head_.version >= 11 && EqualsNoCase(head_.Header("Expect"), "100-continue");
}

size_t RequestReader::body_bytes() const { return parser_ ? parser_->p.get().body().size() : 0; }

Request RequestReader::TakeRequest() {
  Request req = std::move(head_);
  req.body = parser_->p.release().body();
  parser_.reset();
  ClearRequest();
  return req;
}

}  // namespace neardup::server
