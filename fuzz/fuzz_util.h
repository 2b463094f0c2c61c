// SPDX-License-Identifier: Apache-2.0
//
// Helpers shared by the libFuzzer targets of fuzz/ (docs/reliability.md):
// a check that aborts with a message (a finding), and an in-memory file for
// loaders that take a path.
#ifndef NEARDUP_FUZZ_FUZZ_UTIL_H_
#define NEARDUP_FUZZ_FUZZ_UTIL_H_

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

// Aborts when `cond` is false: the fuzzer saves the input as a crash.
#define FUZZ_CHECK(cond)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)

namespace neardup::fuzz {

// `data` as a file in memory (memfd), readable by path as /proc/self/fd/N
// for as long as the object lives.
class MemFile {
 public:
  explicit MemFile(std::string_view data) : fd_(memfd_create("neardup-fuzz", 0)) {
    FUZZ_CHECK(fd_ >= 0);
    size_t done = 0;
    while (done < data.size()) {
      const ssize_t n = write(fd_, data.data() + done, data.size() - done);
      FUZZ_CHECK(n > 0);
      done += static_cast<size_t>(n);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemFile() { close(fd_); }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;

  const std::string& path() const { return path_; }

 private:
  int fd_;
  std::string path_;
};

}  // namespace neardup::fuzz

#endif  // NEARDUP_FUZZ_FUZZ_UTIL_H_
