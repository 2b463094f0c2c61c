// SPDX-License-Identifier: Apache-2.0
// RequestStream (connection.h): a request's reads and writes on a
// non-blocking socket, with deadlines.
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "server/connection.h"

namespace neardup::server {
namespace {

int MillisUntil(SteadyClock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(left, 0, 1 << 30));
}

// poll() for `events`, retrying on EINTR: 1 ready, 0 timeout, -1 error.
int Wait(int fd, short events, int timeout_ms) {
  pollfd p{fd, events, 0};
  for (;;) {
    const int r = poll(&p, 1, timeout_ms);
    if (r >= 0 || errno != EINTR) return r > 0 ? 1 : r;
  }
}

}  // namespace

bool RequestStream::is_readable() const {
  return consumed_ < conn_.in.size() || Wait(conn_.fd, POLLIN, 0) > 0;
}

bool RequestStream::is_writable() const { return Wait(conn_.fd, POLLOUT, write_timeout_ms_) > 0; }

bool RequestStream::Fill() {
  char buf[64 << 10];
  for (;;) {
    const ssize_t n = recv(conn_.fd, buf, sizeof(buf), 0);
    if (n > 0) {
      conn_.in.append(buf, static_cast<size_t>(n));
      return true;
    }
    if (n == 0) return false;  // EOF
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      failed_ = true;
      return false;
    }
    const int ready = Wait(conn_.fd, POLLIN, MillisUntil(deadline_));
    if (ready <= 0) {
      failed_ = true;
      timed_out_ = ready == 0;
      return false;
    }
  }
}

ssize_t RequestStream::read(char* ptr, size_t size) {
  if (consumed_ >= limit_) return 0;  // the request ends here
  size = std::min(size, limit_ - consumed_);
  if (consumed_ == conn_.in.size() && !Fill()) return failed_ ? -1 : 0;
  const size_t n = std::min(size, conn_.in.size() - consumed_);
  std::memcpy(ptr, conn_.in.data() + consumed_, n);
  consumed_ += n;
  return static_cast<ssize_t>(n);
}

ssize_t RequestStream::write(const char* ptr, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = send(conn_.fd, ptr + done, size - done, MSG_NOSIGNAL);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
        Wait(conn_.fd, POLLOUT, write_timeout_ms_) > 0) {
      continue;
    }
    failed_ = true;
    return -1;
  }
  return static_cast<ssize_t>(size);
}

void RequestStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  ip = conn_.remote_ip;
  port = conn_.remote_port;
}

void RequestStream::get_local_ip_and_port(std::string& ip, int& port) const {
  ip = conn_.local_ip;
  port = conn_.local_port;
}

}  // namespace neardup::server
