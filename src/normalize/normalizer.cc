// SPDX-License-Identifier: Apache-2.0
#include "normalize/normalizer.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/stringpiece.h>

#include "normalize/char_class.h"
#include "normalize/utf8.h"

namespace neardup::normalize {

struct Normalizer::Impl {
  const icu::Normalizer2* nfkc_cf = nullptr;
};

Normalizer::Normalizer(NormalizerOptions options, std::unique_ptr<Impl> impl)
    : options_(std::move(options)), impl_(std::move(impl)) {}
Normalizer::~Normalizer() = default;

Result<std::unique_ptr<Normalizer>> Normalizer::Create(const NormalizerOptions& options) {
  auto impl = std::make_unique<Impl>();
  if (options.nfkc_casefold) {
    UErrorCode err = U_ZERO_ERROR;
    impl->nfkc_cf = icu::Normalizer2::getNFKCCasefoldInstance(err);
    if (U_FAILURE(err) || impl->nfkc_cf == nullptr) {
      return Status::Internal(std::string("ICU NFKC_Casefold unavailable: ") + u_errorName(err));
    }
  }
  return std::unique_ptr<Normalizer>(new Normalizer(options, std::move(impl)));
}

namespace {

// True for the characters NFKC_Casefold leaves alone apart from ASCII
// lowercasing, and before which normalization always has a boundary:
// ASCII and the CJK Unified Ideographs U+4E00..U+9FFF. Sets *len.
inline bool IsTrivial(const unsigned char* p, size_t avail, size_t* len) {
  if (p[0] < 0x80) {
    *len = 1;
    return true;
  }
  if (p[0] >= 0xE4 && p[0] <= 0xE9 && avail >= 3 && (p[1] & 0xC0) == 0x80 &&
      (p[2] & 0xC0) == 0x80) {
    const int32_t cp = ((p[0] & 0x0F) << 12) | ((p[1] & 0x3F) << 6) | (p[2] & 0x3F);
    *len = 3;
    return cp >= 0x4E00 && cp <= 0x9FFF;
  }
  return false;
}

// NFKC_Casefold of valid UTF-8 `in`, appended to *out. Stretches of trivial
// characters are copied (ASCII lowercased); the rest goes through ICU in
// spans that start one character early, so a combining mark still composes
// with its base.
Status FoldNfkcCasefold(const icu::Normalizer2* nfkc_cf, std::string_view in, std::string* out) {
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  const size_t n = in.size();
  size_t pos = 0, prev = 0, prev_out = 0;
  size_t span = std::string_view::npos;  // start of the pending ICU span
  auto flush = [&](size_t end) -> Status {
    UErrorCode err = U_ZERO_ERROR;
    icu::StringByteSink<std::string> sink(out, static_cast<int32_t>(end - span));
    nfkc_cf->normalizeUTF8(0, icu::StringPiece(in.data() + span, static_cast<int32_t>(end - span)),
                           sink, nullptr, err);
    span = std::string_view::npos;
    if (U_FAILURE(err)) return Status::Internal(std::string("ICU normalization: ") + u_errorName(err));
    return Status::OK();
  };
  while (pos < n) {
    size_t len;
    if (IsTrivial(p + pos, n - pos, &len)) {
      if (span != std::string_view::npos) NEARDUP_RETURN_IF_ERROR(flush(pos));
      prev = pos;
      prev_out = out->size();
      if (len == 1) {
        const char c = static_cast<char>(p[pos]);
        out->push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c);
      } else {
        out->append(in.data() + pos, 3);
      }
      pos += len;
      continue;
    }
    if (span == std::string_view::npos) {
      if (pos > 0) {  // take the previous (trivial) character into the span
        span = prev;
        out->resize(prev_out);
      } else {
        span = pos;
      }
    }
    size_t next = pos;
    DecodeUtf8(in, &next);
    pos = next;
  }
  if (span != std::string_view::npos) NEARDUP_RETURN_IF_ERROR(flush(n));
  return Status::OK();
}

// Step 4: separators, controls, white space. `in` is valid UTF-8.
void CleanUp(std::string_view in, const NormalizerOptions& o, std::string* out) {
  out->clear();
  out->reserve(in.size());
  char pending = 0;  // separator owed before the next kept character: ' ' or '\n'
  size_t pos = 0;
  while (pos < in.size()) {
    const size_t start = pos;
    const int32_t cp = DecodeUtf8(in, &pos);
    if (o.keep_sentence_breaks && IsSentenceBreak(cp)) {
      if (!out->empty()) pending = '\n';
      continue;
    }
    switch (Classify(cp)) {
      case CharClass::kSpace:
        if (!out->empty() && pending == 0) pending = ' ';
        continue;
      case CharClass::kControl:
        continue;
      case CharClass::kPunct:
        if (o.drop_punctuation) {
          if (!out->empty() && pending == 0) pending = ' ';
          continue;
        }
        break;
      default:
        break;
    }
    if (pending) {
      out->push_back(pending);
      pending = 0;
    }
    out->append(in.data() + start, pos - start);
  }
}

}  // namespace

Status Normalizer::Normalize(std::string_view in, std::string* out) const {
  std::string repaired;
  if (Status s = ValidateUtf8(in); !s.ok()) {
    if (!options_.replace_invalid_utf8) return s;
    repaired = ReplaceInvalidUtf8(in);
    in = repaired;
  }
  std::string folded;
  std::string_view text = in;
  if (impl_->nfkc_cf != nullptr) {
    folded.reserve(in.size());
    NEARDUP_RETURN_IF_ERROR(FoldNfkcCasefold(impl_->nfkc_cf, in, &folded));
    text = folded;
  }
  std::string converted;
  if (options_.folder) {
    options_.folder->Fold(text, &converted);
    text = converted;
  }
  CleanUp(text, options_, out);
  return Status::OK();
}

}  // namespace neardup::normalize
