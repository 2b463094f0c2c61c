// SPDX-License-Identifier: Apache-2.0
#include "base/huge_pages.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace neardup::base {
namespace {

std::string ReadFile(const char* path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The "THPeligible" line of the /proc/self/smaps entry holding `addr`, or -1.
int ThpEligible(uintptr_t addr) {
  std::ifstream in("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(':') > line.find(' ')) {
      inside = lo <= addr && addr < hi;
      continue;
    }
    if (inside && line.rfind("THPeligible:", 0) == 0) return std::stoi(line.substr(12));
  }
  return -1;
}

TEST(HugePagesTest, SmallAndNullBuffersAreLeftAlone) {
  AdviseHugePages(nullptr, size_t{64} << 20);
  std::vector<char> small(1 << 20, 'x');
  AdviseHugePages(small.data(), small.size());
  EXPECT_EQ(small[12345], 'x');
}

TEST(HugePagesTest, AnAdvisedMappingIsEligibleAndKeepsItsContents) {
  const std::string mode = ReadFile("/sys/kernel/mm/transparent_hugepage/enabled");
  if (mode.find("[madvise]") == std::string::npos) {
    GTEST_SKIP() << "transparent huge pages are not in madvise mode here: " << mode;
  }
  const size_t bytes = size_t{16} << 20;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  const uintptr_t aligned =
      (reinterpret_cast<uintptr_t>(p) + (2 << 20) - 1) & ~uintptr_t{(2 << 20) - 1};
  const int before = ThpEligible(aligned);
  if (before == -1) {
    munmap(p, bytes);
    GTEST_SKIP() << "this kernel's smaps has no THPeligible line";
  }
  EXPECT_EQ(before, 0);
  AdviseHugePages(p, bytes);
  EXPECT_EQ(ThpEligible(aligned), 1);
  std::memset(p, 7, bytes);
  EXPECT_EQ(static_cast<char*>(p)[bytes - 1], 7);
  munmap(p, bytes);
}

}  // namespace
}  // namespace neardup::base
