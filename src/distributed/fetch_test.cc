// SPDX-License-Identifier: Apache-2.0
#include "distributed/fetch.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <random>

#include "batch/line_block.h"
#include "distributed/in_process_comm.h"

namespace neardup::distributed {
namespace {

// Two files of lines of varied length (a long one, blank ones); every
// rank reads the same input, as ranks of a job do.
std::vector<std::string> WriteInput(batch::TempDir* dir) {
  std::mt19937 rng(3);
  std::string a, b;
  for (int i = 0; i < 900; ++i) {
    std::string line = "{\"id\":" + std::to_string(i) + ",\"text\":\"" +
                       std::string(i == 400 ? 70000 : rng() % 300, 'a' + i % 26) + "\"}";
    if (i % 50 == 7) line.clear();
    (i < 500 ? a : b) += line + "\n";
  }
  std::vector<std::string> names = {dir->File("a.jsonl"), dir->File("b.jsonl")};
  std::ofstream(names[0], std::ios::binary) << a;
  std::ofstream(names[1], std::ios::binary) << b;
  return names;
}

void ReadInput(const std::vector<std::string>& names, batch::RunInput* in) {
  auto files = batch::OpenInputs(names, nullptr);
  ASSERT_TRUE(files.ok());
  in->files = std::move(*files);
  in->lines = std::make_unique<batch::LineTable>(/*payloads=*/true);
  batch::ChunkReader reader(&in->files, in->lines.get(), 1 << 14);
  batch::Chunk c;
  while (true) {
    auto more = reader.Next(&c);
    ASSERT_TRUE(more.ok());
    if (!*more) break;
  }
  ASSERT_TRUE(in->OpenStore().ok());
}

// One rank's view: a temporary directory, the input, the ranks' lines
// (equal shares) and its own [lo, hi).
struct Rank {
  Rank(const Comm& c, const std::vector<std::string>& names)
      : tmp(std::move(batch::TempDir::Create("")).value()) {
    ReadInput(names, &in);
    std::vector<uint32_t> bounds;
    for (int r = 0; r <= c.size(); ++r) {
      bounds.push_back(static_cast<uint32_t>(in.n() * r / c.size()));
    }
    own = LineRanges(bounds);
    lo = own.begin(c.rank());
    hi = own.end(c.rank());
  }
  std::unique_ptr<batch::TempDir> tmp;
  batch::RunInput in;
  LineRanges own;
  uint32_t lo = 0, hi = 0;
};

class FetchTest : public ::testing::TestWithParam<int> {
 protected:
  // Runs fn on GetParam() in-process ranks over one input; fn sets `fail`
  // (its rank's) to say what went wrong there.
  void EveryRank(const std::function<void(Comm&, Rank&, std::string& fail)>& fn) {
    const int n = GetParam();
    auto dir = batch::TempDir::Create("");
    ASSERT_TRUE(dir.ok());
    const std::vector<std::string> names = WriteInput(dir->get());
    std::vector<std::string> failures(n);
    RunInProcess(n, [&](Comm& c) {
      Rank rank(c, names);
      fn(c, rank, failures[c.rank()]);
    });
    for (int r = 0; r < n; ++r) EXPECT_EQ(failures[r], "") << "rank " << r;
  }
};

// Each rank fetches some lines of the ranks before it (payloads too) in
// small rounds; reading them through BorrowedLines, with LineBlock as
// verification does, gives the input's bytes, as do its own lines.
TEST_P(FetchTest, BorrowedLinesReadAsTheInput) {
  EveryRank([&](Comm& c, Rank& rank, std::string& fail) {
    auto& [tmp, in, own, lo, hi] = rank;
    // The owners know their lines' payloads.
    for (uint32_t d = lo; d < hi; ++d) in.lines->set_payload(d, d * 31 + 1);
    std::vector<uint32_t> ids;
    for (uint32_t d = 0; d < lo; d += 1 + d % 3) ids.push_back(d);
    uint64_t fetched = 0;
    auto source =
        BorrowedLines::Fetch(c, own, ids, &in, nullptr, tmp.get(), /*round_bytes=*/20000, &fetched);
    ASSERT_TRUE(source.ok()) << source.status().ToString();
    batch::LineBlock block(1 << 10);
    for (uint32_t d : ids) block.Add(**source, d);
    for (uint32_t d = lo; d < hi; ++d) block.Add(**source, d);
    ASSERT_TRUE(block.Load(**source).ok());
    for (size_t i = 0; i < block.size(); ++i) {
      const uint64_t d = block.line(i);
      const batch::InputTexts::Line got = block.Get(**source, i), want = in.store.Get(d);
      if (got.text != want.text || got.line_in_file != want.line_in_file) {
        fail = "line " + std::to_string(d);
      }
      if (in.lines->payload(d) != d * 31 + 1) fail = "payload of " + std::to_string(d);
    }
    if ((fetched > 0) != !ids.empty()) fail = "fetched bytes";
  });
}

// A form of line d: any bytes, a '\n' among them and at the end.
std::string FormOf(uint32_t d) {
  std::string f = "form " + std::to_string(d) + "\n";
  for (uint32_t i = 0; i < d % 7; ++i) f.push_back(static_cast<char>(d * 13 + i));
  return f + "\n";
}

// With every rank's FormStore, the forms are fetched and served instead of
// the texts: own lines from the store, others from the fetched file.
TEST_P(FetchTest, BorrowedFormsReadAsTheForms) {
  EveryRank([&](Comm& c, Rank& rank, std::string& fail) {
    auto& [tmp, in, own, lo, hi] = rank;
    auto forms = batch::FormStore::Create(tmp.get(), 2);
    ASSERT_TRUE(forms.ok());
    for (uint32_t d = lo; d < hi; ++d) ASSERT_TRUE((*forms)->Add(d % 2, d, FormOf(d)).ok());
    ASSERT_TRUE((*forms)->Finish().ok());
    std::vector<uint32_t> ids;
    for (uint32_t d = 0; d < lo; d += 1 + d % 2) ids.push_back(d);
    uint64_t fetched = 0;
    auto source = BorrowedLines::Fetch(c, own, ids, &in, forms->get(), tmp.get(),
                                       /*round_bytes=*/2000, &fetched);
    ASSERT_TRUE(source.ok()) << source.status().ToString();
    batch::LineBlock block(1 << 10);
    for (uint32_t d : ids) block.Add(**source, d);
    for (uint32_t d = lo; d < hi; ++d) block.Add(**source, d);
    ASSERT_TRUE(block.Load(**source).ok());
    for (size_t i = 0; i < block.size(); ++i) {
      const uint64_t d = block.line(i);
      if (block.Get(**source, i).text != FormOf(static_cast<uint32_t>(d))) {
        fail = "form of line " + std::to_string(d);
      }
    }
    if ((fetched > 0) != !ids.empty()) fail = "fetched bytes";
  });
}

INSTANTIATE_TEST_SUITE_P(Ranks, FetchTest, ::testing::Values(1, 2, 3, 4));

}  // namespace
}  // namespace neardup::distributed
