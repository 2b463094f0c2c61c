// SPDX-License-Identifier: Apache-2.0
//
// RequestReader: frames the requests of one connection from the bytes it
// sends, with Boost.Beast's HTTP/1.1 parser (RFC 9112; Beast's parser is
// fuzzed upstream and by fuzz/http_head here). It knows nothing of
// sockets: the transport appends what it reads and asks for the next step,
// so the fuzzer drives exactly the code the server runs.
//
// Steps: a request head is reported once it is complete (kHead), before any
// of its body is parsed, so the caller can refuse it from the head alone;
// the body is then parsed as it arrives, chunked or not, and a body over
// max_body_bytes is an error as soon as its size is known (a declared
// Content-Length at once, a chunked body when its bytes pass the limit),
// so memory never holds more than the limit. Bytes after a whole request
// (pipelining) stay buffered for the next one.
//
// Any framing error is final: a malformed request line or header (400), a
// head over max_header_bytes (431), a bad chunk size, chunk data not
// followed by CRLF, a chunk extension that is not a token (400), Content-
// Length and Transfer-Encoding together or Content-Lengths that disagree
// (400), a body over the limit (413). The caller answers and closes the
// connection: nothing after a framing error is ever read as a request.
//
// Thread safety: one thread at a time. Memory: the unparsed bytes (at most
// a head's worth plus what one read brings) and the body so far.
#ifndef NEARDUP_APPS_SERVER_REQUEST_READER_H_
#define NEARDUP_APPS_SERVER_REQUEST_READER_H_

#include <boost/system/error_code.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "server/access_policy.h"
#include "server/http_message.h"

namespace neardup::server {

class RequestReader {
 public:
  struct Limits {
    size_t max_header_bytes = 16 << 10;  // request line and header fields
    size_t max_body_bytes = 32u << 20;
  };
  enum class Step {
    kNeedMore,  // Append() more bytes, then Next() again
    kHead,      // head() is a whole request head; Next() goes on with its body
    kRequest,   // TakeRequest() gives the whole request
    kError,     // error() says why; the connection must close
  };

  explicit RequestReader(Limits limits);
  ~RequestReader();
  RequestReader(const RequestReader&) = delete;
  RequestReader& operator=(const RequestReader&) = delete;

  // Bytes received from the peer.
  void Append(std::string_view bytes);
  // Parses what is buffered. kHead is reported once per request.
  Step Next();

  // After kHead (and until TakeRequest): the request without its body.
  const Request& head() const { return head_; }
  std::optional<uint64_t> content_length() const;
  bool chunked() const;
  // The peer wants the connection kept after this request (HTTP/1.1
  // without `Connection: close`, or HTTP/1.0 with `keep-alive`, any case).
  bool keep_alive() const;
  // `Expect: 100-continue` on an HTTP/1.1 request.
  bool expects_continue() const;
  // Body bytes parsed so far of the current request.
  size_t body_bytes() const;

  // After kRequest: the request; the reader moves on to the next one.
  Request TakeRequest();
  // After kError.
  const Refusal& error() const { return error_; }

  // True when bytes of a request that is not whole yet have arrived.
  bool InRequest() const { return pos_ < buf_.size() || started_; }
  // Bytes received and not parsed yet.
  size_t buffered() const { return buf_.size() - pos_; }

 private:
  struct Parser;
  void StartRequest();
  void ClearRequest();
  Step Fail(int status, std::string code, std::string message);
  bool HeadOverLimit(size_t parsed, bool head_done);
  Step HeadTooLarge();
  Step ParseError(const boost::system::error_code& ec);

  Limits limits_;
  std::unique_ptr<Parser> parser_;
  std::string buf_;
  size_t pos_ = 0;          // buf_[0, pos_) is parsed
  bool started_ = false;    // the parser has consumed bytes of this request
  bool head_done_ = false;  // kHead was reported
  size_t head_bytes_ = 0;   // bytes of the current head parsed so far
  bool failed_ = false;
  Request head_;
  Refusal error_;
};

}  // namespace neardup::server

#endif  // NEARDUP_APPS_SERVER_REQUEST_READER_H_
