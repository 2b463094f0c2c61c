// SPDX-License-Identifier: Apache-2.0
//
// HttpTransport: the connection layer of the HTTP service, event-driven on
// Boost.Asio (one event thread, epoll), framing requests with Boost.Beast's
// parser (request_reader.h), and running complete requests on a fixed pool
// of worker threads. Why this library and not h2o or libmicrohttpd:
// docs/design.md "The HTTP front end".
//
// The event thread accepts, reads, parses, enforces every limit and timer
// and writes the answers; a worker runs only a request whose head and body
// have arrived whole, so a slow or stalled client costs a connection slot,
// its buffered bytes and one timer, never a thread. Two pools: requests
// whose handlers may wait on other work (a durable write waits for its
// group commit) run on `threads` workers, enough to fill a commit; the rest
// (queries, reads) are CPU-bound and run on `compute_threads`, one a core
// by default, so that they do not pay for waking and switching among
// dozens of threads. Per connection: the
// head must arrive within header_timeout of its first byte, the whole
// request within request_timeout (408 otherwise); an idle keep-alive
// connection closes after idle_timeout; a response write may make no
// progress for write_timeout. The head is shown to `admit` before any body
// is read, and a refusal (or a framing error) is answered and closes the
// connection; `Expect: 100-continue` gets its go-ahead only once admitted.
//
// Global limits: past max_connections a new connection is answered 503
// with Retry-After and closed; so is a body that would take the bodies
// buffered in memory past max_buffered_bytes. Nothing is closed without an
// answer but an idle connection at its timeout: when the process runs out
// of descriptors, one kept in reserve is given up to accept the waiting
// connection, answer it 503 and close it.
//
// Keep-alive: HTTP/1.1 unless `Connection: close`, HTTP/1.0 only with
// `Connection: keep-alive` (any case); every kept answer says
// `Keep-Alive: timeout=<idle seconds>, max=<requests left>`, the truth.
//
// Thread safety: Bind, then Run on one thread; Stop from any thread.
#ifndef NEARDUP_APPS_SERVER_TRANSPORT_H_
#define NEARDUP_APPS_SERVER_TRANSPORT_H_

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "neardup/status.h"
#include "server/access_policy.h"
#include "server/http_message.h"
#include "server/request_reader.h"

namespace neardup::server {

struct ConnectionOptions {
  int threads = 64;               // workers for requests that may wait (TransportHooks::waits)
  int compute_threads = 0;        // workers for the others; 0: one a hardware thread
  size_t max_connections = 1024;  // open connections beyond which new ones get 503
  int header_timeout_ms = 10000;
  int request_timeout_ms = 60000;
  int idle_timeout_ms = 30000;
  int write_timeout_ms = 10000;
  size_t max_header_bytes = 16 << 10;
  size_t max_body_bytes = 32u << 20;
  size_t max_buffered_bytes = 256u << 20;   // request bodies held in memory, all connections
  size_t keep_alive_max_requests = 100000;  // then the connection closes
};

// Counters for /metrics; updated by the transport.
struct ConnectionStats {
  std::atomic<uint64_t> open{0};
  std::atomic<uint64_t> accepted{0};
  std::atomic<uint64_t> over_limit{0};  // answered 503 at a global limit
  std::atomic<uint64_t> timeouts{0};    // 408s
  std::atomic<uint64_t> refused{0};     // other refusals before a worker (400, 401, 413, 431, ...)
};

struct TransportHooks {
  // Event thread: decides from a request head (Request without body) and
  // the connection's local address. A refusal is answered and closes the
  // connection before any of the body is read. Must be quick.
  std::function<std::optional<Refusal>(const Request& head, const RequestReader& framing,
                                       const LocalAddress& local)>
      admit;
  // A worker thread: the answer to a whole request.
  std::function<Response(Request& request)> handle;
  // Any thread: the answer of a refusal (the error body and headers).
  std::function<Response(const Refusal& refusal)> render;
  // Event thread, with a whole request: whether its handler may wait on
  // other work (then it runs on the `threads` pool, else on the compute
  // pool). Must be quick. Null: every request may wait.
  std::function<bool(const Request& request)> waits;
};

class HttpTransport {
 public:
  // `stats` must outlive the transport.
  HttpTransport(ConnectionOptions options, TransportHooks hooks, ConnectionStats* stats);
  ~HttpTransport();

  // Binds host:port (port 0 picks one) exclusively: no SO_REUSEPORT, so a
  // second server on a busy port fails. Errors: IOError naming the address
  // ("already in use" when another process holds it).
  Status Bind(const std::string& host, int port);
  int port() const;
  // Serves until Stop(); returns once every connection is closed and the
  // workers have finished. Errors: IOError when the event loop fails.
  Status Run();
  // Stops accepting; requests in progress are answered (with
  // `Connection: close`), idle and partial connections close. Any thread;
  // idempotent; a Stop before Run makes Run return at once.
  void Stop();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace neardup::server

#endif  // NEARDUP_APPS_SERVER_TRANSPORT_H_
