// SPDX-License-Identifier: Apache-2.0
//
// The input side of batch dedup:
//
//   InputFiles   the JSONL files of a run; standard input ("-") is first
//                spooled to a file in the TempDir so every record can be
//                re-read by offset;
//   LineTable    per input line (a dense id over all files): its byte offset
//                and a state byte (blank, record, skipped), plus an optional
//                64-bit payload and optional key bytes (one byte of each
//                bucket key slot, for the pair filter); segmented, so it
//                grows without copying and workers may write states of
//                lines already allocated. An MPI rank holds only its own
//                lines (StartAt skips to them; segments are allocated as
//                lines are appended) and, in a small side table, the state
//                and payload of the other ranks' lines it was told about;
//   ChunkReader  reads the files front to back with pread(2) in chunks of
//                whole lines (a longer line grows its chunk), recording line
//                offsets; chunks end with simdjson's padding; or only a
//                LineSpan of them (an MPI rank's lines);
//   InputTexts   random access to a line by id: read with pread(2) into the
//                caller's buffer (Read), or through the files memory-mapped
//                (Get), with the mapped pages dropped from the process every
//                24 MB touched (madvise MADV_DONTNEED; the page cache keeps
//                them), so resident memory stays bounded.
//
// Memory: 9 bytes per line in the LineTable (17 with payloads), plus the
// key-byte width when enabled; about 48 bytes per line in its side table.
// Thread safety: LineTable appends from one thread; states/payloads of
// allocated lines from any thread (distinct lines); the side table is
// written from one thread while no other reads it; MemoryBytes() from any
// thread. InputTexts is read-only and thread-safe after Open().
#ifndef NEARDUP_BATCH_INPUT_H_
#define NEARDUP_BATCH_INPUT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status_macros.h"
#include "batch/line_source.h"
#include "batch/temp_dir.h"
#include "neardup/status.h"

namespace neardup::batch {

struct InputFile {
  std::string name;  // for messages: the path, or "<stdin>"
  std::string path;  // the file read (a spool file for stdin)
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  uint64_t first_line = 0;  // global id of its first line (set while reading)
  uint64_t lines = 0;
  // Names its records without an id (batch::RecordPlace): empty for line
  // numbers; the file's name when the run reads several files.
  std::string id_file;
};

// Resolves the names: "-" (or none) is stdin, spooled into `tmp` as it is
// read. Errors: NotFound / IOError naming the file; IOError when the spool
// fills the disk.
Result<std::vector<InputFile>> OpenInputs(const std::vector<std::string>& names, TempDir* tmp);

// An estimate of the lines of `files` (total bytes over the mean length of
// the first MiB's lines); 0 for empty input. Reads only that MiB.
uint64_t EstimateLines(const std::vector<InputFile>& files);

enum LineState : uint8_t { kBlank = 0, kRecord = 1, kSkipped = 2 };

class LineTable {
 public:
  explicit LineTable(bool payloads = false);
  ~LineTable();

  // Appends a line starting at `offset` of its file (reader thread only).
  void Append(uint64_t offset);
  // The next Append is line `line` (>= size()): the lines in between, like
  // those from size() on, are other ranks'. Their offsets must not be read
  // (that aborts); their states and payloads may be set and read (the side
  // table; reading one never set aborts). Once, before the first Append.
  void StartAt(uint64_t line);
  // Whether the table holds the line's offset (not another rank's line).
  bool holds(uint64_t line) const {
    return (line < gap_begin_ || line >= gap_end_) && line < size();
  }
  // One past the last line appended (or skipped to).
  uint64_t size() const { return size_.load(std::memory_order_acquire); }
  // Where the line after the last one appended starts in its file, when a
  // rank's lines end inside a file (the next rank's first line); UINT64_MAX
  // when they end with the file.
  uint64_t tail_offset() const { return tail_offset_; }
  void set_tail_offset(uint64_t offset) { tail_offset_ = offset; }

  uint64_t offset(uint64_t line) const {
    NEARDUP_CHECK_MSG(holds(line), "the offset of another rank's line");
    return Seg(line)->offsets[line & kMask];
  }
  uint8_t state(uint64_t line) const {
    return holds(line) ? Seg(line)->states[line & kMask] : RemoteOf(line).state;
  }
  // Writes of another rank's line (the side table) from one thread, and
  // before any concurrent read.
  void set_state(uint64_t line, uint8_t st) {
    if (holds(line)) {
      Seg(line)->states[line & kMask] = st;
    } else {
      RemoteAt(line).state = st;
    }
  }
  uint64_t payload(uint64_t line) const {
    if (!payloads_) return 0;
    return holds(line) ? Seg(line)->payloads[line & kMask] : RemoteOf(line).payload;
  }
  void set_payload(uint64_t line, uint64_t p) {
    if (!payloads_) return;
    if (holds(line)) {
      Seg(line)->payloads[line & kMask] = p;
    } else {
      RemoteAt(line).payload = p;
    }
  }
  // Lines of other ranks in the side table.
  size_t remote_lines() const { return remote_count_.load(std::memory_order_relaxed); }
  // Key bytes: `width` (a multiple of 8, at most kMaxKeyBytes) bytes per
  // line; call before the first Append. Lines not written read as garbage.
  void EnableKeyBytes(size_t width);
  size_t key_width() const { return key_width_; }
  uint8_t* key_bytes(uint64_t line) {
    return Seg(line)->key_bytes.get() + (line & kMask) * key_width_;
  }
  const uint8_t* key_bytes(uint64_t line) const {
    return Seg(line)->key_bytes.get() + (line & kMask) * key_width_;
  }
  // Frees the key bytes (after the pair phase, their only reader).
  void ReleaseKeyBytes();
  static constexpr size_t kMaxKeyBytes = 128;
  size_t MemoryBytes() const;
  // Bytes a line costs (MemoryBytes() per line).
  size_t BytesPerLine() const { return (payloads_ ? 17 : 9) + key_width_; }
  bool payload_enabled() const { return payloads_; }

 private:
  static constexpr int kShift = 20;
  static constexpr uint64_t kMask = (1ull << kShift) - 1;
  static constexpr size_t kMaxSegments = (1ull << 31) >> kShift;
  struct Segment {
    std::unique_ptr<uint64_t[]> offsets;
    std::unique_ptr<uint8_t[]> states;
    std::unique_ptr<uint64_t[]> payloads;
    struct Unmap {
      size_t bytes;
      void operator()(uint8_t* p) const;
    };
    // Mapped with huge pages where the kernel allows (random reads).
    std::unique_ptr<uint8_t, Unmap> key_bytes{nullptr, Unmap{0}};
  };
  struct Remote {
    uint8_t state = kBlank;
    uint64_t payload = 0;
  };
  Segment* Seg(uint64_t line) const { return segments_[line >> kShift].get(); }
  const Remote& RemoteOf(uint64_t line) const;
  Remote& RemoteAt(uint64_t line);  // inserted if new
  bool payloads_;
  size_t key_width_ = 0;
  std::unique_ptr<std::unique_ptr<Segment>[]> segments_;
  std::atomic<uint64_t> size_{0};
  std::atomic<uint64_t> segments_allocated_{0};             // read by MemoryBytes() from any thread
  uint64_t gap_begin_ = UINT64_MAX, gap_end_ = UINT64_MAX;  // StartAt's skip
  uint64_t tail_offset_ = UINT64_MAX;
  std::unordered_map<uint64_t, Remote> remote_;  // other ranks' lines
  std::atomic<uint64_t> remote_count_{0};        // its size, for MemoryBytes() on any thread
};

// A chunk of whole lines of one file.
struct Chunk {
  std::vector<char> buf;            // data, then at least kPadding readable bytes
  size_t size = 0;                  // bytes of whole lines in buf
  uint32_t file = 0;                // index into the InputFile list
  uint64_t file_offset = 0;         // offset of buf[0] in the file
  uint64_t first_line = 0;          // global line id of the first line
  uint64_t first_line_in_file = 1;  // 1-based
  uint64_t lines = 0;
  uint64_t seq = 0;  // chunk number
};

// A part of the input files taken as one stream of bytes (the positions of
// RunInput::FileStarts()) that begins and ends at line starts (or the end
// of the input): an MPI rank's lines.
struct LineSpan {
  uint64_t begin = 0, end = 0;
  uint64_t first_line = 0;          // global id of the line at begin
  uint64_t first_line_in_file = 1;  // its 1-based number in its file
};

// The file holding byte `pos` (< the total) of the stream whose files start
// at `file_base` (then the total): an empty file holds none. O(files).
size_t FileAtByte(const std::vector<uint64_t>& file_base, uint64_t pos);

// The first line start at or after stream position `pos` (`file_base`:
// each file's start, then the total), or the total when none is. Reads
// from pos - 1 to the next '\n'. Errors: IOError naming the file.
Result<uint64_t> LineStartAtOrAfter(const std::vector<InputFile>& files,
                                    const std::vector<uint64_t>& file_base, uint64_t pos);

// The lines that start in [begin, end) (two line starts), per file
// (files.size() counts). Reads those bytes once. Errors: IOError naming
// the file.
Result<std::vector<uint64_t>> CountLines(const std::vector<InputFile>& files,
                                         const std::vector<uint64_t>& file_base, uint64_t begin,
                                         uint64_t end);

class ChunkReader {
 public:
  static constexpr size_t kPadding = 64;
  // Reads files[first_file...] (earlier ones are already in `lines`).
  ChunkReader(std::vector<InputFile>* files, LineTable* lines, size_t chunk_bytes,
              size_t first_file = 0);
  // Reads only `span` (an MPI rank's lines) into `lines` from its first
  // line on; the files' first_line and lines are the whole input's, set
  // before (CountLines), and stay. Sets the table's tail_offset() when the
  // span ends inside a file.
  ChunkReader(std::vector<InputFile>* files, LineTable* lines, size_t chunk_bytes,
              const LineSpan& span, const std::vector<uint64_t>& file_base);
  ~ChunkReader();

  // Fills *chunk (reusing its buffer) with the next lines; false at the end
  // of the input. Errors: IOError naming the file.
  Result<bool> Next(Chunk* chunk);
  uint64_t bytes_read() const { return bytes_read_.load(std::memory_order_relaxed); }
  uint64_t total_bytes() const { return total_bytes_; }

 private:
  Status OpenFile();
  void NextFile();
  std::vector<InputFile>* files_;
  LineTable* lines_;
  size_t chunk_bytes_;
  size_t file_ = 0;
  int fd_ = -1;
  // A span: its bounds and the base of each file; the next file to open is
  // past the span when its base reaches end.
  bool ranged_ = false;
  LineSpan span_;
  std::vector<uint64_t> file_base_;
  uint64_t read_at_ = 0;        // file offset of the next read
  uint64_t stop_ = UINT64_MAX;  // reads end here (a span's end) or at EOF
  uint64_t offset_ = 0;         // file offset of the carried bytes
  uint64_t line_in_file_ = 1;
  std::string carry_;  // an incomplete last line
  bool eof_ = false;
  uint64_t seq_ = 0;
  uint64_t total_bytes_ = 0;
  std::atomic<uint64_t> bytes_read_{0};
};

// The input files as a LineSource (line_source.h): its files are the
// input files.
class InputTexts : public LineSource {
 public:
  InputTexts() = default;
  ~InputTexts() override;
  InputTexts(const InputTexts&) = delete;
  InputTexts& operator=(const InputTexts&) = delete;

  // Maps the files (after the ChunkReader has read them all).
  // Errors: IOError naming the file.
  Status Open(const std::vector<InputFile>* files, const LineTable* lines);

  // Through the map. `in_order`: the caller reads lines in increasing order
  // (the bytes read are counted toward dropping mapped pages; a random read
  // counts the kernel's whole fault-around window).
  Line Get(uint64_t line, bool in_order = false) const;
  // The line read with pread(2) into *buf (text and padding): random reads
  // through the map would map the kernel's fault-around window (or a whole
  // large folio) each, and resident file pages grew past the budget.
  // Errors: IOError naming the file.
  Status Read(uint64_t line, std::string* buf, Line* out) const;
  // Which file holds a global line id. O(files).
  uint32_t FileOf(uint64_t line) const;

  // O(files).
  Extent ExtentOf(uint64_t line) const override;
  // The 1-based line number of a global line id within its file.
  uint64_t LineInFile(uint64_t line, uint32_t file) const {
    return line - (*files_)[file].first_line + 1;
  }
  uint64_t LineInFile(uint64_t line) const override { return LineInFile(line, FileOf(line)); }
  // With pread(2). Errors: IOError naming the file (also when it shrank).
  Status ReadBytes(uint32_t file, uint64_t offset, size_t len, char* dst) const override;

 private:
  void Touch(size_t bytes) const;
  const std::vector<InputFile>* files_ = nullptr;
  const LineTable* lines_ = nullptr;
  std::vector<const char*> maps_;
  std::vector<int> fds_;  // for Read(); -1 for empty files
  mutable std::atomic<uint64_t> touched_{0};
};

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_INPUT_H_
