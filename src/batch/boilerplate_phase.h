// SPDX-License-Identifier: Apache-2.0
//
// The boilerplate guard of a batch run (verify/boilerplate.h): between the
// pair phase and the verify phase, the anchors of every record that is not
// the later record of any candidate pair (its "founders": a story's first
// copy, each story under a footer) are counted, and the signature verifies
// with those counts. A footer counts once a story, a reprinted story about
// once. The online engine counts documents that started a cluster as they
// arrive; a batch run knows its candidates before it verifies, and counts
// the whole input before the first pair is decided.
//
// Records are read from the run's verification forms, which keep their
// shingles in text order (verify/form.h, flag 64); the counting runs on the
// run's threads, each into its own table, added up at the end (Fixed
// tables add in any order, so an MPI run's ranks add theirs the same way
// and every rank verifies with the table one process would make).
//
// The table: two rows of 8-bit counters, BoilerplateTableBytes in all: an
// eighth of the input's bytes rounded up to a power of two, in [64 KiB,
// 256 MiB], whatever the budget (so every MPI rank and one process make the
// same table), held in the budget. Founders' anchors are at most about one
// a dozen input bytes of Chinese text, so a row's counters hold at most
// about 1.3 counts each up to 2 GB of input (a count of 8 in both rows by
// chance: ~1e-9); at 8 GB it is 5, and past that collisions grow and the
// guard starts to mark text that is not repeated (docs/quality.md).
//
// Thread safety: from the run's thread, which counts with the run's threads
// into one table (atomic increments). Memory: the table.
#ifndef NEARDUP_BATCH_BOILERPLATE_PHASE_H_
#define NEARDUP_BATCH_BOILERPLATE_PHASE_H_

#include <cstdint>

#include "batch/line_source.h"
#include "batch/pipeline.h"
#include "verify/boilerplate.h"

namespace neardup::batch {

// The size of the run's table (see above).
size_t BoilerplateTableBytes(const BatchRun& run);

// Counts the founders among lines [begin, end) whose forms `forms` holds
// into a Fixed table of `bytes`. Errors: IOError reading forms;
// Corruption for a form that does not parse.
Result<verify::BoilerplateCounts> CountFounders(BatchRun* run, const LineSource& forms,
                                                uint64_t begin, uint64_t end, size_t bytes);

// Keeps `counts` (of `founders` records) as the run's, held in its budget,
// and frees the later-record bits.
void KeepBoilerplate(BatchRun* run, verify::BoilerplateCounts counts, uint64_t founders);

// One process: counts every founder into run->boilerplate (the verify phase
// hands it to its scratches).
// Does nothing unless run->later was made (PairKeys with the guard).
Status CountBoilerplate(BatchRun* run);

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_BOILERPLATE_PHASE_H_
