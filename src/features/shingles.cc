// SPDX-License-Identifier: Apache-2.0
#include "features/shingles.h"

#include <algorithm>

#include "base/hash_sort.h"
#include "base/status_macros.h"
#include "base/utf8.h"
#include "normalize/char_class.h"

namespace neardup::features {
namespace {

// Hashes every window of n tokens joined by `sep` (all tokens when fewer),
// keeping the texts in *strings when it is not null.
void Windows(const std::vector<std::string_view>& tokens, size_t n, std::string_view sep,
             std::vector<uint64_t>* out, std::vector<std::string>* strings) {
  if (tokens.empty()) return;
  std::string buf;
  const size_t last = tokens.size() <= n ? 1 : tokens.size() - n + 1;
  const size_t width = std::min(n, tokens.size());
  for (size_t i = 0; i < last; ++i) {
    buf.clear();
    for (size_t j = 0; j < width; ++j) {
      if (j > 0) buf += sep;
      buf += tokens[i + j];
    }
    out->push_back(HashFeature(buf));
    if (strings != nullptr) strings->push_back(buf);
  }
}

}  // namespace

Result<std::unique_ptr<Shingler>> Shingler::Create(const ShingleSpec& spec) {
  if (spec.char_n < 1 || spec.char_n > 32) {
    return Status::InvalidArgument("character shingle size must be in [1, 32], got " +
                                   std::to_string(spec.char_n));
  }
  if (spec.word_n < 1 || spec.word_n > 8) {
    return Status::InvalidArgument("word shingle size must be in [1, 8], got " +
                                   std::to_string(spec.word_n));
  }
  // The extractor counts at most 16 characters; kScript is limited to that.
  if (spec.kind == ShingleSpec::Kind::kScript && spec.char_n > 16) {
    return Status::InvalidArgument("script shingles take at most 16 characters");
  }
  NEARDUP_ASSIGN_OR_RETURN(auto ex, CharNgramExtractor::Create({.ngram = std::min(spec.char_n, 16),
                                                                .word_ngram = spec.word_n}));
  return std::unique_ptr<Shingler>(new Shingler(spec, std::move(ex)));
}

// kWord tokens: each no-space character, and each word of a spaced chunk.
void Shingler::Tokens(std::string_view text, std::vector<std::string_view>* tokens) const {
  size_t chunk = std::string_view::npos;
  auto end_chunk = [&](size_t end) {
    if (chunk == std::string_view::npos) return;
    extractor_->SplitWords(text.substr(chunk, end - chunk), tokens);
    chunk = std::string_view::npos;
  };
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t start = pos;
    const int32_t cp = base::DecodeUtf8(text, &pos);
    if (cp < 0) continue;
    switch (normalize::Classify(cp)) {
      case normalize::CharClass::kNoSpace:
        end_chunk(start);
        tokens->push_back(text.substr(start, pos - start));
        break;
      case normalize::CharClass::kSpace:
        end_chunk(start);
        break;
      default:
        if (chunk == std::string_view::npos) chunk = start;
    }
  }
  end_chunk(text.size());
}

void Shingler::Shingle(std::string_view normalized, std::vector<uint64_t>* out) const {
  Collect(normalized, out, nullptr);
  base::SortUniqueHashes(out);
}

void Shingler::ShingleWithText(std::string_view normalized,
                               std::vector<std::pair<uint64_t, std::string>>* out) const {
  std::vector<uint64_t> hashes;
  std::vector<std::string> strings;
  Collect(normalized, &hashes, &strings);
  out->clear();
  for (size_t i = 0; i < hashes.size(); ++i) out->emplace_back(hashes[i], std::move(strings[i]));
  std::sort(out->begin(), out->end());
  out->erase(std::unique(out->begin(), out->end(),
                         [](const auto& a, const auto& b) { return a.first == b.first; }),
             out->end());
}

void Shingler::Collect(std::string_view normalized, std::vector<uint64_t>* out,
                       std::vector<std::string>* strings) const {
  out->clear();
  switch (spec_.kind) {
    case ShingleSpec::Kind::kScript: {
      thread_local std::vector<Feature> feats;
      feats.clear();
      (void)extractor_->ExtractWithText(normalized, &feats, strings);  // never fails
      out->reserve(feats.size());
      for (const Feature& f : feats) out->push_back(f.hash);
      break;
    }
    case ShingleSpec::Kind::kChar: {
      thread_local std::vector<std::string_view> chars;
      chars.clear();
      for (size_t pos = 0; pos < normalized.size();) {
        const size_t start = pos;
        if (base::DecodeUtf8(normalized, &pos) >= 0) {
          chars.push_back(normalized.substr(start, pos - start));
        }
      }
      Windows(chars, static_cast<size_t>(spec_.char_n), "", out, strings);
      break;
    }
    case ShingleSpec::Kind::kWord: {
      thread_local std::vector<std::string_view> tokens;
      tokens.clear();
      Tokens(normalized, &tokens);
      Windows(tokens, static_cast<size_t>(spec_.word_n), " ", out, strings);
      break;
    }
  }
}

}  // namespace neardup::features
