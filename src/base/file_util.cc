// SPDX-License-Identifier: Apache-2.0
#include "base/file_util.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "base/atomic_file.h"

namespace neardup::base {

Status ReadWholeFile(const std::string& path, std::string* out) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    const std::string why = path + ": " + std::strerror(errno);
    return errno == ENOENT ? Status::NotFound(why) : Status::IOError(why);
  }
  out->clear();
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && st.st_size > 0) out->reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return Status::IOError(path + ": read failed");
  return Status::OK();
}

Status AtomicWrite(const std::string& path, std::string_view data) {
  std::error_code ec;
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  NEARDUP_ASSIGN_OR_RETURN(auto file, AtomicFile::Create(path));
  NEARDUP_RETURN_IF_ERROR(file->Append(data));
  return file->Commit();
}

Result<std::string> FileIdentity(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return Status::IOError(path + ": " + std::strerror(errno));
  std::error_code ec;
  std::string abs = std::filesystem::absolute(path, ec).string();
  if (ec) abs = path;
  const int64_t mtime_ns =
      static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return abs + "|" + std::to_string(st.st_size) + "|" + std::to_string(mtime_ns);
}

std::string_view TrimAscii(std::string_view s) {
  if (s.size() >= 3 && s.substr(0, 3) == "\xEF\xBB\xBF") s.remove_prefix(3);
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
  };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace neardup::base
