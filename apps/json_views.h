// SPDX-License-Identifier: Apache-2.0
//
// JSON views of library results shared by the CLI and the HTTP service, so
// `neardup explain --json` and POST /v1/explain print the same object.
#ifndef NEARDUP_APPS_JSON_VIEWS_H_
#define NEARDUP_APPS_JSON_VIEWS_H_

#include <nlohmann/json.hpp>

#include "neardup/engine.h"

namespace neardup::apps {

inline nlohmann::json ExplanationJson(const Explanation& x) {
  nlohmann::json j = {{"duplicate", x.duplicate},
                      {"rule", x.rule},
                      {"steps", x.steps},
                      {"similarity", x.similarity},
                      {"threshold", x.threshold},
                      {"candidate", x.candidate},
                      {"jaccard", x.jaccard},
                      {"containment", x.containment},
                      {"minhash_estimate", x.minhash_estimate},
                      {"lsh_bands", x.lsh_bands},
                      {"lsh_equal_bands", x.lsh_equal_bands},
                      {"simhash_distance", x.simhash_distance},
                      {"shingles_a", x.shingles_a},
                      {"shingles_b", x.shingles_b},
                      {"shared_shingles", x.shared_shingles},
                      {"shared_examples", x.shared_examples}};
  if (x.edit_similarity) j["edit_similarity"] = *x.edit_similarity;
  return j;
}

}  // namespace neardup::apps

#endif  // NEARDUP_APPS_JSON_VIEWS_H_
