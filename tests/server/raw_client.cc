// SPDX-License-Identifier: Apache-2.0
#include "server/raw_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace neardup::testing {

RawClient::RawClient(int port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ok_ = connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
}

RawClient::~RawClient() { close(fd_); }

bool RawClient::Send(std::string_view s) {
  return send(fd_, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size());
}

std::string RawClient::ReadAll(int timeout_ms) {
  std::string out = std::move(pending_);
  pending_.clear();
  char buf[4096];
  pollfd p{fd_, POLLIN, 0};
  while (poll(&p, 1, timeout_ms) > 0) {
    const ssize_t n = recv(fd_, buf, sizeof(buf), 0);
    if (n <= 0) {
      closed_ = true;
      break;
    }
    out.append(buf, n);
  }
  return out;
}

std::string RawClient::ReadResponse(int timeout_ms) {
  std::string out = std::move(pending_);
  pending_.clear();
  char buf[4096];
  pollfd p{fd_, POLLIN, 0};
  for (;;) {
    const size_t end = out.find("\r\n\r\n");
    if (end != std::string::npos) {
      const size_t cl = out.find("Content-Length: ");
      const size_t len = cl == std::string::npos || cl > end ? 0 : std::stoul(out.substr(cl + 16));
      if (out.size() >= end + 4 + len) {
        pending_ = out.substr(end + 4 + len);
        out.resize(end + 4 + len);
        return out;
      }
    }
    if (poll(&p, 1, timeout_ms) <= 0) return out;
    const ssize_t n = recv(fd_, buf, sizeof(buf), 0);
    if (n <= 0) {
      closed_ = true;
      return out;
    }
    out.append(buf, n);
  }
}

int StatusOf(const std::string& response) {
  if (response.size() < 12 || response.compare(0, 9, "HTTP/1.1 ") != 0) return 0;
  return std::stoi(response.substr(9, 3));
}

nlohmann::json BodyOf(const std::string& response) {
  const size_t end = response.find("\r\n\r\n");
  if (end == std::string::npos) return nlohmann::json();
  return nlohmann::json::parse(response.substr(end + 4), nullptr, false);
}

std::string HeaderOf(const std::string& response, const std::string& name) {
  const size_t end = response.find("\r\n\r\n");
  const std::string key = "\r\n" + name + ": ";
  const size_t at = response.find(key);
  if (at == std::string::npos || at > end) return "";
  const size_t from = at + key.size();
  return response.substr(from, response.find("\r\n", from) - from);
}

std::string Get(const std::string& path, const std::string& extra) {
  return "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra + "\r\n";
}

}  // namespace neardup::testing
