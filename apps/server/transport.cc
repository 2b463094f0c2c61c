// SPDX-License-Identifier: Apache-2.0
// HttpTransport (transport.h): the listener, the connection limits, the
// worker pool and the graceful stop. Sessions are in session.cc.
#include "server/transport.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>

#include "base/parallel.h"
#include "server/transport_impl.h"

namespace neardup::server {
namespace {

constexpr auto kAcceptRetry = std::chrono::milliseconds(10);

int OpenSpare() { return ::open("/dev/null", O_RDONLY | O_CLOEXEC); }

bool OutOfResources(const boost::system::error_code& ec) {
  return ec == asio::error::no_descriptors || ec.value() == ENFILE ||
         ec == asio::error::no_buffer_space || ec == asio::error::no_memory;
}

// A whole 503 answer with Retry-After, for a socket that gets no session.
std::string BusyAnswer(const TransportHooks& hooks, const std::string& message) {
  Response res = hooks.render({503, "unavailable", message, {}});
  std::string bytes = "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\n";
  for (const HeaderField& f : res.headers) bytes += f.name + ": " + f.value + "\r\n";
  bytes += "Content-Length: " + std::to_string(res.body.size()) + "\r\n\r\n" + res.body;
  return bytes;
}

}  // namespace

HttpTransport::Impl::Impl(ConnectionOptions options, TransportHooks hooks, ConnectionStats* stats)
    : o(options), hooks(std::move(hooks)), stats(stats) {}

void HttpTransport::Impl::Accept() {
  acceptor.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
    if (draining || !acceptor.is_open()) return;
    if (ec) {
      if (OutOfResources(ec)) {
        ShedWithReserve();
        accept_retry.expires_after(kAcceptRetry);
        accept_retry.async_wait([this](const boost::system::error_code& e) {
          if (!e) Accept();
        });
        return;
      }
      return Accept();  // ECONNABORTED and the like: the next one
    }
    OnAccepted(std::move(socket));
    Accept();
  });
}

void HttpTransport::Impl::OnAccepted(tcp::socket socket) {
  ++stats->accepted;
  if (admitted < o.max_connections) {
    std::make_shared<Session>(this, std::move(socket), true)->Start();
    return;
  }
  // Over the limit: answered 503 all the same. Lingering costs a descriptor
  // for up to 2 s, so past a budget the answer goes out and the socket
  // closes at once.
  const std::string message = "too many open connections; retry later";
  if (refusing < std::max<size_t>(64, o.max_connections)) {
    std::make_shared<Session>(this, std::move(socket), false)->RefuseBusy(message);
    return;
  }
  ++stats->over_limit;
  const std::string bytes = BusyAnswer(hooks, message);
  (void)!::send(socket.native_handle(), bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

void HttpTransport::Impl::ShedWithReserve() {
  if (spare_fd >= 0) {
    ::close(spare_fd);
    spare_fd = -1;
  }
  for (;;) {
    const int fd = ::accept4(acceptor.native_handle(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) break;
    ++stats->accepted;
    ++stats->over_limit;
    const std::string bytes = BusyAnswer(hooks, "server out of file descriptors");
    (void)!::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    ::close(fd);
  }
  spare_fd = OpenSpare();
}

void HttpTransport::Impl::BeginStop() {
  if (draining) return;
  draining = true;
  boost::system::error_code ec;
  acceptor.close(ec);
  accept_retry.cancel();
  std::vector<std::shared_ptr<Session>> all;
  for (Session* s : sessions) all.push_back(s->shared_from_this());
  for (auto& s : all) s->Shutdown();
  all.clear();
  if (sessions.empty()) ioc.stop();
}

void HttpTransport::Impl::SessionGone(Session* s, bool was_admitted) {
  sessions.erase(s);
  --(was_admitted ? admitted : refusing);
  if (draining && sessions.empty()) ioc.stop();
}

void HttpTransport::Impl::Submit(Lane& lane, std::function<void()> job) {
  {
    std::lock_guard lock(lane.mu);
    lane.jobs.push_back(std::move(job));
  }
  lane.cv.notify_one();
}

void HttpTransport::Impl::WorkerLoop(Lane& lane) {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(lane.mu);
      lane.cv.wait(lock, [&] { return !lane.jobs.empty() || lane.exit; });
      if (lane.jobs.empty()) return;
      job = std::move(lane.jobs.front());
      lane.jobs.pop_front();
    }
    job();
  }
}

bool HttpTransport::Impl::StartWorkers(Lane& lane, int n) {
  for (int i = 0; i < n; ++i) {
    if (!base::TryAddThread(&lane.workers, [&lane] { WorkerLoop(lane); })) break;
  }
  return !lane.workers.empty();
}

void HttpTransport::Impl::StopWorkers(Lane& lane) {
  {
    std::lock_guard lock(lane.mu);
    lane.exit = true;
  }
  lane.cv.notify_all();
  for (auto& t : lane.workers) t.join();
  lane.workers.clear();
}

HttpTransport::HttpTransport(ConnectionOptions options, TransportHooks hooks,
                             ConnectionStats* stats)
    : impl_(std::make_unique<Impl>(options, std::move(hooks), stats)) {}

HttpTransport::~HttpTransport() = default;

Status HttpTransport::Bind(const std::string& host, int port) {
  Impl& m = *impl_;
  const std::string where =
      (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
  boost::system::error_code ec;
  tcp::resolver resolver(m.ioc);
  const auto results = resolver.resolve(
      host, std::to_string(port), tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || results.empty())
    return Status::IOError("cannot resolve " + where + ": " + ec.message());
  const tcp::endpoint endpoint = *results.begin();
  m.acceptor.open(endpoint.protocol(), ec);
  if (ec) return Status::IOError("cannot open a socket for " + where + ": " + ec.message());
  // SO_REUSEADDR lets a restart bind while old connections sit in
  // TIME_WAIT; it never lets two listeners share a port (SO_REUSEPORT
  // would, and is not set).
  m.acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  m.acceptor.bind(endpoint, ec);
  if (ec == asio::error::address_in_use) {
    return Status::IOError("cannot listen on " + where +
                           ": the address is already in use (another neardup serve?)");
  }
  if (ec) return Status::IOError("cannot bind " + where + ": " + ec.message());
  m.acceptor.listen(SOMAXCONN, ec);
  if (ec) return Status::IOError("cannot listen on " + where + ": " + ec.message());
  m.acceptor.native_non_blocking(true, ec);
  m.port = m.acceptor.local_endpoint(ec).port();
  return Status::OK();
}

int HttpTransport::port() const { return impl_->port; }

Status HttpTransport::Run() {
  Impl& m = *impl_;
  if (!m.acceptor.is_open()) return Status::IOError("Run() before a successful Bind()");
  m.spare_fd = OpenSpare();
  const bool started = Impl::StartWorkers(m.waiting, std::max(1, m.o.threads)) &&
                       Impl::StartWorkers(m.compute, base::ResolveThreads(m.o.compute_threads));
  if (!started) {
    Impl::StopWorkers(m.waiting);
    Impl::StopWorkers(m.compute);
    if (m.spare_fd >= 0) ::close(m.spare_fd);
    m.spare_fd = -1;
    return Status::ResourceExhausted("cannot start the request threads");
  }
  m.Accept();
  if (m.stop_requested) m.BeginStop();
  Status status = Status::OK();
  try {
    m.ioc.run();
  } catch (const std::exception& e) {
    status = Status::IOError(std::string("event loop failed: ") + e.what());
  }
  Impl::StopWorkers(m.waiting);
  Impl::StopWorkers(m.compute);
  if (m.spare_fd >= 0) ::close(m.spare_fd);
  m.spare_fd = -1;
  return status;
}

void HttpTransport::Stop() {
  impl_->stop_requested = true;
  asio::post(impl_->ioc, [m = impl_.get()] { m->BeginStop(); });
}

}  // namespace neardup::server
