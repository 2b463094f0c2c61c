// SPDX-License-Identifier: Apache-2.0
#include "server/console.h"

#include <chrono>
#include <cstdio>
#include <string>

#include "server/console_assets.h"

namespace neardup::server {
namespace {

std::string_view ContentType(std::string_view path) {
  auto ends = [&](std::string_view ext) {
    return path.size() >= ext.size() && path.substr(path.size() - ext.size()) == ext;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js") || ends(".mjs")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".png")) return "image/png";
  return "application/octet-stream";
}

// A strong validator: FNV-1a 64 of the bytes.
std::string ETag(std::string_view data) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : data) h = (h ^ c) * 1099511628211ull;
  char buf[24];
  std::snprintf(buf, sizeof(buf), "\"%016llx\"", static_cast<unsigned long long>(h));
  return buf;
}

void SetIfMissing(httplib::Response& res, const char* key, const char* value) {
  if (!res.has_header(key)) res.set_header(key, value);
}

// Serves `file`, or 304 when the client holds this version.
void Serve(const EmbeddedFile& file, const std::string& etag, const httplib::Request& req,
           httplib::Response& res) {
  res.set_header("Content-Security-Policy", kConsoleCsp);
  res.set_header("Cache-Control", "no-cache");
  res.set_header("ETag", etag);
  if (req.get_header_value("If-None-Match") == etag) {
    res.status = 304;
    return;
  }
  res.status = 200;
  res.set_content(std::string(file.data), std::string(ContentType(file.path)));
}

}  // namespace

void RegisterConsole(httplib::Server& http, RequestMetrics& metrics) {
  for (const EmbeddedFile& file : ConsoleFiles()) {
    const std::string etag = ETag(file.data);
    auto handler = [&file, etag, &metrics](const httplib::Request& req, httplib::Response& res) {
      const auto start = std::chrono::steady_clock::now();
      Serve(file, etag, req, res);
      metrics.Record(
          "console", res.status,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    };
    // Paths are plain file names and folders: no regex metacharacters but '.'.
    std::string pattern = "/console/";
    for (char c : file.path) {
      if (c == '.') pattern += '\\';
      pattern += c;
    }
    http.Get(pattern, handler);
    if (file.path == "index.html") http.Get("/", handler);
  }
  http.set_post_routing_handler([](const httplib::Request&, httplib::Response& res) {
    SetIfMissing(res, "Content-Security-Policy", kApiCsp);
    SetIfMissing(res, "X-Content-Type-Options", "nosniff");
    SetIfMissing(res, "X-Frame-Options", "DENY");
    SetIfMissing(res, "Referrer-Policy", "no-referrer");
  });
}

}  // namespace neardup::server
