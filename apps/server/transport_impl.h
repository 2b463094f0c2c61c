// SPDX-License-Identifier: Apache-2.0
//
// The inside of HttpTransport (transport.h): the event loop's state and one
// Session per connection. Not a public header.
//
// Ownership: sessions are shared_ptrs held by their pending operations (a
// read wait, a write, the timer) and by a worker job while a request runs;
// the registry holds raw pointers, removed in ~Session. Everything but the
// job queue is touched by the event thread only.
#ifndef NEARDUP_APPS_SERVER_TRANSPORT_IMPL_H_
#define NEARDUP_APPS_SERVER_TRANSPORT_IMPL_H_

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "server/transport.h"

namespace neardup::server {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(HttpTransport::Impl* t, tcp::socket socket, bool admitted);
  ~Session();

  // An admitted connection: wait for its first request.
  void Start();
  // A connection over a global limit: answer 503 and close.
  void RefuseBusy(std::string message);
  // Stop(): close unless a request is running or being answered.
  void Shutdown();

 private:
  enum class State { kIdle, kHead, kBody, kBusy, kWriting, kLinger, kClosed };

  void WaitRead();
  void OnReadable(const boost::system::error_code& ec);
  // Reads what the socket has into the reader (or discards it while
  // lingering). False when the peer is gone or the read failed.
  bool ReadAvailable();
  // Moves the connection on after new input or a finished answer.
  void Advance();
  void BeginRequest();
  bool Account();  // the global body budget; false when over it
  void Dispatch();
  void Deliver(Response response);
  void Refuse(const Refusal& r);
  void Write(std::string head, std::string body, bool keep);
  void WriteSome();
  void OnWritten(bool keep);
  void Linger();
  void SetDeadline(Clock::time_point when);
  void OnTimer(const boost::system::error_code& ec, uint64_t generation);
  void OnTimeout();
  void ReleaseBudget();
  void Close();

  HttpTransport::Impl* t_;
  tcp::socket socket_;
  asio::steady_timer timer_;
  const bool admitted_;  // counts toward max_connections (else a refusal)
  State state_ = State::kIdle;
  RequestReader reader_;
  LocalAddress local_;
  Clock::time_point deadline_ = Clock::time_point::max();
  Clock::time_point request_deadline_;
  uint64_t timer_generation_ = 0;
  bool timer_armed_ = false;
  bool reading_ = false;   // a read wait is pending
  bool peer_eof_ = false;  // the peer sent FIN
  bool continue_sent_ = false;
  uint64_t requests_ = 0;
  bool keep_ = false;  // the current request may keep the connection
  bool head_request_ = false;
  int version_ = 11;
  size_t accounted_ = 0;  // bytes counted in the global body budget
  std::string out_head_, out_body_;
  size_t out_done_ = 0;  // bytes of head + body written
};

struct HttpTransport::Impl {
  Impl(ConnectionOptions options, TransportHooks hooks, ConnectionStats* stats);

  void Accept();
  void OnAccepted(tcp::socket socket);
  // Out of descriptors: give up the reserve, accept, answer 503, close.
  void ShedWithReserve();
  void BeginStop();
  void SessionGone(Session* s, bool admitted);
  // A pool of workers and its queue of jobs.
  struct Lane {
    std::mutex mu;  // guards jobs and exit (base/mutex.h is not in this tree yet)
    std::condition_variable cv;
    std::deque<std::function<void()>> jobs;
    bool exit = false;
    std::vector<std::thread> workers;
  };
  void Submit(Lane& lane, std::function<void()> job);
  static void WorkerLoop(Lane& lane);
  // Starts `n` workers on the lane; false if not even one could start.
  static bool StartWorkers(Lane& lane, int n);
  static void StopWorkers(Lane& lane);

  ConnectionOptions o;
  TransportHooks hooks;
  ConnectionStats* stats;

  // Event thread state; declared before the io_context, whose destruction
  // may destroy the last sessions.
  std::unordered_set<Session*> sessions;
  size_t admitted = 0;  // admitted sessions open
  size_t refusing = 0;  // sessions answering a 503 at a global limit
  size_t buffered = 0;  // body bytes held, all sessions
  bool draining = false;
  int spare_fd = -1;  // a descriptor kept in reserve for EMFILE
  std::array<char, 64 << 10> read_buffer;
  int port = 0;
  std::atomic<bool> stop_requested{false};

  Lane waiting;  // requests that may wait (hooks.waits)
  Lane compute;  // the others

  asio::io_context ioc{1};
  tcp::acceptor acceptor{ioc};
  asio::steady_timer accept_retry{ioc};
};

}  // namespace neardup::server

#endif  // NEARDUP_APPS_SERVER_TRANSPORT_IMPL_H_
