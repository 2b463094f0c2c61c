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
    UErrorCode err = U_ZERO_ERROR;
    icu::StringByteSink<std::string> sink(&folded, static_cast<int32_t>(in.size()));
    impl_->nfkc_cf->normalizeUTF8(0, icu::StringPiece(in.data(), static_cast<int32_t>(in.size())),
                                  sink, nullptr, err);
    if (U_FAILURE(err)) {
      return Status::Internal(std::string("ICU normalization failed: ") + u_errorName(err));
    }
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
