// SPDX-License-Identifier: Apache-2.0
// Builds the engine's SignalSet from EngineOptions: the selected signals in
// precedence order (simhash as a view of the engine's Hamming index, so the
// default path and persistence keep using that index) and the verifier.
#include <algorithm>
#include <string>

#include "engine/engine_impl.h"
#include "resources/data_dir.h"
#include "tokenize/segmenter.h"

namespace neardup {
namespace {

std::string JiebaDir(const EngineOptions& o) {
  return o.data_dir.empty() ? resources::JiebaDir()
                            : o.data_dir + "/nodejieba/submodules/cppjieba/dict";
}

Result<signal::SignalOptions> MakeSignalOptions(const EngineOptions& o,
                                                const std::vector<signal::Algorithm>& algs, int k) {
  signal::SignalOptions so;
  so.simhash_max_distance = k;
  so.minhash_num_perm = o.minhash_num_perm;
  so.minhash_threshold = o.minhash_threshold;
  so.minhash_ngram = o.minhash_ngram;
  so.supershingle_min_equal = o.supershingle_min_equal;
  so.spotsig_threshold = o.spotsig_threshold;
  if (o.spotsig_stop_words == "zh") {
    so.spotsig_stop_words = JiebaDir(o) + "/stop_words.utf8";
  } else if (o.spotsig_stop_words != "en") {
    so.spotsig_stop_words = o.spotsig_stop_words;
  }
  if (std::find(algs.begin(), algs.end(), signal::Algorithm::kIMatch) != algs.end()) {
    sketch::IMatchOptions im;
    im.drop_low = o.imatch_drop_low;
    im.drop_high = o.imatch_drop_high;
    im.extra_lexicons = o.imatch_extra_lexicons;
    NEARDUP_ASSIGN_OR_RETURN(
        so.imatch, signal::LoadIMatchLexicon(
                       o.imatch_idf.empty() ? JiebaDir(o) + "/idf.utf8" : o.imatch_idf, im));
  }
  return so;
}

}  // namespace

Status engine::BuildSignals(const EngineOptions& o, const index::HammingIndex* index, int k,
                            std::unique_ptr<signal::SignalSet>* signals, int* simhash_pos) {
  signals->reset();
  *simhash_pos = -1;
  NEARDUP_ASSIGN_OR_RETURN(std::vector<signal::Algorithm> algs,
                           signal::ParseAlgorithms(o.algorithms));
  const std::string verify = o.verify == "none" ? "" : o.verify;
  if (o.SimHashOnly()) return Status::OK();
  NEARDUP_ASSIGN_OR_RETURN(signal::SignalOptions so, MakeSignalOptions(o, algs, k));
  std::vector<std::unique_ptr<signal::Signal>> list;
  for (signal::Algorithm a : algs) {
    if (a == signal::Algorithm::kSimHash) {
      *simhash_pos = static_cast<int>(list.size());
      list.push_back(signal::CreateSimHashView(index, k));
    } else {
      NEARDUP_ASSIGN_OR_RETURN(auto s, signal::CreateSignal(a, so));
      list.push_back(std::move(s));
    }
  }
  NEARDUP_ASSIGN_OR_RETURN(*signals, signal::SignalSet::Create(std::move(list), verify));
  return Status::OK();
}

}  // namespace neardup
