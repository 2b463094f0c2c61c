// SPDX-License-Identifier: Apache-2.0
//
// The web console's files, compiled into the binary: the table is generated
// at build time from apps/server/console/ by cmake/embed_files.cmake.
#ifndef NEARDUP_APPS_SERVER_CONSOLE_ASSETS_H_
#define NEARDUP_APPS_SERVER_CONSOLE_ASSETS_H_

#include <span>
#include <string_view>

namespace neardup::server {

struct EmbeddedFile {
  std::string_view path;  // relative to apps/server/console/, e.g. "app.js"
  std::string_view data;  // static storage
};

// Every file, sorted by path.
std::span<const EmbeddedFile> ConsoleFiles();

}  // namespace neardup::server

#endif  // NEARDUP_APPS_SERVER_CONSOLE_ASSETS_H_
