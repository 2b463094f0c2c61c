// SPDX-License-Identifier: Apache-2.0
// Explaining a pipeline-identity mismatch (PipelineIdentity in
// neardup/options.h): what a store or index recorded against what an engine
// would write.
#ifndef NEARDUP_PIPELINE_IDENTITY_H_
#define NEARDUP_PIPELINE_IDENTITY_H_

#include <string>
#include <string_view>

#include "neardup/options.h"

namespace neardup::pipeline {

// Whether a store or index that recorded `recorded` fits an engine of `o`:
// its identity, or, for explicit bands and rows equal to the design the
// optimizer gave default options before sketch::TrimBands (2026-11-27), the
// identity those default options had then (the same sketches).
bool IdentityMatches(std::string_view recorded, const EngineOptions& o);

// A sentence naming the options that open what `recorded` describes, when
// it is `o` under another MinHash scheme (stores written before the
// one-permutation default used "permutations") or `o` before TrimBands (the
// bands and rows to give); otherwise "".
// Thread-safe; reads the data files PipelineIdentity hashes.
std::string IdentityHint(std::string_view recorded, const EngineOptions& o);

}  // namespace neardup::pipeline

#endif  // NEARDUP_PIPELINE_IDENTITY_H_
