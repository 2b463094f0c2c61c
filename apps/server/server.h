// SPDX-License-Identifier: Apache-2.0
//
// HttpService: the neardup HTTP/1.1 JSON API, version 1 (docs/api.md), over
// a DurableEngine. The connection layer (connections.h) reads requests on
// one event thread and runs each complete request on a pool of request
// threads; handlers only parse, call the engine and serialize, so reads run
// concurrently and writes queue to the engine's single ordered writer.
//
// Security: binds where told (the CLI defaults to 127.0.0.1); with a token,
// every path but /healthz needs `Authorization: Bearer <token>`, compared in
// constant time and checked on the request head, before any body is read.
// Limits on connections, timeouts, head, body, document, batch, id, meta and
// JSON depth (docs/api.md "Limits"); every error is
// {"error":{"code","message"}} with a 4xx/5xx status, and no handler lets
// an exception escape.
//
// Thread safety: Bind/Serve from one controlling thread; Stop from any.
#ifndef NEARDUP_APPS_SERVER_SERVER_H_
#define NEARDUP_APPS_SERVER_SERVER_H_

#include <memory>
#include <string>

#include "neardup/durable_engine.h"
#include "server/connections.h"
#include "server/json_io.h"

namespace neardup::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;    // 0 picks a free port
  std::string token;  // empty: no authentication
  Limits limits;
  ConnectionOptions connection;
};

class HttpService {
 public:
  // `engine` must outlive the service.
  HttpService(DurableEngine* engine, ServerOptions options);
  ~HttpService();

  // Binds the socket. Errors: IOError when the address is unavailable.
  Status Bind();
  int port() const;
  // Serves until Stop(); returns when the listener has closed and in-flight
  // requests have finished. Errors: IOError when the event loop fails.
  Status Serve();
  // Stops accepting; requests in progress complete. Any thread.
  void Stop();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace neardup::server

#endif  // NEARDUP_APPS_SERVER_SERVER_H_
