// SPDX-License-Identifier: Apache-2.0
//
// RawClient: one plain TCP connection to 127.0.0.1 that sends bytes as
// given, for end-to-end tests that must speak malformed or partial HTTP
// (framing attacks, slow clients, pipelining). Test-only helper; one thread.
#ifndef NEARDUP_TESTS_SERVER_RAW_CLIENT_H_
#define NEARDUP_TESTS_SERVER_RAW_CLIENT_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace neardup::testing {

class RawClient {
 public:
  explicit RawClient(int port);
  ~RawClient();
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool ok() const { return ok_; }
  // False when not every byte could be sent (the server closed).
  bool Send(std::string_view s);
  // Reads until the peer closes or `timeout_ms` passes with nothing new.
  std::string ReadAll(int timeout_ms = 15000);
  // Reads one response (head and Content-Length body). Bytes past it (the
  // next pipelined response, when both came in one read) wait for the next
  // call.
  std::string ReadResponse(int timeout_ms = 15000);
  // The peer closed the connection (seen by a read).
  bool closed() const { return closed_; }

 private:
  int fd_;
  std::string pending_;  // read past the last response
  bool ok_ = false;
  bool closed_ = false;
};

// The status code of a raw response, 0 when it is not one.
int StatusOf(const std::string& response);
// The JSON body of a raw response (discarded when it is not JSON).
nlohmann::json BodyOf(const std::string& response);
// The value of header `name` (exact case) in a raw response, "" if absent.
std::string HeaderOf(const std::string& response, const std::string& name);
// A GET request with a loopback Host and `extra` header lines.
std::string Get(const std::string& path, const std::string& extra = "");

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_SERVER_RAW_CLIENT_H_
