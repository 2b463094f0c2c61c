// SPDX-License-Identifier: Apache-2.0
//
// FormStore: the verification forms of a run's records
// (BatchSignature::Form), kept by the sketch phase and read by the verify
// phase in place of the texts, so no text is parsed, normalized or shingled
// again for verification. It is a LineSource: a line's form is read with
// LineBlock's coalesced preads just as its text would be.
//
// Each sketch worker appends the forms of its records to its own file in
// the run's temporary directory through a 1 MB buffer (SpillWriter), each
// followed by '\n' (LineBlock strips it, so a form may end in any byte).
// The forms live on disk, not in the budget; their bytes are sequential
// writes once and, in the verify phase, reads in the order of its ranges
// (mostly from the page cache). Per line the store keeps where its form
// is: kBytesPerLine bytes, in segments allocated as lines arrive.
//
// Thread safety: Add() from one thread per writer (concurrently for
// different writers and lines); Finish() once from one thread after every
// Add(); the LineSource methods from any thread after Finish().
#ifndef NEARDUP_BATCH_FORM_STORE_H_
#define NEARDUP_BATCH_FORM_STORE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "batch/line_source.h"
#include "batch/spill_file.h"
#include "batch/temp_dir.h"

namespace neardup::batch {

class FormStore final : public LineSource {
 public:
  static constexpr size_t kBytesPerLine = 12;

  // Errors: IOError creating the writers' files.
  static Result<std::unique_ptr<FormStore>> Create(TempDir* tmp, int writers);
  ~FormStore() override;

  // Appends the form of `line` to writer w's file. Errors: IOError.
  Status Add(int w, uint64_t line, std::string_view form);
  // Flushes the files and opens them for reading. Errors: IOError.
  Status Finish();
  bool has(uint64_t line) const;
  // The source's files (ExtentOf's file numbers are below it).
  uint32_t files() const { return static_cast<uint32_t>(fds_.size()); }
  uint64_t bytes() const { return bytes_; }  // of the files, after Finish()

  Extent ExtentOf(uint64_t line) const override;
  Status ReadBytes(uint32_t file, uint64_t offset, size_t len, char* dst) const override;
  // Forms carry no input lines: the line's number + 1.
  uint64_t LineInFile(uint64_t line) const override { return line + 1; }

 private:
#pragma pack(push, 4)
  struct Where {
    uint64_t at;  // file << 48 | offset; 0 for none (offsets start at 1)
    uint32_t len;
  };
#pragma pack(pop)
  static_assert(sizeof(Where) == kBytesPerLine);
  static constexpr int kShift = 16;
  static constexpr uint64_t kMask = (1ull << kShift) - 1;
  static constexpr size_t kSegments = (1ull << 31) >> kShift;
  FormStore() = default;
  Where* Slot(uint64_t line);
  const Where* Find(uint64_t line) const;

  std::vector<std::unique_ptr<SpillWriter>> writers_;
  std::vector<int> fds_;
  std::vector<std::string> paths_;
  std::unique_ptr<std::atomic<Where*>[]> segments_;
  uint64_t bytes_ = 0;
};

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_FORM_STORE_H_
