// SPDX-License-Identifier: Apache-2.0
#include "eval/shingles.h"

#include <algorithm>
#include <charconv>

#include "normalize/t2s.h"
#include "resources/data_dir.h"

namespace neardup::eval {

Result<ShingleSpec> ShingleSpec::Parse(std::string_view spec) {
  ShingleSpec s;
  const size_t colon = spec.find(':');
  if (colon == std::string_view::npos) {
    return Status::InvalidArgument("shingle spec '" + std::string(spec) +
                                   "' must be char:N or word:N");
  }
  const std::string_view kind = spec.substr(0, colon), num = spec.substr(colon + 1);
  if (kind == "char") {
    s.kind = Kind::kChar;
  } else if (kind == "word") {
    s.kind = Kind::kWord;
  } else {
    return Status::InvalidArgument("shingle kind must be char or word, not '" + std::string(kind) +
                                   "'");
  }
  auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), s.n);
  const int max = s.kind == Kind::kChar ? 16 : 8;
  if (ec != std::errc() || p != num.data() + num.size() || s.n < 1 || s.n > max) {
    return Status::InvalidArgument("shingle size in '" + std::string(spec) + "' must be 1.." +
                                   std::to_string(max));
  }
  return s;
}

Result<std::unique_ptr<Shingler>> Shingler::Create(const ShinglerOptions& options) {
  std::unique_ptr<Shingler> s(new Shingler());
  normalize::NormalizerOptions n;
  n.replace_invalid_utf8 = options.replace_invalid_utf8;
  if (options.t2s) {
    // Character-level folding only (TSCharacters): the ground truth's definition.
    NEARDUP_ASSIGN_OR_RETURN(auto folder, normalize::T2SFolder::LoadFiles({resources::OpenccFile(
                                              "TSCharacters.txt", options.data_dir)}));
    n.folder = std::move(folder);
  }
  NEARDUP_ASSIGN_OR_RETURN(s->normalizer_, normalize::Normalizer::Create(n));
  features::CharNgramOptions f;
  if (options.spec.kind == ShingleSpec::Kind::kChar) {
    f.ngram = options.spec.n;
  } else {
    f.word_ngram = options.spec.n;
  }
  NEARDUP_ASSIGN_OR_RETURN(s->extractor_, features::CharNgramExtractor::Create(f));
  return s;
}

Result<std::vector<uint64_t>> Shingler::Shingle(std::string_view text) const {
  thread_local std::string normalized;
  thread_local std::vector<features::Feature> feats;
  NEARDUP_RETURN_IF_ERROR(normalizer_->Normalize(text, &normalized));
  feats.clear();
  NEARDUP_RETURN_IF_ERROR(extractor_->Extract(normalized, &feats));
  std::vector<uint64_t> out;
  out.reserve(feats.size());
  for (const auto& f : feats) out.push_back(f.hash);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace neardup::eval
