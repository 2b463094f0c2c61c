// SPDX-License-Identifier: Apache-2.0
//
// HttpService: the neardup HTTP/1.1 JSON API, version 1 (docs/api.md), over
// a DurableEngine. The transport (transport.h) reads and frames requests on
// one event thread and runs each complete request on a pool of worker
// threads; the router (router.h) picks the handler, and handlers only
// parse, call the engine and serialize, so reads run concurrently and
// writes queue to the engine's single ordered writer.
//
// Security: binds where told (the CLI defaults to 127.0.0.1), exclusively;
// the access policy (access_policy.h) checks Host, Origin, the bearer token
// and the body's framing, type and size on the request head, before any
// body is read. Limits on connections, timeouts, head, body, document,
// batch, id, meta and JSON depth (docs/api.md "Limits"); every error is
// {"error":{"code","message"}} with a 4xx/5xx status, and no handler lets
// an exception escape.
//
// Thread safety: Bind/Serve from one controlling thread; Stop from any.
#ifndef NEARDUP_APPS_SERVER_SERVER_H_
#define NEARDUP_APPS_SERVER_SERVER_H_

#include <memory>
#include <string>
#include <vector>

#include "neardup/durable_engine.h"
#include "server/json_io.h"
#include "server/transport.h"

namespace neardup::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;                         // 0 picks a free port
  std::string token;                       // empty: no authentication
  std::vector<std::string> cors_origins;   // origins beyond the console's own (access_policy.h)
  std::vector<std::string> allowed_hosts;  // Host names beyond the local address; "*" any
  Limits limits;
  ConnectionOptions connection;
};

class HttpService {
 public:
  // `engine` must outlive the service.
  HttpService(DurableEngine* engine, ServerOptions options);
  ~HttpService();

  // Binds the socket, exclusively. Errors: IOError when the address is
  // unavailable or already in use.
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
