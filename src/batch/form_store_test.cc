// SPDX-License-Identifier: Apache-2.0
#include "batch/form_store.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "batch/line_block.h"

namespace neardup::batch {
namespace {

std::string FormOf(uint64_t line) {
  // Any bytes, '\n' at the end included: LineBlock strips only the store's.
  return "form " + std::to_string(line) + std::string(line % 5, '\n');
}

TEST(FormStoreTest, WritersInParallelThenReadBackThroughLineBlock) {
  auto tmp = TempDir::Create("");
  ASSERT_TRUE(tmp.ok());
  auto store = FormStore::Create(tmp->get(), 2);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  FormStore& s = **store;
  // Writer 0 takes even lines, writer 1 odd ones; lines cross a segment.
  const uint64_t n = (1u << 20) + 50;
  std::vector<std::thread> writers;
  for (int w = 0; w < 2; ++w) {
    writers.emplace_back([&, w] {
      for (uint64_t line = w; line < n; line += 2) {
        if (line % 1000 < 5 || line > n - 100) {
          ASSERT_TRUE(s.Add(w, line, FormOf(line)).ok());
        }
      }
    });
  }
  for (auto& t : writers) t.join();
  ASSERT_TRUE(s.Finish().ok());
  EXPECT_TRUE(s.has(0));
  EXPECT_FALSE(s.has(5));
  EXPECT_FALSE(s.has(n));
  LineBlock block(64);
  std::vector<uint64_t> lines;
  for (uint64_t line = 0; line < n; ++line) {
    if (s.has(line)) lines.push_back(line);
  }
  for (uint64_t line : lines) block.Add(s, line);
  ASSERT_TRUE(block.Load(s).ok());
  for (size_t i = 0; i < lines.size(); ++i) {
    ASSERT_EQ(block.Get(s, i).text, FormOf(lines[i])) << lines[i];
  }
}

}  // namespace
}  // namespace neardup::batch
