// SPDX-License-Identifier: Apache-2.0
//
// One client connection of the connection layer (connections.h) and the
// httplib::Stream a request thread reads one request from and writes its
// response to. Not a public header.
//
// Ownership: the event thread owns every Conn; while a request runs
// (state kBusy) only that request's thread touches it.
#ifndef NEARDUP_APPS_SERVER_CONNECTION_H_
#define NEARDUP_APPS_SERVER_CONNECTION_H_

#include <httplib.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>

namespace neardup::server {

using SteadyClock = std::chrono::steady_clock;

struct Conn {
  enum class State {
    kIdle,    // between requests: waiting for a first byte (idle timeout)
    kHead,    // reading a request head (header timeout)
    kBody,    // reading the first part of a body (request timeout)
    kBusy,    // a request thread runs the request
    kLinger,  // refused: draining input until EOF, then closed
  };
  int fd = -1;
  State state = State::kIdle;
  std::string in;  // received bytes no request has consumed yet
  // Framing of the current request (valid from kBody on).
  size_t head_size = 0;
  uint64_t body_length = 0;  // Content-Length, 0 without one
  bool chunked = false;
  SteadyClock::time_point deadline;          // of the current state
  SteadyClock::time_point request_deadline;  // first byte + request timeout
  uint64_t requests = 0;
  bool keep = false;  // set by the request thread: the connection may go on
  std::string remote_ip, local_ip;
  int remote_port = 0, local_port = 0;
};

// Reads one request: the bytes of `conn.in` first, then the socket, at
// most `limit` bytes in all (the head plus Content-Length; unbounded for
// chunked bodies), each wait ending at `deadline`. Writes wait at most
// `write_timeout_ms` for the socket to drain. Bytes read past the request
// stay in conn.in for the next one.
class RequestStream final : public httplib::Stream {
 public:
  RequestStream(Conn& conn, size_t limit, SteadyClock::time_point deadline, int write_timeout_ms)
      : conn_(conn), limit_(limit), deadline_(deadline), write_timeout_ms_(write_timeout_ms) {}

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return conn_.fd; }

  size_t consumed() const { return consumed_; }  // bytes of conn.in read
  bool failed() const { return failed_; }        // an I/O error or a timeout
  bool timed_out() const { return timed_out_; }

  static constexpr size_t kUnbounded = std::numeric_limits<size_t>::max();

 private:
  // Appends what the socket has to conn.in, waiting until the deadline.
  // False at EOF, on an error or at the deadline.
  bool Fill();

  Conn& conn_;
  size_t limit_;
  SteadyClock::time_point deadline_;
  int write_timeout_ms_;
  size_t consumed_ = 0;
  bool failed_ = false;
  bool timed_out_ = false;
};

}  // namespace neardup::server

#endif  // NEARDUP_APPS_SERVER_CONNECTION_H_
