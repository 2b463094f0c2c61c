// SPDX-License-Identifier: Apache-2.0
#include "distributed/fetch.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/status_macros.h"

namespace neardup::distributed {
namespace {

// The verification form of `line` from `forms` into *out.
Status ReadForm(const batch::FormStore& forms, uint32_t line, std::string* out) {
  const batch::LineSource::Extent e = forms.ExtentOf(line);
  out->resize(e.end - e.begin);
  NEARDUP_RETURN_IF_ERROR(forms.ReadBytes(e.file, e.begin, out->size(), out->data()));
  if (!out->empty()) out->pop_back();  // the '\n' FormStore ends each form with
  return Status::OK();
}

// Answers the ids other ranks asked for (`from`: bytes of ids from each):
// per record its size (u32), payload (u64), state (u8: a record skipped as
// a repeated id is dropped by the asker) and text (or form).
Result<std::vector<std::vector<uint8_t>>> Answer(const std::vector<uint32_t>& asked,
                                                 const std::vector<size_t>& from,
                                                 const batch::RunInput& input,
                                                 const batch::FormStore* forms) {
  std::vector<std::vector<uint8_t>> answer(from.size());
  std::string form;
  size_t k = 0;
  for (size_t r = 0; r < from.size(); ++r) {
    for (size_t b = 0; b < from[r]; b += sizeof(uint32_t), ++k) {
      std::string_view text;
      if (forms != nullptr) {
        NEARDUP_RETURN_IF_ERROR(ReadForm(*forms, asked[k], &form));
        text = form;
      } else {
        text = input.store.Get(asked[k]).text;
      }
      AppendPod(static_cast<uint32_t>(text.size()), &answer[r]);
      AppendPod(input.lines->payload(asked[k]), &answer[r]);
      AppendPod(input.lines->state(asked[k]), &answer[r]);
      answer[r].insert(answer[r].end(), text.begin(), text.end());
    }
  }
  return answer;
}

}  // namespace

Result<std::unique_ptr<BorrowedLines>> BorrowedLines::Fetch(
    Comm& c, const LineRanges& ranges, std::vector<uint32_t> ids, batch::RunInput* input,
    const batch::FormStore* forms, batch::TempDir* tmp, size_t round_bytes, uint64_t* fetched,
    const std::string& file_name) {
  const batch::LineSource* own =
      forms != nullptr ? static_cast<const batch::LineSource*>(forms) : &input->store;
  std::unique_ptr<BorrowedLines> b(new BorrowedLines(own, ranges.begin(c.rank())));
  // Texts of an index's corpus are read from the corpus files here (every
  // rank has their offsets), not fetched from rank 0, which owns them.
  if (forms == nullptr) b->direct_ = static_cast<uint32_t>(input->corpus_lines);
  ids.erase(ids.begin(), std::lower_bound(ids.begin(), ids.end(), b->direct_));
  b->ids_ = std::move(ids);
  b->file_ = forms != nullptr ? forms->files() : static_cast<uint32_t>(input->files.size());
  b->path_ = tmp->File(file_name);
  b->offs_.assign(1, 0);
  // Each round a rank asks for about round_bytes / N bytes of records (by
  // the input's average line), so it answers and receives about round_bytes.
  uint64_t total = 0;
  for (const batch::InputFile& f : input->files) total += f.size;
  const uint64_t average = std::max<uint64_t>(1, total / std::max<uint64_t>(1, input->n()));
  const size_t per_round =
      std::max<size_t>(1, round_bytes / average / static_cast<size_t>(c.size()));
  batch::SpillWriter w;
  Status status = w.Open(b->path_);
  for (size_t next = 0;;) {
    const size_t end = std::min(b->ids_.size(), next + per_round);
    const Status s = b->Receive(c, ranges, next, end, input, forms, &w, fetched);
    if (status.ok()) status = s;
    next = end;
    if (MaxAll(c, next < b->ids_.size() ? 1 : 0) == 0) break;
  }
  if (status.ok()) status = w.Close();
  NEARDUP_RETURN_IF_ERROR(status);
  b->fd_ = open(b->path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (b->fd_ < 0) return Status::IOError(b->path_ + ": cannot open file: " + std::strerror(errno));
  return b;
}

// One round: asks the owners for ids_[begin, end) and appends their records.
Status BorrowedLines::Receive(Comm& c, const LineRanges& ranges, size_t begin, size_t end,
                              batch::RunInput* input, const batch::FormStore* forms,
                              batch::SpillWriter* w, uint64_t* fetched) {
  std::vector<std::vector<uint8_t>> ask(c.size());
  for (size_t i = begin; i < end; ++i) AppendPod(ids_[i], &ask[ranges.Owner(ids_[i])]);
  std::vector<size_t> from;
  const std::vector<uint32_t> asked = FromBytes<uint32_t>(c.Exchange(ask, &from));
  // An answer that cannot be read sends nothing (the asker finds its
  // records missing and fails) and is this rank's error.
  Result<std::vector<std::vector<uint8_t>>> answer = Answer(asked, from, *input, forms);
  Status status = answer.status();
  const std::vector<uint8_t> got =
      c.Exchange(answer.ok() ? *answer : std::vector<std::vector<uint8_t>>(c.size()));
  *fetched += got.size();
  size_t doc = begin;
  for (size_t pos = 0; pos + 13 <= got.size(); ++doc) {
    uint32_t size;
    uint64_t payload;
    std::memcpy(&size, &got[pos], 4);
    std::memcpy(&payload, &got[pos + 4], 8);
    const uint8_t state = got[pos + 12];
    pos += 13;
    // Signatures may read DocText::payload in Similarity(); the verify
    // phase drops a pair whose record is not one (the owner's state).
    input->lines->set_payload(ids_[doc], payload);
    input->lines->set_state(ids_[doc], state);
    if (status.ok()) status = w->Append(&got[pos], size);
    if (status.ok()) status = w->Append("\n", 1);
    offs_.push_back(offs_.back() + size + 1);
    pos += size;
  }
  if (status.ok() && doc != end) {
    status = Status::Internal("fetched " + std::to_string(doc - begin) + " of " +
                              std::to_string(end - begin) + " records to verify");
  }
  return status;
}

Result<std::unordered_map<uint32_t, std::string>> FetchIds(Comm& c, const LineRanges& ranges,
                                                           std::vector<batch::KeyEntry> id_entries,
                                                           const batch::RunInput& input,
                                                           uint64_t* fetched) {
  std::sort(id_entries.begin(), id_entries.end(), batch::KeyEntryLess());
  const uint32_t lo = ranges.begin(c.rank()), hi = ranges.end(c.rank());
  std::vector<uint32_t> want;
  for (size_t k = 0, end = 0; k < id_entries.size(); k = end) {
    for (end = k + 1; end < id_entries.size() && id_entries[end].key == id_entries[k].key;) ++end;
    if (id_entries[end - 1].doc == id_entries[k].doc) continue;  // one member
    for (size_t i = k; i < end; ++i) {
      const uint32_t d = id_entries[i].doc;
      if (d >= input.corpus_lines && (d < lo || d >= hi)) want.push_back(d);
    }
  }
  id_entries = std::vector<batch::KeyEntry>();
  std::sort(want.begin(), want.end());
  want.erase(std::unique(want.begin(), want.end()), want.end());
  std::vector<std::vector<uint8_t>> ask(c.size());
  internal::AppendByOwner(
      want, [&](uint32_t d) { return ranges.Owner(d); }, &ask);
  std::vector<size_t> from;
  const std::vector<uint32_t> asked = FromBytes<uint32_t>(c.Exchange(ask, &from));
  // Answers in the order asked; an owner that cannot parse one answers no
  // more (its error is agreed below).
  std::vector<std::vector<uint8_t>> answer(c.size());
  batch::RecordParser parser(input.fields);
  Status status;
  for (size_t r = 0, k = 0; r < from.size(); ++r) {
    for (size_t b = 0; b < from[r]; b += sizeof(uint32_t), ++k) {
      std::string_view id;
      if (status.ok()) status = input.ParseId(asked[k], &parser, &id);
      if (status.ok()) AppendString(id, &answer[r]);
    }
  }
  const std::vector<uint8_t> got = c.Exchange(answer);
  *fetched += got.size();
  std::unordered_map<uint32_t, std::string> ids;
  size_t i = 0;
  for (MessageReader m(got); !m.done() && i < want.size(); ++i) ids[want[i]] = m.String();
  if (status.ok() && i != want.size()) {
    status = Status::Internal("fetched " + std::to_string(i) + " of " +
                              std::to_string(want.size()) + " ids of repeated-id candidates");
  }
  NEARDUP_RETURN_IF_ERROR(Agree(c, status, 0));
  return ids;
}

BorrowedLines::~BorrowedLines() {
  if (fd_ >= 0) close(fd_);
}

batch::LineSource::Extent BorrowedLines::ExtentOf(uint64_t line) const {
  if (line >= lo_ || line < direct_) return own_->ExtentOf(line);
  const auto it = std::lower_bound(ids_.begin(), ids_.end(), line);
  NEARDUP_CHECK_MSG(it != ids_.end() && *it == line, "a record to verify was not fetched");
  const size_t i = it - ids_.begin();
  return {file_, offs_[i], offs_[i + 1]};
}

Status BorrowedLines::ReadBytes(uint32_t file, uint64_t offset, size_t len, char* dst) const {
  if (file != file_) return own_->ReadBytes(file, offset, len, dst);
  for (size_t got = 0; got < len;) {
    const ssize_t n = pread(fd_, dst + got, len - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return Status::IOError(
          path_ + ": cannot read: " + (n == 0 ? std::string("file shrank") : std::strerror(errno)));
    }
    got += static_cast<size_t>(n);
  }
  return Status::OK();
}

uint64_t BorrowedLines::LineInFile(uint64_t line) const { return own_->LineInFile(line); }

}  // namespace neardup::distributed
