// SPDX-License-Identifier: Apache-2.0
// The library example from the README; built and run by ctest.
#include <iostream>

#include "neardup/engine.h"

int main() {
  auto engine = neardup::Engine::Create(neardup::EngineOptions{});
  if (!engine.ok()) {
    std::cerr << engine.status().ToString() << "\n";
    return 1;
  }
  const char* story =
      "市交通运输局今天宣布，全市将于下月起新开通十二条公交快线，覆盖城东新区和大学城等通勤走廊，"
      "高峰时段发车间隔不超过五分钟。";
  const char* reprint =
      "市交通运输局今天宣布：全市将于下月起新开通十二条公交快线，覆盖城东新区和大学城等通勤走廊，"
      "高峰时段发车间隔不超过五分钟！";
  for (auto [id, text] : {std::pair{"a", story}, std::pair{"b", reprint}}) {
    auto r = (*engine)->Add({.id = id, .text = text});
    if (!r.ok()) {
      std::cerr << r.status().ToString() << "\n";
      return 1;
    }
    std::cout << id << ": cluster " << r->cluster << ", size " << r->cluster_size
              << (r->duplicate ? ", duplicate" : ", new") << "\n";
  }
  auto similar = (*engine)->Similar("a");
  for (const auto& m : *similar)
    std::cout << "a ~ " << m.id << " at distance " << m.distance << "\n";
  return 0;
}
