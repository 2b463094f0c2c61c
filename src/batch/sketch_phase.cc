// SPDX-License-Identifier: Apache-2.0
//
// Phase 1: a reader thread cuts the input into chunks of whole lines; sketch
// workers parse each record (simdjson), compute its bucket keys
// (BatchSignature::Keys) and append (key, doc) entries, plus one entry in
// the id space per record (repeated ids are found by the merge), to their
// own buffer. A full buffer is sorted and spilled by its worker, so sorting
// runs in parallel with reading. Which worker gets which chunk does not
// matter: the merge orders entries by (key, doc).
//
// An MPI rank sketches only the lines of its byte range (Impl::own_begin,
// own_end) but still reads every line's offset into the LineTable.
//
// Errors: the first bad record in input order wins (a worker that finds one
// lowers `stop_line`; chunks after it are not read, chunks before it finish).
#include <xxhash.h>

#include <cstring>
#include <thread>

#include "base/status_macros.h"
#include "batch/batch_run.h"
#include "batch/sort.h"
#include "batch/spill_buffer.h"

namespace neardup {
namespace {

using batch::Chunk;
using batch::KeyEntry;

uint64_t KeyOf(const KeyEntry& e) { return e.key; }

struct Worker {
  std::unique_ptr<batch::SignatureScratch> scratch;
  std::unique_ptr<batch::RecordParser> parser;
  batch::SpillBuffer<KeyEntry> buf;
  std::vector<uint64_t> keys;
  std::vector<std::pair<uint64_t, Status>> skips;
  uint64_t records = 0;
};

}  // namespace

Status BatchDedup::Impl::SketchPhase(batch::KeyRuns* runs) {
  const size_t chunk_bytes = std::clamp<uint64_t>(budget / 64, 64 << 10, 4 << 20);
  batch::ChunkReader reader(&files, lines.get(), chunk_bytes, corpus_files);
  const size_t pool = 2 * static_cast<size_t>(threads) + 2;
  std::vector<Chunk> chunks(pool);
  batch::Queue<Chunk*> free_q, work_q;
  for (Chunk& c : chunks) free_q.Push(&c);
  monitor->Phase(BatchPhase::kSketch, reader.total_bytes());

  Status read_status;
  std::thread reader_thread([&] {
    while (auto c = free_q.Pop()) {
      auto more = reader.Next(*c);
      if (!more.ok()) {
        read_status = more.status();
        break;
      }
      if (!*more || (*c)->first_line > stop_line.load()) break;
      work_q.Push(*c);
    }
    work_q.Close();
  });

  const uint64_t chunk_memory = pool * (chunk_bytes + 64);
  auto key_limit = [&] {
    const uint64_t avail = Available();
    const uint64_t mine = (avail > chunk_memory ? avail - chunk_memory : 0) / threads;
    return std::max<uint64_t>(4096, mine / sizeof(KeyEntry));
  };
  // Global byte offset of each file's start (the owned range is in those).
  std::vector<uint64_t> file_base(files.size() + 1, 0);
  for (size_t i = 0; i < files.size(); ++i) file_base[i + 1] = file_base[i] + files[i].size;
  std::vector<Worker> workers(threads);
  auto spill = [&](Worker& w) {
    batch::RadixSort(w.buf.span(), KeyOf, batch::KeyEntryLess());
    if (Status s = runs->AddRun(&w.buf, /*spill=*/true); !s.ok()) RecordFatal(std::move(s));
  };
  auto process = [&](Worker& w, const Chunk& c) {
    const batch::InputFile& f = files[c.file];
    const uint64_t chunk_at = file_base[c.file] + c.file_offset;
    if (chunk_at >= own_end || chunk_at + c.size <= own_begin) return;  // not ours
    const char* p = c.buf.data();
    uint64_t line = c.first_line, lineno = c.first_line_in_file, recs = 0;
    batch::KeySink sink(w.keys.data(), w.keys.size());
    batch::ParsedRecord rec;
    for (size_t pos = 0; pos < c.size; ++line, ++lineno) {
      const void* nl = std::memchr(p + pos, '\n', c.size - pos);
      const size_t end = nl == nullptr ? c.size : static_cast<const char*>(nl) - p;
      const std::string_view text(p + pos, end - pos);
      const size_t readable = c.buf.size() - pos;
      const uint64_t at = chunk_at + pos;
      pos = end + 1;
      if (line > stop_line.load(std::memory_order_relaxed)) break;
      if (at < own_begin || at >= own_end) continue;  // another rank's line
      if (batch::IsBlankLine(text)) continue;
      sink.Reset();
      Status s = w.parser->Parse(text, readable, lineno, &rec);
      if (s.ok()) s = sig->Keys(rec.text, w.scratch.get(), &sink);
      if (!s.ok()) {
        s = s.WithContext(f.name + ":" + std::to_string(lineno));
        if (!options.skip_invalid) {
          RecordError(line, std::move(s));
          break;
        }
        lines->set_state(line, batch::kSkipped);
        w.skips.emplace_back(line, std::move(s));
        continue;
      }
      const auto doc = static_cast<uint32_t>(line);
      // A full buffer spills mid-chunk (it grows by need up to its limit).
      if (!w.buf.Room(sink.size() + 1)) {
        spill(w);
        if (!w.buf.Room(sink.size() + 1)) {
          RecordFatal(Status::ResourceExhausted("cannot allocate memory for the sketch keys"));
          break;
        }
      }
      for (size_t i = 0; i < sink.size(); ++i) w.buf.push_back({w.keys[i], doc});
      w.buf.push_back(
          {batch::MakeKey(batch::kIdSpace, XXH3_64bits(rec.id_json.data(), rec.id_json.size())),
           doc});
      if (key_filter.width() > 0) {
        key_filter.Fill(std::span<const uint64_t>(w.keys.data(), sink.size()),
                        lines->key_bytes(line));
      }
      lines->set_payload(line, sink.payload());
      lines->set_state(line, batch::kRecord);
      ++recs;
    }
    w.records += recs;
    monitor->AddRecords(recs);
    const uint64_t limit = key_limit();
    w.buf.set_limit(limit + 1);
    if (w.buf.size() >= limit) spill(w);
  };

  std::vector<std::thread> pool_threads;
  std::atomic<int> running{threads};
  for (int t = 0; t < threads; ++t) {
    pool_threads.emplace_back([&, t] {
      Worker& w = workers[t];
      w.scratch = sig->NewScratch();
      w.parser = std::make_unique<batch::RecordParser>(fields);
      w.keys.resize(sig->max_keys());
      // Memory by need, up to the worker's share of the budget.
      w.buf.set_limit(key_limit() + 1);
      while (auto c = work_q.Pop()) {
        if ((*c)->first_line <= stop_line.load()) process(w, **c);
        free_q.Push(*c);
      }
      // Sort what is left here, in parallel; the caller decides where it goes.
      batch::RadixSort(w.buf.span(), KeyOf, batch::KeyEntryLess());
      running.fetch_sub(1);
    });
  }
  while (running.load() > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    monitor->Done(reader.bytes_read());
    monitor->Tick();
  }
  for (auto& t : pool_threads) t.join();
  free_q.Close();
  reader_thread.join();
  NEARDUP_RETURN_IF_ERROR(read_status);
  NEARDUP_RETURN_IF_ERROR(fatal);

  uint64_t left = 0;
  for (Worker& w : workers) {
    left += w.buf.size() * sizeof(KeyEntry);
    stats.records += w.records;
    stats.skipped += w.skips.size();
    for (auto& s : w.skips) skips.push_back(std::move(s));
  }
  const bool spill_left = runs->spilled_runs() > 0 || left > Available() / 2;
  for (Worker& w : workers) NEARDUP_RETURN_IF_ERROR(runs->AddRun(&w.buf, spill_left));
  n = lines->size();
  stats.keys = runs->records();
  stats.key_runs_spilled = runs->spilled_runs();
  stats.key_bytes_spilled = runs->spilled_bytes();
  return FirstError();
}

}  // namespace neardup
