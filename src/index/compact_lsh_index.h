// SPDX-License-Identifier: Apache-2.0
//
// CompactLshIndex: the LSH banding buckets of LshIndex (same contract, same
// answers) in ~5 bytes per band per document instead of ~24.
//
// Design (as the Hamming index's tiers, tiered_index.cc): a small mutable
// tier in front of a few immutable sorted runs (band_run.h), in the manner
// of a log-structured merge tree (O'Neil et al., 1996). The mutable tier is
// an LshIndex over buffer-local ids holding at most `buffer_capacity`
// documents; when it fills, its live documents become a BandRun. Runs are
// merged size-tiered inline by the writer on threshold (the newest run joins
// its older neighbour while that one is at most twice its size, or while
// more than max_runs runs exist), so every entry is rewritten O(log n) times.
//
// Deletes are tombstones: run_of[slot] names the tier (run id) holding the
// slot's live entries, 0 when absent; Remove() clears it, and a run is
// compacted once a quarter of its documents are dead. A removed slot may be
// inserted again (it gets the newest tier's id, so its old entries are dead).
//
// Keys are folded to 32 bits exactly as LshIndex does, so Query() returns
// exactly the hits LshIndex would, in the same order.
//
// Memory: 4 bytes per slot (run_of, chunked) + ~5 bytes per band per live document
// (band_run.h) + the mutable tier (~24 bytes per band per buffered doc).
// Complexity: Insert O(bands) amortised plus O(bands log n) amortised merge
// work (a merge stalls the writer for its length, built a band per thread on
// up to 4 threads from 64k documents, CompactLshOptions); Remove O(1) amortised;
// Query O(runs * bands * ~8 + candidates log candidates).
// Thread safety: const calls may run concurrently; writers need exclusive
// access (the engine's one-writer/many-readers discipline).
#ifndef NEARDUP_INDEX_COMPACT_LSH_INDEX_H_
#define NEARDUP_INDEX_COMPACT_LSH_INDEX_H_

#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "index/band_run.h"
#include "index/lsh_index.h"
#include "neardup/status.h"

namespace neardup::index {

struct CompactLshOptions {
  size_t buffer_capacity = 8192;  // documents in the mutable tier
  size_t max_runs = 8;            // sorted runs kept at most
  // Runs of at least this many documents are built a band per thread on up
  // to 4 threads (BandRun::Build).
  size_t parallel_build_documents = size_t{1} << 16;
};

struct CompactLshStats {
  size_t documents = 0;
  size_t runs = 0;
  size_t buffered = 0;  // documents in the mutable tier
  size_t merges = 0;    // runs built (flushes, merges and compactions)
  size_t memory_bytes = 0;
};

class CompactLshIndex {
 public:
  using Hit = LshIndex::Hit;

  // A Query()'s hits in the sorted runs, kept to answer the same query again
  // (QueryAgain) after more inserts without searching the runs again.
  struct Memo {
    uint64_t generation = 0;  // 0: nothing kept
    std::vector<Hit> in_runs;
  };

  // Requires 1 <= bands <= 4096.
  explicit CompactLshIndex(int bands, const CompactLshOptions& options = {});

  // Files `slot` under its band keys (keys.size() == bands).
  // Errors: InvalidArgument (wrong size, slot 0xFFFFFFFF), AlreadyExists.
  Status Insert(uint32_t slot, std::span<const uint64_t> keys);
  // Errors: NotFound.
  Status Remove(uint32_t slot);
  // Appends every stored slot sharing a band key with `keys`, most shared
  // bands first, then by slot. Errors: InvalidArgument (wrong size).
  // `memo`, when given, is replaced by what QueryAgain needs.
  Status Query(std::span<const uint64_t> keys, std::vector<Hit>* out, Memo* memo = nullptr) const;
  // What Query(keys) appends now, the same hits in the same order, given
  // the memo of an earlier Query(keys) on this index: while no run has been
  // built since (a flush, merge or compaction moves entries between tiers),
  // the runs are immutable, so their hits are the memo's whose slot is still
  // in a run (a slot removed since is in none; one inserted again is in the
  // mutable tier), and only the mutable tier is searched. Otherwise, or
  // without a memo, a whole Query. O(bands + memo hits) then. Errors: those
  // of Query.
  Status QueryAgain(std::span<const uint64_t> keys, const Memo& memo, std::vector<Hit>* out) const;
  // Moves the mutable tier into a run and merges every run into one.
  void Compact();
  // Bulk loading (a restore): between BeginBulk and EndBulk, Insert only
  // files a slot's keys, and EndBulk builds them into one run at once
  // (O(bands n log n) instead of the tiers' merges). Remove ends a bulk
  // load first; Query must not run during one (checked). `expected`, a hint
  // (0: none), reserves room for that many documents' keys.
  void BeginBulk(size_t expected = 0);
  void EndBulk();

  int bands() const { return bands_; }
  size_t size() const { return size_; }
  size_t MemoryBytes() const;
  CompactLshStats Stats() const;

  // The 32 bits the index keeps of a band key. A key below 2^32 folds to
  // itself, so folded keys, widened, index and query as their whole keys.
  static uint32_t Fold(uint64_t key) { return static_cast<uint32_t>(key ^ (key >> 32)); }

 private:
  bool Present(uint32_t slot) const { return run_of_.Get(slot) != 0; }
  // Checks the keys, then appends the mutable tier's hits, as slots.
  Status AppendBuffered(std::span<const uint64_t> keys, std::vector<Hit>* out) const;
  void NewBuffer();
  void Flush();  // buffer -> run, then merges
  void MergeAsNeeded();
  // Replaces runs_[first, first + count) by one run of their live entries.
  void Merge(size_t first, size_t count);

  // Threads for a run of `documents` (BandRun::Build).
  int BuildThreads(size_t documents) const;

  int bands_;
  CompactLshOptions opt_;
  size_t size_ = 0;
  size_t merges_ = 0;  // runs built: a Memo's generation is merges_ + 1
  uint32_t next_id_ = 1;
  TierIds run_of_;                              // slot -> tier id, 0 = absent
  std::vector<std::unique_ptr<BandRun>> runs_;  // oldest (lowest ids) first
  // The mutable tier: an LshIndex over local ids, their slots and keys.
  uint32_t buffer_id_ = 0;
  std::unique_ptr<LshIndex> buffer_;
  std::vector<uint32_t> buffer_slots_;                   // local id -> slot
  std::vector<uint32_t> buffer_keys_;                    // local id * bands + band -> folded key
  std::unordered_map<uint32_t, uint32_t> buffer_local_;  // slot -> local id (live)
  bool bulk_ = false;  // inserts go to buffer_slots_ / bulk_keys_ only
  // A bulk load's keys, band by band (bulk_keys_[band][local id]): EndBulk
  // reads each band's in order and frees it, where reading band b out of
  // buffer_keys_' rows touched every key of every band once a band.
  std::vector<std::vector<uint32_t>> bulk_keys_;
};

}  // namespace neardup::index

#endif  // NEARDUP_INDEX_COMPACT_LSH_INDEX_H_
