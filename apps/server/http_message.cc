// SPDX-License-Identifier: Apache-2.0
// Requests and responses (http_message.h).
#include "server/http_message.h"

namespace neardup::server {

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x + 32);
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y + 32);
    if (x != y) return false;
  }
  return true;
}

std::string_view TrimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string_view FindHeader(const std::vector<HeaderField>& fields, std::string_view name) {
  for (const HeaderField& f : fields) {
    if (EqualsNoCase(f.name, name)) return f.value;
  }
  return {};
}

bool Request::HasHeader(std::string_view name) const {
  for (const HeaderField& f : headers) {
    if (EqualsNoCase(f.name, name)) return true;
  }
  return false;
}

bool Request::HasParam(std::string_view name) const {
  for (const auto& [k, v] : params) {
    if (k == name) return true;
  }
  return false;
}

std::string Request::Param(std::string_view name) const {
  for (const auto& [k, v] : params) {
    if (k == name) return v;
  }
  return {};
}

void Response::SetContent(std::string content, std::string_view type) {
  body = std::move(content);
  SetHeader("Content-Type", std::string(type));
}

void Response::SetHeader(std::string_view name, std::string value) {
  for (HeaderField& f : headers) {
    if (EqualsNoCase(f.name, name)) {
      f.value = std::move(value);
      return;
    }
  }
  headers.push_back({std::string(name), std::move(value)});
}

bool Response::HasHeader(std::string_view name) const {
  for (const HeaderField& f : headers) {
    if (EqualsNoCase(f.name, name)) return true;
  }
  return false;
}

std::string_view ReasonPhrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 204:
      return "No Content";
    case 304:
      return "Not Modified";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 421:
      return "Misdirected Request";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    case 507:
      return "Insufficient Storage";
    default:
      return "";
  }
}

}  // namespace neardup::server
