// SPDX-License-Identifier: Apache-2.0
#include "server/console.h"

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

void SetIfMissing(Response& res, const char* key, const char* value) {
  if (!res.HasHeader(key)) res.SetHeader(key, value);
}

// Serves `file`, or 304 when the client holds this version.
void Serve(const EmbeddedFile& file, const std::string& etag, const Request& req, Response& res) {
  res.SetHeader("Content-Security-Policy", kConsoleCsp);
  res.SetHeader("Cache-Control", "no-cache");
  res.SetHeader("ETag", etag);
  if (req.Header("If-None-Match") == etag) {
    res.status = 304;
    return;
  }
  res.status = 200;
  res.SetContent(std::string(file.data), ContentType(file.path));
}

}  // namespace

void RegisterConsole(Router& router) {
  for (const EmbeddedFile& file : ConsoleFiles()) {
    const std::string etag = ETag(file.data);
    auto handler = [&file, etag](const Request& req, Response& res) {
      Serve(file, etag, req, res);
    };
    router.Add({"GET", "/console/" + std::string(file.path), "console", handler});
    if (file.path == "index.html") router.Add({"GET", "/", "console", handler});
  }
}

void AddSecurityHeaders(Response& res) {
  SetIfMissing(res, "Content-Security-Policy", kApiCsp);
  SetIfMissing(res, "X-Content-Type-Options", "nosniff");
  SetIfMissing(res, "X-Frame-Options", "DENY");
  SetIfMissing(res, "Referrer-Policy", "no-referrer");
}

}  // namespace neardup::server
