// SPDX-License-Identifier: Apache-2.0
#include "features/char_ngram.h"

// XXH3 inlined into this file: the same function as libxxhash, without a
// call per n-gram.
#define XXH_INLINE_ALL
#include <unicode/brkiter.h>
#include <unicode/utext.h>
#include <xxhash.h>

#include <string>

#include "base/utf8.h"
#include "normalize/char_class.h"

namespace neardup::features {

uint64_t HashFeature(std::string_view token) {
  return XXH3_64bits_withSeed(token.data(), token.size(), kFeatureSeed);
}

namespace {

using normalize::CharClass;

// One ICU word iterator per thread, created on first use.
icu::BreakIterator* ThreadWordIterator() {
  thread_local std::unique_ptr<icu::BreakIterator> it;
  if (!it) {
    UErrorCode err = U_ZERO_ERROR;
    it.reset(icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), err));
    if (U_FAILURE(err)) it.reset();
  }
  return it.get();
}

bool AllAsciiAlnum(std::string_view s) {
  for (unsigned char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return false;
  }
  return true;
}

}  // namespace

struct CharNgramExtractor::Impl {};

CharNgramExtractor::CharNgramExtractor(CharNgramOptions options, std::unique_ptr<Impl> impl)
    : options_(options), impl_(std::move(impl)) {}
CharNgramExtractor::~CharNgramExtractor() = default;

Result<std::unique_ptr<CharNgramExtractor>> CharNgramExtractor::Create(
    const CharNgramOptions& options) {
  if (options.ngram < 1 || options.ngram > 16) {
    return Status::InvalidArgument("ngram must be in [1, 16], got " +
                                   std::to_string(options.ngram));
  }
  if (options.word_ngram < 1 || options.word_ngram > 8) {
    return Status::InvalidArgument("word_ngram must be in [1, 8], got " +
                                   std::to_string(options.word_ngram));
  }
  if (ThreadWordIterator() == nullptr)
    return Status::Internal("ICU word break iterator unavailable");
  return std::unique_ptr<CharNgramExtractor>(
      new CharNgramExtractor(options, std::make_unique<Impl>()));
}

void CharNgramExtractor::SplitWords(std::string_view chunk,
                                    std::vector<std::string_view>* words) const {
  if (AllAsciiAlnum(chunk)) {
    words->push_back(chunk);
    return;
  }
  icu::BreakIterator* bi = ThreadWordIterator();
  UErrorCode err = U_ZERO_ERROR;
  UText* ut = utext_openUTF8(nullptr, chunk.data(), static_cast<int64_t>(chunk.size()), &err);
  if (U_FAILURE(err) || bi == nullptr) {
    words->push_back(chunk);
    utext_close(ut);
    return;
  }
  bi->setText(ut, err);
  int32_t start = bi->first();
  for (int32_t end = bi->next(); end != icu::BreakIterator::DONE; start = end, end = bi->next()) {
    if (bi->getRuleStatus() != UBRK_WORD_NONE) words->push_back(chunk.substr(start, end - start));
  }
  utext_close(ut);
}

Status CharNgramExtractor::Extract(std::string_view text, std::vector<Feature>* out) const {
  return ExtractWithText(text, out, nullptr);
}

Status CharNgramExtractor::ExtractWithText(std::string_view text, std::vector<Feature>* out,
                                           std::vector<std::string>* strings) const {
  auto emit = [&](std::string_view token) {
    out->push_back({HashFeature(token), 1.0f});
    if (strings != nullptr) strings->emplace_back(token);
  };
  const size_t n = static_cast<size_t>(options_.ngram);
  // The current no-space run, white space removed: a range of `text` while
  // its characters lie end to end there (nearly always), else a copy.
  std::string run;
  size_t run_begin = 0, run_end = 0;
  bool run_copied = false;
  std::vector<uint32_t> starts;  // byte offset of each character in the run
  std::vector<std::string_view> words;
  size_t chunk_start = std::string_view::npos, chunk_end = 0;

  auto run_view = [&]() -> std::string_view {
    return run_copied ? std::string_view(run) : text.substr(run_begin, run_end - run_begin);
  };
  auto add_to_run = [&](size_t start, size_t end) {
    if (starts.empty()) {
      run_begin = start, run_end = end, run_copied = false;
      starts.push_back(0);
      return;
    }
    if (!run_copied && start == run_end) {
      starts.push_back(static_cast<uint32_t>(run_end - run_begin));
      run_end = end;
      return;
    }
    if (!run_copied) run.assign(text.substr(run_begin, run_end - run_begin)), run_copied = true;
    starts.push_back(static_cast<uint32_t>(run.size()));
    run.append(text.data() + start, end - start);
  };
  auto flush_run = [&]() {
    if (starts.empty()) return;
    const std::string_view r = run_view();
    starts.push_back(static_cast<uint32_t>(r.size()));
    const size_t chars = starts.size() - 1;
    if (chars <= n) {
      emit(r);
    } else {
      for (size_t i = 0; i + n <= chars; ++i) {
        emit(r.substr(starts[i], starts[i + n] - starts[i]));
      }
    }
    run.clear();
    run_copied = false;
    starts.clear();
  };
  auto end_chunk = [&]() {
    if (chunk_start == std::string_view::npos) return;
    SplitWords(text.substr(chunk_start, chunk_end - chunk_start), &words);
    chunk_start = std::string_view::npos;
  };

  size_t pos = 0;
  while (pos < text.size()) {
    const size_t start = pos;
    const int32_t cp = base::DecodeUtf8(text, &pos);
    if (cp < 0) continue;  // the normalizer guarantees valid UTF-8; be safe anyway
    const CharClass cls = normalize::Classify(cp);
    if (cls == CharClass::kNoSpace) {
      end_chunk();
      add_to_run(start, pos);
    } else if (cls == CharClass::kSpace) {
      end_chunk();
    } else {
      flush_run();
      if (chunk_start == std::string_view::npos) chunk_start = start;
      chunk_end = pos;
    }
  }
  end_chunk();
  flush_run();

  const size_t wn = static_cast<size_t>(options_.word_ngram);
  if (wn == 1 || words.size() <= wn) {
    if (wn == 1) {
      for (std::string_view w : words) emit(w);
    } else if (!words.empty()) {
      std::string joined;
      for (size_t i = 0; i < words.size(); ++i) (i ? joined += ' ' : joined) += words[i];
      emit(joined);
    }
  } else {
    std::string shingle;
    for (size_t i = 0; i + wn <= words.size(); ++i) {
      shingle.clear();
      for (size_t j = 0; j < wn; ++j) (j ? shingle += ' ' : shingle) += words[i + j];
      emit(shingle);
    }
  }
  return Status::OK();
}

}  // namespace neardup::features
