// SPDX-License-Identifier: Apache-2.0
#include "batch/form_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/status_macros.h"
#include "batch/records.h"

namespace neardup::batch {
namespace {

// Every file starts with one byte, so that offset 0 means "no form".
constexpr char kHeader = 'F';

}  // namespace

Result<std::unique_ptr<FormStore>> FormStore::Create(TempDir* tmp, int writers) {
  std::unique_ptr<FormStore> s(new FormStore());
  s->segments_ = std::make_unique<std::atomic<Where*>[]>(kSegments);
  for (size_t i = 0; i < kSegments; ++i) s->segments_[i].store(nullptr);
  for (int w = 0; w < writers; ++w) {
    s->paths_.push_back(tmp->File("forms." + std::to_string(w)));
    s->writers_.push_back(std::make_unique<SpillWriter>());
    NEARDUP_RETURN_IF_ERROR(s->writers_.back()->Open(s->paths_.back()));
    NEARDUP_RETURN_IF_ERROR(s->writers_.back()->Append(&kHeader, 1));
  }
  return s;
}

FormStore::~FormStore() {
  for (int fd : fds_) {
    if (fd >= 0) close(fd);
  }
  for (size_t i = 0; i < kSegments && segments_; ++i) delete[] segments_[i].load();
}

FormStore::Where* FormStore::Slot(uint64_t line) {
  NEARDUP_CHECK(line < kMaxDocs);
  std::atomic<Where*>& seg = segments_[line >> kShift];
  Where* p = seg.load(std::memory_order_acquire);
  if (p == nullptr) {
    auto* fresh = new Where[kMask + 1]();
    if (seg.compare_exchange_strong(p, fresh, std::memory_order_acq_rel)) {
      p = fresh;
    } else {
      delete[] fresh;  // another writer allocated it; p holds theirs
    }
  }
  return p + (line & kMask);
}

const FormStore::Where* FormStore::Find(uint64_t line) const {
  if (line >= kMaxDocs) return nullptr;
  const Where* p = segments_[line >> kShift].load(std::memory_order_acquire);
  return p == nullptr ? nullptr : p + (line & kMask);
}

Status FormStore::Add(int w, uint64_t line, std::string_view form) {
  SpillWriter& out = *writers_[static_cast<size_t>(w)];
  if (form.size() >= UINT32_MAX) return Status::OutOfRange("verification form too large");
  const uint64_t at = out.bytes();
  NEARDUP_RETURN_IF_ERROR(out.Append(form.data(), form.size()));
  NEARDUP_RETURN_IF_ERROR(out.Append("\n", 1));
  Where* slot = Slot(line);
  slot->at = (static_cast<uint64_t>(w) << 48) | at;
  slot->len = static_cast<uint32_t>(form.size() + 1);
  return Status::OK();
}

Status FormStore::Finish() {
  for (size_t w = 0; w < writers_.size(); ++w) {
    bytes_ += writers_[w]->bytes();
    NEARDUP_RETURN_IF_ERROR(writers_[w]->Close());
    const int fd = open(paths_[w].c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::IOError(paths_[w] + ": cannot open: " + std::strerror(errno));
    fds_.push_back(fd);
  }
  writers_.clear();
  return Status::OK();
}

bool FormStore::has(uint64_t line) const {
  const Where* p = Find(line);
  return p != nullptr && p->at != 0;
}

LineSource::Extent FormStore::ExtentOf(uint64_t line) const {
  const Where* p = Find(line);
  NEARDUP_CHECK(p != nullptr && p->at != 0);
  const uint64_t offset = p->at & ((1ull << 48) - 1);
  return {static_cast<uint32_t>(p->at >> 48), offset, offset + p->len};
}

Status FormStore::ReadBytes(uint32_t file, uint64_t offset, size_t len, char* dst) const {
  size_t got = 0;
  while (got < len) {
    const ssize_t n = pread(fds_[file], dst + got, len - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::IOError(paths_[file] + ": cannot read: " + std::strerror(errno));
    if (n == 0) return Status::IOError(paths_[file] + ": file shrank while running");
    got += static_cast<size_t>(n);
  }
  return Status::OK();
}

}  // namespace neardup::batch
