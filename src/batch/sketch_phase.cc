// SPDX-License-Identifier: Apache-2.0
#include "batch/sketch_phase.h"

#include <xxhash.h>

#include <cstring>
#include <thread>

#include "base/machine.h"
#include "base/parallel.h"
#include "base/status_macros.h"
#include "batch/sort.h"
#include "batch/spill_buffer.h"

namespace neardup::batch {
namespace {

uint64_t KeyOf(const KeyEntry& e) { return e.key; }

}  // namespace

struct SketchPhase::Worker {
  std::unique_ptr<SignatureScratch> scratch;
  std::unique_ptr<RecordParser> parser;
  SpillBuffer<KeyEntry> buf;
  std::vector<uint64_t> keys;
  int index = 0;     // the worker's writer in in_.forms
  std::string form;  // of the current record
  Skips skips;
  uint64_t records = 0;
};

SketchPhase::SketchPhase(const PhaseEnv& env, const SketchInput& in, RecordErrors* errors)
    : env_(env), in_(in), errors_(errors) {
  chunk_bytes_ = std::clamp<uint64_t>(env.budget->total() / 64, 64 << 10, 4 << 20);
  pool_ = 2 * static_cast<size_t>(env.threads) + 2;
}

Status SketchPhase::Run(KeyRuns* keys, SketchCounts* counts) {
  runs_ = keys;
  RunInput& input = *in_.input;
  file_base_ = input.FileStarts();
  reader_ = in_.span != nullptr ? std::make_unique<ChunkReader>(&input.files, input.lines.get(),
                                                                chunk_bytes_, *in_.span, file_base_)
                                : std::make_unique<ChunkReader>(&input.files, input.lines.get(),
                                                                chunk_bytes_, input.corpus_files);
  chunks_ = std::vector<Chunk>(pool_);
  for (Chunk& c : chunks_) free_q_.Push(&c);
  env_.monitor->Phase(BatchPhase::kSketch, reader_->total_bytes());

  std::thread reader;
  NEARDUP_RETURN_IF_ERROR(base::StartThread(&reader, "input reader", [this] {
    try {  // an exception must not leave a thread (base/parallel.h)
      ReadChunks();
    } catch (...) {
      read_status_ = base::ResourceErrorOrRethrow();
      work_q_.Close();
    }
  }));
  std::vector<Worker> workers(env_.threads);
  for (size_t i = 0; i < workers.size(); ++i) workers[i].index = static_cast<int>(i);
  std::vector<std::thread> pool;
  std::atomic<int> running{env_.threads};
  for (Worker& w : workers) {  // a worker that cannot start leaves the chunks to the others
    if (!base::TryAddThread(&pool, [&] {
          try {  // out of memory: the run stops with ResourceExhausted
            Work(&w);
          } catch (...) {
            errors_->Fatal(base::ResourceErrorOrRethrow());
          }
          running.fetch_sub(1);
        })) {
      running.fetch_sub(1);
    }
  }
  if (pool.empty()) {
    free_q_.Close();
    reader.join();
    return Status::ResourceExhausted("cannot start a sketch worker thread");
  }
  while (running.load() > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    env_.monitor->Tick();
  }
  for (auto& t : pool) t.join();
  free_q_.Close();
  reader.join();
  NEARDUP_RETURN_IF_ERROR(read_status_);
  NEARDUP_RETURN_IF_ERROR(errors_->First());

  // What is left in the buffers (sorted by their workers) goes in memory
  // unless runs spilled already or it would take half of what is available.
  uint64_t left = 0;
  for (Worker& w : workers) {
    left += w.buf.size() * sizeof(KeyEntry);
    counts->records += w.records;
    counts->skipped += w.skips.size();
    errors_->AddSkips(&w.skips);
  }
  const bool spill_left = keys->spilled_runs() > 0 || left > env_.budget->Available() / 2;
  for (Worker& w : workers) NEARDUP_RETURN_IF_ERROR(keys->AddRun(&w.buf, spill_left));
  counts->keys = keys->records();
  counts->runs_spilled = keys->spilled_runs();
  counts->bytes_spilled = keys->spilled_bytes();
  return Status::OK();
}

void SketchPhase::ReadChunks() {
  while (auto c = free_q_.Pop()) {
    auto more = reader_->Next(*c);
    if (!more.ok()) {
      read_status_ = more.status();
      break;
    }
    if (!*more || (*c)->first_line > errors_->stop_line()) break;
    work_q_.Push(*c);
  }
  work_q_.Close();
}

void SketchPhase::Work(Worker* w) {
  w->scratch = env_.sig->NewScratch();
  w->parser = std::make_unique<RecordParser>(in_.input->fields);
  w->keys.resize(env_.sig->max_keys());
  // Memory by need, up to the worker's share of the budget.
  w->buf.set_limit(KeyLimit() + 1);
  while (auto c = work_q_.Pop()) {
    if ((*c)->first_line <= errors_->stop_line()) Process(w, **c);
    // Progress is work done: bytes sketched, not bytes read ahead.
    env_.monitor->AddDone((*c)->size);
    free_q_.Push(*c);
  }
  // Sort what is left here, in parallel; Run() decides where it goes.
  RadixSort(w->buf.span(), KeyOf, KeyEntryLess());
}

uint64_t SketchPhase::KeyLimit() const {
  const uint64_t chunk_memory = pool_ * (chunk_bytes_ + 64);
  const uint64_t avail = env_.budget->Available();
  const uint64_t mine = (avail > chunk_memory ? avail - chunk_memory : 0) / env_.threads;
  return std::max<uint64_t>(4096, mine / sizeof(KeyEntry));
}

void SketchPhase::Spill(Worker* w) {
  RadixSort(w->buf.span(), KeyOf, KeyEntryLess());
  if (Status s = runs_->AddRun(&w->buf, /*spill=*/true); !s.ok()) errors_->Fatal(std::move(s));
}

void SketchPhase::Process(Worker* w, const Chunk& c) {
  const InputFile& f = in_.input->files[c.file];
  const uint64_t chunk_at = file_base_[c.file] + c.file_offset;
  if (chunk_at >= in_.own_end || chunk_at + c.size <= in_.own_begin) return;  // not ours
  const char* p = c.buf.data();
  const uint64_t before = w->records;
  uint64_t line = c.first_line, lineno = c.first_line_in_file;
  for (size_t pos = 0; pos < c.size; ++line, ++lineno) {
    const void* nl = std::memchr(p + pos, '\n', c.size - pos);
    const size_t end = nl == nullptr ? c.size : static_cast<const char*>(nl) - p;
    const std::string_view text(p + pos, end - pos);
    const size_t readable = c.buf.size() - pos;
    const uint64_t at = chunk_at + pos;
    pos = end + 1;
    if (line > errors_->stop_line()) break;
    if (at < in_.own_begin || at >= in_.own_end) continue;  // another rank's line
    if (IsBlankLine(text)) continue;
    if (!Sketch(w, text, readable, line, lineno, f)) break;
  }
  env_.monitor->AddRecords(w->records - before);
  const uint64_t limit = KeyLimit();
  w->buf.set_limit(limit + 1);
  if (w->buf.size() >= limit) Spill(w);
}

bool SketchPhase::Sketch(Worker* w, std::string_view text, size_t readable, uint64_t line,
                         uint64_t lineno, const InputFile& f) {
  LineTable& lines = *in_.input->lines;
  KeySink sink(w->keys.data(), w->keys.size());
  ParsedRecord rec;
  Status s = w->parser->Parse(text, readable, {f.id_file, lineno}, &rec);
  if (s.ok()) s = env_.sig->Keys(rec.text, w->scratch.get(), &sink);
  if (!s.ok()) {
    s = s.WithContext(f.name + ":" + std::to_string(lineno));
    if (s.code() == StatusCode::kResourceExhausted) {  // the machine's fault, not the record's
      errors_->Fatal(std::move(s));
      return false;
    }
    if (!in_.skip_invalid) {
      errors_->Record(line, std::move(s));
      return false;
    }
    lines.set_state(line, kSkipped);
    w->skips.emplace_back(line, std::move(s));
    return true;
  }
  // A full buffer spills mid-chunk (it grows by need up to its limit).
  if (!w->buf.Room(sink.size() + 1)) {
    Spill(w);
    if (!w->buf.Room(sink.size() + 1)) {
      errors_->Fatal(Status::ResourceExhausted("cannot allocate memory for the sketch keys"));
      return false;
    }
  }
  if (in_.forms != nullptr) {
    env_.sig->Form(w->scratch.get(), &w->form);
    if (Status fs = in_.forms->Add(w->index, line, w->form); !fs.ok()) {
      errors_->Fatal(std::move(fs));
      return false;
    }
  }
  const auto doc = static_cast<uint32_t>(line);
  for (size_t i = 0; i < sink.size(); ++i) w->buf.push_back({w->keys[i], doc});
  const uint64_t id_hash = XXH3_64bits(rec.id_json.data(), rec.id_json.size());
  w->buf.push_back({MakeKey(kIdSpace, id_hash), doc});
  if (in_.key_filter->width() > 0) {
    in_.key_filter->Fill(std::span<const uint64_t>(w->keys.data(), sink.size()),
                         lines.key_bytes(line));
  }
  lines.set_payload(line, sink.payload());
  lines.set_state(line, kRecord);
  ++w->records;
  return true;
}

}  // namespace neardup::batch
