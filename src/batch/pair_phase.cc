// SPDX-License-Identifier: Apache-2.0
#include "batch/pair_phase.h"

#include <algorithm>
#include <array>

#include "base/prefetch.h"
#include "base/status_macros.h"
#include "batch/sort.h"
#include "batch/spill_buffer.h"

namespace neardup::batch {
namespace {

uint64_t PairKey(const Pair& p) { return p; }

// The merged key entries. With the key filter, entries are read kAhead
// ahead of the pairing and their documents' key bytes prefetched: those are
// random reads into the LineTable, one per entry, and would otherwise stall
// one at a time.
class KeyStream {
 public:
  KeyStream(RunMerger<KeyEntry, KeyEntryLess>* merger, const LineTable* lines, bool prefetch)
      : merger_(merger), lines_(lines), prefetch_(prefetch) {}

  Result<bool> Next(KeyEntry* out) {
    if (!prefetch_) return merger_->Next(out);
    while (!drained_ && size_ < kAhead) {
      KeyEntry x;
      NEARDUP_ASSIGN_OR_RETURN(bool got, merger_->Next(&x));
      if (!got) {
        drained_ = true;
        break;
      }
      Prefetch(x);
      ring_[(at_ + size_) % kAhead] = x;
      ++size_;
    }
    if (size_ == 0) return false;
    *out = ring_[at_];
    at_ = (at_ + 1) % kAhead;
    --size_;
    return true;
  }

 private:
  static constexpr size_t kAhead = 32;
  // Only members of buckets of two or more are read.
  void Prefetch(const KeyEntry& x) {
    if (x.key == ahead_key_ && SpaceOf(x.key) != kIdSpace) {
      if (ahead_doc_ != UINT32_MAX) base::Prefetch(lines_->key_bytes(ahead_doc_));
      base::Prefetch(lines_->key_bytes(x.doc));
      ahead_doc_ = UINT32_MAX;  // fetched
    } else {
      ahead_key_ = x.key;
      ahead_doc_ = x.doc;
    }
  }

  RunMerger<KeyEntry, KeyEntryLess>* merger_;
  const LineTable* lines_;
  bool prefetch_;
  std::array<KeyEntry, kAhead> ring_;
  size_t at_ = 0, size_ = 0;
  bool drained_ = false;
  uint64_t ahead_key_ = 0;  // the key of the entry read last
  uint32_t ahead_doc_ = UINT32_MAX;
};

}  // namespace

// Candidate pairs into sorted runs. Repeats inside one buffer go at once
// (the verify phase drops the rest); with min_shared_keys = m it counts
// them, so m copies are kept.
class PairPhase::Writer {
 public:
  Writer(PairRuns* runs, uint64_t limit, uint64_t copies, int threads)
      : runs_(runs), buf_(limit), copies_(copies), threads_(threads) {}
  Status Add(Pair p) {
    return AppendOrSpill(&buf_, p, [&] { return Flush(true); });
  }
  Status Finish() { return Flush(runs_->spilled_runs() > 0); }

 private:
  Status Flush(bool spill) {
    ParallelRadixSort(buf_.span(), PairKey, std::less<Pair>(), threads_);
    size_t out = 0, copies = 0;
    for (size_t i = 0; i < buf_.size(); ++i) {
      copies = i > 0 && buf_[i] == buf_[i - 1] ? copies + 1 : 1;
      if (copies <= copies_) buf_[out++] = buf_[i];
    }
    buf_.truncate(out);
    return runs_->AddRun(&buf_, spill);
  }

  PairRuns* runs_;
  SpillBuffer<Pair> buf_;  // memory by need, up to the limit
  uint64_t copies_;
  int threads_;
};

PairPhase::PairPhase(const PhaseEnv& env, const PairInput& in, RecordErrors* errors)
    : env_(env), in_(in), errors_(errors), parser_(in.input->fields) {}

Status PairPhase::Run(KeyRuns* keys, PairRuns* pairs, PairCounts* counts) {
  env_.monitor->Phase(BatchPhase::kMerge, keys->records());
  const uint64_t read_budget = env_.budget->ReadBytes();
  NEARDUP_ASSIGN_OR_RETURN(auto merger, keys->Merge(read_budget));
  const uint64_t held = keys->memory_bytes() + read_budget;
  const uint64_t avail = env_.budget->Available();
  const uint64_t pair_limit =
      std::max<uint64_t>(8192, (avail > held ? avail - held : 0) / sizeof(Pair));
  Writer writer(pairs, pair_limit, std::max<uint64_t>(1, in_.min_shared_keys), env_.threads);
  const bool filter = in_.key_filter->width() > 0;
  KeyStream stream(merger.get(), in_.input->lines.get(), filter);
  uint64_t merged = 0;
  KeyEntry e;
  while (true) {
    NEARDUP_ASSIGN_OR_RETURN(bool more, stream.Next(&e));
    if (!more) break;
    if ((++merged & 0xFFFF) == 0) {
      env_.monitor->Done(merged);
      env_.monitor->Tick();
    }
    if (merged == 1 || e.key != key_) StartBucket(e.key);
    if (e.doc == last_) continue;  // the same key twice in one document
    last_ = e.doc;
    NEARDUP_RETURN_IF_ERROR(space_ == kIdSpace ? IdMember(e.doc, counts)
                                               : StarMember(e.doc, &writer, counts));
  }
  merger.reset();                                   // frees in-memory key runs
  if (filter) in_.input->lines->ReleaseKeyBytes();  // read only here
  NEARDUP_RETURN_IF_ERROR(writer.Finish());
  return errors_->First();
}

void PairPhase::StartBucket(uint64_t key) {
  key_ = key;
  space_ = SpaceOf(key);
  head_.clear();
  ids_.clear();
  last_ = UINT32_MAX;
}

// Ids are parsed only when a bucket gets a second member (ids are almost
// always unique, and parsing every record here would cost a pass over the
// input).
Status PairPhase::IdMember(uint32_t doc, PairCounts* counts) {
  if (head_.empty() && ids_.empty()) {
    head_.push_back(doc);
    return Status::OK();
  }
  const RunInput& input = *in_.input;
  if (ids_.empty()) {
    std::string_view first_id;
    NEARDUP_RETURN_IF_ERROR(IdOf(head_.front(), &first_id));
    ids_.emplace_back(head_.front(), std::string(first_id));
  }
  std::string_view id;
  NEARDUP_RETURN_IF_ERROR(IdOf(doc, &id));
  const uint32_t* first = nullptr;  // the earlier member with this id
  for (const auto& [member, other] : ids_) {
    if (other == id) {
      first = &member;
      break;
    }
  }
  // Members come in line order, so the corpus's precede the input's; the
  // corpus's own repeats were accepted when it was indexed.
  if (first == nullptr || doc < input.corpus_lines) {
    ids_.emplace_back(doc, std::string(id));
    return Status::OK();
  }
  std::string what = "document " + std::string(id) + " already exists";
  if (*first < input.corpus_lines) what += " in the corpus (" + input.Where(*first) + ")";
  Status s = Status::AlreadyExists(what).WithContext(input.Where(doc));
  if (!in_.skip_invalid) {
    errors_->Record(doc, std::move(s));
    return Status::OK();
  }
  input.lines->set_state(doc, kSkipped);
  errors_->AddSkip(doc, std::move(s));
  ++counts->repeated_ids;
  return Status::OK();
}

Status PairPhase::IdOf(uint32_t doc, std::string_view* id) {
  if (in_.ids != nullptr) {
    if (const auto it = in_.ids->find(doc); it != in_.ids->end()) {
      *id = it->second;
      return Status::OK();
    }
  }
  return in_.input->ParseId(doc, &parser_, id);
}

Status PairPhase::StarMember(uint32_t doc, Writer* out, PairCounts* counts) {
  const std::vector<KeySpace>& spaces = env_.sig->spaces();
  if (space_ >= spaces.size()) return Status::Internal("a key outside the signature's spaces");
  const KeySpace& sp = spaces[space_];
  const LineTable& lines = *in_.input->lines;
  const KeyFilter& filter = *in_.key_filter;
  const bool hamming = sp.max_distance >= 0;
  const uint64_t payload = hamming ? lines.payload(doc) : 0;
  const uint8_t* doc_bytes = filter.width() > 0 && !head_.empty() ? lines.key_bytes(doc) : nullptr;
  // Against an index, pairs of two corpus records are not wanted (head
  // members precede doc, so they are corpus records too).
  if (doc >= in_.input->corpus_lines) {
    for (uint32_t h : head_) {
      if (hamming && PayloadDistance(lines.payload(h), payload) > sp.max_distance) continue;
      if (doc_bytes != nullptr && !filter.MayShare(lines.key_bytes(h), doc_bytes)) {
        ++counts->pairs_filtered;
        continue;
      }
      NEARDUP_RETURN_IF_ERROR(out->Add(MakePair(h, doc, sp.decides)));
      if (in_.later != nullptr && sp.marks_later) {
        (*in_.later)[doc >> 6] |= uint64_t{1} << (doc & 63);
      }
    }
  }
  const size_t width = sp.star_width > 0 ? static_cast<size_t>(sp.star_width)
                       : hamming         ? kHammingWidth
                                         : kStarWidth;
  if (head_.size() < width) head_.push_back(doc);
  return Status::OK();
}

}  // namespace neardup::batch
