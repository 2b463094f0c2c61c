// SPDX-License-Identifier: Apache-2.0
//
// Implementation notes. Normalization is one pass over the input when no
// TextFolder is set: ASCII and CJK Unified Ideographs (U+4E00..U+9FFF), which
// NFKC_Casefold leaves alone apart from ASCII lowercasing and which always
// start a normalization segment, are handled inline; everything else goes to
// ICU's normalizeUTF8 in spans. A span starts one character early, so a
// combining mark composes with its base exactly as whole-string ICU would
// (normalizer_test checks this). The clean-up step consumes characters as
// they are produced. UTF-8 validity is checked on the way.
#include "normalize/normalizer.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/stringpiece.h>

#include "base/status_macros.h"
#include "base/utf8.h"
#include "normalize/char_class.h"

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

// A "trivial" character: NFKC_Casefold maps it without context (copy, or one
// ASCII character), and normalization always has a boundary before it.
struct Trivial {
  uint8_t len = 0;  // bytes in the input; 0 = not trivial
  char ascii = 0;   // nonzero: the character folds to this ASCII byte
  bool ideograph = false;
};

inline Trivial TrivialAt(const unsigned char* p, size_t avail) {
  if (p[0] < 0x80) {
    const char c = static_cast<char>(p[0]);
    return {1, c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c, false};
  }
  if (avail < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[0] & 0xF0) != 0xE0)
    return {};
  const int32_t cp = ((p[0] & 0x0F) << 12) | ((p[1] & 0x3F) << 6) | (p[2] & 0x3F);
  if (cp >= 0x4E00 && cp <= 0x9FFF) return {3, 0, true};  // CJK Unified Ideographs
  if (cp >= 0xFF01 && cp <= 0xFF5E) {                     // full-width ASCII
    const char c = static_cast<char>(cp - 0xFEE0);
    return {3, c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c, false};
  }
  if (cp == 0x3000) return {3, ' ', false};  // ideographic space
  // NFKC-stable CJK and general punctuation: 、。〃 〈〉《》「」『』【】 ‘’“” —
  if ((cp >= 0x3001 && cp <= 0x3003) || (cp >= 0x3008 && cp <= 0x3011) ||
      (cp >= 0x2018 && cp <= 0x2019) || (cp >= 0x201C && cp <= 0x201D) || cp == 0x2014) {
    return {3, 0, false};
  }
  return {};
}

// Appends pieces of text to a string, joining pieces that lie end to end
// in the current source into one append (most of a Chinese text is copied
// unchanged one character at a time). A piece outside the source, such as a
// byte in a local variable or ICU's reused buffer, is appended at once.
class Pieces {
 public:
  explicit Pieces(std::string* out) : out_(out) {}
  Pieces(const Pieces&) = delete;
  Pieces& operator=(const Pieces&) = delete;
  ~Pieces() { Flush(); }

  // `s` must stay valid until the next Source() or Flush().
  void Source(std::string_view s) {
    Flush();
    lo_ = reinterpret_cast<uintptr_t>(s.data());
    hi_ = lo_ + s.size();
  }
  void Put(const char* p, size_t len) {
    const auto at = reinterpret_cast<uintptr_t>(p);
    if (len_ != 0 && at == run_ + len_ && at + len <= hi_) {
      len_ += len;
      return;
    }
    Flush();
    if (at >= lo_ && at + len <= hi_) {
      run_ = at;
      len_ = len;
    } else {
      out_->append(p, len);
    }
  }
  void Byte(char c) {
    Flush();
    out_->push_back(c);
  }
  void Flush() {
    if (len_ == 0) return;
    out_->append(reinterpret_cast<const char*>(run_), len_);
    len_ = 0;
  }
  bool empty() const { return len_ == 0 && out_->empty(); }

 private:
  std::string* out_;
  uintptr_t lo_ = 0, hi_ = 0;  // the source
  uintptr_t run_ = 0;          // pending: [run_, run_ + len_)
  size_t len_ = 0;
};

// Step 4 as a stream: separators, controls, white space. Characters are
// copied through Pieces with `source` (the text the pointers given point
// into, besides single characters elsewhere) as its source.
class Cleaner {
 public:
  Cleaner(const NormalizerOptions& o, std::string* out, std::string_view source)
      : o_(o), out_(out), source_(source) {
    out->clear();
    out_.Source(source);
  }

  // A character known to be a no-space letter (CJK ideograph).
  void Letter(const char* p, size_t len) {
    Flush();
    out_.Put(p, len);
  }
  // Any valid UTF-8 character at s[start, end).
  void Char(int32_t cp, const char* p, size_t len) {
    if (o_.keep_sentence_breaks && IsSentenceBreak(cp)) {
      if (!out_.empty()) pending_ = '\n';
      return;
    }
    switch (Classify(cp)) {
      case CharClass::kSpace:
        Separate();
        return;
      case CharClass::kControl:
        return;
      case CharClass::kPunct:
        if (o_.drop_punctuation) {
          Separate();
          return;
        }
        break;
      default:
        break;
    }
    Flush();
    out_.Put(p, len);
  }
  // A whole text (ICU's output, or the folded text), valid while this runs.
  void Text(std::string_view s) {
    out_.Source(s);
    size_t pos = 0;
    while (pos < s.size()) {
      // CJK Unified Ideographs (most of a Chinese text) are letters: no
      // decoding, no class lookup.
      if (TrivialAt(reinterpret_cast<const unsigned char*>(s.data()) + pos, s.size() - pos)
              .ideograph) {
        Letter(s.data() + pos, 3);
        pos += 3;
        continue;
      }
      const size_t start = pos;
      const int32_t cp = base::DecodeUtf8(s, &pos);
      if (cp >= 0) Char(cp, s.data() + start, pos - start);
    }
    out_.Source(source_);
  }
  // Writes what is pending; the output is complete after it.
  void Finish() { out_.Flush(); }

 private:
  void Separate() {
    if (!out_.empty() && pending_ == 0) pending_ = ' ';
  }
  void Flush() {
    if (pending_) {
      out_.Byte(pending_);
      pending_ = 0;
    }
  }
  const NormalizerOptions& o_;
  Pieces out_;
  std::string_view source_;
  char pending_ = 0;  // separator owed before the next kept character
};

// Collects raw folded text (used when a TextFolder runs before clean-up).
class Collector {
 public:
  Collector(std::string* out, std::string_view source) : out_(out) { out_.Source(source); }
  void Letter(const char* p, size_t len) { out_.Put(p, len); }
  void Char(int32_t, const char* p, size_t len) { out_.Put(p, len); }
  void Text(std::string_view s) {
    out_.Flush();
    out_.Put(s.data(), s.size());  // outside the source: appended at once
  }
  void Finish() { out_.Flush(); }

 private:
  Pieces out_;
};

// NFKC_Casefold of `in` streamed into `sink`. One trivial character is held
// back so that an ICU span can begin with it. Errors: InvalidArgument for
// ill-formed UTF-8; Internal if ICU fails.
template <typename Sink>
Status Fold(const icu::Normalizer2* nfkc_cf, std::string_view in, Sink& sink) {
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  const size_t n = in.size();
  constexpr size_t kNone = std::string_view::npos;
  size_t held = kNone;  // input offset of the held-back trivial character
  Trivial held_t;
  size_t span = kNone;  // start of the pending ICU span
  std::string buf;
  auto emit_held = [&] {
    if (held == kNone) return;
    if (held_t.ascii != 0) {
      sink.Char(held_t.ascii, &held_t.ascii, 1);
    } else if (held_t.ideograph) {
      sink.Letter(in.data() + held, 3);
    } else {
      size_t at = held;
      const int32_t cp = base::DecodeUtf8(in, &at);
      sink.Char(cp, in.data() + held, held_t.len);  // 1 byte for U+0000, else 3
    }
    held = kNone;
  };
  auto flush_span = [&](size_t end) -> Status {
    buf.clear();
    icu::StringByteSink<std::string> bytes(&buf, static_cast<int32_t>(end - span));
    UErrorCode err = U_ZERO_ERROR;
    nfkc_cf->normalizeUTF8(0, icu::StringPiece(in.data() + span, static_cast<int32_t>(end - span)),
                           bytes, nullptr, err);
    span = kNone;
    if (U_FAILURE(err))
      return Status::Internal(std::string("ICU normalization: ") + u_errorName(err));
    sink.Text(buf);
    return Status::OK();
  };
  size_t pos = 0;
  while (pos < n) {
    if (const Trivial t = TrivialAt(p + pos, n - pos); t.len > 0) {
      if (span != kNone) NEARDUP_RETURN_IF_ERROR(flush_span(pos));
      emit_held();
      held = pos;
      held_t = t;
      pos += t.len;
      continue;
    }
    if (span == kNone) {
      span = held != kNone ? held : pos;
      held = kNone;
    }
    const size_t at = pos;
    if (base::DecodeUtf8(in, &pos) < 0) {
      return Status::InvalidArgument("invalid UTF-8 at byte " + std::to_string(at));
    }
  }
  if (span != kNone) NEARDUP_RETURN_IF_ERROR(flush_span(n));
  emit_held();
  return Status::OK();
}

}  // namespace

Status Normalizer::Normalize(std::string_view in, std::string* out) const {
  std::string repaired;
  if (options_.replace_invalid_utf8 || impl_->nfkc_cf == nullptr) {
    if (Status s = ValidateUtf8(in); !s.ok()) {
      if (!options_.replace_invalid_utf8) return s;
      repaired = ReplaceInvalidUtf8(in);
      in = repaired;
    }
  }
  Cleaner cleaner(options_, out, in);
  if (impl_->nfkc_cf == nullptr) {
    if (!options_.folder) {
      cleaner.Text(in);
      cleaner.Finish();
      return Status::OK();
    }
    std::string converted;
    options_.folder->Fold(in, &converted);
    cleaner.Text(converted);
    cleaner.Finish();
    return Status::OK();
  }
  if (!options_.folder) {
    const Status s = Fold(impl_->nfkc_cf, in, cleaner);
    cleaner.Finish();
    return s;
  }
  std::string folded, converted;
  folded.reserve(in.size());
  Collector collector(&folded, in);
  NEARDUP_RETURN_IF_ERROR(Fold(impl_->nfkc_cf, in, collector));
  collector.Finish();
  options_.folder->Fold(folded, &converted);
  cleaner.Text(converted);
  cleaner.Finish();
  return Status::OK();
}

}  // namespace neardup::normalize
