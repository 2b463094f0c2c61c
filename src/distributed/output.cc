// SPDX-License-Identifier: Apache-2.0
#include "distributed/output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

#include "base/status_macros.h"
#include "batch/temp_dir.h"

namespace neardup::distributed {
namespace {

Status Errno(const std::string& what) {
  return Status::IOError(what + ": " + std::strerror(errno));
}

std::string NameOf(const OutputTarget& t) {
  if (!t.name.empty()) return t.name;
  return t.path.empty() ? "<output>" : t.path;
}

// A share rendered into a file of its own (ranks other than 0).
struct Share {
  std::unique_ptr<batch::TempDir> dir;
  std::string path;
  uint64_t size = 0;
};

Status RenderShare(const OutputTarget& t, const std::function<Status(std::ostream&)>& render,
                   Share* share) {
  NEARDUP_ASSIGN_OR_RETURN(share->dir, batch::TempDir::Create(t.tmp_dir));
  share->path = share->dir->File("output");
  std::ofstream f(share->path, std::ios::binary | std::ios::trunc);
  if (!f) return Status::IOError(share->path + ": cannot create file");
  NEARDUP_RETURN_IF_ERROR(render(f));
  f.close();
  if (f.fail()) return Status::IOError(share->path + ": write failed (disk full?)");
  struct stat st;
  if (stat(share->path.c_str(), &st) != 0) return Errno(share->path);
  share->size = static_cast<uint64_t>(st.st_size);
  return Status::OK();
}

// Rank 0 renders straight into its output; its share's size is where the
// file stands then.
Status RenderFirst(const OutputTarget& t, const std::function<Status(std::ostream&)>& render,
                   uint64_t* size) {
  if (t.out == nullptr) return Status::OK();
  NEARDUP_RETURN_IF_ERROR(render(*t.out));
  t.out->flush();
  if (t.out->fail()) return Status::IOError(NameOf(t) + ": write failed (disk full?)");
  if (!t.path.empty()) {
    const std::streamoff at = t.out->tellp();
    if (at < 0) return Status::IOError(t.path + ": cannot tell the position");
    *size = static_cast<uint64_t>(at);
  }
  return Status::OK();
}

// Copies the share into `fd` at `offset`, 1 MiB at a time.
Status CopyAt(const Share& share, int fd, uint64_t offset, const std::string& path) {
  const int in = open(share.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return Errno(share.path);
  std::vector<char> buf(1 << 20);
  Status s;
  for (uint64_t done = 0; s.ok() && done < share.size;) {
    const ssize_t n = read(in, buf.data(), buf.size());
    if (n <= 0) {
      s = n < 0 ? Errno(share.path) : Status::IOError(share.path + ": shorter than written");
      break;
    }
    for (ssize_t w = 0; s.ok() && w < n;) {
      const ssize_t k = pwrite(fd, buf.data() + w, n - w, static_cast<off_t>(offset + done + w));
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) s = Errno(path);
      w += std::max<ssize_t>(k, 0);
    }
    done += static_cast<uint64_t>(n);
  }
  close(in);
  return s;
}

// Every rank but 0 writes its share into the file, at its offset (`path`:
// the output's name in messages).
Status WriteDirect(Comm& c, const std::string& path, int fd, const Share& share,
                   const std::vector<uint64_t>& sizes) {
  if (c.rank() == 0 || fd < 0) return Status::OK();
  uint64_t offset = 0;
  for (int r = 0; r < c.rank(); ++r) offset += sizes[r];
  Status s = CopyAt(share, fd, offset, path);
  if (s.ok() && fdatasync(fd) != 0) s = Errno(path);
  return s;
}

// The shares to rank 0, rank after rank, a round of at most round_bytes at
// a time; rank 0 appends them to its output.
Status Stream(Comm& c, const OutputTarget& t, const Share& share,
              const std::vector<uint64_t>& sizes) {
  const uint64_t round = std::max<uint64_t>(t.round_bytes, 4096);
  std::ifstream in;
  if (c.rank() > 0 && share.size > 0) in.open(share.path, std::ios::binary);
  Status s;
  std::vector<std::vector<uint8_t>> out(c.size());
  for (int r = 1; r < c.size(); ++r) {
    for (uint64_t done = 0; done < sizes[r]; done += round) {
      const uint64_t n = std::min(round, sizes[r] - done);
      out[0].clear();
      if (c.rank() == r) {
        out[0].resize(n);
        if (!in.read(reinterpret_cast<char*>(out[0].data()), static_cast<std::streamsize>(n))) {
          if (s.ok()) s = Status::IOError(share.path + ": read failed");
          std::fill(out[0].begin(), out[0].end(), 0);  // the round still goes out
        }
      }
      const std::vector<uint8_t> got = c.Exchange(out);
      if (c.rank() == 0 && t.out != nullptr) {
        t.out->write(reinterpret_cast<const char*>(got.data()),
                     static_cast<std::streamsize>(got.size()));
      }
    }
  }
  if (c.rank() == 0 && t.out != nullptr) {
    t.out->flush();
    if (t.out->fail()) s = Status::IOError(NameOf(t) + ": write failed (disk full?)");
  }
  return s;
}

}  // namespace

Status WriteInRankOrder(Comm& c, const OutputTarget& target,
                        const std::function<Status(std::ostream&)>& render, bool* direct) {
  Share share;
  uint64_t size = 0;
  Status s =
      c.rank() == 0 ? RenderFirst(target, render, &size) : RenderShare(target, render, &share);
  if (c.rank() > 0) size = share.size;
  NEARDUP_RETURN_IF_ERROR(Agree(c, s, 0));
  std::vector<uint64_t> sizes(c.size());
  {
    const std::vector<uint8_t> all = c.AllGather(AsBytes(std::vector<uint64_t>{size}));
    std::memcpy(sizes.data(), all.data(), sizes.size() * sizeof(uint64_t));
  }
  // Rank 0 names its file only when it is a regular one.
  std::string path = c.rank() == 0 && target.out != nullptr ? target.path : "";
  struct stat st;
  if (c.rank() == 0 && !path.empty() && (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))) {
    path.clear();
  }
  c.Broadcast(&path, 0);
  std::string name = c.rank() == 0 ? NameOf(target) : "";  // for messages
  c.Broadcast(&name, 0);
  int fd = -1;
  if (!path.empty() && c.rank() > 0 && size > 0) {
    fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
      close(fd);
      fd = -1;
    }
  }
  const bool can =
      !path.empty() && c.AllReduce(fd >= 0 || c.rank() == 0 || size == 0, ReduceOp::kMin) == 1;
  *direct = can;
  if (can) {
    s = WriteDirect(c, name, fd, share, sizes);
  } else {
    s = Stream(c, target, share, sizes);
  }
  if (fd >= 0 && close(fd) != 0 && s.ok()) s = Errno(name);
  return Agree(c, s, 0);
}

}  // namespace neardup::distributed
