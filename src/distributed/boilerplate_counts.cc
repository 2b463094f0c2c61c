// SPDX-License-Identifier: Apache-2.0
// The boilerplate guard's counts over the ranks (boilerplate_counts.h).
#include "distributed/boilerplate_counts.h"

#include <algorithm>
#include <cstring>

#include "base/status_macros.h"
#include "batch/boilerplate_phase.h"

namespace neardup::distributed {
namespace {

// Each rank's bits of the later records in its range OR-ed in from every
// rank: the words overlapping rank d's lines go to d.
void ShareLaterBits(Comm& c, const LineRanges& ranges, std::vector<uint64_t>* later) {
  std::vector<std::vector<uint8_t>> out(static_cast<size_t>(c.size()));
  for (int d = 0; d < c.size(); ++d) {
    if (ranges.begin(d) >= ranges.end(d)) continue;
    const size_t first = ranges.begin(d) / 64, last = (ranges.end(d) + 63) / 64;
    out[d].resize((last - first) * 8);
    std::memcpy(out[d].data(), later->data() + first, out[d].size());
  }
  std::vector<size_t> from;
  const std::vector<uint8_t> in = c.Exchange(out, &from);
  const size_t first = ranges.begin(c.rank()) / 64;
  size_t at = 0;
  for (size_t bytes : from) {
    for (size_t w = 0; w < bytes / 8; ++w) {
      uint64_t v = 0;
      std::memcpy(&v, in.data() + at + 8 * w, 8);
      (*later)[first + w] |= v;
    }
    at += bytes;
  }
}

// The sum over the ranks of every rank's table, on every rank.
void AddTables(Comm& c, verify::BoilerplateCounts* counts) {
  const std::span<const uint8_t> mine = counts->counters();
  const size_t n = mine.size(), ranks = static_cast<size_t>(c.size());
  auto slice_begin = [&](size_t d) { return n * d / ranks; };
  std::vector<std::vector<uint8_t>> out(ranks);
  for (size_t d = 0; d < ranks; ++d) {
    out[d].assign(mine.begin() + slice_begin(d), mine.begin() + slice_begin(d + 1));
  }
  const size_t me = static_cast<size_t>(c.rank());
  const size_t len = slice_begin(me + 1) - slice_begin(me);
  const std::vector<uint8_t> in = c.Exchange(out);  // every rank's copy of my slice
  std::vector<uint8_t> sum(len, 0);
  for (size_t r = 0; r < ranks; ++r) {
    verify::AddCounters(sum, std::span<const uint8_t>(in).subspan(r * len, len));
  }
  const std::vector<uint8_t> whole = c.AllGather(sum);  // the slices in rank order
  NEARDUP_CHECK(counts->Assign(whole));
}

}  // namespace

Status CountBoilerplateAcross(Comm& c, const LineRanges& ranges, batch::BatchRun* run) {
  if (run->later.empty() || run->forms == nullptr) return Status::OK();
  ShareLaterBits(c, ranges, &run->later);
  const size_t bytes = batch::BoilerplateTableBytes(*run);
  Result<verify::BoilerplateCounts> counts =
      batch::CountFounders(run, *run->forms, ranges.begin(c.rank()), ranges.end(c.rank()), bytes);
  NEARDUP_RETURN_IF_ERROR(Agree(c, counts.status(), 0));  // before the collectives below
  const uint64_t founders = SumAll(c, counts->documents());
  AddTables(c, &*counts);
  batch::KeepBoilerplate(run, std::move(*counts), founders);
  return Status::OK();
}

}  // namespace neardup::distributed
