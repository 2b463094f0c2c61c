// SPDX-License-Identifier: Apache-2.0
#include "batch/run_input.h"

#include "base/status_macros.h"

namespace neardup::batch {

std::vector<uint64_t> RunInput::FileStarts() const {
  std::vector<uint64_t> starts(files.size() + 1, 0);
  for (size_t i = 0; i < files.size(); ++i) starts[i + 1] = starts[i] + files[i].size;
  return starts;
}

std::string RunInput::Where(uint64_t line) const {
  const uint32_t f = store.FileOf(line);
  return files[f].name + ":" + std::to_string(line - files[f].first_line + 1);
}

RecordPlace RunInput::Place(uint64_t line, uint64_t line_in_file) const {
  return {files[store.FileOf(line)].id_file, line_in_file};
}

Status RunInput::Parse(uint64_t line, RecordParser* parser, ParsedRecord* out, bool in_order,
                       InputTexts::Line* raw) const {
  InputTexts::Line l;
  if (in_order) {
    l = store.Get(line, /*in_order=*/true);
  } else {
    NEARDUP_RETURN_IF_ERROR(store.Read(line, parser->line_buffer(), &l));
  }
  if (raw != nullptr) *raw = l;
  return ParseLine(line, l, parser, out);
}

Status RunInput::ParseLine(uint64_t line, const InputTexts::Line& l, RecordParser* parser,
                           ParsedRecord* out) const {
  Status s = parser->Parse(l.text, l.readable, Place(line, l.line_in_file), out);
  return s.ok() ? s : s.WithContext(Where(line));
}

Status RunInput::ParseId(uint64_t line, RecordParser* parser, std::string_view* id,
                         bool in_order) const {
  const InputTexts::Line l = store.Get(line, in_order);
  Status s = parser->ParseId(l.text, l.readable, Place(line, l.line_in_file), id);
  return s.ok() ? s : s.WithContext(Where(line));
}

}  // namespace neardup::batch
