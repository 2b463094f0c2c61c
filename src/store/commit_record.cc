// SPDX-License-Identifier: Apache-2.0
// CommitRecord (commit_record.h): one line of fixed width, checked by a
// 64-bit FNV-1a hash of the text before it.
#include "store/commit_record.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace neardup::store {
namespace {

constexpr size_t kSize = 64;  // "c1 " + 2 x 20 digits + 16 hex + separators

uint64_t Fnv1a(const char* p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<uint8_t>(p[i]);
    h *= 1099511628211ULL;
  }
  return h;
}

std::string Format(const Committed& c) {
  char body[kSize];
  const int n = std::snprintf(body, sizeof(body), "c1 %020" PRIu64 " %020" PRIu64 " ", c.sequence,
                              c.next_node);
  char sum[24];
  std::snprintf(sum, sizeof(sum), "%016" PRIx64 "\n", Fnv1a(body, static_cast<size_t>(n)));
  return std::string(body) + sum;
}

std::string PathOf(const std::string& dir) { return dir + "/" + CommitRecord::kFileName; }

}  // namespace

Status CheckAcknowledged(const std::string& dir, const std::optional<Committed>& committed,
                         uint64_t recovered) {
  if (!committed || recovered >= committed->sequence) return Status::OK();
  return Status::Corruption(
      "store " + dir + " is damaged: write " + std::to_string(committed->sequence) +
      " was acknowledged, but the store recovers writes up to " + std::to_string(recovered) +
      " only: the write-ahead log (*.log) that held the later ones is missing or cut short, or "
      "the MANIFEST has lost track of the table files (*.sst) that did");
}

Result<std::optional<Committed>> CommitRecord::Read(const std::string& dir) {
  const std::string path = PathOf(dir);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    if (errno == ENOENT) return std::optional<Committed>();
    return Status::IOError("cannot read " + path + ": " + std::strerror(errno));
  }
  char buf[kSize + 8];
  const size_t n = std::fread(buf, 1, sizeof(buf), f);
  std::fclose(f);
  const std::string text(buf, n);
  Committed c;
  uint64_t sum = 0;
  const auto bad = Status::Corruption(path + " (the record of the last acknowledged write) is " +
                                      "damaged: '" + text.substr(0, 80) + "'");
  if (n < 45 || std::sscanf(text.c_str(), "c1 %20" SCNu64 " %20" SCNu64 " %16" SCNx64, &c.sequence,
                            &c.next_node, &sum) != 3) {
    return bad;
  }
  if (Format(c) != text) return bad;
  return std::optional<Committed>(c);
}

CommitRecord::~CommitRecord() { Close(); }

Status CommitRecord::Open(const std::string& dir) {
  Close();
  const std::string path = PathOf(dir);
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) return Status::IOError("cannot open " + path + ": " + std::strerror(errno));
  return Status::OK();
}

Status CommitRecord::Update(const Committed& c) {
  if (fd_ < 0) return Status::IOError("the commit record is not open");
  const std::string line = Format(c);
  if (::pwrite(fd_, line.data(), line.size(), 0) != static_cast<ssize_t>(line.size())) {
    return Status::IOError(std::string("cannot write the commit record: ") + std::strerror(errno));
  }
  return Status::OK();
}

void CommitRecord::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace neardup::store
