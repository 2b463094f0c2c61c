// SPDX-License-Identifier: Apache-2.0
//
// TieredIndex: the HammingIndex implementation. A write buffer in front of
// immutable runs merged size-tiered in the background, in the manner of a
// log-structured merge tree (O'Neil et al., "The Log-Structured Merge-Tree",
// 1996). Readers copy the shared_ptr to an immutable Version (runs + buffer)
// and search it with no further locking; the writer and the merger publish new
// Versions under a mutex. Run ids order runs by age; a merge replaces a
// contiguous stretch of runs by one run covering their id range, so a slot's
// run id (the tombstone) stays meaningful across merges (see run.h).
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "base/parallel.h"
#include "base/status_macros.h"
#include "index/design.h"
#include "index/hamming_index.h"
#include "index/run.h"
#include "index/slot_table.h"

namespace neardup::index {
namespace {

constexpr size_t kTierFanIn = 8;  // runs of one size tier merged together

struct Version {
  std::vector<std::shared_ptr<const Run>> runs;  // oldest (lowest ids) first
  std::shared_ptr<WriteBuffer> buffer;
};

struct MergePlan {
  size_t first = 0, count = 0;
};

class TieredIndex final : public HammingIndex {
 public:
  explicit TieredIndex(const HammingIndexOptions& options) : opt_(options) {
    budget_ = opt_.bytes_per_doc > 0 ? opt_.bytes_per_doc : (opt_.compact ? 40 : 64);
    threads_ = opt_.threads > 0
                   ? opt_.threads
                   : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    opt_.buffer_capacity = std::max<size_t>(opt_.buffer_capacity, 1);
    auto v = std::make_shared<Version>();
    v->buffer = std::make_shared<WriteBuffer>(next_id_++, opt_.buffer_capacity);
    Publish(std::move(v));
  }

  ~TieredIndex() override {
    {
      std::lock_guard lk(version_mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (merger_.joinable()) merger_.join();
  }

  Status Insert(uint32_t doc, uint64_t fp) override {
    if (doc == kDeadSlot) return Status::InvalidArgument("doc slot 0xFFFFFFFF is reserved");
    std::lock_guard lk(write_mu_);
    if (slots_.RunOf(doc) != 0) {
      return Status::AlreadyExists("doc slot " + std::to_string(doc) + " is in the index");
    }
    std::shared_ptr<const Version> v = Snapshot();
    if (v->buffer->full()) {
      FreezeBuffer();
      v = Snapshot();
    }
    slots_.Ensure(doc);
    slots_.Set(doc, fp, v->buffer->id());
    v->buffer->Append(fp, doc);
    size_.fetch_add(1, std::memory_order_relaxed);
    return Status::OK();
  }

  Status InsertBatch(std::span<const uint32_t> docs, std::span<const uint64_t> fps) override {
    if (docs.size() != fps.size()) return Status::InvalidArgument("docs and fps differ in size");
    std::lock_guard lk(write_mu_);
    // Duplicate and presence check in O(n) with a bitmap over the slots.
    uint32_t max_doc = 0;
    for (uint32_t d : docs) max_doc = std::max(max_doc, d);
    std::vector<uint64_t> seen(docs.empty() ? 0 : max_doc / 64 + 1, 0);
    for (uint32_t d : docs) {
      if (d == kDeadSlot) return Status::InvalidArgument("doc slot 0xFFFFFFFF is reserved");
      uint64_t& word = seen[d / 64];
      if ((word >> (d % 64) & 1) || slots_.RunOf(d) != 0) {
        return Status::AlreadyExists("doc slot " + std::to_string(d) + " is in the index");
      }
      word |= uint64_t{1} << (d % 64);
    }
    if (docs.empty()) return Status::OK();
    seen = {};
    if (Snapshot()->buffer->count() > 0) FreezeBuffer();
    const uint32_t id = next_id_++;
    std::vector<Entry> entries(docs.size());
    for (size_t i = 0; i < docs.size(); ++i) entries[i] = {fps[i], docs[i]};
    Design design = ChooseDesign(entries.size(), opt_.max_distance, budget_, opt_.layout);
    auto run = Run::Build(std::move(entries), std::move(design), id, id, threads_);
    for (size_t i = 0; i < docs.size(); ++i) {
      slots_.Ensure(docs[i]);
      slots_.Set(docs[i], fps[i], id);
    }
    {
      std::lock_guard vl(version_mu_);
      auto next = std::make_shared<Version>(*Snapshot());
      next->runs.push_back(std::move(run));
      next->buffer = std::make_shared<WriteBuffer>(next_id_++, opt_.buffer_capacity);
      Publish(std::move(next));
    }
    size_.fetch_add(docs.size(), std::memory_order_relaxed);
    AfterPublish();
    return Status::OK();
  }

  Status Remove(uint32_t doc) override {
    std::lock_guard lk(write_mu_);
    const uint32_t id = slots_.RunOf(doc);
    if (id == 0)
      return Status::NotFound("doc slot " + std::to_string(doc) + " is not in the index");
    slots_.Clear(doc);
    size_.fetch_sub(1, std::memory_order_relaxed);
    std::shared_ptr<const Version> v = Snapshot();
    if (id == v->buffer->id()) {
      v->buffer->Kill(doc);
      return Status::OK();
    }
    for (const auto& run : v->runs) {
      if (id < run->lo() || id > run->hi()) continue;
      const size_t dead = run->dead.fetch_add(1, std::memory_order_relaxed) + 1;
      if (dead > opt_.compact_dead_fraction * run->size()) AfterPublish();  // compaction due
      break;
    }
    return Status::OK();
  }

  Status Search(uint64_t fp, int k, std::vector<HammingHit>* out) const override {
    NEARDUP_RETURN_IF_ERROR(CheckK(k));
    const std::shared_ptr<const Version> v = Snapshot();
    for (const auto& run : v->runs) run->Search(fp, k, slots_, out);
    v->buffer->Search(fp, k, slots_, out);
    return Status::OK();
  }

  Status SearchBatch(std::span<const uint64_t> queries, int k, std::vector<HammingHit>* hits,
                     std::vector<uint32_t>* offsets) const override;

  Result<uint64_t> Get(uint32_t doc) const override {
    if (slots_.RunOf(doc) == 0) return Status::NotFound("doc slot not present");
    return slots_.Fingerprint(doc);
  }

  Status Compact() override;

  size_t size() const override { return size_.load(std::memory_order_relaxed); }
  int max_distance() const override { return opt_.max_distance; }

  size_t MemoryBytes() const override {
    const std::shared_ptr<const Version> v = Snapshot();
    size_t bytes = slots_.MemoryBytes() + v->buffer->MemoryBytes();
    for (const auto& run : v->runs) bytes += run->MemoryBytes();
    return bytes;
  }

  HammingIndexStats Stats() const override {
    const std::shared_ptr<const Version> v = Snapshot();
    HammingIndexStats s;
    s.documents = size();
    s.runs = v->runs.size();
    s.buffered = v->buffer->count();
    s.merges = merges_.load(std::memory_order_relaxed);
    s.memory_bytes = MemoryBytes();
    size_t largest = 0;
    for (const auto& run : v->runs) {
      if (run->size() >= largest) {
        largest = run->size();
        s.layout = run->design().ToString();
      }
    }
    return s;
  }

 private:
  // The current version. The pointer copy is guarded by a mutex held for a
  // few nanoseconds (std::atomic<std::shared_ptr> of GCC 12 is not visible to
  // ThreadSanitizer); no reader ever waits for a merge or a writer's work.
  std::shared_ptr<const Version> Snapshot() const {
    std::lock_guard lk(snapshot_mu_);
    return current_;
  }
  // Caller holds version_mu_ (except in the constructor). The old version is
  // retired rather than dropped, so a reader never frees runs (which can take
  // milliseconds for big arrays): ReleaseRetired() frees them on a writer or
  // merger thread once no reader holds them.
  void Publish(std::shared_ptr<const Version> v) {
    {
      std::lock_guard lk(snapshot_mu_);
      current_.swap(v);
    }
    if (v != nullptr) retired_.push_back(std::move(v));
  }
  void ReleaseRetired() {
    std::vector<std::shared_ptr<const Version>> free;
    {
      std::lock_guard vl(version_mu_);
      auto keep = std::partition(retired_.begin(), retired_.end(),
                                 [](const auto& v) { return v.use_count() > 1; });
      free.assign(std::make_move_iterator(keep), std::make_move_iterator(retired_.end()));
      retired_.erase(keep, retired_.end());
    }
  }  // `free` is destroyed here, outside every lock

  Status CheckK(int k) const {
    if (k < 0 || k > opt_.max_distance) {
      return Status::OutOfRange("distance " + std::to_string(k) + " exceeds the index maximum " +
                                std::to_string(opt_.max_distance));
    }
    return Status::OK();
  }

  void FreezeBuffer();  // writer: buffer -> linear run
  void AfterPublish();  // wake the merger or merge inline
  void MergerLoop();
  bool PickMerge(const Version& v, MergePlan* plan) const;
  bool MergeOnce(bool all);  // one merge; false if nothing to do
  std::shared_ptr<const Run> BuildMerged(const std::vector<std::shared_ptr<const Run>>& inputs);
  void Install(const std::vector<std::shared_ptr<const Run>>& inputs,
               std::shared_ptr<const Run> merged);

  HammingIndexOptions opt_;
  double budget_ = 64;
  int threads_ = 1;
  SlotTable slots_;
  mutable std::mutex snapshot_mu_;  // guards current_ only
  std::shared_ptr<const Version> current_;
  std::vector<std::shared_ptr<const Version>> retired_;  // guarded by version_mu_
  std::mutex write_mu_;                                  // serialises writers; guards next_id_
  uint32_t next_id_ = 1;
  std::mutex version_mu_;       // publishing versions; guards the fields below
  std::condition_variable cv_;  // merger wake-up, writer back-pressure, merge done
  bool stop_ = false;
  bool merging_ = false;
  std::thread merger_;
  std::atomic<size_t> size_{0};
  std::atomic<size_t> merges_{0};
};

void TieredIndex::FreezeBuffer() {
  std::unique_lock vl(version_mu_);
  if (opt_.background_merge) {
    cv_.wait(vl, [&] { return stop_ || Snapshot()->runs.size() < opt_.max_runs; });
  }
  std::shared_ptr<const Version> cur = Snapshot();
  auto next = std::make_shared<Version>(*cur);
  std::vector<Entry> entries;
  cur->buffer->Gather(slots_, &entries);
  if (!entries.empty()) {
    next->runs.push_back(
        Run::Build(std::move(entries), Design::Linear(), cur->buffer->id(), cur->buffer->id(), 1));
  }
  next->buffer = std::make_shared<WriteBuffer>(next_id_++, opt_.buffer_capacity);
  Publish(std::move(next));
  vl.unlock();
  AfterPublish();
  ReleaseRetired();
}

void TieredIndex::AfterPublish() {
  if (!opt_.background_merge) {
    while (MergeOnce(false)) {
    }
    return;
  }
  bool started = true;
  {
    std::lock_guard vl(version_mu_);
    if (!merger_.joinable()) {
      started = base::StartThread(&merger_, "index merger", [this] { MergerLoop(); }).ok();
    }
  }
  if (!started) {  // at the thread limit: merge inline, as without background merges
    while (MergeOnce(false)) {
    }
    return;
  }
  cv_.notify_all();
}

void TieredIndex::MergerLoop() {
  for (;;) {
    {
      std::unique_lock vl(version_mu_);
      MergePlan plan;
      cv_.wait(vl, [&] { return stop_ || (!merging_ && PickMerge(*Snapshot(), &plan)); });
      if (stop_) return;
    }
    MergeOnce(false);
  }
}

// Size-tiered: a compaction of a run with many dead entries first, else the
// newest kTierFanIn runs of one size tier, else (too many runs) the smallest
// neighbouring pair. Up to kTierFanIn-1 frozen buffers
// stay linear runs until then (a cheap SIMD scan).
bool TieredIndex::PickMerge(const Version& v, MergePlan* plan) const {
  const size_t n = v.runs.size();
  for (size_t i = 0; i < n; ++i) {
    const Run& r = *v.runs[i];
    if (r.dead.load(std::memory_order_relaxed) > opt_.compact_dead_fraction * r.size()) {
      *plan = {i, 1};
      return true;
    }
  }
  auto tier = [&](size_t i) {
    size_t t = 0;
    for (size_t s = v.runs[i]->size() / opt_.buffer_capacity; s >= kTierFanIn; s /= kTierFanIn) ++t;
    return t;
  };
  for (size_t end = n; end > 0; --end) {
    size_t begin = end - 1;
    while (begin > 0 && tier(begin - 1) == tier(end - 1)) --begin;
    if (end - begin >= kTierFanIn) {
      *plan = {end - kTierFanIn, kTierFanIn};
      return true;
    }
    end = begin + 1;
  }
  if (n > std::max<size_t>(opt_.max_runs / 2, 2)) {  // odd sizes after compactions
    size_t best = 0;
    for (size_t i = 1; i + 1 < n; ++i) {
      if (v.runs[i]->size() + v.runs[i + 1]->size() <
          v.runs[best]->size() + v.runs[best + 1]->size())
        best = i;
    }
    *plan = {best, 2};
    return true;
  }
  return false;
}

bool TieredIndex::MergeOnce(bool all) {
  std::vector<std::shared_ptr<const Run>> inputs;
  {
    std::unique_lock vl(version_mu_);
    cv_.wait(vl, [&] { return !merging_; });
    std::shared_ptr<const Version> v = Snapshot();
    MergePlan plan;
    if (all) {
      if (v->runs.empty() ||
          (v->runs.size() == 1 && v->runs[0]->dead.load() == 0 && !v->runs[0]->design().linear())) {
        return false;
      }
      plan = {0, v->runs.size()};
    } else if (!PickMerge(*v, &plan)) {
      return false;
    }
    inputs.assign(v->runs.begin() + plan.first, v->runs.begin() + plan.first + plan.count);
    merging_ = true;
  }
  Install(inputs, BuildMerged(inputs));
  ReleaseRetired();
  return true;
}

std::shared_ptr<const Run> TieredIndex::BuildMerged(
    const std::vector<std::shared_ptr<const Run>>& inputs) {
  size_t dead_before = 0;
  for (const auto& r : inputs) dead_before += r->dead.load(std::memory_order_relaxed);
  std::vector<Entry> entries;
  for (const auto& r : inputs) r->Gather(slots_, &entries);
  const size_t n = entries.size();
  if (n == 0) return nullptr;
  Design design = ChooseDesign(n, opt_.max_distance, budget_, opt_.layout);
  auto run = Run::Build(std::move(entries), std::move(design), inputs.front()->lo(),
                        inputs.back()->hi(), threads_);
  // Removals that raced with Gather may be counted twice; the counter is a hint.
  size_t dead_after = 0;
  for (const auto& r : inputs) dead_after += r->dead.load(std::memory_order_relaxed);
  run->dead.store(dead_after - dead_before, std::memory_order_relaxed);
  return run;
}

void TieredIndex::Install(const std::vector<std::shared_ptr<const Run>>& inputs,
                          std::shared_ptr<const Run> merged) {
  {
    std::lock_guard vl(version_mu_);
    std::shared_ptr<const Version> cur = Snapshot();
    auto next = std::make_shared<Version>();
    next->buffer = cur->buffer;
    // Only the merger removes runs, so the inputs are still contiguous in cur.
    auto first = std::find(cur->runs.begin(), cur->runs.end(), inputs.front());
    NEARDUP_CHECK(first != cur->runs.end());
    next->runs.assign(cur->runs.begin(), first);
    if (merged != nullptr) next->runs.push_back(std::move(merged));
    next->runs.insert(next->runs.end(), first + inputs.size(), cur->runs.end());
    Publish(std::move(next));
    merging_ = false;
    merges_.fetch_add(1, std::memory_order_relaxed);
  }
  cv_.notify_all();
}

Status TieredIndex::Compact() {
  std::lock_guard lk(write_mu_);
  if (Snapshot()->buffer->count() > 0) {
    // Freeze without triggering tiered merges; the full merge follows.
    std::lock_guard vl(version_mu_);
    std::shared_ptr<const Version> cur = Snapshot();
    auto next = std::make_shared<Version>(*cur);
    std::vector<Entry> entries;
    cur->buffer->Gather(slots_, &entries);
    if (!entries.empty()) {
      next->runs.push_back(Run::Build(std::move(entries), Design::Linear(), cur->buffer->id(),
                                      cur->buffer->id(), 1));
    }
    next->buffer = std::make_shared<WriteBuffer>(next_id_++, opt_.buffer_capacity);
    Publish(std::move(next));
  }
  MergeOnce(true);
  return Status::OK();
}

Status TieredIndex::SearchBatch(std::span<const uint64_t> queries, int k,
                                std::vector<HammingHit>* hits,
                                std::vector<uint32_t>* offsets) const {
  NEARDUP_RETURN_IF_ERROR(CheckK(k));
  const std::shared_ptr<const Version> v = Snapshot();
  const size_t n = queries.size();
  const size_t workers = std::clamp<size_t>(n / 256, 1, threads_);
  std::vector<std::vector<HammingHit>> part_hits(workers);
  std::vector<std::vector<uint32_t>> part_counts(workers);
  constexpr size_t kGroup = 8;
  auto work = [&](size_t w) {
    const size_t begin = n * w / workers, end = n * (w + 1) / workers;
    std::vector<HammingHit> local[kGroup];
    std::vector<HammingHit>* outs[kGroup];
    for (size_t g = 0; g < kGroup; ++g) outs[g] = &local[g];
    for (size_t i = begin; i < end; i += kGroup) {
      const size_t m = std::min(kGroup, end - i);
      for (size_t g = 0; g < m; ++g) local[g].clear();
      for (const auto& run : v->runs) run->SearchGroup(&queries[i], m, k, slots_, outs);
      for (size_t g = 0; g < m; ++g) {
        v->buffer->Search(queries[i + g], k, slots_, &local[g]);
        part_hits[w].insert(part_hits[w].end(), local[g].begin(), local[g].end());
        part_counts[w].push_back(static_cast<uint32_t>(local[g].size()));
      }
    }
  };
  std::vector<std::thread> pool;
  base::FirstException error;
  auto guarded = [&](size_t w) {
    try {
      work(w);
    } catch (...) {
      error.Capture();
    }
  };
  for (size_t w = 1; w < workers; ++w) {  // a share whose thread cannot start runs here
    if (!base::TryAddThread(&pool, [&guarded, w] { guarded(w); })) guarded(w);
  }
  guarded(0);
  for (auto& t : pool) t.join();
  error.RethrowIfAny();
  hits->clear();
  offsets->assign(1, 0);
  for (size_t w = 0; w < workers; ++w) {
    hits->insert(hits->end(), part_hits[w].begin(), part_hits[w].end());
    for (uint32_t c : part_counts[w]) offsets->push_back(offsets->back() + c);
  }
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<HammingIndex>> HammingIndex::Create(const HammingIndexOptions& options) {
  if (options.max_distance < 0 || options.max_distance > 32) {
    return Status::InvalidArgument("max_distance must be in [0, 32], got " +
                                   std::to_string(options.max_distance));
  }
  const HammingLayout& l = options.layout;
  if (!l.linear && l.blocks != 0 && !Design::Valid(l.blocks, l.groups, l.key_blocks)) {
    return Status::InvalidArgument("inconsistent layout: blocks=" + std::to_string(l.blocks) +
                                   " groups=" + std::to_string(l.groups) +
                                   " key_blocks=" + std::to_string(l.key_blocks));
  }
  if (options.bytes_per_doc < 0) return Status::InvalidArgument("bytes_per_doc must be >= 0");
  return std::unique_ptr<HammingIndex>(new TieredIndex(options));
}

}  // namespace neardup::index
