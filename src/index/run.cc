// SPDX-License-Identifier: Apache-2.0
//
// Run building and searching (layout in run.h, method in design.h).
//
// Build: per table, permute every fingerprint, counting-sort by the top d
// bits (the histogram's prefix sums are the directory), sort each bucket by
// the full permuted value, pack. Tables are built in parallel.
//
// Search: per probed table, enumerate the directory buckets within the
// group's radius of the query's top d bits (Gosper's hack over d-bit masks),
// scan each bucket with popcount, then keep a candidate only if this table is
// the first one (in table order) whose key predicate it satisfies, so each
// document is reported once without a visited set. Inside large buckets of a
// radius-0 table whose key is longer than d, the key's range is found by
// binary search first (the second-level index: buckets are sorted).
#include "index/run.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <thread>

#include "index/scan.h"

namespace neardup::index {
namespace {

constexpr size_t kChunk = 1024;  // entries verified per ScanPacked call

uint64_t TopMask(int bits) { return bits >= 64 ? ~0ULL : bits <= 0 ? 0 : ~0ULL << (64 - bits); }

void ParallelFor(size_t n, int threads, const std::function<void(size_t)>& fn) {
  const size_t workers = std::min<size_t>(std::max(threads, 1), n);
  if (workers <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  auto loop = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
  };
  std::vector<std::thread> pool;
  for (size_t w = 1; w < workers; ++w) pool.emplace_back(loop);
  loop();
  for (auto& t : pool) t.join();
}

}  // namespace

uint64_t& CandidateCounter() {
  thread_local uint64_t count = 0;
  return count;
}

uint64_t Run::Table::Value(size_t i, uint64_t bucket) const {
  uint64_t raw;
  std::memcpy(&raw, data.data() + i * width, 8);
  if (width == 8) return raw;
  return (bucket << (64 - d)) | (raw & low);
}

std::shared_ptr<const Run> Run::Build(std::vector<Entry> entries, Design design, uint32_t lo,
                                      uint32_t hi, int threads) {
  std::shared_ptr<Run> run(new Run());
  run->lo_ = lo;
  run->hi_ = hi;
  run->n_ = entries.size();
  run->design_ = std::move(design);
  for (int k = 0; k <= 64; ++k) run->radii_.push_back(run->design_.Radii(k));
  if (run->design_.linear()) {
    run->fps_.reserve(entries.size());
    run->slots_.reserve(entries.size());
    for (const Entry& e : entries) {
      run->fps_.push_back(e.fp);
      run->slots_.push_back(e.slot);
    }
    return run;
  }
  const auto& specs = run->design_.tables();
  run->tables_.resize(specs.size());
  ParallelFor(specs.size(), threads, [&](size_t t) { run->BuildTable(t, entries); });
  for (Table& table : run->tables_) {
    for (const TableSpec& other : specs)
      table.cross.push_back(table.spec->permute.Apply(other.key_mask));
  }
  return run;
}

void Run::BuildTable(size_t t, const std::vector<Entry>& entries) {
  Table& table = tables_[t];
  table.spec = &design_.tables()[t];
  const size_t n = entries.size();
  table.d = DirectoryBits(n, table.spec->key_bits);
  table.width = table.d >= 16 ? 6 : 8;
  table.low = table.d == 0 ? ~0ULL : (~0ULL >> table.d);
  const int shift = 64 - table.d;
  auto bucket_of = [&](uint64_t v) -> size_t { return table.d == 0 ? 0 : v >> shift; };

  // Counting sort by the top d bits; dir[b] ends as the first entry of bucket b.
  std::vector<uint64_t> perm(n);
  table.dir.assign((size_t{1} << table.d) + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    perm[i] = table.spec->permute.Apply(entries[i].fp);
    ++table.dir[bucket_of(perm[i]) + 1];
  }
  for (size_t b = 1; b < table.dir.size(); ++b) table.dir[b] += table.dir[b - 1];
  std::vector<uint32_t> fill(table.dir.begin(), table.dir.end() - 1);
  std::vector<uint64_t> sorted(n);
  std::vector<uint32_t> slots(t == 0 ? n : 0);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t pos = fill[bucket_of(perm[i])]++;
    sorted[pos] = perm[i];
    if (t == 0) slots[pos] = entries[i].slot;
  }
  perm = {};
  fill = {};
  // Sort each bucket by value (and slot, for table 0, to keep builds deterministic).
  std::vector<std::pair<uint64_t, uint32_t>> tmp;
  for (size_t b = 0; b + 1 < table.dir.size(); ++b) {
    const size_t lo = table.dir[b], hi = table.dir[b + 1];
    if (hi - lo < 2) continue;
    if (t != 0) {
      std::sort(sorted.begin() + lo, sorted.begin() + hi);
      continue;
    }
    tmp.clear();
    for (size_t i = lo; i < hi; ++i) tmp.emplace_back(sorted[i], slots[i]);
    std::sort(tmp.begin(), tmp.end());
    for (size_t i = lo; i < hi; ++i) std::tie(sorted[i], slots[i]) = tmp[i - lo];
  }
  table.data.assign(n * table.width + 8, 0);
  for (size_t i = 0; i < n; ++i)
    std::memcpy(table.data.data() + i * table.width, &sorted[i], table.width);
  if (t == 0) slots_ = std::move(slots);
}

void Run::Search(uint64_t q, int k, const SlotTable& slots, std::vector<HammingHit>* out) const {
  if (n_ == 0) return;
  uint32_t idx[kChunk];
  if (design_.linear()) {
    CandidateCounter() += n_;
    for (size_t off = 0; off < n_; off += kChunk) {
      const size_t len = std::min(kChunk, n_ - off);
      const size_t c = ScanLinear(fps_.data() + off, len, q, k, idx);
      for (size_t j = 0; j < c; ++j) {
        const size_t i = off + idx[j];
        if (Live(slots_[i], slots))
          out->push_back({slots_[i], static_cast<uint32_t>(HammingDistance(fps_[i], q))});
      }
    }
    return;
  }
  const std::vector<int>& radii = radii_[std::min(k, 64)];
  for (size_t t = 0; t < tables_.size(); ++t) {
    if (radii[tables_[t].spec->group] >= 0) SearchTable(t, q, k, radii, slots, out);
  }
}

void Run::SearchTable(size_t t, uint64_t q, int k, const std::vector<int>& radii,
                      const SlotTable& slots, std::vector<HammingHit>* out) const {
  const Table& table = tables_[t];
  const int r = radii[table.spec->group];
  const uint64_t qp = table.spec->permute.Apply(q);
  const uint64_t own = TopMask(table.spec->key_bits);
  const int d = table.d;
  const uint64_t qb = d == 0 ? 0 : qp >> (64 - d);
  const uint64_t full = d == 0 ? 1 : (uint64_t{1} << d);
  uint32_t idx[kChunk];

  auto scan_bucket = [&](uint64_t b) {
    size_t lo = table.dir[b], hi = table.dir[b + 1];
    if (r == 0 && table.spec->key_bits > d &&
        hi - lo > 32) {  // second level: binary search the key
      const uint64_t key = qp & own;
      auto less = [&](size_t i, uint64_t v) { return table.Value(i, b) < v; };
      size_t a = lo, z = hi;
      while (a < z) {
        const size_t m = (a + z) / 2;
        if (less(m, key))
          a = m + 1;
        else
          z = m;
      }
      lo = a;
      z = hi;
      while (a < z) {
        const size_t m = (a + z) / 2;
        if (table.Value(m, b) <= (key | ~own))
          a = m + 1;
        else
          z = m;
      }
      hi = a;
    }
    CandidateCounter() += hi - lo;
    const uint64_t hib = table.width == 8 ? 0 : b << (64 - d);
    const uint64_t low = table.width == 8 ? ~0ULL : table.low;
    for (size_t off = lo; off < hi; off += kChunk) {
      const size_t end = std::min(hi, off + kChunk);
      const size_t c = ScanPacked(table.data.data(), table.width, off, end, hib, low, qp, k, idx);
      for (size_t j = 0; j < c; ++j) {
        const size_t i = idx[j];
        const uint64_t v = table.Value(i, b);
        const uint64_t x = qp ^ v;
        if (__builtin_popcountll(x & own) > r) continue;
        bool earlier = false;
        for (size_t e = 0; e < t && !earlier; ++e) {
          const int re = radii[tables_[e].spec->group];
          earlier = re >= 0 && __builtin_popcountll(x & table.cross[e]) <= re;
        }
        if (earlier) continue;
        const uint32_t dist = static_cast<uint32_t>(__builtin_popcountll(x));
        if (t == 0) {
          if (Live(slots_[i], slots)) out->push_back({slots_[i], dist});
        } else if (i == lo || table.Value(i - 1, b) != v) {  // equal values: resolve once
          EmitFromTable0(table.spec->unpermute.Apply(v), static_cast<int>(dist), slots, out);
        }
      }
    }
  };

  // Every bucket within radius r of qb over d bits.
  const int rr = std::min(r, d);
  for (int j = 0; j <= rr; ++j) {
    if (j == 0) {
      scan_bucket(qb);
      continue;
    }
    for (uint64_t m = (uint64_t{1} << j) - 1; m < full;) {
      scan_bucket(qb ^ m);
      const uint64_t c = m & -m, n = m + c;  // Gosper's hack: next mask with j bits
      m = (((n ^ m) >> 2) / c) | n;
    }
  }
}

void Run::EmitFromTable0(uint64_t fp, int dist, const SlotTable& slots,
                         std::vector<HammingHit>* out) const {
  const Table& t0 = tables_[0];
  const uint64_t p = t0.spec->permute.Apply(fp);
  const uint64_t b = t0.d == 0 ? 0 : p >> (64 - t0.d);
  size_t a = t0.dir[b], z = t0.dir[b + 1];
  while (a < z) {
    const size_t m = (a + z) / 2;
    if (t0.Value(m, b) < p)
      a = m + 1;
    else
      z = m;
  }
  for (size_t i = a; i < t0.dir[b + 1] && t0.Value(i, b) == p; ++i) {
    if (Live(slots_[i], slots)) out->push_back({slots_[i], static_cast<uint32_t>(dist)});
  }
}

void Run::Gather(const SlotTable& slots, std::vector<Entry>* out) const {
  if (design_.linear()) {
    for (size_t i = 0; i < n_; ++i)
      if (Live(slots_[i], slots)) out->push_back({fps_[i], slots_[i]});
    return;
  }
  const Table& t0 = tables_[0];
  for (size_t b = 0; b + 1 < t0.dir.size(); ++b) {
    for (size_t i = t0.dir[b]; i < t0.dir[b + 1]; ++i) {
      if (Live(slots_[i], slots))
        out->push_back({t0.spec->unpermute.Apply(t0.Value(i, b)), slots_[i]});
    }
  }
}

size_t Run::MemoryBytes() const {
  size_t bytes = sizeof(Run) + fps_.capacity() * 8 + slots_.capacity() * 4;
  for (const Table& t : tables_)
    bytes += t.dir.capacity() * 4 + t.data.capacity() + t.cross.capacity() * 8;
  return bytes;
}

void WriteBuffer::Kill(uint32_t slot) {
  const size_t n = count_.load(std::memory_order_relaxed);
  for (size_t i = 0; i < n; ++i) {
    if (slots_[i].load(std::memory_order_relaxed) == slot)
      slots_[i].store(kDeadSlot, std::memory_order_relaxed);
  }
}

void WriteBuffer::Search(uint64_t q, int k, const SlotTable& slots,
                         std::vector<HammingHit>* out) const {
  const size_t n = count();
  CandidateCounter() += n;
  uint32_t idx[kChunk];
  for (size_t off = 0; off < n; off += kChunk) {
    const size_t c = ScanLinear(fps_.get() + off, std::min(kChunk, n - off), q, k, idx);
    for (size_t j = 0; j < c; ++j) {
      const size_t i = off + idx[j];
      const uint32_t slot = slots_[i].load(std::memory_order_relaxed);
      if (slot != kDeadSlot && slots.RunOf(slot) == id_)
        out->push_back({slot, static_cast<uint32_t>(HammingDistance(fps_[i], q))});
    }
  }
}

void WriteBuffer::Gather(const SlotTable& slots, std::vector<Entry>* out) const {
  const size_t n = count();
  for (size_t i = 0; i < n; ++i) {
    const uint32_t slot = slots_[i].load(std::memory_order_relaxed);
    if (slot != kDeadSlot && slots.RunOf(slot) == id_) out->push_back({fps_[i], slot});
  }
}

}  // namespace neardup::index
