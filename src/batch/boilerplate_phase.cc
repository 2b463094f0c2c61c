// SPDX-License-Identifier: Apache-2.0
// Counting the founders' anchors for the boilerplate guard
// (boilerplate_phase.h).
#include "batch/boilerplate_phase.h"

#include <algorithm>
#include <bit>

#include "base/parallel.h"
#include "base/status_macros.h"
#include "batch/line_block.h"
#include "features/anchors.h"
#include "verify/form.h"

namespace neardup::batch {
namespace {

constexpr uint64_t kMaxGap = 64 << 10;  // bytes read past between two forms of a span

bool IsLater(const std::vector<uint64_t>& later, uint64_t line) {
  return (later[line >> 6] >> (line & 63)) & 1;
}

}  // namespace

size_t BoilerplateTableBytes(const BatchRun& run) {
  const uint64_t want = std::bit_ceil(std::max<uint64_t>(run.input.bytes / 8, 1));
  return static_cast<size_t>(std::clamp<uint64_t>(want, 64 << 10, uint64_t{256} << 20));
}

Result<verify::BoilerplateCounts> CountFounders(BatchRun* run, const LineSource& forms,
                                                uint64_t begin, uint64_t end, size_t bytes) {
  const int threads = std::max(1, run->threads);
  verify::BoilerplateCounts table = verify::BoilerplateCounts::Fixed(bytes);
  std::vector<Status> failed(static_cast<size_t>(threads));
  std::vector<uint64_t> founders(static_cast<size_t>(threads));
  const RunInput& input = run->input;
  // A chunk of lines at a time, its founders' forms read with a few large
  // reads (LineBlock), as the verify phase reads them.
  base::ParallelFor(end - begin, threads, 1024, [&](int t, size_t from, size_t to) {
    LineBlock block(kMaxGap);
    std::vector<uint64_t> distinct;
    std::vector<features::Anchor> anchors;
    for (size_t i = from; i < to; ++i) {
      const uint64_t line = begin + i;
      if (input.lines->state(line) == kRecord && !IsLater(run->later, line)) block.Add(forms, line);
    }
    if (Status s = block.Load(forms); !s.ok()) {
      failed[t] = s;
      return;
    }
    for (size_t k = 0; k < block.size() && failed[t].ok(); ++k) {
      const LineSource::Line l = block.Get(forms, k);
      auto has = verify::ReadFormAnchors(l.text, &anchors);
      if (!has.ok()) {
        failed[t] = has.status();
        break;
      }
      if (!*has) continue;
      table.AddConcurrently(anchors, &distinct);
      ++founders[t];
    }
  });
  for (Status& s : failed) NEARDUP_RETURN_IF_ERROR(s);
  for (uint64_t n : founders) table.AddDocuments(n);
  return table;
}

Status CountBoilerplate(BatchRun* run) {
  if (run->later.empty() || run->forms == nullptr) return Status::OK();
  NEARDUP_ASSIGN_OR_RETURN(
      verify::BoilerplateCounts counts,
      CountFounders(run, *run->forms, 0, run->input.n(), BoilerplateTableBytes(*run)));
  const uint64_t founders = counts.documents();
  KeepBoilerplate(run, std::move(counts), founders);
  return Status::OK();
}

void KeepBoilerplate(BatchRun* run, verify::BoilerplateCounts counts, uint64_t founders) {
  run->stats.boilerplate_founders = founders;
  run->stats.boilerplate_table_bytes = counts.MemoryBytes();
  run->budget.Hold(counts.MemoryBytes());
  run->boilerplate = std::make_shared<verify::BoilerplateCounts>(std::move(counts));
  std::vector<uint64_t>().swap(run->later);
}

}  // namespace neardup::batch
