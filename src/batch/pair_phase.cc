// SPDX-License-Identifier: Apache-2.0
//
// Phase 2: the k-way merge of every key run yields buckets (equal keys) in
// key order, members in document order. Each bucket of a signature's space
// becomes candidate pairs by star pairing (batch_run.h); pairs are sorted
// runs again (spilled past the budget), so the verify phase sees each pair
// once, in (a, b) order. Buckets of the id space hold records with equal id
// hashes: a later record whose id equals an earlier one's is a repeated id.
#include <algorithm>
#include <functional>

#include "base/status_macros.h"
#include "batch/batch_run.h"
#include "batch/sort.h"

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
  std::vector<batch::Pair> buf;
  buf.reserve(pair_limit + 1);  // no growth by doubling past the budget
  auto flush = [&](bool spill) -> Status {
    batch::ParallelRadixSort(std::span<batch::Pair>(buf), PairKey, std::less<batch::Pair>(),
                             threads);
    // Repeats inside one buffer go now (the verify phase drops the rest);
    // with min_shared_keys = m it counts them, so m copies are kept.
    const uint64_t keep = std::max<uint64_t>(1, options.min_shared_keys);
    size_t out = 0, copies = 0;
    for (size_t i = 0; i < buf.size(); ++i) {
      copies = i > 0 && buf[i] == buf[i - 1] ? copies + 1 : 1;
      if (copies <= keep) buf[out++] = buf[i];
    }
    buf.resize(out);
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
  while (true) {
    NEARDUP_ASSIGN_OR_RETURN(bool more, merger->Next(&e));
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
    // Against an index, pairs of two corpus records are not wanted (head
    // members precede e.doc, so they are corpus records too).
    if (e.doc >= corpus_lines) {
      for (uint32_t h : head) {
        if (hamming && batch::PayloadDistance(lines->payload(h), payload) > sp.max_distance)
          continue;
        buf.push_back(batch::MakePair(h, e.doc, sp.decides));
        if (buf.size() >= pair_limit) NEARDUP_RETURN_IF_ERROR(flush(true));
      }
    }
    if (head.size() < (hamming ? batch::kHammingWidth : batch::kStarWidth)) head.push_back(e.doc);
  }
  merger.reset();  // frees in-memory key runs
  NEARDUP_RETURN_IF_ERROR(flush(pairs->spilled_runs() > 0));
  NEARDUP_RETURN_IF_ERROR(FirstError());
  return Status::OK();
}

}  // namespace neardup
