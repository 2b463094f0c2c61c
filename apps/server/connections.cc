// SPDX-License-Identifier: Apache-2.0
// ConnectionServer (connections.h): the epoll event thread and the request
// threads. The event thread alone owns the connection table; a connection
// in state kBusy belongs to one request thread until it comes back through
// `returned` (and a wake-up on the eventfd).
#include "server/connections.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <deque>
#include <thread>
#include <unordered_map>
#include <vector>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "server/connection.h"
#include "server/console.h"
#include "server/json_io.h"

namespace neardup::server {
namespace {

using State = Conn::State;
using std::chrono::milliseconds;

constexpr size_t kPrebuffer = 256 << 10;      // body bytes read before a request thread runs
constexpr auto kLinger = milliseconds(2000);  // draining after a refusal
constexpr auto kScanInterval = milliseconds(50);
constexpr size_t kOverflow = 64;  // refused connections kept lingering beyond the limit

const char* Reason(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 408:
      return "Request Timeout";
    case 413:
      return "Payload Too Large";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

// The security headers the console's post-routing handler (console.cc)
// gives every answer that is not a console page.
const std::string& SecurityHeaders() {
  static const std::string h = std::string("Content-Security-Policy: ") + kApiCsp +
                               "\r\nX-Content-Type-Options: nosniff\r\nX-Frame-Options: "
                               "DENY\r\nReferrer-Policy: no-referrer\r\n";
  return h;
}

std::string RefusalResponse(const Rejection& r) {
  const std::string body = Dump(ErrorJson(r.code, r.message));
  char head[512];
  std::snprintf(head, sizeof(head),
                "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
                "Connection: close\r\n%s",
                r.status, Reason(r.status), body.size(), SecurityHeaders().c_str());
  return head + r.extra_headers + "\r\n" + body;
}

void Address(const sockaddr_storage& a, std::string* ip, int* port) {
  char buf[INET6_ADDRSTRLEN] = "";
  if (a.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
    inet_ntop(AF_INET, &v4->sin_addr, buf, sizeof(buf));
    *port = ntohs(v4->sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
    inet_ntop(AF_INET6, &v6->sin6_addr, buf, sizeof(buf));
    *port = ntohs(v6->sin6_port);
  }
  *ip = buf;
}

// `curl -d` labels bodies application/x-www-form-urlencoded, and
// cpp-httplib refuses such bodies over 8 KiB (413) and parses them as
// forms. Every body of this API is JSON or NDJSON, so that label is
// rewritten to application/json before httplib reads the head. Returns the
// change in head size.
ptrdiff_t RelabelForm(Conn* c, const RequestHead& head) {
  constexpr std::string_view kForm = "application/x-www-form-urlencoded";
  const std::string_view type = head.content_type;
  if (type.size() < kForm.size()) return 0;
  for (size_t i = 0; i < kForm.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(type[i])) != kForm[i]) return 0;
  }
  const size_t at = static_cast<size_t>(type.data() - c->in.data());
  constexpr std::string_view kJson = "application/json";
  c->in.replace(at, type.size(), kJson);
  return static_cast<ptrdiff_t>(kJson.size()) - static_cast<ptrdiff_t>(type.size());
}

}  // namespace

struct ConnectionServer::Impl {
  HttpServer* http;
  ConnectionOptions o;
  Admit admit;
  ConnectionStats* stats;

  int listen_fd = -1, epoll_fd = -1, wake_fd = -1;
  std::unordered_map<int, std::unique_ptr<Conn>> conns;  // event thread only
  size_t busy = 0;                                       // conns in kBusy
  bool accept_paused = false;
  SteadyClock::time_point resume_accept;

  base::Mutex mu;
  base::CondVar cv;
  std::deque<Conn*> work GUARDED_BY(mu);
  std::vector<Conn*> returned GUARDED_BY(mu);
  bool workers_exit GUARDED_BY(mu) = false;
  std::atomic<bool> stop{false};      // Stop() was called
  std::atomic<bool> draining{false};  // requests in progress are the last ones
  std::vector<std::thread> workers;

  void Wake() {
    const uint64_t one = 1;
    (void)!::write(wake_fd, &one, sizeof(one));
  }

  void Arm(Conn* c) {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
    ev.data.fd = c->fd;
    epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c->fd, &ev);
  }

  void Close(Conn* c) {
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->fd, nullptr);
    close(c->fd);
    --stats->open;
    conns.erase(c->fd);
  }

  // Answers `r` and drains the connection until EOF or kLinger.
  void Refuse(Conn* c, const Rejection& r) {
    const std::string resp = RefusalResponse(r);
    (void)!send(c->fd, resp.data(), resp.size(), MSG_NOSIGNAL);  // best effort, non-blocking
    shutdown(c->fd, SHUT_WR);
    c->in.clear();
    c->state = State::kLinger;
    c->deadline = SteadyClock::now() + kLinger;
    Arm(c);
  }

  void PauseAccepting() {
    epoll_event ev{};
    ev.data.fd = listen_fd;
    epoll_ctl(epoll_fd, EPOLL_CTL_MOD, listen_fd, &ev);  // no events
    accept_paused = true;
    resume_accept = SteadyClock::now() + milliseconds(100);
  }

  void AcceptAll() {
    for (;;) {
      sockaddr_storage peer{};
      socklen_t len = sizeof(peer);
      const int fd = accept4(listen_fd, reinterpret_cast<sockaddr*>(&peer), &len,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO) continue;
        PauseAccepting();  // EMFILE, ENFILE, ENOBUFS, ENOMEM: retry in 100 ms
        return;
      }
      Add(fd, peer);
    }
  }

  void Add(int fd, const sockaddr_storage& peer) {
    ++stats->accepted;
    if (conns.size() >= o.max_connections + kOverflow) {
      close(fd);
      ++stats->over_limit;
      return;
    }
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    auto conn = std::make_unique<Conn>();
    Conn* c = conn.get();
    c->fd = fd;
    Address(peer, &c->remote_ip, &c->remote_port);
    sockaddr_storage local{};
    socklen_t len = sizeof(local);
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0) {
      Address(local, &c->local_ip, &c->local_port);
    }
    conns.emplace(fd, std::move(conn));
    ++stats->open;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
    ev.data.fd = fd;
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev);
    if (conns.size() > o.max_connections) {
      ++stats->over_limit;
      return Refuse(c, {503, "unavailable", "too many open connections; retry later", ""});
    }
    Idle(c);
  }

  void Idle(Conn* c) {
    c->state = State::kIdle;
    c->deadline = SteadyClock::now() + milliseconds(o.idle_timeout_ms);
    Advance(c);
  }

  // Reads what the socket has. False when the connection is gone.
  bool Read(Conn* c) {
    char buf[64 << 10];
    for (;;) {
      // Enough buffered for this state: leave the rest in the socket.
      if (c->state != State::kLinger && c->in.size() > o.max_header_bytes + kPrebuffer) return true;
      const ssize_t n = recv(c->fd, buf, sizeof(buf), 0);
      if (n > 0) {
        if (c->state != State::kLinger) c->in.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }
  }

  // Moves a connection on after new input (or a request's end).
  void Advance(Conn* c) {
    if (c->state == State::kLinger) {
      c->in.clear();
      return Arm(c);
    }
    if (c->in.empty()) return Arm(c);
    const auto now = SteadyClock::now();
    if (c->state == State::kIdle) {
      c->state = State::kHead;
      c->deadline = now + milliseconds(o.header_timeout_ms);
      c->request_deadline = now + milliseconds(o.request_timeout_ms);
    }
    if (c->state == State::kHead) {
      RequestHead head;
      switch (ScanRequestHead(c->in, o.max_header_bytes, &head)) {
        case HeadScan::kIncomplete:
          return Arm(c);
        case HeadScan::kTooLarge:
          ++stats->refused;
          return Refuse(
              c, {431, "header_too_large",
                  "request line and headers over " + std::to_string(o.max_header_bytes) + " bytes",
                  ""});
        case HeadScan::kBad:
          ++stats->refused;
          return Refuse(c, {400, "bad_request", "malformed request head", ""});
        case HeadScan::kComplete:
          break;
      }
      if (auto r = admit(head)) {
        ++stats->refused;
        return Refuse(c, *r);
      }
      c->head_size = head.size + RelabelForm(c, head);
      c->body_length = head.content_length.value_or(0);
      c->chunked = head.chunked;
      c->state = State::kBody;
      c->deadline = c->request_deadline;
      if (head.chunked || head.expect_continue) return Dispatch(c);
    }
    const size_t want = c->head_size + std::min<uint64_t>(c->body_length, kPrebuffer);
    if (c->in.size() >= want) return Dispatch(c);
    Arm(c);
  }

  void Dispatch(Conn* c) {
    c->state = State::kBusy;
    ++busy;
    {
      base::MutexLock lock(mu);
      work.push_back(c);
    }
    cv.NotifyOne();
  }

  void OnEvent(int fd) {
    auto it = conns.find(fd);
    if (it == conns.end()) return;
    Conn* c = it->second.get();
    if (Read(c)) return Advance(c);
    // EOF or an error. A request that arrived whole before the peer's FIN
    // still runs (the peer may wait for the answer); anything else closes.
    if (c->state == State::kHead || c->state == State::kBody) Advance(c);
    if (conns.count(fd) && c->state != State::kBusy) Close(c);
  }

  void TakeReturned() {
    uint64_t n;
    (void)!::read(wake_fd, &n, sizeof(n));
    std::vector<Conn*> back;
    {
      base::MutexLock lock(mu);
      back.swap(returned);
    }
    for (Conn* c : back) {
      --busy;
      if (!c->keep || draining) {
        Close(c);
      } else {
        Idle(c);
      }
    }
  }

  void ScanTimeouts() {
    const auto now = SteadyClock::now();
    if (accept_paused && now >= resume_accept && !draining) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.fd = listen_fd;
      epoll_ctl(epoll_fd, EPOLL_CTL_MOD, listen_fd, &ev);
      accept_paused = false;
    }
    std::vector<Conn*> expired;
    for (auto& [fd, c] : conns) {
      if (c->state != State::kBusy && now >= c->deadline) expired.push_back(c.get());
    }
    for (Conn* c : expired) {
      if (c->state == State::kHead || c->state == State::kBody) {
        ++stats->timeouts;
        Refuse(c, {408, "request_timeout", "the request did not arrive in time", ""});
      } else {
        Close(c);  // idle keep-alive, or done lingering
      }
    }
  }

  // One request on a request thread.
  void Serve(Conn* c) {
    const size_t limit = c->chunked ? RequestStream::kUnbounded : c->head_size + c->body_length;
    RequestStream strm(*c, limit, c->request_deadline, o.write_timeout_ms);
    const bool last = ++c->requests >= o.keep_alive_max_requests || draining;
    bool closed = false;
    const bool ok = http->ProcessRequest(strm, last, closed);
    const bool whole = c->chunked || strm.consumed() >= limit;
    c->in.erase(0, strm.consumed());
    c->keep = ok && !closed && !last && !strm.failed() && whole;
    if (strm.timed_out()) ++stats->timeouts;
  }

  void WorkerLoop() {
    for (;;) {
      Conn* c;
      {
        base::MutexLock lock(mu);
        while (work.empty() && !workers_exit) cv.Wait(lock);
        if (work.empty()) return;
        c = work.front();
        work.pop_front();
      }
      Serve(c);
      {
        base::MutexLock lock(mu);
        returned.push_back(c);
      }
      Wake();
    }
  }

  // Stop: no new connections, close all but the busy ones, wait for those.
  void Drain() {
    draining = true;
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, listen_fd, nullptr);
    close(listen_fd);
    listen_fd = -1;
    std::vector<Conn*> idle;
    for (auto& [fd, c] : conns) {
      if (c->state != State::kBusy) idle.push_back(c.get());
    }
    for (Conn* c : idle) Close(c);
    epoll_event events[16];
    while (busy > 0) {
      const int n = epoll_wait(epoll_fd, events, 16, 100);
      for (int i = 0; i < n; ++i) {
        if (events[i].data.fd == wake_fd) TakeReturned();
      }
    }
    {
      base::MutexLock lock(mu);
      workers_exit = true;
    }
    cv.NotifyAll();
    for (auto& t : workers) t.join();
    workers.clear();
  }

  Status Loop() {
    epoll_event events[256];
    auto next_scan = SteadyClock::now();
    while (!stop) {
      const int n = epoll_wait(epoll_fd, events, 256, 50);
      if (n < 0 && errno != EINTR) return Status::IOError("epoll_wait failed");
      for (int i = 0; i < n; ++i) {
        const int fd = events[i].data.fd;
        if (fd == listen_fd) {
          AcceptAll();
        } else if (fd == wake_fd) {
          TakeReturned();
        } else {
          OnEvent(fd);
        }
      }
      if (SteadyClock::now() >= next_scan) {
        ScanTimeouts();
        next_scan = SteadyClock::now() + kScanInterval;
      }
    }
    return Status::OK();
  }
};

ConnectionServer::ConnectionServer(HttpServer* http, ConnectionOptions options, Admit admit,
                                   ConnectionStats* stats)
    : impl_(std::make_unique<Impl>()) {
  impl_->http = http;
  impl_->o = options;
  impl_->admit = std::move(admit);
  impl_->stats = stats;
}

ConnectionServer::~ConnectionServer() = default;

Status ConnectionServer::Run(int fd) {
  Impl& m = *impl_;
  m.listen_fd = fd;
  if (listen(fd, SOMAXCONN) != 0) return Status::IOError("listen failed");
  m.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  m.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (m.epoll_fd < 0 || m.wake_fd < 0) return Status::IOError("cannot create the event loop");
  const int flags = fcntl(fd, F_GETFL, 0);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  for (int wfd : {fd, m.wake_fd}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = wfd;
    epoll_ctl(m.epoll_fd, EPOLL_CTL_ADD, wfd, &ev);
  }
  for (int i = 0; i < std::max(1, m.o.threads); ++i) {
    m.workers.emplace_back([&m] { m.WorkerLoop(); });
  }
  Status s = m.Loop();
  m.Drain();
  close(m.epoll_fd);
  close(m.wake_fd);
  m.epoll_fd = m.wake_fd = -1;
  return s;
}

void ConnectionServer::Stop() { impl_->stop = true; }  // the loop sees it within 50 ms

}  // namespace neardup::server
