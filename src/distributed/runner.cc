// SPDX-License-Identifier: Apache-2.0
//
// RunDistributed (neardup/distributed.h): the batch pipeline of src/batch/
// with its stages spread over MPI ranks. The stages are the batch module's
// own (BatchDedup::Impl: SketchPhase, PairPhase, VerifyPairs, KeepPhase,
// ClusterBuilder); this file only moves their records between ranks, so the
// definitions of docs/batch.md (star pairing, min_shared_keys, the canonical
// cap, keep policies) hold unchanged and the output is byte-identical:
//
//   1. Ownership. Rank r owns the lines starting in bytes [T*r/N, T*(r+1)/N)
//      of the input files concatenated (T bytes, N ranks): a contiguous
//      range of line ids [lo, hi). Every rank reads the line offsets of the
//      whole input (a LineTable); it parses and sketches only its lines.
//   2. Keys. Each (key, doc[, payload]) entry goes to rank hash(key) mod N
//      (Alltoallv in rounds bounded by the budget). A bucket is then whole
//      on one rank, which pairs it exactly as one process would.
//   3. Pairs (a, b) go to the owner of b, which verifies them (its own texts
//      read from the input files, others' fetched from their owners) and
//      keeps the edges.
//   4. Components: every rank holds the parent of its own documents. A round
//      looks up the roots of its edges' ends (Query), hooks each larger root
//      under the smallest root it meets (a root's parent only decreases, so
//      the forest has no cycles, and the root of a component ends as its
//      smallest document), then jumps pointers until every tree is a star
//      (hooking and pointer jumping of Shiloach and Vishkin 1982, without
//      their stagnant-star rule: few rounds on near-duplicate graphs, at
//      most a chain's length in the worst case). No rank holds more than
//      its edges and its documents' parents.
//   5. The cap: components over --max-cluster-size send their edges to rank
//      hash(root) mod N, which replays them through the batch ClusterBuilder
//      (the canonical order; document ids mapped monotonically, so the order
//      is unchanged).
//   6. Labels (root, size) per document are gathered on rank 0, which runs
//      the keep policy and writes the output in input order.
//
// Stages and --resume: with a work directory, each rank writes two
// checkpoints, each a set of files and then a marker naming the run (the
// pipeline identity, the options that change results, the input files'
// sizes and modification times, the number of ranks): "verify" after step 3
// (its edges, all line states, its counters; rank 0 also the skip messages)
// and "cluster" after step 5 (its labels). With resume, a checkpoint that
// every rank has, for this very run, is loaded instead of re-running the
// steps before it; the line offsets are re-read (a scan, no parsing).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <numeric>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "base/status_macros.h"
#include "batch/batch_run.h"
#include "batch/run_file.h"
#include "batch/sort.h"
#include "batch/spill_buffer.h"
#include "distributed/mpi_comm.h"
#include "neardup/distributed.h"

namespace neardup {
namespace {

using distributed::Comm;

uint64_t Mix(uint64_t x) {  // splitmix64's finalizer: spreads keys over ranks
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

#pragma pack(push, 4)
struct KeyPayload {  // a key entry with its document's SimHash fingerprint
  uint64_t key;
  uint32_t doc;
  uint64_t payload;
};
#pragma pack(pop)

template <typename T>
void AppendPod(const T& v, std::vector<uint8_t>* out) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  out->insert(out->end(), p, p + sizeof v);
}

template <typename T>
std::vector<T> FromBytes(const std::vector<uint8_t>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

template <typename T>
std::span<const uint8_t> AsBytes(const std::vector<T>& v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(T)};
}

// Tests make a rank die at a stage: NEARDUP_TEST_MPI_DIE=RANK:STAGE.
void DieForTest(const Comm& c, const char* stage) {
  const char* env = std::getenv("NEARDUP_TEST_MPI_DIE");
  if (env == nullptr) return;
  const std::string want = std::to_string(c.rank) + ":" + stage;
  if (want == env) _exit(3);
}

// Verification's LineSource on a rank: lines before its own (lo) from the
// records fetched from their owners (a missing one is a bug), the rest from
// the input files.
class BorrowedLines final : public batch::LineSource {
 public:
  BorrowedLines(const batch::TextStore* store, uint32_t file, uint32_t lo,
                const std::vector<uint32_t>* ids, const std::vector<uint64_t>* offs, int fd,
                std::string path)
      : store_(store), file_(file), lo_(lo), ids_(ids), offs_(offs), fd_(fd), path_(path) {}
  Extent ExtentOf(uint64_t line) const override {
    if (line >= lo_) return store_->ExtentOf(line);
    const auto it = std::lower_bound(ids_->begin(), ids_->end(), line);
    NEARDUP_CHECK_MSG(it != ids_->end() && *it == line, "a record to verify was not fetched");
    const size_t i = it - ids_->begin();
    return {file_, (*offs_)[i], (*offs_)[i + 1]};
  }
  Status ReadBytes(uint32_t file, uint64_t offset, size_t len, char* dst) const override {
    if (file != file_) return store_->ReadBytes(file, offset, len, dst);
    for (size_t got = 0; got < len;) {
      const ssize_t n = pread(fd_, dst + got, len - got, static_cast<off_t>(offset + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Status::IOError(path_ + ": cannot read");
      got += static_cast<size_t>(n);
    }
    return Status::OK();
  }
  uint64_t LineInFile(uint64_t line) const override { return store_->LineInFile(line); }

 private:
  const batch::TextStore* store_;
  uint32_t file_, lo_;
  const std::vector<uint32_t>* ids_;
  const std::vector<uint64_t>* offs_;
  int fd_;
  std::string path_;
};

class Runner {
 public:
  Runner(Comm c, std::unique_ptr<BatchDedup::Impl> m, DistributedOptions d)
      : c_(c), m_(std::move(m)), d_(std::move(d)) {}
  ~Runner() {
    if (borrowed_fd_ >= 0) close(borrowed_fd_);
  }
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;
  Result<std::unique_ptr<BatchDedup>> Run(const std::vector<std::string>& files);

 private:
  int Owner(uint32_t doc) const {
    return static_cast<int>(std::upper_bound(bounds_.begin(), bounds_.end(), doc) -
                            bounds_.begin()) -
           1;
  }
  uint64_t ErrLine() const { return m_->fatal.ok() ? m_->err_line : 0; }
  size_t RoundBytes() const {
    return std::clamp<uint64_t>(m_->Available() / 8, 1 << 20, 256 << 20);
  }
  uint64_t GlobalStart(uint64_t line) const;
  void ComputeBounds();
  void ShareStates();
  std::vector<uint8_t> ShareSkips();
  void DeliverSkips(const std::vector<uint8_t>& messages);
  // Checkpoints (work_dir): the run's identity, a stage's marker, its files.
  std::string Identity() const;
  std::string StageFile(const std::string& name) const { return dir_ + "/" + name; }
  bool HasStage(const std::string& stage) const;
  Status MarkStage(const std::string& stage) const;
  Status SaveVerify(const std::vector<uint8_t>& skips) const;
  Status LoadVerify(std::vector<uint8_t>* skips);
  Status SaveCluster() const;
  Status LoadCluster();
  void Info(const std::string& message) const {
    if (c_.rank == 0 && d_.info) d_.info(message);
  }
  template <typename Rec, typename Less, typename Msg>
  Status ShuffleRuns(batch::RunSet<Rec, Less>* from, batch::RunSet<Rec, Less>* to,
                     const std::function<void(const Rec&, Msg*)>& pack,
                     const std::function<int(const Msg&)>& owner,
                     const std::function<Rec(const Msg&)>& unpack,
                     uint64_t (*radix_key)(const Rec&), uint64_t* sent_away);
  template <typename Msg>
  Status ShuffleKeys(batch::KeyRuns* keys, batch::KeyRuns* owned);
  Status ShufflePairs(batch::PairRuns* local, batch::PairRuns* pairs);
  Status FetchBorrowed();
  void Components();
  Status Cap();
  void GatherLabels();

  Comm c_;
  std::unique_ptr<BatchDedup::Impl> m_;
  DistributedOptions d_;
  std::string dir_;  // this rank's checkpoint directory ("" = none)
  std::vector<uint64_t> file_base_;
  std::vector<uint32_t> bounds_;  // first line of each rank; bounds_[N] = n
  uint32_t lo_ = 0, hi_ = 0;
  std::vector<batch::Edge> edges_;    // verified here (b owned here)
  std::vector<uint32_t> parent_;      // own documents, lo_ + i
  std::vector<uint32_t> label_root_;  // final (root, size) of own documents
  std::vector<uint32_t> label_size_;
  uint64_t oversized_ = 0, refused_ = 0, cc_rounds_ = 0;
  uint64_t key_bytes_ = 0, pair_bytes_ = 0;  // sent to other ranks
  // Other ranks' records that pairs here need (a < lo_), fetched from their
  // owners into one file: line borrowed_[i] is [borrowed_off_[i],
  // borrowed_off_[i+1]) of it.
  std::vector<uint32_t> borrowed_;
  std::vector<uint64_t> borrowed_off_;
  std::string borrowed_path_;
  int borrowed_fd_ = -1;
  uint64_t fetched_bytes_ = 0;
};

uint64_t Runner::GlobalStart(uint64_t line) const {
  return file_base_[m_->store.FileOf(line)] + m_->lines->offset(line);
}

void Runner::ComputeBounds() {
  const uint64_t total = file_base_.back(), n = m_->n;
  const auto np = static_cast<uint64_t>(c_.size);
  bounds_.assign(np + 1, static_cast<uint32_t>(n));
  for (uint64_t r = 0; r < np; ++r) {
    const uint64_t begin = total / np * r + total % np * r / np;
    uint64_t a = 0, b = n;  // the first line starting at or after `begin`
    while (a < b) {
      const uint64_t mid = a + (b - a) / 2;
      if (GlobalStart(mid) < begin) {
        a = mid + 1;
      } else {
        b = mid;
      }
    }
    bounds_[r] = static_cast<uint32_t>(a);
  }
  lo_ = bounds_[c_.rank];
  hi_ = bounds_[c_.rank + 1];
}

// Line states (record, blank, skipped) are set by the owner while sketching;
// pairing and verification need them for every line.
void Runner::ShareStates() {
  std::vector<uint8_t> own(hi_ - lo_);
  for (uint32_t d = lo_; d < hi_; ++d) own[d - lo_] = m_->lines->state(d);
  const std::vector<uint8_t> all = distributed::AllGatherBytes(c_, own);
  for (uint32_t d = 0; d < all.size(); ++d) m_->lines->set_state(d, all[d]);
}

// Records skipped by any rank (--skip-invalid; repeated ids are found by the
// owner of the id key) become skipped everywhere; their messages go to rank
// 0, which reports them in input order.
std::vector<uint8_t> Runner::ShareSkips() {
  std::vector<uint32_t> lines;
  std::vector<uint8_t> messages;
  for (const auto& [line, s] : m_->skips) {
    lines.push_back(static_cast<uint32_t>(line));
    AppendPod(line, &messages);
    AppendPod(static_cast<int32_t>(s.code()), &messages);
    AppendPod(static_cast<uint32_t>(s.message().size()), &messages);
    messages.insert(messages.end(), s.message().begin(), s.message().end());
  }
  m_->skips.clear();
  for (uint32_t d : FromBytes<uint32_t>(distributed::AllGatherBytes(c_, AsBytes(lines)))) {
    m_->lines->set_state(d, batch::kSkipped);
  }
  return distributed::GatherBytes(c_, messages);
}

// Rank 0 reports the skipped records in input order.
void Runner::DeliverSkips(const std::vector<uint8_t>& all) {
  if (c_.rank != 0) return;
  for (size_t pos = 0; pos + 16 <= all.size();) {
    uint64_t line;
    int32_t code;
    uint32_t size;
    std::memcpy(&line, &all[pos], 8);
    std::memcpy(&code, &all[pos + 8], 4);
    std::memcpy(&size, &all[pos + 12], 4);
    pos += 16;
    m_->skips.emplace_back(line,
                           Status(static_cast<StatusCode>(code),
                                  std::string(reinterpret_cast<const char*>(&all[pos]), size)));
    pos += size;
  }
  m_->DeliverSkips();
}

std::string Runner::Identity() const {
  const BatchOptions& o = m_->options;
  std::ostringstream id;
  id << "neardup-distributed 1\nranks " << c_.size << "\npipeline " << m_->sig->identity()
     << "\nmin_shared_keys " << o.min_shared_keys << "\nmax_cluster_size " << o.max_cluster_size
     << "\nskip_invalid " << o.skip_invalid << "\nfields " << o.text_field << " " << o.id_field
     << "\n";
  for (const batch::InputFile& f : m_->files) {
    id << "file " << f.path << " " << f.size << " " << f.mtime_ns << "\n";
  }
  return id.str();
}

bool Runner::HasStage(const std::string& stage) const {
  std::ifstream in(StageFile(stage + ".done"));
  std::stringstream got;
  got << in.rdbuf();
  return in.good() && got.str() == Identity();
}

Status Runner::MarkStage(const std::string& stage) const {
  const std::string tmp = StageFile(stage + ".done.tmp");
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << Identity();
    out.flush();
    if (!out) return Status::IOError(tmp + ": write failed");
  }
  if (std::rename(tmp.c_str(), StageFile(stage + ".done").c_str()) != 0) {
    return Status::IOError(tmp + ": " + std::strerror(errno));
  }
  return Status::OK();
}

template <typename T>
Status SaveVector(const std::string& path, const std::vector<T>& v) {
  batch::SpillWriter w;
  NEARDUP_RETURN_IF_ERROR(w.Open(path));
  const uint64_t n = v.size();
  NEARDUP_RETURN_IF_ERROR(w.Append(&n, sizeof n));
  NEARDUP_RETURN_IF_ERROR(w.Append(v.data(), n * sizeof(T)));
  return w.Close();
}

template <typename T>
Status LoadVector(const std::string& path, std::vector<T>* v) {
  batch::SpillReader r;
  NEARDUP_RETURN_IF_ERROR(r.Open(path));
  uint64_t n = 0;
  NEARDUP_ASSIGN_OR_RETURN(bool ok, r.Read(&n, sizeof n));
  v->resize(n);
  if (ok && n > 0) {
    NEARDUP_ASSIGN_OR_RETURN(ok, r.Read(v->data(), n * sizeof(T)));
  }
  if (!ok) return Status::Corruption(path + ": truncated");
  return Status::OK();
}

Status Runner::SaveVerify(const std::vector<uint8_t>& skips) const {
  const BatchStats& st = m_->stats;
  std::vector<uint8_t> states(m_->n);
  for (uint32_t d = 0; d < m_->n; ++d) states[d] = m_->lines->state(d);
  const std::vector<uint64_t> counters = {
      st.records,         st.skipped,         st.keys, st.key_runs_spilled, st.key_bytes_spilled,
      st.candidate_pairs, st.similarity_calls};
  NEARDUP_RETURN_IF_ERROR(SaveVector(StageFile("edges.bin"), edges_));
  NEARDUP_RETURN_IF_ERROR(SaveVector(StageFile("states.bin"), states));
  NEARDUP_RETURN_IF_ERROR(SaveVector(StageFile("verify-stats.bin"), counters));
  NEARDUP_RETURN_IF_ERROR(SaveVector(StageFile("skips.bin"), skips));
  return MarkStage("verify");
}

Status Runner::LoadVerify(std::vector<uint8_t>* skips) {
  std::vector<uint8_t> states;
  std::vector<uint64_t> counters;
  NEARDUP_RETURN_IF_ERROR(LoadVector(StageFile("edges.bin"), &edges_));
  NEARDUP_RETURN_IF_ERROR(LoadVector(StageFile("states.bin"), &states));
  NEARDUP_RETURN_IF_ERROR(LoadVector(StageFile("verify-stats.bin"), &counters));
  NEARDUP_RETURN_IF_ERROR(LoadVector(StageFile("skips.bin"), skips));
  if (states.size() != m_->n || counters.size() != 7) {
    return Status::Corruption(dir_ + ": the verify checkpoint does not match the input");
  }
  for (uint32_t d = 0; d < m_->n; ++d) m_->lines->set_state(d, states[d]);
  BatchStats& st = m_->stats;
  st.records = counters[0], st.skipped = counters[1], st.keys = counters[2];
  st.key_runs_spilled = counters[3], st.key_bytes_spilled = counters[4];
  st.candidate_pairs = counters[5], st.similarity_calls = counters[6];
  return Status::OK();
}

Status Runner::SaveCluster() const {
  NEARDUP_RETURN_IF_ERROR(SaveVector(StageFile("label-root.bin"), label_root_));
  NEARDUP_RETURN_IF_ERROR(SaveVector(StageFile("label-size.bin"), label_size_));
  NEARDUP_RETURN_IF_ERROR(
      SaveVector(StageFile("cluster-stats.bin"), std::vector<uint64_t>{oversized_, refused_}));
  return MarkStage("cluster");
}

Status Runner::LoadCluster() {
  std::vector<uint64_t> counters;
  NEARDUP_RETURN_IF_ERROR(LoadVector(StageFile("label-root.bin"), &label_root_));
  NEARDUP_RETURN_IF_ERROR(LoadVector(StageFile("label-size.bin"), &label_size_));
  NEARDUP_RETURN_IF_ERROR(LoadVector(StageFile("cluster-stats.bin"), &counters));
  if (label_root_.size() != hi_ - lo_ || label_size_.size() != hi_ - lo_ || counters.size() != 2) {
    return Status::Corruption(dir_ + ": the cluster checkpoint does not match the input");
  }
  oversized_ = counters[0], refused_ = counters[1];
  return Status::OK();
}

// Moves the records of `from` (merged in order) to their owner ranks as
// messages (`pack`), which turn them back into records (`unpack`) and
// collect them into `to` as sorted runs, spilled past a quarter of the
// budget.
template <typename Rec, typename Less, typename Msg>
Status Runner::ShuffleRuns(batch::RunSet<Rec, Less>* from, batch::RunSet<Rec, Less>* to,
                           const std::function<void(const Rec&, Msg*)>& pack,
                           const std::function<int(const Msg&)>& owner,
                           const std::function<Rec(const Msg&)>& unpack,
                           uint64_t (*radix_key)(const Rec&), uint64_t* sent_away) {
  std::unique_ptr<batch::RunMerger<Rec, Less>> merger;
  Status status;
  auto merged = from->Merge(RoundBytes());
  if (merged.ok()) {
    merger = std::move(*merged);
  } else {
    status = merged.status();
  }
  const uint64_t limit = std::max<uint64_t>(4096, m_->Available() / 4 / sizeof(Rec));
  batch::SpillBuffer<Rec> buf(limit);  // memory by need, up to the limit
  auto flush = [&](bool spill) {
    batch::RadixSort(buf.span(), radix_key, Less());
    return to->AddRun(&buf, spill);
  };
  std::function<Result<bool>(Msg*)> next = [&](Msg* out) -> Result<bool> {
    if (!merger) return status.ok() ? Result<bool>(false) : Result<bool>(status);
    Rec r;
    NEARDUP_ASSIGN_OR_RETURN(bool more, merger->Next(&r));
    if (more) pack(r, out);
    return more;
  };
  std::function<Status(std::span<const Msg>)> deliver = [&](std::span<const Msg> in) -> Status {
    for (const Msg& msg : in) {
      NEARDUP_RETURN_IF_ERROR(batch::AppendOrSpill(&buf, unpack(msg), [&] { return flush(true); }));
    }
    return Status::OK();
  };
  Status s = distributed::Shuffle<Msg>(c_, RoundBytes(), next, owner, deliver, sent_away);
  merger.reset();
  if (s.ok()) s = flush(to->spilled_runs() > 0);
  return s;
}

// Key entries go to the owner of their key (hash), with the document's
// payload when the signature has one (SimHash spaces filter by it).
template <typename Msg>
Status Runner::ShuffleKeys(batch::KeyRuns* keys, batch::KeyRuns* owned) {
  batch::LineTable& lines = *m_->lines;
  return ShuffleRuns<batch::KeyEntry, batch::KeyEntryLess, Msg>(
      keys, owned,
      [&](const batch::KeyEntry& e, Msg* out) {
        out->key = e.key;
        out->doc = e.doc;
        if constexpr (std::is_same_v<Msg, KeyPayload>) out->payload = lines.payload(e.doc);
      },
      [&](const Msg& k) { return static_cast<int>(Mix(k.key) % static_cast<uint64_t>(c_.size)); },
      [&](const Msg& k) {
        if constexpr (std::is_same_v<Msg, KeyPayload>) lines.set_payload(k.doc, k.payload);
        return batch::KeyEntry{k.key, k.doc};
      },
      [](const batch::KeyEntry& e) { return e.key; }, &key_bytes_);
}

// Pairs go to the owner of their later document, which verifies them; it
// notes the earlier documents other ranks own, to fetch their records.
Status Runner::ShufflePairs(batch::PairRuns* local, batch::PairRuns* pairs) {
  Status s = ShuffleRuns<batch::Pair, std::less<batch::Pair>, batch::Pair>(
      local, pairs, [](const batch::Pair& p, batch::Pair* out) { *out = p; },
      [&](const batch::Pair& p) { return Owner(batch::PairB(p)); },
      [&](const batch::Pair& p) {
        if (batch::PairA(p) < lo_) borrowed_.push_back(batch::PairA(p));
        return p;
      },
      [](const batch::Pair& p) { return p; }, &pair_bytes_);
  std::sort(borrowed_.begin(), borrowed_.end());
  borrowed_.erase(std::unique(borrowed_.begin(), borrowed_.end()), borrowed_.end());
  return s;
}

// Fetches the records in borrowed_ from their owners (ids sorted, so owners
// answer in request order) into a spill file, with each record's payload
// (Keys()'s fingerprint) into the LineTable.
// Each round a rank asks for about RoundBytes() / N bytes of records (by the
// input's average line), so it answers and receives about RoundBytes().
Status Runner::FetchBorrowed() {
  const uint64_t average = std::max<uint64_t>(1, file_base_.back() / std::max<uint64_t>(1, m_->n));
  const size_t per_round =
      std::max<size_t>(1, RoundBytes() / average / static_cast<size_t>(c_.size));
  const std::string path = m_->tmp->File("borrowed.jsonl");
  batch::SpillWriter w;
  Status status = w.Open(path);
  borrowed_off_.assign(1, 0);
  for (size_t next = 0;;) {
    const size_t end = std::min(borrowed_.size(), next + per_round);
    std::vector<std::vector<uint8_t>> ask(c_.size);
    for (size_t i = next; i < end; ++i) AppendPod(borrowed_[i], &ask[Owner(borrowed_[i])]);
    std::vector<int> from;
    const std::vector<uint32_t> asked =
        FromBytes<uint32_t>(distributed::ExchangeBytes(c_, ask, &from));
    std::vector<std::vector<uint8_t>> answer(c_.size);
    size_t k = 0;
    for (int r = 0; r < c_.size; ++r) {
      for (int b = 0; b < from[r]; b += 4, ++k) {
        const std::string_view text = m_->store.Get(asked[k]).text;
        AppendPod(static_cast<uint32_t>(text.size()), &answer[r]);
        AppendPod(m_->lines->payload(asked[k]), &answer[r]);
        answer[r].insert(answer[r].end(), text.begin(), text.end());
      }
    }
    const std::vector<uint8_t> got = distributed::ExchangeBytes(c_, answer);
    fetched_bytes_ += got.size();
    size_t doc = next;
    for (size_t pos = 0; pos + 12 <= got.size(); ++doc) {
      uint32_t size;
      uint64_t payload;
      std::memcpy(&size, &got[pos], 4);
      std::memcpy(&payload, &got[pos + 4], 8);
      pos += 12;
      // Signatures may read DocText::payload in Similarity().
      m_->lines->set_payload(borrowed_[doc], payload);
      if (status.ok()) status = w.Append(&got[pos], size);
      if (status.ok()) status = w.Append("\n", 1);
      borrowed_off_.push_back(borrowed_off_.back() + size + 1);
      pos += size;
    }
    next = end;
    if (distributed::MaxAll(next < borrowed_.size() ? 1 : 0) == 0) break;
  }
  if (status.ok()) status = w.Close();
  NEARDUP_RETURN_IF_ERROR(status);
  borrowed_path_ = path;
  borrowed_fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (borrowed_fd_ < 0)
    return Status::IOError(path + ": cannot open file: " + std::strerror(errno));
  return Status::OK();
}

void Runner::Components() {
  parent_.resize(hi_ - lo_);
  std::iota(parent_.begin(), parent_.end(), lo_);
  const std::function<int(uint32_t)> owner = [&](uint32_t d) { return Owner(d); };
  const std::function<uint32_t(uint32_t)> parent_of = [&](uint32_t d) { return parent_[d - lo_]; };
  std::vector<batch::Edge> active = edges_;  // edges whose ends have different roots
  std::vector<uint32_t> ends, roots, ps;
  while (true) {
    ends.clear();
    for (const batch::Edge& e : active) ends.push_back(e.a), ends.push_back(e.b);
    std::sort(ends.begin(), ends.end());
    ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
    roots = distributed::Query(c_, ends, owner, parent_of);  // trees are stars: parents are roots
    auto root_of = [&](uint32_t d) {
      return roots[std::lower_bound(ends.begin(), ends.end(), d) - ends.begin()];
    };
    // Hooking: the larger root of each edge under the smaller one.
    std::vector<std::vector<uint8_t>> out(c_.size);
    uint64_t proposals = 0;
    size_t kept = 0;
    for (const batch::Edge& e : active) {
      const uint32_t ra = root_of(e.a), rb = root_of(e.b);
      if (ra == rb) continue;  // joined for good
      active[kept++] = e;
      const uint32_t x = std::max(ra, rb), y = std::min(ra, rb);
      AppendPod(x, &out[Owner(x)]);
      AppendPod(y, &out[Owner(x)]);
      ++proposals;
    }
    active.resize(kept);
    const std::vector<uint32_t> in = FromBytes<uint32_t>(distributed::ExchangeBytes(c_, out));
    for (size_t i = 0; i + 1 < in.size(); i += 2) {
      uint32_t& p = parent_[in[i] - lo_];
      p = std::min(p, in[i + 1]);
    }
    if (distributed::SumAll(proposals) == 0) break;
    ++cc_rounds_;
    // Pointer jumping until every tree is a star.
    while (true) {
      ps.clear();
      for (uint32_t i = 0; i < parent_.size(); ++i) {
        if (parent_[i] != lo_ + i) ps.push_back(parent_[i]);
      }
      std::sort(ps.begin(), ps.end());
      ps.erase(std::unique(ps.begin(), ps.end()), ps.end());
      const std::vector<uint32_t> grand = distributed::Query(c_, ps, owner, parent_of);
      uint64_t changed = 0;
      for (uint32_t i = 0; i < parent_.size(); ++i) {
        const uint32_t p = parent_[i];
        if (p == lo_ + i) continue;
        const uint32_t g = grand[std::lower_bound(ps.begin(), ps.end(), p) - ps.begin()];
        if (g != p) parent_[i] = g, ++changed;
      }
      if (distributed::SumAll(changed) == 0) break;
    }
  }
  // Sizes: members counted per root on the root's owner.
  std::unordered_map<uint32_t, uint32_t> count;
  for (uint32_t i = 0; i < parent_.size(); ++i) {
    if (parent_[i] != lo_ + i) ++count[parent_[i]];
  }
  std::vector<std::vector<uint8_t>> out(c_.size);
  for (const auto& [root, k] : count) {
    AppendPod(root, &out[Owner(root)]);
    AppendPod(k, &out[Owner(root)]);
  }
  std::vector<uint32_t> root_size(parent_.size(), 1);
  const std::vector<uint32_t> in = FromBytes<uint32_t>(distributed::ExchangeBytes(c_, out));
  for (size_t i = 0; i + 1 < in.size(); i += 2) root_size[in[i] - lo_] += in[i + 1];
  ps.clear();
  for (const auto& [root, k] : count) ps.push_back(root);
  std::sort(ps.begin(), ps.end());
  const std::vector<uint32_t> sizes =
      distributed::Query(c_, ps, owner, [&](uint32_t d) { return root_size[d - lo_]; });
  label_root_ = parent_;
  label_size_.assign(parent_.size(), 1);
  for (uint32_t i = 0; i < parent_.size(); ++i) {
    const uint32_t r = parent_[i];
    label_size_[i] =
        r == lo_ + i ? root_size[i] : sizes[std::lower_bound(ps.begin(), ps.end(), r) - ps.begin()];
  }
}

Status Runner::Cap() {
  const uint64_t cap = m_->options.max_cluster_size;
  // The root and size of every edge's component, from the owners.
  std::vector<uint32_t> ends;
  for (const batch::Edge& e : edges_) ends.push_back(e.a);
  std::sort(ends.begin(), ends.end());
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
  const std::function<int(uint32_t)> owner = [&](uint32_t d) { return Owner(d); };
  const std::vector<uint32_t> sizes =
      distributed::Query(c_, ends, owner, [&](uint32_t d) { return label_size_[d - lo_]; });
  const std::vector<uint32_t> roots =
      distributed::Query(c_, ends, owner, [&](uint32_t d) { return label_root_[d - lo_]; });
  std::vector<std::vector<uint8_t>> out(c_.size);
  for (const batch::Edge& e : edges_) {
    const size_t i = std::lower_bound(ends.begin(), ends.end(), e.a) - ends.begin();
    if (sizes[i] <= cap) continue;
    AppendPod(e, &out[Mix(roots[i]) % static_cast<uint64_t>(c_.size)]);
  }
  std::vector<batch::Edge> mine = FromBytes<batch::Edge>(distributed::ExchangeBytes(c_, out));
  // Replay here: the batch ClusterBuilder over documents renumbered in
  // order (a < b and the canonical order are kept).
  std::vector<uint32_t> docs;
  for (const batch::Edge& e : mine) docs.push_back(e.a), docs.push_back(e.b);
  std::sort(docs.begin(), docs.end());
  docs.erase(std::unique(docs.begin(), docs.end()), docs.end());
  auto index = [&](uint32_t d) {
    return static_cast<uint32_t>(std::lower_bound(docs.begin(), docs.end(), d) - docs.begin());
  };
  Status status;
  std::vector<std::vector<uint8_t>> back(c_.size);
  if (!docs.empty()) {
    batch::ClusterBuilder builder(docs.size(), cap, m_->tmp.get(),
                                  std::max<uint64_t>(1 << 20, m_->Available() / 4));
    for (const batch::Edge& e : mine) {
      if (status.ok()) status = builder.Add({index(e.a), index(e.b), e.similarity});
    }
    if (status.ok()) {
      Result<batch::Clustering> cl = builder.Finish();
      if (cl.ok()) {
        oversized_ += cl->stats.oversized_components;
        refused_ += cl->stats.refused_by_cap;
        for (uint32_t i = 0; i < docs.size(); ++i) {
          const uint32_t r = cl->root[i];
          const int to = Owner(docs[i]);
          AppendPod(docs[i], &back[to]);
          AppendPod(docs[r], &back[to]);
          AppendPod(cl->size[r], &back[to]);
        }
      } else {
        status = cl.status();
      }
    }
  }
  const std::vector<uint32_t> in = FromBytes<uint32_t>(distributed::ExchangeBytes(c_, back));
  for (size_t i = 0; i + 2 < in.size(); i += 3) {
    label_root_[in[i] - lo_] = in[i + 1];
    label_size_[in[i] - lo_] = in[i + 2];
  }
  return status;
}

void Runner::GatherLabels() {
  std::vector<uint32_t> own;
  own.reserve(2 * label_root_.size());
  for (size_t i = 0; i < label_root_.size(); ++i) {
    own.push_back(label_root_[i]);
    own.push_back(label_size_[i]);
  }
  const std::vector<uint32_t> all = FromBytes<uint32_t>(distributed::GatherBytes(c_, AsBytes(own)));
  if (c_.rank != 0) return;
  batch::Clustering& cl = m_->clustering;
  cl.root.assign(m_->n, 0);
  cl.size.assign(m_->n, 1);
  for (uint32_t d = 0; d < m_->n; ++d) {
    cl.root[d] = all[2 * d];
    cl.size[all[2 * d]] = all[2 * d + 1];
  }
}

Result<std::unique_ptr<BatchDedup>> Runner::Run(const std::vector<std::string>& files) {
  BatchDedup::Impl& m = *m_;
  NEARDUP_RETURN_IF_ERROR(distributed::Agree(c_, m.Setup(files), 0));
  file_base_.assign(m.files.size() + 1, 0);
  for (size_t i = 0; i < m.files.size(); ++i) file_base_[i + 1] = file_base_[i] + m.files[i].size;
  const uint64_t total = file_base_.back();
  const auto np = static_cast<uint64_t>(c_.size), r = static_cast<uint64_t>(c_.rank);
  m.own_begin = total / np * r + total % np * r / np;
  m.own_end = r + 1 == np ? UINT64_MAX : total / np * (r + 1) + total % np * (r + 1) / np;

  // Checkpoints: which stages every rank has, for this run.
  bool have_verify = false, have_cluster = false;
  if (!d_.work_dir.empty()) {
    dir_ = d_.work_dir + "/rank-" + std::to_string(c_.rank) + "-of-" + std::to_string(c_.size);
    Status s;
    for (const std::string& d : {d_.work_dir, dir_}) {
      if (mkdir(d.c_str(), 0777) != 0 && errno != EEXIST) {
        s = Status::IOError(d + ": cannot create directory: " + std::strerror(errno));
      }
    }
    NEARDUP_RETURN_IF_ERROR(distributed::Agree(c_, s, 0));
    if (d_.resume) {
      have_verify =
          distributed::SumAll(HasStage("verify") ? 1 : 0) == static_cast<uint64_t>(c_.size);
      have_cluster = have_verify && distributed::SumAll(HasStage("cluster") ? 1 : 0) ==
                                        static_cast<uint64_t>(c_.size);
    }
  }
  if (have_verify) {
    // Only the line offsets: nothing is parsed or sketched.
    m.own_begin = m.own_end = UINT64_MAX;
    Info(std::string("resuming from the ") + (have_cluster ? "cluster" : "verify") +
         " checkpoint in " + d_.work_dir);
  }

  batch::KeyRuns keys(m.tmp.get(), "keys");
  {
    Status s = m.SketchPhase(&keys);
    NEARDUP_RETURN_IF_ERROR(distributed::Agree(c_, s, ErrLine()));
  }
  NEARDUP_RETURN_IF_ERROR(distributed::Agree(c_, m.store.Open(&m.files, m.lines.get()), 0));
  ComputeBounds();

  std::vector<uint8_t> skips;
  if (have_verify) {
    NEARDUP_RETURN_IF_ERROR(distributed::Agree(c_, LoadVerify(&skips), 0));
  } else {
    ShareStates();
    DieForTest(c_, "sketch");
    batch::KeyRuns owned(m.tmp.get(), "owned");
    {
      m.monitor->Phase(BatchPhase::kMerge, 0);
      Status s = m.lines->payload_enabled() ? ShuffleKeys<KeyPayload>(&keys, &owned)
                                            : ShuffleKeys<batch::KeyEntry>(&keys, &owned);
      NEARDUP_RETURN_IF_ERROR(distributed::Agree(c_, s, 0));
    }
    batch::PairRuns local_pairs(m.tmp.get(), "pairs");
    {
      Status s = m.PairPhase(&owned, &local_pairs);
      NEARDUP_RETURN_IF_ERROR(distributed::Agree(c_, s, ErrLine()));
    }
    skips = ShareSkips();
    batch::PairRuns pairs(m.tmp.get(), "verify");
    NEARDUP_RETURN_IF_ERROR(distributed::Agree(c_, ShufflePairs(&local_pairs, &pairs), 0));
    DieForTest(c_, "pairs");
    NEARDUP_RETURN_IF_ERROR(distributed::Agree(c_, FetchBorrowed(), 0));
    {
      const BorrowedLines source(&m.store, static_cast<uint32_t>(m.files.size()), lo_, &borrowed_,
                                 &borrowed_off_, borrowed_fd_, borrowed_path_);
      Status s = m.VerifyPairs(&pairs, source, [&](const batch::Edge& e) {
        edges_.push_back({e.a, e.b, e.similarity < 0 ? 1.0f : e.similarity});
        return Status::OK();
      });
      NEARDUP_RETURN_IF_ERROR(distributed::Agree(c_, s, 0));
    }
    if (!dir_.empty()) {
      NEARDUP_RETURN_IF_ERROR(distributed::Agree(c_, SaveVerify(skips), 0));
    }
  }
  DeliverSkips(skips);
  DieForTest(c_, "verify");

  m.monitor->Phase(BatchPhase::kCluster, 0);
  if (have_cluster) {
    NEARDUP_RETURN_IF_ERROR(distributed::Agree(c_, LoadCluster(), 0));
  } else {
    Components();
    if (m.options.max_cluster_size > 0) {
      NEARDUP_RETURN_IF_ERROR(distributed::Agree(c_, Cap(), 0));
    }
    if (!dir_.empty()) {
      NEARDUP_RETURN_IF_ERROR(distributed::Agree(c_, SaveCluster(), 0));
    }
  }
  DieForTest(c_, "cluster");
  GatherLabels();

  // Counters summed over the ranks (peak memory and disk: the largest rank).
  BatchStats& st = m.stats;
  st.records = distributed::SumAll(st.records);
  st.skipped = distributed::SumAll(st.skipped);
  st.keys = distributed::SumAll(st.keys);
  st.key_runs_spilled = distributed::SumAll(st.key_runs_spilled);
  st.key_bytes_spilled = distributed::SumAll(st.key_bytes_spilled);
  st.candidate_pairs = distributed::SumAll(st.candidate_pairs);
  st.similarity_calls = distributed::SumAll(st.similarity_calls);
  st.edges = distributed::SumAll(edges_.size());
  st.oversized_components = distributed::SumAll(oversized_);
  st.refused_by_cap = distributed::SumAll(refused_);
  st.ranks = c_.size;
  st.shuffled_key_bytes = distributed::SumAll(key_bytes_);
  st.shuffled_pair_bytes = distributed::SumAll(pair_bytes_);
  st.component_rounds = distributed::MaxAll(cc_rounds_);
  st.fetched_text_bytes = distributed::SumAll(fetched_bytes_);
  st.peak_rss_bytes = distributed::MaxAll(batch::PeakRssBytes());
  st.peak_disk_bytes = distributed::MaxAll(m.tmp->DiskBytes());
  if (c_.rank != 0) return std::unique_ptr<BatchDedup>();
  NEARDUP_RETURN_IF_ERROR(m.KeepPhase());
  const uint64_t peak_rss = st.peak_rss_bytes, peak_disk = st.peak_disk_bytes;
  m.monitor->Finish(&st);
  st.peak_rss_bytes = std::max(st.peak_rss_bytes, peak_rss);
  st.peak_disk_bytes = std::max(st.peak_disk_bytes, peak_disk);
  return BatchDedup::FromImpl(std::move(m_));
}

}  // namespace

Result<int> DistributedRank() {
  NEARDUP_ASSIGN_OR_RETURN(Comm c, distributed::InitComm());
  return c.rank;
}

Result<int> DistributedSize() {
  NEARDUP_ASSIGN_OR_RETURN(Comm c, distributed::InitComm());
  return c.size;
}

void FinalizeDistributed() { distributed::FinalizeComm(); }

Result<std::unique_ptr<BatchDedup>> RunDistributed(const std::vector<std::string>& files,
                                                   const BatchOptions& options,
                                                   const DistributedOptions& dopts) {
  NEARDUP_ASSIGN_OR_RETURN(Comm c, distributed::InitComm());
  // Checks that give the same answer on every rank (no agreement needed).
  if (files.empty() || std::find(files.begin(), files.end(), "-") != files.end()) {
    return Status::InvalidArgument(
        "--distributed reads named files (each rank reads its share), not standard input");
  }
  if (!options.against.empty()) {
    return Status::InvalidArgument("--distributed does not run --against an index");
  }
  if (options.with_matches) {
    return Status::InvalidArgument("--distributed does not write --with-matches");
  }
  if (options.learn_idf || !options.idf_save.empty()) {
    return Status::InvalidArgument(
        "--distributed does not learn IDF (--idf corpus|stream, --idf-save); use --idf-load");
  }
  auto m = std::make_unique<BatchDedup::Impl>();
  m->options = options;
  m->options.min_shared_keys = EffectiveMinSharedKeys(options);
  if (c.rank != 0) m->options.progress = nullptr;
  // Owners pair other ranks' records, whose key bytes they do not have.
  m->key_filter_allowed = false;
  // Defaults: every core and half the available memory of this host,
  // shared by the ranks on it.
  const int local = distributed::LocalSize();
  if (m->options.engine.threads == 0) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    m->options.engine.threads = std::max(1, cores / local);
  }
  if (m->options.memory_bytes == 0) {
    m->options.memory_bytes = std::max<uint64_t>(64ull << 20, DefaultBatchMemory() / local);
  }
  Runner runner(c, std::move(m), dopts);
  return runner.Run(files);
}

}  // namespace neardup
