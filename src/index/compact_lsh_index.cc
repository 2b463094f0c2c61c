// SPDX-License-Identifier: Apache-2.0
#include "index/compact_lsh_index.h"

#include <algorithm>
#include <string>
#include <thread>
#include <utility>

#include "base/status_macros.h"

namespace neardup::index {
namespace {

constexpr uint32_t kNilSlot = 0xFFFFFFFFu;

}  // namespace

CompactLshIndex::CompactLshIndex(int bands, const CompactLshOptions& options)
    : bands_(bands), opt_(options) {
  NEARDUP_CHECK(bands >= 1 && bands <= 4096);
  opt_.buffer_capacity = std::max<size_t>(opt_.buffer_capacity, 1);
  opt_.max_runs = std::max<size_t>(opt_.max_runs, 1);
  NewBuffer();
}

void CompactLshIndex::NewBuffer() {
  buffer_id_ = next_id_++;
  buffer_ = std::make_unique<LshIndex>(bands_);
  buffer_slots_.clear();
  buffer_keys_.clear();
  buffer_local_.clear();
  // A bulk load (a restore) grows this to every restored document (its keys
  // go to bulk_keys_, which EndBulk frees): keeping that capacity cost 4
  // bytes per document after a restart.
  if (buffer_slots_.capacity() > 2 * opt_.buffer_capacity)
    std::vector<uint32_t>().swap(buffer_slots_);
}

Status CompactLshIndex::Insert(uint32_t slot, std::span<const uint64_t> keys) {
  NEARDUP_RETURN_IF_ERROR(CheckBandKeys(bands_, keys.size()));
  if (slot == kNilSlot) return Status::InvalidArgument("slot out of range");
  if (Present(slot)) return Status::AlreadyExists("slot " + std::to_string(slot));
  if (bulk_) {
    buffer_slots_.push_back(slot);
    for (size_t b = 0; b < keys.size(); ++b) bulk_keys_[b].push_back(Fold(keys[b]));
    run_of_.Set(slot, buffer_id_);
    ++size_;
    return Status::OK();
  }
  if (buffer_slots_.size() >= opt_.buffer_capacity) Flush();
  const auto local = static_cast<uint32_t>(buffer_slots_.size());
  NEARDUP_RETURN_IF_ERROR(buffer_->Insert(local, keys));
  buffer_slots_.push_back(slot);
  for (uint64_t key : keys) buffer_keys_.push_back(Fold(key));
  buffer_local_[slot] = local;
  run_of_.Set(slot, buffer_id_);
  ++size_;
  return Status::OK();
}

// Large runs are built on up to 4 threads (a band each), which shortens the
// writer's stall on a merge and a restore's build.
int CompactLshIndex::BuildThreads(size_t documents) const {
  if (documents < opt_.parallel_build_documents) return 1;
  return static_cast<int>(std::clamp<unsigned>(std::thread::hardware_concurrency(), 1, 4));
}

void CompactLshIndex::BeginBulk(size_t expected) {
  if (bulk_) return;
  Flush();  // the mutable tier is empty and its id is the bulk run's
  bulk_ = true;
  // Only address space until written; EndBulk releases both.
  buffer_slots_.reserve(expected);
  bulk_keys_.assign(static_cast<size_t>(bands_), {});
  for (auto& band : bulk_keys_) band.reserve(expected);
}

void CompactLshIndex::EndBulk() {
  if (!bulk_) return;
  bulk_ = false;
  uint32_t max_slot = 0;
  for (uint32_t slot : buffer_slots_) max_slot = std::max(max_slot, slot);
  if (!buffer_slots_.empty()) {
    runs_.push_back(BandRun::Build(
        bands_, max_slot, buffer_id_, buffer_id_,
        [&](int band, std::vector<BandEntry>* out) {
          // Each band on one thread: its vector is this call's alone.
          std::vector<uint32_t>& keys = bulk_keys_[static_cast<size_t>(band)];
          out->reserve(buffer_slots_.size());
          for (size_t i = 0; i < buffer_slots_.size(); ++i) {
            out->push_back({keys[i], buffer_slots_[i]});
          }
          std::vector<uint32_t>().swap(keys);
        },
        BuildThreads(buffer_slots_.size())));
    ++merges_;
  }
  std::vector<std::vector<uint32_t>>().swap(bulk_keys_);
  NewBuffer();
  MergeAsNeeded();
}

Status CompactLshIndex::Remove(uint32_t slot) {
  EndBulk();
  if (!Present(slot)) return Status::NotFound("slot " + std::to_string(slot));
  const uint32_t id = run_of_.Get(slot);
  run_of_.Set(slot, 0);
  --size_;
  if (id == buffer_id_) {
    const auto it = buffer_local_.find(slot);
    NEARDUP_CHECK(it != buffer_local_.end());
    NEARDUP_RETURN_IF_ERROR(buffer_->Remove(it->second));
    buffer_local_.erase(it);
    return Status::OK();
  }
  for (size_t i = 0; i < runs_.size(); ++i) {
    BandRun& run = *runs_[i];
    if (id < run.lo() || id > run.hi()) continue;
    if (++run.dead * 4 > run.size()) Merge(i, 1);  // compaction
    return Status::OK();
  }
  NEARDUP_CHECK(false && "a present slot's tier id names no run");
  return Status::OK();
}

void CompactLshIndex::Flush() {
  // Live buffered documents in insertion order: (slot, local id).
  std::vector<std::pair<uint32_t, uint32_t>> live;
  live.reserve(buffer_local_.size());
  uint32_t max_slot = 0;
  for (uint32_t local = 0; local < buffer_slots_.size(); ++local) {
    const uint32_t slot = buffer_slots_[local];
    const auto it = buffer_local_.find(slot);
    if (it == buffer_local_.end() || it->second != local) continue;
    live.emplace_back(slot, local);
    max_slot = std::max(max_slot, slot);
  }
  if (!live.empty()) {
    const size_t b = static_cast<size_t>(bands_);
    runs_.push_back(BandRun::Build(
        bands_, max_slot, buffer_id_, buffer_id_,
        [&](int band, std::vector<BandEntry>* out) {
          for (const auto& [slot, local] : live) {
            out->push_back({buffer_keys_[local * b + static_cast<size_t>(band)], slot});
          }
        },
        BuildThreads(live.size())));
    ++merges_;
  }
  NewBuffer();
  MergeAsNeeded();
}

void CompactLshIndex::MergeAsNeeded() {
  while (runs_.size() >= 2) {
    const size_t k = runs_.size();
    if (runs_[k - 2]->size() > 2 * runs_[k - 1]->size() && k <= opt_.max_runs) break;
    Merge(k - 2, 2);
  }
}

void CompactLshIndex::Merge(size_t first, size_t count) {
  const auto begin = runs_.begin() + static_cast<ptrdiff_t>(first);
  const auto end = begin + static_cast<ptrdiff_t>(count);
  uint32_t max_slot = 0;
  size_t entries = 0;
  for (auto it = begin; it != end; ++it) {
    max_slot = std::max(max_slot, (*it)->max_slot());
    entries += (*it)->size();
  }
  std::unique_ptr<BandRun> merged = BandRun::Build(
      bands_, max_slot, (*begin)->lo(), (*(end - 1))->hi(),
      [&](int band, std::vector<BandEntry>* out) {
        // Each run gathers sorted: merge them in linear time,
        // freeing each consumed band (no query runs during a write).
        for (auto it = begin; it != end; ++it) {
          const auto mid = static_cast<ptrdiff_t>(out->size());
          (*it)->Gather(band, run_of_, out);
          (*it)->ReleaseBand(band);
          std::inplace_merge(out->begin(), out->begin() + mid, out->end());
        }
      },
      BuildThreads(entries));
  ++merges_;
  const bool empty = merged->size() == 0;
  if (!empty) *begin = std::move(merged);
  runs_.erase(empty ? begin : begin + 1, end);
}

void CompactLshIndex::Compact() {
  EndBulk();
  Flush();
  if (runs_.size() > 1 || (runs_.size() == 1 && runs_[0]->dead > 0)) Merge(0, runs_.size());
}

namespace {

// Sorts *v, made of ascending runs that end at *ends (each band's slots of
// each run, BandRun::FindAll), by merging neighbouring runs pass after
// pass: O(n log runs) moves, where std::sort made O(n log n) comparisons,
// most of them mispredicted (it was the service's largest cost at 10M
// documents). *scratch: the passes' other buffer.
void MergeRuns(std::vector<uint32_t>* v, std::vector<size_t>* ends,
               std::vector<uint32_t>* scratch) {
  ends->erase(std::unique(ends->begin(), ends->end()), ends->end());  // empty runs
  if (!ends->empty() && ends->front() == 0) ends->erase(ends->begin());
  scratch->resize(v->size());
  while (ends->size() > 1) {
    size_t begin = 0, kept = 0;
    for (size_t i = 0; i < ends->size(); i += 2) {
      const size_t mid = (*ends)[i];
      const size_t end = i + 1 < ends->size() ? (*ends)[i + 1] : mid;
      std::merge(v->begin() + static_cast<ptrdiff_t>(begin),
                 v->begin() + static_cast<ptrdiff_t>(mid), v->begin() + static_cast<ptrdiff_t>(mid),
                 v->begin() + static_cast<ptrdiff_t>(end),
                 scratch->begin() + static_cast<ptrdiff_t>(begin));
      (*ends)[kept++] = end;
      begin = end;
    }
    ends->resize(kept);
    v->swap(*scratch);
  }
}

}  // namespace

Status CompactLshIndex::AppendBuffered(std::span<const uint64_t> keys,
                                       std::vector<Hit>* out) const {
  NEARDUP_CHECK(!bulk_ && "CompactLshIndex::Query during a bulk load");
  NEARDUP_RETURN_IF_ERROR(CheckBandKeys(bands_, keys.size()));
  thread_local std::vector<Hit> buffered;
  buffered.clear();
  NEARDUP_RETURN_IF_ERROR(buffer_->Query(keys, &buffered));
  for (const Hit& h : buffered) out->push_back({buffer_slots_[h.slot], h.bands});
  return Status::OK();
}

Status CompactLshIndex::Query(std::span<const uint64_t> keys, std::vector<Hit>* out,
                              Memo* memo) const {
  // A live document sits in exactly one tier, so the buffer's counts are
  // whole: take its hits first (mapped to slots), then the runs'.
  const size_t first = out->size();
  NEARDUP_RETURN_IF_ERROR(AppendBuffered(keys, out));
  thread_local std::vector<uint32_t> found, folded, scratch;
  thread_local std::vector<size_t> ends;
  found.clear();
  ends.clear();
  folded.resize(static_cast<size_t>(bands_));
  for (int b = 0; b < bands_; ++b) folded[b] = Fold(keys[static_cast<size_t>(b)]);
  for (const auto& run : runs_) run->FindAll(folded, run_of_, &found, &ends);
  MergeRuns(&found, &ends, &scratch);
  AppendHits(found, first, out);
  if (memo != nullptr) {  // the hits not in the mutable tier
    memo->generation = merges_ + 1;
    memo->in_runs.clear();
    for (size_t i = first; i < out->size(); ++i) {
      if (run_of_.Get((*out)[i].slot) != buffer_id_) memo->in_runs.push_back((*out)[i]);
    }
  }
  return Status::OK();
}

Status CompactLshIndex::QueryAgain(std::span<const uint64_t> keys, const Memo& memo,
                                   std::vector<Hit>* out) const {
  if (memo.generation != merges_ + 1) return Query(keys, out);
  const size_t first = out->size();
  NEARDUP_RETURN_IF_ERROR(AppendBuffered(keys, out));
  for (const Hit& h : memo.in_runs) {
    const uint32_t tier = run_of_.Get(h.slot);
    if (tier != 0 && tier != buffer_id_) out->push_back(h);
  }
  SortHits(first, out);
  return Status::OK();
}

size_t CompactLshIndex::MemoryBytes() const {
  size_t bytes = sizeof(*this) + run_of_.MemoryBytes();
  for (const auto& run : runs_) bytes += run->MemoryBytes();
  bytes += buffer_->MemoryBytes() + buffer_slots_.capacity() * sizeof(uint32_t) +
           buffer_keys_.capacity() * sizeof(uint32_t);
  for (const auto& band : bulk_keys_) bytes += band.capacity() * sizeof(uint32_t);
  // An unordered_map node is about a key, a value, a hash and a pointer.
  bytes += buffer_local_.size() * 24 + buffer_local_.bucket_count() * sizeof(void*);
  return bytes;
}

CompactLshStats CompactLshIndex::Stats() const {
  return {.documents = size_,
          .runs = runs_.size(),
          .buffered = buffer_local_.size(),
          .merges = merges_,
          .memory_bytes = MemoryBytes()};
}

}  // namespace neardup::index
