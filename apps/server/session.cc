// SPDX-License-Identifier: Apache-2.0
// One connection of HttpTransport (transport_impl.h): a state machine on
// the event thread. kIdle waits for a request's first byte; kHead and kBody
// read it (Advance feeds the reader and admits the head); kBusy waits for a
// worker's answer; kWriting writes it; kLinger drains the peer's input
// after a final answer so the peer reads the answer instead of a reset.
#include <sys/socket.h>

#include <boost/asio/post.hpp>
#include <ctime>

#include "server/transport_impl.h"

namespace neardup::server {
namespace {

using std::chrono::milliseconds;

constexpr auto kLinger = milliseconds(2000);
constexpr size_t kReadPerWakeup = 256 << 10;  // fairness between connections
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

// "Tue, 25 Nov 2025 10:00:00 GMT" (RFC 9110 5.6.7).
std::string HttpDate() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[40];
  std::strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

void AppendField(std::string* out, std::string_view name, std::string_view value) {
  out->append(name);
  out->append(": ");
  for (char c : value) {
    if (c != '\r' && c != '\n') out->push_back(c);  // never split a header
  }
  out->append("\r\n");
}

bool HasBody(int status) { return status >= 200 && status != 204 && status != 304; }

LocalAddress LocalOf(const tcp::socket& socket) {
  boost::system::error_code ec;
  auto address = socket.local_endpoint(ec).address();
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    address = asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6());
  }
  return LocalAddress{address.to_string(), address.is_loopback()};
}

}  // namespace

Session::Session(HttpTransport::Impl* t, tcp::socket socket, bool admitted)
    : t_(t),
      socket_(std::move(socket)),
      timer_(t->ioc),
      admitted_(admitted),
      reader_({t->o.max_header_bytes, t->o.max_body_bytes}) {
  t_->sessions.insert(this);
  ++(admitted_ ? t_->admitted : t_->refusing);
  ++t_->stats->open;
  boost::system::error_code ec;
  socket_.set_option(tcp::no_delay(true), ec);
  socket_.non_blocking(true, ec);
  local_ = LocalOf(socket_);
}

Session::~Session() {
  ReleaseBudget();
  --t_->stats->open;
  t_->SessionGone(this, admitted_);
}

void Session::Start() {
  SetDeadline(Clock::now() + milliseconds(t_->o.idle_timeout_ms));
  WaitRead();
}

void Session::RefuseBusy(std::string message) {
  ++t_->stats->over_limit;
  Refuse(Refusal{503, "unavailable", std::move(message), {{"Retry-After", "1"}}});
}

void Session::Shutdown() {
  if (state_ != State::kBusy && state_ != State::kWriting) Close();
}

void Session::WaitRead() {
  if (reading_ || state_ == State::kClosed) return;
  reading_ = true;
  socket_.async_wait(tcp::socket::wait_read,
                     [self = shared_from_this()](const boost::system::error_code& ec) {
                       self->reading_ = false;
                       self->OnReadable(ec);
                     });
}

bool Session::ReadAvailable() {
  size_t total = 0;
  while (total < kReadPerWakeup) {
    boost::system::error_code ec;
    const size_t n = socket_.read_some(asio::buffer(t_->read_buffer), ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again) return true;
    if (ec) {
      peer_eof_ = true;
      return ec == asio::error::eof;
    }
    if (state_ != State::kLinger) reader_.Append({t_->read_buffer.data(), n});
    total += n;
  }
  return true;
}

void Session::OnReadable(const boost::system::error_code& ec) {
  if (ec || state_ == State::kClosed) return Close();
  if (state_ == State::kBusy || state_ == State::kWriting) return;  // read again later
  const bool ok = ReadAvailable();
  if (state_ == State::kLinger) return peer_eof_ ? Close() : WaitRead();
  if (!ok) return Close();  // a reset: nobody to answer
  Advance();
}

void Session::BeginRequest() {
  const auto now = Clock::now();
  state_ = State::kHead;
  request_deadline_ = now + milliseconds(t_->o.request_timeout_ms);
  SetDeadline(std::min(now + milliseconds(t_->o.header_timeout_ms), request_deadline_));
}

bool Session::Account() {
  const size_t now = reader_.body_bytes() + reader_.buffered();
  if (now > accounted_ && t_->buffered + (now - accounted_) > t_->o.max_buffered_bytes) {
    return false;
  }
  t_->buffered = t_->buffered + now - accounted_;
  accounted_ = now;
  return true;
}

void Session::ReleaseBudget() {
  t_->buffered -= accounted_;
  accounted_ = 0;
}

void Session::Advance() {
  for (;;) {
    const RequestReader::Step step = reader_.Next();
    if (state_ == State::kIdle && reader_.InRequest()) BeginRequest();
    switch (step) {
      case RequestReader::Step::kNeedMore:
        if (!Account()) {
          ++t_->stats->over_limit;
          return Refuse({503,
                         "unavailable",
                         "too many request bodies in memory; retry later",
                         {{"Retry-After", "1"}}});
        }
        if (peer_eof_) return Close();  // the rest will never come
        if (state_ == State::kBody && reader_.expects_continue() && !continue_sent_) {
          continue_sent_ = true;
          // The first bytes of an idle socket's send buffer: they always fit.
          if (::send(socket_.native_handle(), kContinue.data(), kContinue.size(), MSG_NOSIGNAL) !=
              static_cast<ssize_t>(kContinue.size())) {
            return Close();
          }
        }
        return WaitRead();
      case RequestReader::Step::kHead:
        if (auto r = t_->hooks.admit(reader_.head(), reader_, local_)) {
          ++t_->stats->refused;
          return Refuse(*r);
        }
        state_ = State::kBody;
        SetDeadline(request_deadline_);
        continue;
      case RequestReader::Step::kRequest:
        return Dispatch();
      case RequestReader::Step::kError:
        ++t_->stats->refused;
        return Refuse(reader_.error());
    }
  }
}

void Session::Dispatch() {
  state_ = State::kBusy;
  SetDeadline(Clock::time_point::max());
  Account();  // the body stays counted until its answer is written
  keep_ = reader_.keep_alive() && ++requests_ < t_->o.keep_alive_max_requests;
  continue_sent_ = false;
  Request req = reader_.TakeRequest();
  head_request_ = req.method == "HEAD";
  version_ = req.version;
  const bool waits = !t_->hooks.waits || t_->hooks.waits(req);
  t_->Submit(waits ? t_->waiting : t_->compute,
             [self = shared_from_this(), req = std::move(req)]() mutable {
               Response res;
               try {
                 res = self->t_->hooks.handle(req);
               } catch (...) {
                 res = self->t_->hooks.render({500, "internal", "unexpected error", {}});
               }
               // The answer goes back to the event thread with the last reference this
               // worker holds: a session must never be destroyed on a worker, since
               // its destructor updates the transport's event-thread state.
               auto& ioc = self->t_->ioc;
               asio::post(ioc, [self = std::move(self), res = std::move(res)]() mutable {
                 self->Deliver(std::move(res));
               });
             });
}

void Session::Deliver(Response res) {
  if (state_ != State::kBusy) return;
  const bool keep = keep_ && !t_->draining && !peer_eof_;
  std::string head = "HTTP/1.1 " + std::to_string(res.status) + " ";
  head.append(ReasonPhrase(res.status));
  head.append("\r\n");
  for (const HeaderField& f : res.headers) AppendField(&head, f.name, f.value);
  if (HasBody(res.status)) AppendField(&head, "Content-Length", std::to_string(res.body.size()));
  AppendField(&head, "Date", HttpDate());
  if (keep) {
    if (version_ < 11) AppendField(&head, "Connection", "keep-alive");
    AppendField(&head, "Keep-Alive",
                "timeout=" + std::to_string(t_->o.idle_timeout_ms / 1000) +
                    ", max=" + std::to_string(t_->o.keep_alive_max_requests - requests_));
  } else {
    AppendField(&head, "Connection", "close");
  }
  head.append("\r\n");
  if (head_request_ || !HasBody(res.status)) res.body.clear();
  Write(std::move(head), std::move(res.body), keep);
}

void Session::Refuse(const Refusal& r) {
  Response res = t_->hooks.render(r);
  for (const HeaderField& f : r.headers) res.SetHeader(f.name, f.value);
  state_ = State::kBusy;
  keep_ = false;
  head_request_ = false;
  Deliver(std::move(res));
}

void Session::Write(std::string head, std::string body, bool keep) {
  state_ = State::kWriting;
  out_head_ = std::move(head);
  out_body_ = std::move(body);
  out_done_ = 0;
  keep_ = keep;
  WriteSome();
}

void Session::WriteSome() {
  const size_t total = out_head_.size() + out_body_.size();
  if (out_done_ == total) return OnWritten(keep_);
  SetDeadline(Clock::now() + milliseconds(t_->o.write_timeout_ms));  // since the last progress
  std::array<asio::const_buffer, 2> buffers;
  if (out_done_ < out_head_.size()) {
    buffers = {asio::buffer(out_head_.data() + out_done_, out_head_.size() - out_done_),
               asio::buffer(out_body_)};
  } else {
    const size_t at = out_done_ - out_head_.size();
    buffers = {asio::buffer(out_body_.data() + at, out_body_.size() - at), asio::const_buffer()};
  }
  socket_.async_write_some(
      buffers, [self = shared_from_this()](const boost::system::error_code& ec, size_t n) {
        if (ec || self->state_ != State::kWriting) return self->Close();
        self->out_done_ += n;
        self->WriteSome();
      });
}

void Session::OnWritten(bool keep) {
  out_head_.clear();
  out_body_.clear();
  ReleaseBudget();
  if (!keep) return Linger();
  state_ = State::kIdle;
  SetDeadline(Clock::now() + milliseconds(t_->o.idle_timeout_ms));
  Advance();  // a pipelined request may be buffered already
}

void Session::Linger() {
  if (t_->draining) return Close();
  boost::system::error_code ec;
  socket_.shutdown(tcp::socket::shutdown_send, ec);
  state_ = State::kLinger;
  SetDeadline(Clock::now() + kLinger);
  WaitRead();
}

void Session::SetDeadline(Clock::time_point when) {
  deadline_ = when;
  if (timer_armed_ && timer_.expiry() <= when) return;  // fires first, then re-arms
  timer_.expires_at(when);
  timer_armed_ = true;
  timer_.async_wait([self = shared_from_this(), g = ++timer_generation_](
                        const boost::system::error_code& ec) { self->OnTimer(ec, g); });
}

void Session::OnTimer(const boost::system::error_code& ec, uint64_t generation) {
  if (generation != timer_generation_ || state_ == State::kClosed) return;
  timer_armed_ = false;
  if (ec) return;
  if (Clock::now() < deadline_) return SetDeadline(deadline_);
  OnTimeout();
}

void Session::OnTimeout() {
  switch (state_) {
    case State::kHead:
    case State::kBody:
      ++t_->stats->timeouts;
      return Refuse({408, "request_timeout", "the request did not arrive in time", {}});
    case State::kBusy:
      return;  // no deadline while a worker runs the request
    default:
      return Close();  // idle keep-alive, a stalled write, or done lingering
  }
}

void Session::Close() {
  if (state_ == State::kClosed) return;
  state_ = State::kClosed;
  boost::system::error_code ec;
  socket_.close(ec);
  timer_.cancel();
  ReleaseBudget();
}

}  // namespace neardup::server
