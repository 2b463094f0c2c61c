// SPDX-License-Identifier: Apache-2.0
#include "batch/line_block.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>

namespace neardup::batch {
namespace {

struct Fixture {
  std::unique_ptr<TempDir> dir;
  std::vector<InputFile> files;
  LineTable lines;
  InputTexts store;
  std::vector<std::string> want;
};

// Two files of random lines (one huge, blank ones, the last without '\n').
void Build(Fixture* f) {
  auto dir = TempDir::Create("");
  ASSERT_TRUE(dir.ok());
  f->dir = std::move(*dir);
  std::mt19937 rng(7);
  std::string a, b;
  for (int i = 0; i < 2000; ++i) {
    std::string line(rng() % (i == 900 ? 200000 : 400), 'a' + i % 26);
    if (i % 40 == 0) line.clear();
    f->want.push_back(line);
    (i < 1200 ? a : b) += line + "\n";
  }
  b.pop_back();
  std::vector<std::string> names;
  for (const auto& [name, data] : {std::pair{"a.jsonl", a}, std::pair{"b.jsonl", b}}) {
    names.push_back(f->dir->File(name));
    std::ofstream(names.back(), std::ios::binary) << data;
  }
  auto files = OpenInputs(names, nullptr);
  ASSERT_TRUE(files.ok());
  f->files = std::move(*files);
  ChunkReader reader(&f->files, &f->lines, 1 << 16);
  Chunk c;
  while (true) {
    auto more = reader.Next(&c);
    ASSERT_TRUE(more.ok());
    if (!*more) break;
  }
  ASSERT_TRUE(f->store.Open(&f->files, &f->lines).ok());
}

TEST(LineBlockTest, SparseAndDenseSelectionsReadBackExactly) {
  Fixture f;
  Build(&f);
  std::mt19937 rng(11);
  for (uint64_t gap : {uint64_t{0}, uint64_t{1000}, uint64_t{1} << 20}) {
    LineBlock block(gap);
    for (int round = 0; round < 5; ++round) {  // reuses the buffer
      block.Clear();
      std::vector<uint64_t> picked;
      const unsigned every = 1 + round * 3;  // dense (1) to sparse
      for (uint64_t i = rng() % every; i < f.want.size(); i += 1 + rng() % every) {
        ASSERT_EQ(block.Add(f.store, i), picked.size());
        picked.push_back(i);
      }
      ASSERT_TRUE(block.Load(f.store).ok());
      ASSERT_EQ(block.size(), picked.size());
      for (size_t k = 0; k < picked.size(); ++k) {
        const InputTexts::Line l = block.Get(f.store, k);
        ASSERT_EQ(block.line(k), picked[k]);
        ASSERT_EQ(l.text, f.want[picked[k]]) << picked[k] << " gap " << gap;
        EXPECT_EQ(l.file, picked[k] < 1200 ? 0u : 1u);
        EXPECT_EQ(l.line_in_file, picked[k] < 1200 ? picked[k] + 1 : picked[k] - 1199);
        EXPECT_GE(l.readable, l.text.size() + ChunkReader::kPadding);
      }
    }
  }
}

TEST(LineBlockTest, GapsDecideWhatIsReadAndSpansStopAtFileEnds) {
  Fixture f;
  Build(&f);
  LineBlock tight(0), loose(1 << 30);
  for (uint64_t i : {uint64_t{3}, uint64_t{500}, uint64_t{1199}, uint64_t{1200}, uint64_t{1999}}) {
    tight.Add(f.store, i);
    loose.Add(f.store, i);
  }
  uint64_t lines_bytes = 0;
  for (uint64_t i : {3, 500, 1199, 1200, 1999}) lines_bytes += f.want[i].size() + (i < 1999);
  EXPECT_EQ(tight.bytes(), lines_bytes);  // only the lines
  // One span per file: lines 3..1199 of a, 1200..1999 of b.
  uint64_t a_bytes = 0, b_bytes = 0;
  for (uint64_t i = 3; i < 1200; ++i) a_bytes += f.want[i].size() + 1;
  for (uint64_t i = 1200; i < 2000; ++i) b_bytes += f.want[i].size() + (i < 1999);
  EXPECT_EQ(loose.bytes(), a_bytes + b_bytes);
  ASSERT_TRUE(loose.Load(f.store).ok());
  EXPECT_EQ(loose.Get(f.store, 3).text, f.want[1200]);
}

TEST(LineBlockTest, AFileThatShrankIsAnError) {
  Fixture f;
  Build(&f);
  LineBlock block(0);
  block.Add(f.store, 1999);
  ASSERT_EQ(truncate(f.files[1].path.c_str(), 10), 0);
  const Status s = block.Load(f.store);
  EXPECT_EQ(s.code(), StatusCode::kIOError);
  EXPECT_NE(s.message().find("b.jsonl"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace neardup::batch
