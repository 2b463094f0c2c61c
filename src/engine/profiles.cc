// SPDX-License-Identifier: Apache-2.0
// Built-in profiles: named bundles of EngineOptions (docs/profiles.md).
#include "neardup/options.h"

namespace neardup {

std::vector<std::string> EngineOptions::ProfileNames() { return {"default"}; }

Result<EngineOptions> EngineOptions::FromProfile(std::string_view name) {
  EngineOptions o;
  if (name == "default") return o;  // character 3-grams / words, TF, SimHash, k=3
  std::string known;
  for (const auto& n : ProfileNames()) known += (known.empty() ? "" : ", ") + n;
  return Status::NotFound("unknown profile '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace neardup
