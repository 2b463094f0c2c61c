// SPDX-License-Identifier: Apache-2.0
//
// The sketch phase: a reader thread cuts the input into chunks of whole
// lines (recording every line's offset in the LineTable); sketch workers
// parse each record (simdjson), compute its bucket keys
// (BatchSignature::Keys) and append (key, doc) entries, plus one entry in
// the id space per record (repeated ids are found by the merge), to their
// own buffer. A full buffer is sorted and spilled by its worker, so sorting
// runs in parallel with reading. Which worker gets which chunk does not
// matter: the merge orders entries by (key, doc).
//
// An MPI rank sketches only the lines starting in its byte range of the
// input files taken as one stream ([own_begin, own_end)); given its
// LineSpan it reads and records only those lines, else it records every
// line's offset.
//
// Errors go to RecordErrors: the first bad record in input order wins
// (chunks after it are not read, chunks before it finish); under
// skip_invalid a bad record is marked kSkipped and reported as a skip.
//
// With a FormStore, each record's verification form (BatchSignature::Form)
// goes there too, worker i writing to the store's writer i, so the verify
// phase never parses or prepares a text again.
//
// Thread safety: Run() from one thread; it runs a reader thread and
// env.threads workers. Memory: the key buffers, sized from the budget.
#ifndef NEARDUP_BATCH_SKETCH_PHASE_H_
#define NEARDUP_BATCH_SKETCH_PHASE_H_

#include <cstdint>
#include <vector>

#include "batch/form_store.h"
#include "batch/key_filter.h"
#include "batch/monitor.h"
#include "batch/record_errors.h"
#include "batch/run_env.h"
#include "batch/run_input.h"
#include "batch/sorted_runs.h"

namespace neardup::batch {

using KeyRuns = RunSet<KeyEntry, KeyEntryLess>;

struct SketchInput {
  // Its files from corpus_files on are read: line offsets appended, states,
  // payloads and key bytes (when key_filter is active) set.
  RunInput* input = nullptr;
  const KeyFilter* key_filter = nullptr;
  bool skip_invalid = false;
  uint64_t own_begin = 0, own_end = UINT64_MAX;
  // Null: no forms kept. Else it has a writer per worker.
  FormStore* forms = nullptr;
  // An MPI rank's lines (input.h): only they are read. Null: every file
  // from corpus_files on.
  const LineSpan* span = nullptr;
};

struct SketchCounts {
  uint64_t records = 0, skipped = 0, keys = 0, runs_spilled = 0, bytes_spilled = 0;
};

class SketchPhase {
 public:
  SketchPhase(const PhaseEnv& env, const SketchInput& in, RecordErrors* errors);
  // Sorted runs of the entries into *keys. Errors: reading the input,
  // writing spill files; the first bad record (errors->First()).
  Status Run(KeyRuns* keys, SketchCounts* counts);

 private:
  struct Worker;
  void ReadChunks();
  void Work(Worker* w);
  void Process(Worker* w, const Chunk& c);
  // Sketches one record; false when the chunk must stop.
  bool Sketch(Worker* w, std::string_view text, size_t readable, uint64_t line, uint64_t lineno,
              const InputFile& f);
  void Spill(Worker* w);
  uint64_t KeyLimit() const;

  PhaseEnv env_;
  SketchInput in_;
  RecordErrors* errors_;
  KeyRuns* runs_ = nullptr;
  size_t chunk_bytes_ = 0, pool_ = 0;
  std::vector<uint64_t> file_base_;  // global byte offset of each file's start
  std::unique_ptr<ChunkReader> reader_;
  std::vector<Chunk> chunks_;
  Queue<Chunk*> free_q_, work_q_;
  Status read_status_;
};

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_SKETCH_PHASE_H_
