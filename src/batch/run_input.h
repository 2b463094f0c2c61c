// SPDX-License-Identifier: Apache-2.0
//
// RunInput: the input of a batch run and how its records are read back by
// line id. Lines are dense ids over the files in order; against an index
// its corpus files come first (files[0, corpus_files), lines [0,
// corpus_lines)). The LineTable is filled by the sketch phase (or the
// index), the InputTexts opened after it.
//
// Thread safety: the Parse functions are const and may run on many threads
// (one RecordParser each) once the InputTexts is open.
#ifndef NEARDUP_BATCH_RUN_INPUT_H_
#define NEARDUP_BATCH_RUN_INPUT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "batch/input.h"
#include "batch/jsonl.h"
#include "neardup/status.h"

namespace neardup::batch {

struct RunInput {
  std::vector<InputFile> files;
  std::unique_ptr<LineTable> lines;
  InputTexts store;
  JsonlFields fields;
  uint64_t corpus_lines = 0;
  size_t corpus_files = 0;
  uint64_t bytes = 0;  // of the files read (the corpus excluded)

  // The whole input's lines when `lines` holds an MPI rank's share (0: the
  // table's size).
  uint64_t total_lines = 0;

  uint64_t n() const { return total_lines != 0 ? total_lines : lines->size(); }
  // Where each file starts in the files taken as one stream of bytes, and
  // (the last element) their total size: files.size() + 1 offsets.
  std::vector<uint64_t> FileStarts() const;
  // Opens the InputTexts over the files (after the sketch phase).
  Status OpenStore() { return store.Open(&files, lines.get()); }
  // "file:line" of a line id.
  std::string Where(uint64_t line) const;
  // What names line `line` (its file's line `line_in_file`) without an id.
  RecordPlace Place(uint64_t line, uint64_t line_in_file) const;
  // The record of a line, read into parser->line_buffer() and parsed.
  // `in_order`: the caller reads lines in increasing order (the mapped
  // input is cheaper then; random reads use pread). `raw`, when given,
  // receives the line read. Errors: as RecordParser, naming file:line;
  // IOError reading the input.
  Status Parse(uint64_t line, RecordParser* parser, ParsedRecord* out, bool in_order = false,
               InputTexts::Line* raw = nullptr) const;
  // Only the id (no copy: through the map). `in_order` as for Parse: a
  // pass over lines in increasing order says so, or each read counts as
  // random and the mapped input is dropped every few thousand reads (a
  // pass over 9M records of an input the page cache no longer held then
  // read it a page per fault: 95 s instead of a few).
  Status ParseId(uint64_t line, RecordParser* parser, std::string_view* id,
                 bool in_order = false) const;
  // Parses a line already read (a LineBlock's); errors name the line.
  Status ParseLine(uint64_t line, const InputTexts::Line& l, RecordParser* parser,
                   ParsedRecord* out) const;
};

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_RUN_INPUT_H_
