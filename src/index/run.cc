// SPDX-License-Identifier: Apache-2.0
//
// Run building and searching (layout in run.h, method in design.h).
//
// Build: per table, a two-pass MSD radix sort of the permuted fingerprints
// (top 11 bits, then the rest of the d directory bits plus 4 more; the counts
// give the directory), the few remaining ties sorted by value, then packed.
// Tables are built in parallel, each worker reusing its scratch arrays.
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

#include "base/parallel.h"
#include "base/prefetch.h"
#include "index/scan.h"

namespace neardup::index {
namespace {

constexpr size_t kChunk = 1024;  // entries verified per ScanPacked call

uint64_t TopMask(int bits) { return bits >= 64 ? ~0ULL : bits <= 0 ? 0 : ~0ULL << (64 - bits); }

// Runs fn(worker, i) for i in [0, n) on up to `threads` threads.
void ParallelFor(size_t n, size_t workers, const std::function<void(size_t, size_t)>& fn) {
  if (workers <= 1) {
    for (size_t i = 0; i < n; ++i) fn(0, i);
    return;
  }
  std::atomic<size_t> next{0};
  base::FirstException error;
  auto loop = [&](size_t w) {
    try {
      for (size_t i; !error.caught() && (i = next.fetch_add(1)) < n;) fn(w, i);
    } catch (...) {
      error.Capture();
    }
  };
  std::vector<std::thread> pool;
  for (size_t w = 1; w < workers; ++w) {
    if (!base::TryAddThread(&pool, [&loop, w] { loop(w); })) break;
  }
  loop(0);
  for (auto& t : pool) t.join();
  error.RethrowIfAny();
}

// Sorts v[lo, hi) (and s alongside, if given) by value, then slot.
void SortRange(uint64_t* v, uint32_t* s, size_t lo, size_t hi) {
  if (hi - lo < 2) return;
  if (hi - lo <= 24) {  // insertion sort: buckets are small
    for (size_t i = lo + 1; i < hi; ++i) {
      const uint64_t x = v[i];
      const uint32_t y = s != nullptr ? s[i] : 0;
      size_t j = i;
      for (; j > lo && (v[j - 1] > x || (v[j - 1] == x && s != nullptr && s[j - 1] > y)); --j) {
        v[j] = v[j - 1];
        if (s != nullptr) s[j] = s[j - 1];
      }
      v[j] = x;
      if (s != nullptr) s[j] = y;
    }
    return;
  }
  if (s == nullptr) {
    std::sort(v + lo, v + hi);
    return;
  }
  std::vector<std::pair<uint64_t, uint32_t>> tmp;
  for (size_t i = lo; i < hi; ++i) tmp.emplace_back(v[i], s[i]);
  std::sort(tmp.begin(), tmp.end());
  for (size_t i = lo; i < hi; ++i) std::tie(v[i], s[i]) = tmp[i - lo];
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
  const size_t workers = std::min<size_t>(std::max(threads, 1), specs.size());
  std::vector<BuildScratch> scratch(workers);  // reused across a worker's tables
  ParallelFor(specs.size(), workers,
              [&](size_t w, size_t t) { run->BuildTable(t, entries, &scratch[w]); });
  for (Table& table : run->tables_) {
    for (const TableSpec& other : specs)
      table.cross.push_back(table.spec->permute.Apply(other.key_mask));
  }
  return run;
}

// Two-pass MSD radix sort of the permuted fingerprints. Pass 1 scatters by
// the top P <= 11 bits into partitions that fit in cache; pass 2 sorts each
// partition by the next d - P directory bits plus X = 4 more bits, so the
// directory falls out of the counts and the sub-buckets left to sort by value
// hold about a quarter of an entry on average.
void Run::BuildTable(size_t t, const std::vector<Entry>& entries, BuildScratch* sc) {
  Table& table = tables_[t];
  table.spec = &design_.tables()[t];
  const BitPermutation& perm = table.spec->permute;
  const size_t n = entries.size();
  const int d = DirectoryBits(n, table.spec->key_bits);
  table.d = d;
  table.width = d >= 16 ? 6 : 8;
  table.low = d == 0 ? ~0ULL : (~0ULL >> d);
  sc->a.resize(n);
  sc->b.resize(n);
  std::vector<uint32_t, HugePageAllocator<uint32_t>> slots;
  if (t == 0) {
    sc->as.resize(n);
    slots.resize(n);
  }
  uint64_t* out = sc->b.data();
  table.dir.assign((size_t{1} << d) + 1, 0);
  if (d == 0) {
    for (size_t i = 0; i < n; ++i) {
      out[i] = perm.Apply(entries[i].fp);
      if (t == 0) slots[i] = entries[i].slot;
    }
    SortRange(out, t == 0 ? slots.data() : nullptr, 0, n);
  } else {
    const int p = std::min(d, 11), rest = d - p, x = 4, sub = rest + x;
    std::vector<uint32_t> part((size_t{1} << p) + 1, 0);
    for (const Entry& e : entries) ++part[(perm.Apply(e.fp) >> (64 - p)) + 1];
    for (size_t i = 1; i < part.size(); ++i) part[i] += part[i - 1];
    {
      std::vector<uint32_t> fill(part.begin(), part.end() - 1);
      for (const Entry& e : entries) {
        const uint64_t v = perm.Apply(e.fp);
        const uint32_t pos = fill[v >> (64 - p)]++;
        sc->a[pos] = v;
        if (t == 0) sc->as[pos] = e.slot;
      }
    }
    const uint64_t sub_mask = (uint64_t{1} << sub) - 1;
    const int sub_shift = 64 - d - x;
    std::vector<uint32_t> fill((size_t{1} << sub) + 1);
    for (size_t q = 0; q + 1 < part.size(); ++q) {
      const size_t lo = part[q], hi = part[q + 1];
      std::fill(fill.begin(), fill.end(), 0);
      for (size_t i = lo; i < hi; ++i) ++fill[((sc->a[i] >> sub_shift) & sub_mask) + 1];
      fill[0] = static_cast<uint32_t>(lo);
      for (size_t j = 1; j < fill.size(); ++j) fill[j] += fill[j - 1];
      uint32_t* dir = table.dir.data() + (q << rest);
      for (size_t b = 0; b < (size_t{1} << rest); ++b) dir[b] = fill[b << x];
      for (size_t i = lo; i < hi; ++i) {
        const uint32_t pos = fill[(sc->a[i] >> sub_shift) & sub_mask]++;
        out[pos] = sc->a[i];
        if (t == 0) slots[pos] = sc->as[i];
      }
      // fill[j] is now the end of sub-bucket j; sort the few with 2+ entries.
      size_t start = lo;
      for (size_t j = 0; j <= sub_mask; ++j) {
        if (fill[j] - start >= 2) SortRange(out, t == 0 ? slots.data() : nullptr, start, fill[j]);
        start = fill[j];
      }
    }
  }
  table.dir[size_t{1} << d] = static_cast<uint32_t>(n);
  table.data.resize(n * table.width + 8);
  std::memset(table.data.data() + n * table.width, 0, 8);
  for (size_t i = 0; i < n; ++i)
    std::memcpy(table.data.data() + i * table.width, &out[i], table.width);
  if (t == 0) slots_ = std::move(slots);
}

void Run::Search(uint64_t q, int k, const SlotTable& slots, std::vector<HammingHit>* out) const {
  SearchGroup(&q, 1, k, slots, &out);
}

void Run::SearchLinear(uint64_t q, int k, const SlotTable& slots,
                       std::vector<HammingHit>* out) const {
  uint32_t idx[kChunk];
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
}

// Probes are gathered for a group of queries and run in three passes over the
// list (prefetch the directory, prefetch the bucket, scan), so the random
// memory accesses of different tables and queries overlap.
void Run::SearchGroup(const uint64_t* qs, size_t nq, int k, const SlotTable& slots,
                      std::vector<HammingHit>* const* outs) const {
  if (n_ == 0) return;
  if (design_.linear()) {
    for (size_t i = 0; i < nq; ++i) SearchLinear(qs[i], k, slots, outs[i]);
    return;
  }
  const std::vector<int>& radii = radii_[std::min(k, 64)];
  constexpr size_t kFlush = 64;
  Probe probes[kFlush];
  size_t np = 0;
  auto flush = [&] {
    for (size_t i = 0; i < np; ++i) base::Prefetch(&tables_[probes[i].table].dir[probes[i].bucket]);
    for (size_t i = 0; i < np; ++i) {
      Probe& p = probes[i];
      const Table& table = tables_[p.table];
      p.lo = table.dir[p.bucket];
      p.hi = table.dir[p.bucket + 1];
      const uint8_t* first = table.data.data() + size_t{p.lo} * table.width;
      const uint8_t* last = table.data.data() + size_t{p.hi} * table.width;
      for (const uint8_t* a = first; a < last && a < first + 1024; a += 64) base::Prefetch(a);
    }
    for (size_t i = 0; i < np; ++i) ScanProbe(probes[i], k, radii, slots, outs[probes[i].query]);
    np = 0;
  };
  for (size_t qi = 0; qi < nq; ++qi) {
    for (size_t t = 0; t < tables_.size(); ++t) {
      const Table& table = tables_[t];
      const int r = radii[table.spec->group];
      if (r < 0) continue;
      const uint64_t qp = table.spec->permute.Apply(qs[qi]);
      const int d = table.d;
      const uint64_t qb = d == 0 ? 0 : qp >> (64 - d);
      auto add = [&](uint64_t b) {
        probes[np++] = {static_cast<uint32_t>(qi), static_cast<uint32_t>(t), r, b, qp, 0, 0};
        if (np == kFlush) flush();
      };
      // Every bucket within radius r of qb over d bits (Gosper's hack per weight).
      const uint64_t full = d == 0 ? 1 : (uint64_t{1} << d);
      add(qb);
      for (int j = 1; j <= std::min(r, d); ++j) {
        for (uint64_t m = (uint64_t{1} << j) - 1; m < full;) {
          add(qb ^ m);
          const uint64_t c = m & -m, n = m + c;
          m = (((n ^ m) >> 2) / c) | n;
        }
      }
    }
  }
  flush();
}

void Run::ScanProbe(const Probe& p, int k, const std::vector<int>& radii, const SlotTable& slots,
                    std::vector<HammingHit>* out) const {
  const Table& table = tables_[p.table];
  const size_t t = p.table;
  const int r = p.radius, d = table.d;
  const uint64_t qp = p.qp, b = p.bucket;
  const uint64_t own = TopMask(table.spec->key_bits);
  size_t lo = p.lo, hi = p.hi;
  if (r == 0 && table.spec->key_bits > d && hi - lo > 32) {  // second level: binary search the key
    const uint64_t first = qp & own, last = first | ~own;
    size_t a = lo, z = hi;
    while (a < z) {
      const size_t m = (a + z) / 2;
      if (table.Value(m, b) < first)
        a = m + 1;
      else
        z = m;
    }
    lo = a;
    z = hi;
    while (a < z) {
      const size_t m = (a + z) / 2;
      if (table.Value(m, b) <= last)
        a = m + 1;
      else
        z = m;
    }
    hi = a;
  }
  CandidateCounter() += hi - lo;
  const uint64_t hib = table.width == 8 ? 0 : b << (64 - d);
  const uint64_t low = table.width == 8 ? ~0ULL : table.low;
  uint32_t idx[kChunk];
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
