// SPDX-License-Identifier: Apache-2.0
#include "features/word_extractor.h"

#include "base/status_macros.h"
#include "base/utf8.h"
#include "normalize/char_class.h"

namespace neardup::features {
namespace {

struct WordScratch {
  std::vector<char32_t> han;
  std::vector<uint32_t> offsets;
  std::vector<uint32_t> ends;
  std::vector<std::string_view> words;   // SplitWords output
  std::vector<std::string_view> result;  // Extract's word list
};

WordScratch* ThreadWordScratch() {
  thread_local WordScratch s;
  return &s;
}

size_t CountChars(std::string_view w) {
  size_t n = 0;
  for (unsigned char c : w) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

WordExtractor::WordExtractor(WordExtractorOptions options,
                             std::shared_ptr<const tokenize::Segmenter> seg,
                             std::unique_ptr<CharNgramExtractor> splitter)
    : options_(std::move(options)), segmenter_(std::move(seg)), splitter_(std::move(splitter)) {}

Result<std::unique_ptr<WordExtractor>> WordExtractor::Create(const WordExtractorOptions& options) {
  if (options.min_chars < 1 || options.min_chars > 16) {
    return Status::InvalidArgument("min_chars must be in [1, 16]");
  }
  NEARDUP_ASSIGN_OR_RETURN(auto seg, tokenize::Segmenter::Shared(options.segmenter));
  NEARDUP_ASSIGN_OR_RETURN(auto splitter, CharNgramExtractor::Create({}));
  return std::unique_ptr<WordExtractor>(
      new WordExtractor(options, std::move(seg), std::move(splitter)));
}

void WordExtractor::Words(std::string_view text, std::vector<std::string_view>* words) const {
  WordScratch* s = ThreadWordScratch();
  s->han.clear();
  s->offsets.clear();
  const size_t min_chars = static_cast<size_t>(options_.min_chars);
  auto keep = [&](std::string_view w) {
    if (min_chars <= 1 || CountChars(w) >= min_chars) words->push_back(w);
  };
  auto flush_han = [&](size_t end) {
    if (s->han.empty()) return;
    s->offsets.push_back(static_cast<uint32_t>(end));  // offsets[i]: byte start of han[i]
    s->ends.clear();
    segmenter_->CutBlock(s->han.data(), s->han.size(), &s->ends);
    size_t start = 0;
    for (uint32_t e : s->ends) {
      keep(text.substr(s->offsets[start], s->offsets[e] - s->offsets[start]));
      start = e;
    }
    s->han.clear();
    s->offsets.clear();
  };
  size_t chunk = std::string_view::npos;  // start of a non-Han, non-space run
  auto flush_chunk = [&](size_t end) {
    if (chunk == std::string_view::npos) return;
    s->words.clear();
    splitter_->SplitWords(text.substr(chunk, end - chunk), &s->words);
    for (auto w : s->words) keep(w);
    chunk = std::string_view::npos;
  };
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t at = pos;
    const int32_t cp = base::DecodeUtf8(text, &pos);
    if (cp < 0) continue;  // the normalizer guarantees valid UTF-8
    if (tokenize::IsJiebaHan(static_cast<char32_t>(cp))) {
      flush_chunk(at);
      s->han.push_back(static_cast<char32_t>(cp));
      s->offsets.push_back(static_cast<uint32_t>(at));
      continue;
    }
    flush_han(at);
    if (normalize::Classify(cp) == normalize::CharClass::kSpace) {
      flush_chunk(at);
    } else if (chunk == std::string_view::npos) {
      chunk = at;
    }
  }
  flush_han(text.size());
  flush_chunk(text.size());
}

Status WordExtractor::Extract(std::string_view normalized, std::vector<Feature>* out) const {
  std::vector<std::string_view>& words = ThreadWordScratch()->result;
  words.clear();
  Words(normalized, &words);
  for (auto w : words) out->push_back({HashFeature(w), 1.0f});
  return Status::OK();
}

}  // namespace neardup::features
