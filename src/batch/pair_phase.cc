// SPDX-License-Identifier: Apache-2.0
//
// Phase 2: the k-way merge of every key run yields buckets (equal keys) in
// key order, members in document order. Each bucket of a signature's space
// becomes candidate pairs by star pairing (batch_run.h); pairs are sorted
// runs again (spilled past the budget), so the verify phase sees each pair
// once, in (a, b) order. With the key filter (key_filter.h) a bucket emits
// only pairs whose key bytes allow min_shared_keys shared keys. Buckets of the id space hold
// records with equal id hashes: a later record whose id equals an earlier one's is a repeated id.
#include <algorithm>
#include <array>
#include <functional>

#include "base/status_macros.h"
#include "batch/batch_run.h"
#include "batch/sort.h"
#include "batch/spill_buffer.h"

namespace neardup {
namespace {

uint64_t PairKey(const batch::Pair& p) { return p; }

}  // namespace

Status BatchDedup::Impl::PairPhase(batch::KeyRuns* keys, batch::PairRuns* pairs) {
  monitor->Phase(BatchPhase::kMerge, keys->records());
  const uint64_t read_budget = std::clamp<uint64_t>(Available() / 8, 1 << 20, 256 << 20);
  NEARDUP_ASSIGN_OR_RETURN(auto merger, keys->Merge(read_budget));
  const uint64_t in_memory = keys->memory_bytes();
  const uint64_t avail = Available();
  const uint64_t pair_limit = std::max<uint64_t>(
      8192, (avail > in_memory + read_budget ? avail - in_memory - read_budget : 0) /
                sizeof(batch::Pair));
  batch::SpillBuffer<batch::Pair> buf(pair_limit);  // memory by need, up to the limit
  auto flush = [&](bool spill) -> Status {
    batch::ParallelRadixSort(buf.span(), PairKey, std::less<batch::Pair>(), threads);
    // Repeats inside one buffer go now (the verify phase drops the rest);
    // with min_shared_keys = m it counts them, so m copies are kept.
    const uint64_t keep = std::max<uint64_t>(1, options.min_shared_keys);
    size_t out = 0, copies = 0;
    for (size_t i = 0; i < buf.size(); ++i) {
      copies = i > 0 && buf[i] == buf[i - 1] ? copies + 1 : 1;
      if (copies <= keep) buf[out++] = buf[i];
    }
    buf.truncate(out);
    return pairs->AddRun(&buf, spill);
  };

  const std::vector<batch::KeySpace>& spaces = sig->spaces();
  batch::RecordParser parser(fields);
  std::vector<std::pair<uint32_t, std::string>> ids;  // distinct ids of an id bucket
  std::vector<uint32_t> head;                         // the first W members of a bucket
  uint64_t key = 0, merged = 0;
  uint32_t last = UINT32_MAX;
  uint32_t space = 0;
  batch::KeyEntry e;
  // With the key filter, entries are read kAhead ahead of the pairing and
  // their documents' key bytes prefetched: those are random reads into the
  // LineTable, one per entry, and would otherwise stall one at a time.
  constexpr size_t kAhead = 32;
  std::array<batch::KeyEntry, kAhead> ring;
  size_t ring_at = 0, ring_size = 0;
  bool drained = false;
  uint64_t ahead_key = 0;  // the key of the entry read last
  uint32_t ahead_doc = UINT32_MAX;
  auto next = [&](batch::KeyEntry* out) -> Result<bool> {
    if (key_filter.width() == 0) return merger->Next(out);
    while (!drained && ring_size < kAhead) {
      batch::KeyEntry x;
      NEARDUP_ASSIGN_OR_RETURN(bool got, merger->Next(&x));
      if (!got) {
        drained = true;
        break;
      }
      // Only members of buckets of two or more are read.
      if (x.key == ahead_key && batch::SpaceOf(x.key) != batch::kIdSpace) {
        if (ahead_doc != UINT32_MAX) __builtin_prefetch(lines->key_bytes(ahead_doc));
        __builtin_prefetch(lines->key_bytes(x.doc));
        ahead_doc = UINT32_MAX;  // fetched
      } else {
        ahead_key = x.key;
        ahead_doc = x.doc;
      }
      ring[(ring_at + ring_size) % kAhead] = x;
      ++ring_size;
    }
    if (ring_size == 0) return false;
    *out = ring[ring_at];
    ring_at = (ring_at + 1) % kAhead;
    --ring_size;
    return true;
  };
  while (true) {
    NEARDUP_ASSIGN_OR_RETURN(bool more, next(&e));
    if (!more) break;
    if ((++merged & 0xFFFF) == 0) {
      monitor->Done(merged);
      monitor->Tick();
    }
    if (merged == 1 || e.key != key) {
      key = e.key;
      space = batch::SpaceOf(key);
      head.clear();
      ids.clear();
      last = UINT32_MAX;
    }
    if (e.doc == last) continue;  // the same key twice in one document
    last = e.doc;
    if (space == batch::kIdSpace) {
      // Ids are parsed only when a bucket gets a second member (ids are
      // almost always unique, and parsing every record here would cost a
      // pass over the input).
      if (head.empty() && ids.empty()) {
        head.push_back(e.doc);
        continue;
      }
      if (ids.empty()) {
        std::string_view first_id;
        NEARDUP_RETURN_IF_ERROR(ParseId(head.front(), &parser, &first_id));
        ids.emplace_back(head.front(), std::string(first_id));
      }
      std::string_view id;
      NEARDUP_RETURN_IF_ERROR(ParseId(e.doc, &parser, &id));
      bool repeated = false;
      for (const auto& [doc, other] : ids) repeated = repeated || other == id;
      if (!repeated) {
        ids.emplace_back(e.doc, std::string(id));
        continue;
      }
      Status s = Status::AlreadyExists("document " + std::string(id) + " already exists")
                     .WithContext(Where(e.doc));
      if (!options.skip_invalid) {
        RecordError(e.doc, std::move(s));
        continue;
      }
      lines->set_state(e.doc, batch::kSkipped);
      skips.emplace_back(e.doc, std::move(s));
      ++stats.skipped;
      --stats.records;
      continue;
    }
    if (space >= spaces.size()) return Status::Internal("a key outside the signature's spaces");
    const batch::KeySpace& sp = spaces[space];
    const bool hamming = sp.max_distance >= 0;
    const uint64_t payload = hamming ? lines->payload(e.doc) : 0;
    const bool filter = key_filter.width() > 0;
    const uint8_t* doc_bytes = filter && !head.empty() ? lines->key_bytes(e.doc) : nullptr;
    // Against an index, pairs of two corpus records are not wanted (head
    // members precede e.doc, so they are corpus records too).
    if (e.doc >= corpus_lines) {
      for (uint32_t h : head) {
        if (hamming && batch::PayloadDistance(lines->payload(h), payload) > sp.max_distance)
          continue;
        if (filter && !key_filter.MayShare(lines->key_bytes(h), doc_bytes)) {
          ++stats.pairs_filtered;
          continue;
        }
        NEARDUP_RETURN_IF_ERROR(batch::AppendOrSpill(&buf, batch::MakePair(h, e.doc, sp.decides),
                                                     [&] { return flush(true); }));
      }
    }
    if (head.size() < (hamming ? batch::kHammingWidth : batch::kStarWidth)) head.push_back(e.doc);
  }
  merger.reset();                                        // frees in-memory key runs
  if (key_filter.width() > 0) lines->ReleaseKeyBytes();  // read only above
  NEARDUP_RETURN_IF_ERROR(flush(pairs->spilled_runs() > 0));
  NEARDUP_RETURN_IF_ERROR(FirstError());
  return Status::OK();
}

}  // namespace neardup
