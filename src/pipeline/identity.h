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

// When `recorded` is the identity of `o` under another MinHash scheme, a
// sentence naming that scheme and the option that opens it (stores written
// before the one-permutation default used "permutations"); otherwise "".
// Thread-safe; reads the data files PipelineIdentity hashes.
std::string SchemeHint(std::string_view recorded, const EngineOptions& o);

}  // namespace neardup::pipeline

#endif  // NEARDUP_PIPELINE_IDENTITY_H_
