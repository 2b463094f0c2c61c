// SPDX-License-Identifier: Apache-2.0
#include "batch/input.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <random>
#include <thread>
#include <vector>

#include "batch/spill_file.h"

namespace neardup::batch {
namespace {

std::string WriteFile(TempDir* dir, const std::string& name, const std::string& data) {
  const std::string path = dir->File(name);
  std::ofstream(path, std::ios::binary) << data;
  return path;
}

// Reads every chunk; returns the lines (without '\n') in order.
std::vector<std::string> ReadAll(std::vector<InputFile>* files, LineTable* lines, size_t chunk) {
  ChunkReader reader(files, lines, chunk);
  std::vector<std::string> out;
  Chunk c;
  uint64_t expected_first = 0;
  while (true) {
    auto more = reader.Next(&c);
    EXPECT_TRUE(more.ok());
    if (!*more) break;
    EXPECT_EQ(c.first_line, expected_first);
    EXPECT_GE(c.buf.size(), c.size + ChunkReader::kPadding);
    uint64_t n = 0;
    for (size_t pos = 0; pos < c.size; ++n) {
      size_t end = std::string_view(c.buf.data(), c.size).find('\n', pos);
      if (end == std::string_view::npos) end = c.size;
      out.emplace_back(c.buf.data() + pos, end - pos);
      pos = end + 1;
    }
    EXPECT_EQ(n, c.lines);
    expected_first += n;
  }
  return out;
}

TEST(InputTest, ChunksHoldWholeLinesAndTheStoreRereadsThem) {
  auto dir = TempDir::Create("");
  ASSERT_TRUE(dir.ok());
  std::mt19937 rng(3);
  std::vector<std::string> want;
  std::string a, b;
  for (int i = 0; i < 500; ++i) {
    std::string line(rng() % (i == 250 ? 100000 : 300), 'a' + i % 26);  // one huge line
    if (i % 7 == 0) line += '\r';                                       // CRLF kept in the line
    if (i % 50 == 0) line.clear();                                      // blank lines count
    want.push_back(line);
    (i < 300 ? a : b) += line + "\n";
  }
  b.pop_back();  // the last line has no '\n'
  std::vector<std::string> names = {WriteFile(dir->get(), "a.jsonl", a),
                                    WriteFile(dir->get(), "b.jsonl", b)};
  for (size_t chunk : {size_t{4096}, size_t{1} << 20}) {
    auto files = OpenInputs(names, nullptr);
    ASSERT_TRUE(files.ok());
    LineTable lines;
    const auto got = ReadAll(&*files, &lines, chunk);
    ASSERT_EQ(got, want) << chunk;
    ASSERT_EQ(lines.size(), want.size());
    EXPECT_EQ((*files)[1].first_line, 300u);
    EXPECT_EQ((*files)[0].lines, 300u);
    InputTexts store;
    ASSERT_TRUE(store.Open(&*files, &lines).ok());
    for (uint64_t i = 0; i < want.size(); ++i) {
      const InputTexts::Line l = store.Get(i);
      ASSERT_EQ(l.text, want[i]) << i;
      EXPECT_EQ(l.file, i < 300 ? 0u : 1u);
      EXPECT_EQ(l.line_in_file, i < 300 ? i + 1 : i - 299);
      EXPECT_GE(l.readable, l.text.size());
    }
  }
}

TEST(InputTest, MissingFileIsNotFound) {
  auto files = OpenInputs({"/nonexistent/x.jsonl"}, nullptr);
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.status().code(), StatusCode::kNotFound);
  EXPECT_NE(files.status().message().find("/nonexistent/x.jsonl"), std::string::npos);
}

TEST(InputTest, LineTableStatesAndPayloads) {
  LineTable t(/*payloads=*/true);
  for (uint64_t i = 0; i < (1u << 20) + 5; ++i) t.Append(i * 3);  // crosses a segment
  t.set_state(1u << 20, kRecord);
  t.set_payload(1u << 20, 42);
  EXPECT_EQ(t.offset((1u << 20) + 4), ((1u << 20) + 4) * 3ull);
  EXPECT_EQ(t.state(1u << 20), kRecord);
  EXPECT_EQ(t.state(0), kBlank);
  EXPECT_EQ(t.payload(1u << 20), 42u);
}

// A rank's share: the table skips to its lines, holds only their offsets
// (and the lines before the skip), and keeps other lines' states and
// payloads in its side table.
TEST(InputTest, LineTableSkipsToARanksLines) {
  LineTable t(/*payloads=*/true);
  for (uint64_t i = 0; i < 3; ++i) t.Append(i * 10);  // an index's corpus
  t.StartAt((1u << 20) + 7);                          // past a whole segment
  for (uint64_t i = 0; i < 5; ++i) t.Append(1000 + i);
  EXPECT_EQ(t.size(), (1u << 20) + 12);
  EXPECT_TRUE(t.holds(2));
  EXPECT_FALSE(t.holds(3));
  EXPECT_TRUE(t.holds((1u << 20) + 7));
  EXPECT_FALSE(t.holds((1u << 20) + 12));
  EXPECT_EQ(t.offset((1u << 20) + 8), 1001u);
  t.set_state((1u << 20) + 8, kRecord);
  t.set_state(5, kSkipped);
  t.set_payload(5, 77);
  t.set_state((1u << 21) + 3, kRecord);  // a later rank's line
  EXPECT_EQ(t.state((1u << 20) + 8), kRecord);
  EXPECT_EQ(t.state(5), kSkipped);
  EXPECT_EQ(t.payload(5), 77u);
  EXPECT_EQ(t.state((1u << 21) + 3), kRecord);
  EXPECT_EQ(t.state(0), kBlank);
  EXPECT_EQ(t.remote_lines(), 2u);
  // Two segments (the corpus's and the rank's), not the three it spans.
  EXPECT_LT(t.MemoryBytes(), 3 * (size_t{1} << 20) * t.BytesPerLine());
  EXPECT_DEATH((void)t.offset(6), "another rank's line");
  EXPECT_DEATH((void)t.state(6), "never received");
}

// Files with blank lines, an empty file and a last line without '\n', cut
// into spans at random bytes: the spans' lines, read by ranged readers,
// are the whole input's, with its global ids and line numbers.
TEST(InputTest, SpansReadTheLinesOfTheWholeInput) {
  auto dir = TempDir::Create("");
  ASSERT_TRUE(dir.ok());
  std::mt19937 rng(5);
  std::vector<std::string> names;
  for (int f = 0; f < 4; ++f) {
    std::string data;
    const int lines = f == 2 ? 0 : 40 + static_cast<int>(rng() % 40);
    for (int i = 0; i < lines; ++i) {
      data += i % 9 == 0 ? "" : std::string(rng() % 200, static_cast<char>('a' + f));
      if (i + 1 < lines || f != 3) data += '\n';
    }
    names.push_back(WriteFile(dir->get(), "f" + std::to_string(f), data));
  }
  auto whole_files = OpenInputs(names, nullptr);
  ASSERT_TRUE(whole_files.ok());
  LineTable whole;
  const std::vector<std::string> want = ReadAll(&*whole_files, &whole, 4096);
  std::vector<uint64_t> base = {0};
  for (const InputFile& f : *whole_files) base.push_back(base.back() + f.size);
  for (int trial = 0; trial < 20; ++trial) {
    const int ranks = 1 + static_cast<int>(rng() % 6);
    std::vector<uint64_t> cuts = {0};
    for (int r = 1; r < ranks; ++r) cuts.push_back(rng() % (base.back() + 1));
    std::sort(cuts.begin(), cuts.end());
    cuts.push_back(UINT64_MAX);
    std::vector<uint64_t> starts;
    for (uint64_t c : cuts) {
      auto at = LineStartAtOrAfter(*whole_files, base, c);
      ASSERT_TRUE(at.ok());
      starts.push_back(*at);
    }
    ASSERT_EQ(starts.back(), base.back());
    std::vector<std::string> got;
    uint64_t line = 0;
    std::vector<uint64_t> in_file(whole_files->size(), 0);
    for (int r = 0; r < ranks; ++r) {
      auto counts = CountLines(*whole_files, base, starts[r], starts[r + 1]);
      ASSERT_TRUE(counts.ok());
      LineSpan span{starts[r], starts[r + 1], line, 1};
      size_t f0 = 0;
      while (f0 < whole_files->size() && base[f0 + 1] <= starts[r]) ++f0;
      if (f0 < whole_files->size()) span.first_line_in_file = in_file[f0] + 1;
      std::vector<InputFile> files = *whole_files;  // first_line, lines: the whole input's
      LineTable table;
      ChunkReader reader(&files, &table, 4096, span, base);
      Chunk c;
      uint64_t n = 0;
      while (true) {
        auto more = reader.Next(&c);
        ASSERT_TRUE(more.ok());
        if (!*more) break;
        EXPECT_EQ(c.first_line, line + n);
        EXPECT_EQ(c.first_line_in_file, line + n - (*whole_files)[c.file].first_line + 1);
        const std::string_view text(c.buf.data(), c.size);
        for (size_t pos = 0; pos < c.size; ++n) {
          const size_t end = std::min(text.find('\n', pos), c.size);
          got.emplace_back(text.substr(pos, end - pos));
          EXPECT_EQ(table.offset(line + n), whole.offset(line + n));
          pos = end + 1;
        }
      }
      uint64_t counted = 0;
      for (size_t f = 0; f < counts->size(); ++f)
        counted += (*counts)[f], in_file[f] += (*counts)[f];
      ASSERT_EQ(n, counted) << "rank " << r << " of " << ranks;
      if (n > 0) {  // the rank's texts read back, the last one too
        InputTexts store;
        ASSERT_TRUE(store.Open(&files, &table).ok());
        EXPECT_EQ(store.Get(line + n - 1).text, want[line + n - 1]);
        EXPECT_EQ(store.Get(line).text, want[line]);
      }
      line += n;
    }
    EXPECT_EQ(got, want) << "trial " << trial;
  }
}

TEST(TempDirTest, RemovedWithItsFiles) {
  std::string path;
  {
    auto dir = TempDir::Create("");
    ASSERT_TRUE(dir.ok());
    path = (*dir)->path();
    WriteFile(dir->get(), "x", std::string(10000, 'x'));
    EXPECT_GE((*dir)->DiskBytes(), 10000u);
  }
  struct stat st;
  EXPECT_NE(stat(path.c_str(), &st), 0);
  auto bad = TempDir::Create("/nonexistent-parent");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("/nonexistent-parent"), std::string::npos);
}

// Only the signal handler's removal needs a flat directory; the destructor
// removes nested ones too (tests keep rank work trees in a TempDir), and
// leaves no renamed "<path>.dying" behind.
TEST(TempDirTest, RemovedWithNestedDirectories) {
  std::string path;
  {
    auto dir = TempDir::Create("");
    ASSERT_TRUE(dir.ok());
    path = (*dir)->path();
    ASSERT_EQ(mkdir((path + "/work").c_str(), 0700), 0);
    ASSERT_EQ(mkdir((path + "/work/rank-0-of-1").c_str(), 0700), 0);
    WriteFile(dir->get(), "work/rank-0-of-1/keys.run", "k");
    WriteFile(dir->get(), "top", "t");
  }
  struct stat st;
  EXPECT_NE(stat(path.c_str(), &st), 0);
  EXPECT_NE(stat((path + ".dying").c_str(), &st), 0);
}

TEST(TempDirTest, RemovedWhenTheProcessIsKilled) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    InstallCleanupHandlers();
    auto dir = TempDir::Create("");
    if (!dir.ok()) _exit(3);
    WriteFile(dir->get(), "spill.run", "data");
    const std::string& p = (*dir)->path();
    if (write(fds[1], p.data(), p.size()) < 0) _exit(4);
    close(fds[1]);
    pause();  // killed by SIGTERM below
    _exit(0);
  }
  close(fds[1]);
  char buf[4096];
  const ssize_t n = read(fds[0], buf, sizeof buf);
  close(fds[0]);
  ASSERT_GT(n, 0);
  const std::string path(buf, static_cast<size_t>(n));
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  EXPECT_NE(stat(path.c_str(), &st), 0) << path << " survived SIGTERM";
}

// A child process creates a TempDir, starts `writers` threads that keep
// creating files in it, reports its path and waits; the parent sends `sig`
// (0: the child aborts itself, as std::terminate does). Returns the path and
// how the child died.
std::pair<std::string, int> KillChildWithTempDir(int sig, int writers) {
  int fds[2];
  if (pipe(fds) != 0) return {"", -1};
  const pid_t pid = fork();
  if (pid == 0) {
    InstallCleanupHandlers();
    auto dir = TempDir::Create("");
    if (!dir.ok()) _exit(3);
    // Workers that keep spilling files into the directory, as the sketch
    // phase does, while the signal arrives.
    std::atomic<int> created{0};
    for (int w = 0; w < writers; ++w) {
      std::thread([&created, p = (*dir)->path(), w] {
        for (int i = 0;; ++i) {
          const std::string f = p + "/keys-" + std::to_string(w) + "-" + std::to_string(i) + ".run";
          const int fd = open(f.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
          if (fd >= 0) close(fd);
          created.fetch_add(1);
        }
      }).detach();
    }
    while (created.load() < 100 * writers) std::this_thread::yield();
    const std::string& p = (*dir)->path();
    if (write(fds[1], p.data(), p.size()) < 0) _exit(4);
    close(fds[1]);
    if (sig == 0) abort();
    for (;;) pause();  // killed below
  }
  close(fds[1]);
  char buf[4096];
  const ssize_t n = read(fds[0], buf, sizeof buf);
  close(fds[0]);
  if (n > 0 && sig != 0) kill(pid, sig);
  int status = 0;
  waitpid(pid, &status, 0);
  return {n > 0 ? std::string(buf, static_cast<size_t>(n)) : "", status};
}

// Spill files created by other threads while the handler empties the
// directory must not keep it alive (3 in about 70 kills did).
TEST(TempDirTest, RemovedWhenKilledWhileWorkersSpill) {
  for (int round = 0; round < 12; ++round) {
    for (int sig : {SIGTERM, SIGHUP, SIGINT}) {
      const auto [path, status] = KillChildWithTempDir(sig, 3);
      ASSERT_FALSE(path.empty());
      EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
      struct stat st;
      EXPECT_NE(stat(path.c_str(), &st), 0) << path << " survived signal " << sig;
      EXPECT_NE(stat((path + ".dying").c_str(), &st), 0) << path << ".dying survived " << sig;
      if (stat(path.c_str(), &st) == 0) {
        EXPECT_TRUE(RemoveFlatDir(path).ok());
      }
    }
  }
}

// An abort (std::terminate after an uncaught exception) removes it too.
TEST(TempDirTest, RemovedWhenTheProcessAborts) {
  const auto [path, status] = KillChildWithTempDir(0, 1);
  ASSERT_FALSE(path.empty());
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT) << status;
  struct stat st;
  EXPECT_NE(stat(path.c_str(), &st), 0) << path << " survived abort()";
  if (stat(path.c_str(), &st) == 0) {
    EXPECT_TRUE(RemoveFlatDir(path).ok());
  }
}

}  // namespace
}  // namespace neardup::batch
