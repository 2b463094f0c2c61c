// SPDX-License-Identifier: Apache-2.0
//
// Records a rank verifies but does not own. A pair (a, b) is verified by
// the owner of b; when another rank owns a, its record is fetched from that
// owner (ids out, records back, in rounds of about round_bytes of text)
// into a file in the temporary directory. BorrowedLines is then the rank's
// LineSource for verification: lines before its own range from that file
// (only those fetched: another is a bug and aborts), the rest from the
// input files. The verify phase reads it like the input: coalesced preads.
// With the ranks' FormStores (batch/form_store.h), the verification forms
// are fetched and served instead of the texts, own lines from the store:
// no rank parses or prepares a text to verify it. Against an index (no
// forms) the corpus's texts are read from the corpus files, not fetched.
//
// Thread safety: Fetch is a collective (one thread per rank); the source is
// read-only after it and may be read from the verify workers.
#ifndef NEARDUP_DISTRIBUTED_FETCH_H_
#define NEARDUP_DISTRIBUTED_FETCH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "batch/form_store.h"
#include "batch/pipeline.h"
#include "distributed/comm.h"
#include "distributed/ranges.h"

namespace neardup::distributed {

class BorrowedLines final : public batch::LineSource {
 public:
  // Fetches the records of `ids` (sorted, distinct, owned by other ranks,
  // before this rank's lines) from their owners, and their payloads and
  // states (the owner's: a record skipped as a repeated id is no record)
  // into input->lines; answers the other ranks' requests from input->store, or
  // with `forms` (every rank's, or none) from the forms, which it then
  // serves in place of the texts. The records go to `file_name` in `tmp`
  // (one file per live source). Collective. Adds the bytes received to
  // *fetched. Errors: IOError (reading, writing or opening a file); every
  // rank still takes part.
  static Result<std::unique_ptr<BorrowedLines>> Fetch(
      Comm& c, const LineRanges& ranges, std::vector<uint32_t> ids, batch::RunInput* input,
      const batch::FormStore* forms, batch::TempDir* tmp, size_t round_bytes, uint64_t* fetched,
      const std::string& file_name = "borrowed.jsonl");
  ~BorrowedLines() override;
  BorrowedLines(const BorrowedLines&) = delete;
  BorrowedLines& operator=(const BorrowedLines&) = delete;

  Extent ExtentOf(uint64_t line) const override;
  Status ReadBytes(uint32_t file, uint64_t offset, size_t len, char* dst) const override;
  uint64_t LineInFile(uint64_t line) const override;

 private:
  BorrowedLines(const batch::LineSource* own, uint32_t lo) : own_(own), lo_(lo) {}
  Status Receive(Comm& c, const LineRanges& ranges, size_t begin, size_t end,
                 batch::RunInput* input, const batch::FormStore* forms, batch::SpillWriter* w,
                 uint64_t* fetched);

  const batch::LineSource* own_;  // the input's texts, or this rank's forms
  uint32_t lo_;                   // lines before it are fetched,
  uint32_t direct_ = 0;           // but for those before this (an index's corpus)
  uint32_t file_ = 0;             // the fetched file's number (after the input files)
  std::vector<uint32_t> ids_;     // fetched lines, sorted
  std::vector<uint64_t> offs_;    // line ids_[i] is [offs_[i], offs_[i+1]) of the file
  std::string path_;
  int fd_ = -1;
};

// The ids the pair phase compares (PairInput::ids): of each id bucket
// among `id_entries` (the id-space entries this rank owns, ShuffleKeys)
// with two or more members, those of records another rank owns (not this
// rank's lines, nor an index's corpus, which every rank reads). Their
// owners parse them. Collective; one round (repeated ids are rare: the
// message holds one id per repeated-id candidate). Adds the bytes
// received to *fetched. Errors: a record that does not parse (the owner's
// error, agreed: every rank gets the first).
Result<std::unordered_map<uint32_t, std::string>> FetchIds(Comm& c, const LineRanges& ranges,
                                                           std::vector<batch::KeyEntry> id_entries,
                                                           const batch::RunInput& input,
                                                           uint64_t* fetched);

}  // namespace neardup::distributed

#endif  // NEARDUP_DISTRIBUTED_FETCH_H_
