// SPDX-License-Identifier: Apache-2.0
//
// Sorted runs and their k-way merge (external merge sort; Knuth, TAOCP vol. 3,
// 5.4.1). Producers sort full buffers (batch/sort.h) and hand them to a
// RunSet, which keeps them in memory or writes them to its TempDir. Merge()
// yields every record of every run in the record order, through a binary
// heap of run cursors; with more runs than `max_fanin` it first merges
// groups of runs into longer runs (multi-pass), so open files and read
// buffers stay bounded. A spilled run's disk is freed as the merge reads it
// (holes punched behind the reader; the file deleted at its end), so the
// runs a merge produces take the space of the runs it consumes.
//
// The merged order is a function of the records alone (ties compare equal
// and are interchangeable), so how records were split into runs (threads,
// memory budget, spilling) never changes the merged stream.
//
// Thread safety: RunSet::AddRun may be called from many threads; a merger is
// used by one thread. Memory: in-memory runs as given, plus one read buffer
// per spilled run (the budget passed to Merge() split between them).
#ifndef NEARDUP_BATCH_SORTED_RUNS_H_
#define NEARDUP_BATCH_SORTED_RUNS_H_

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/status_macros.h"
#include "batch/spill_buffer.h"
#include "batch/spill_file.h"
#include "batch/temp_dir.h"
#include "neardup/status.h"

namespace neardup::batch {

template <typename T, typename Less>
class RunMerger;

struct RunFile {
  std::string path;
  bool keep = false;  // not ours: leave it after the merge
  // The run is the file's bytes [begin, end) (a slice of a sorted file is
  // sorted too).
  uint64_t begin = 0, end = UINT64_MAX;
};

template <typename T, typename Less>
class RunSet {
 public:
  // `dir` may be null when nothing will spill; `prefix` names the files.
  RunSet(TempDir* dir, std::string prefix) : dir_(dir), prefix_(std::move(prefix)) {}

  // Adds a run sorted by Less. With `spill` it is written to a file (and
  // `sorted` is cleared, its memory kept for reuse); otherwise it is moved in
  // (trimmed to its records; `sorted` is left empty, with no memory).
  // Errors: IOError (disk full) naming the file.
  Status AddRun(SpillBuffer<T>* sorted, bool spill) {
    if (sorted->empty()) return Status::OK();
    if (!spill) {
      sorted->ShrinkToFit();
      std::lock_guard<std::mutex> lock(mu_);
      records_ += sorted->size();
      memory_.push_back(std::move(*sorted));
      sorted->Release();
      return Status::OK();
    }
    if (dir_ == nullptr) return Status::Internal("spill without a temporary directory");
    std::string path;
    {
      std::lock_guard<std::mutex> lock(mu_);
      path = dir_->File(prefix_ + "-" + std::to_string(next_file_++) + ".run");
    }
    SpillWriter w;
    NEARDUP_RETURN_IF_ERROR(w.Open(path));
    NEARDUP_RETURN_IF_ERROR(WriteRecords<T>(&w, sorted->span()));
    NEARDUP_RETURN_IF_ERROR(w.Close());
    std::lock_guard<std::mutex> lock(mu_);
    records_ += sorted->size();
    spilled_bytes_ += sorted->size() * sizeof(T);
    ++spilled_runs_;
    files_.push_back({path, false});
    sorted->clear();
    return Status::OK();
  }

  // Adds an existing sorted run file of `records` records (an index's keys);
  // with `keep` the merge leaves the file in place.
  void AddFile(const std::string& path, uint64_t records, bool keep) {
    std::lock_guard<std::mutex> lock(mu_);
    records_ += records;
    files_.push_back({path, keep});
  }
  // Adds records [first, first + count) of an existing sorted run file as a
  // run, leaving the file in place (a share of an index's keys).
  void AddFileSlice(const std::string& path, uint64_t first, uint64_t count) {
    std::lock_guard<std::mutex> lock(mu_);
    records_ += count;
    files_.push_back({path, true, first * sizeof(T), (first + count) * sizeof(T)});
  }

  uint64_t records() const { return records_; }
  uint64_t spilled_bytes() const { return spilled_bytes_; }
  // Runs this set wrote (not files added with AddFile).
  size_t spilled_runs() const { return spilled_runs_; }
  size_t memory_runs() const { return memory_.size(); }
  size_t memory_bytes() const {
    size_t n = 0;
    for (const auto& m : memory_) n += m.size() * sizeof(T);
    return n;
  }

  // Merges every run; the RunSet is emptied (the merger owns the runs).
  // `buffer_bytes` is the read-buffer budget shared by the spilled runs.
  // Errors: IOError while pre-merging.
  Result<std::unique_ptr<RunMerger<T, Less>>> Merge(size_t buffer_bytes, size_t max_fanin = 128) {
    max_fanin = std::max<size_t>(2, max_fanin);
    while (files_.size() + memory_.size() > max_fanin) {
      // Merge the first max_fanin files into one (in-memory runs stay).
      const size_t take = std::min(files_.size(), max_fanin);
      if (take < 2) break;
      std::vector<RunFile> group(files_.begin(), files_.begin() + take);
      files_.erase(files_.begin(), files_.begin() + take);
      RunMerger<T, Less> m({}, group, buffer_bytes);
      const std::string path = dir_->File(prefix_ + "-" + std::to_string(next_file_++) + ".run");
      SpillWriter w;
      NEARDUP_RETURN_IF_ERROR(w.Open(path));
      std::vector<T> block;
      block.reserve(std::max<size_t>(1, (1 << 20) / sizeof(T)));
      T rec;
      while (true) {
        NEARDUP_ASSIGN_OR_RETURN(bool more, m.Next(&rec));
        if (more) block.push_back(rec);
        if (!more || block.size() == block.capacity()) {
          NEARDUP_RETURN_IF_ERROR(WriteRecords<T>(&w, block));
          block.clear();
        }
        if (!more) break;
      }
      NEARDUP_RETURN_IF_ERROR(w.Close());
      files_.push_back({path, false});
    }
    auto m =
        std::make_unique<RunMerger<T, Less>>(std::move(memory_), std::move(files_), buffer_bytes);
    memory_.clear();
    files_.clear();
    NEARDUP_RETURN_IF_ERROR(m->Init());
    return m;
  }

 private:
  TempDir* dir_;
  std::string prefix_;
  std::mutex mu_;
  std::vector<SpillBuffer<T>> memory_;
  std::vector<RunFile> files_;
  uint64_t records_ = 0, spilled_bytes_ = 0;
  size_t spilled_runs_ = 0;
  size_t next_file_ = 0;
};

// Yields the records of several sorted runs in order.
template <typename T, typename Less>
class RunMerger {
 public:
  RunMerger(std::vector<SpillBuffer<T>> memory, std::vector<RunFile> files, size_t buffer_bytes)
      : memory_(std::move(memory)) {
    const size_t per = files.empty() ? 0 : buffer_bytes / files.size();
    buffer_ = std::clamp<size_t>(per, 16 << 10, 4 << 20);
    buffer_ -= buffer_ % sizeof(T);
    for (auto& f : files) {
      sources_.push_back(Source{nullptr, nullptr, std::move(f.path), f.keep, f.begin, f.end, {}});
    }
    for (auto& m : memory_) {
      sources_.push_back(Source{m.data(), m.data() + m.size(), "", false, 0, 0, {}});
    }
  }
  ~RunMerger() {
    for (auto& s : sources_) {
      if (!s.path.empty() && !s.keep) unlink(s.path.c_str());
    }
  }

  // Opens the files; called by RunSet::Merge. Errors: IOError.
  Status Init() {
    if (initialized_) return Status::OK();
    initialized_ = true;
    for (size_t i = 0; i < sources_.size(); ++i) {
      Source& s = sources_[i];
      if (!s.path.empty()) {
        NEARDUP_RETURN_IF_ERROR(s.reader.Open(s.path, buffer_, /*release=*/!s.keep, s.from, s.to));
        NEARDUP_RETURN_IF_ERROR(Refill(&s));
      }
      if (s.cur != s.end) heap_.push_back(static_cast<int>(i));
    }
    std::make_heap(heap_.begin(), heap_.end(), HeapLess{this});
    return Status::OK();
  }

  // The next record; false at the end. Errors: IOError, Corruption.
  Result<bool> Next(T* out) {
    NEARDUP_RETURN_IF_ERROR(Init());
    if (heap_.empty()) return false;
    if (heap_.size() == 1) {
      Source& s = sources_[heap_[0]];
      *out = *s.cur++;
      if (s.cur == s.end) {
        NEARDUP_RETURN_IF_ERROR(Refill(&s));
        if (s.cur == s.end) heap_.clear();
      }
      return true;
    }
    std::pop_heap(heap_.begin(), heap_.end(), HeapLess{this});
    Source& s = sources_[heap_.back()];
    *out = *s.cur++;
    if (s.cur == s.end) NEARDUP_RETURN_IF_ERROR(Refill(&s));
    if (s.cur == s.end) {
      heap_.pop_back();
    } else {
      std::push_heap(heap_.begin(), heap_.end(), HeapLess{this});
    }
    return true;
  }

 private:
  struct Source {
    const T* cur;
    const T* end;
    std::string path;   // empty: in memory (or read through)
    bool keep;          // leave the file after reading
    uint64_t from, to;  // the file's bytes that are the run
    SpillReader reader;
  };
  struct HeapLess {  // a max-heap on "greater" gives the smallest at the front
    RunMerger* m;
    bool operator()(int a, int b) const { return Less()(*m->sources_[b].cur, *m->sources_[a].cur); }
  };

  Status Refill(Source* s) {
    if (s->path.empty()) return Status::OK();
    NEARDUP_ASSIGN_OR_RETURN(std::span<const char> block, s->reader.NextBlock(sizeof(T)));
    s->cur = reinterpret_cast<const T*>(block.data());
    s->end = s->cur + block.size() / sizeof(T);
    if (block.empty()) {  // read through: free the disk now
      s->reader = SpillReader();
      if (!s->keep) unlink(s->path.c_str());
      s->path.clear();
      s->cur = s->end = nullptr;
    }
    return Status::OK();
  }

  std::vector<SpillBuffer<T>> memory_;
  std::vector<Source> sources_;
  std::vector<int> heap_;
  size_t buffer_ = 0;
  bool initialized_ = false;
};

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_SORTED_RUNS_H_
