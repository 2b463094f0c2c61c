// SPDX-License-Identifier: Apache-2.0
//
// ConnectionServer: the connection layer of the HTTP service. One event
// thread (epoll) accepts connections, reads request heads and bodies
// without blocking, and enforces the limits and timeouts; a fixed pool of
// request threads runs complete requests through cpp-httplib's request
// processing (parsing, routing, the handlers, the response).
//
// Why not httplib's own loop: it gives each connection a thread for as long
// as the connection lives, so keep-alive clients beyond the pool size wait
// for a thread (seconds), a client that sends its head one byte at a time
// holds a thread indefinitely (slowloris), its listen backlog is 5 (SYN
// drops and 1 s connection retries under load), and an accept error such
// as ECONNABORTED stops it for good. Here a thread is busy only while a
// request runs; idle and slow connections cost a file descriptor and a
// buffer, and only up to the limits below.
//
// Per connection: the head must arrive within header_timeout of its first
// byte (408 otherwise), the whole request within request_timeout (408), an
// idle keep-alive connection closes after idle_timeout, a response write
// may stall for write_timeout. A head over max_header_bytes is 431;
// `admit` may refuse a request from its head alone (401, 413) before any
// of its body is read. Past max_connections a new connection gets 503.
// Refusals close the connection after a short drain (lingering close), so
// the client reads the answer instead of a reset.
//
// Thread safety: Run() on one thread; Stop() from any thread.
#ifndef NEARDUP_APPS_SERVER_CONNECTIONS_H_
#define NEARDUP_APPS_SERVER_CONNECTIONS_H_

#include <httplib.h>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "neardup/status.h"
#include "server/http_head.h"

namespace neardup::server {

// cpp-httplib's server with its request processing exposed to the
// connection layer. Routes are registered on it as usual; its own listen
// loop is not used.
class HttpServer : public httplib::Server {
 public:
  // Reads one request from `strm`, routes it and writes the response.
  // False when the connection must close.
  bool ProcessRequest(httplib::Stream& strm, bool close_connection, bool& connection_closed) {
    return process_request(strm, close_connection, connection_closed, nullptr);
  }
  // The socket bound by bind_to_port / bind_to_any_port.
  int bound_socket() const { return svr_sock_; }
};

struct ConnectionOptions {
  int threads = 64;               // request threads
  size_t max_connections = 1024;  // open connections beyond which new ones get 503
  int header_timeout_ms = 10000;
  int request_timeout_ms = 60000;
  int idle_timeout_ms = 30000;
  int write_timeout_ms = 10000;
  size_t max_header_bytes = 16 << 10;
  size_t keep_alive_max_requests = 100000;  // then the connection closes
};

// A refusal from the head alone.
struct Rejection {
  int status = 400;
  std::string code;  // the error code of the JSON body
  std::string message;
  std::string extra_headers;  // "Name: value\r\n" lines, e.g. WWW-Authenticate
};

// Counters for /metrics; updated by the connection layer.
struct ConnectionStats {
  std::atomic<uint64_t> open{0};
  std::atomic<uint64_t> accepted{0};
  std::atomic<uint64_t> over_limit{0};  // refused with 503 at max_connections
  std::atomic<uint64_t> timeouts{0};    // 408s
  std::atomic<uint64_t> refused{0};     // other refusals from the head (400, 401, 413, 431)
};

class ConnectionServer {
 public:
  using Admit = std::function<std::optional<Rejection>(const RequestHead&)>;
  // `http` and `stats` must outlive the server.
  ConnectionServer(HttpServer* http, ConnectionOptions options, Admit admit,
                   ConnectionStats* stats);
  ~ConnectionServer();

  // Serves the listening socket `fd` (taking ownership; its backlog is
  // raised to SOMAXCONN) until Stop(). Returns once every connection is
  // closed and the request threads have finished their requests.
  // Errors: IOError when the event loop cannot be set up.
  Status Run(int fd);
  // Stops accepting (Run notices within 50 ms); requests in progress
  // complete, idle and partial connections close. Any thread; idempotent.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace neardup::server

#endif  // NEARDUP_APPS_SERVER_CONNECTIONS_H_
