// SPDX-License-Identifier: Apache-2.0
#include "verify/form.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "base/hash_sort.h"
#include "base/utf8.h"
#include "verify/rice.h"
#include "verify/varint.h"

namespace neardup::verify {
namespace {

constexpr uint8_t kShingles = 1, kText = 2, kNarrow = 4, kExpressions = 8;

void Make(const Verifier* verifier, std::string_view normalized, std::string* out,
          const std::vector<uint64_t>* shingles, bool narrow, const std::vector<uint64_t>* narrowed,
          std::optional<std::string_view> expressions) {
  out->clear();
  const size_t code_points = base::CodePointCount(normalized);
  const bool with_shingles = verifier != nullptr && verifier->uses_shingles();
  const bool with_text = verifier == nullptr || verifier->reads_text(code_points);
  const bool with_expressions = with_text && expressions.has_value();
  narrow = narrow && with_shingles;
  out->push_back(static_cast<char>((with_shingles ? kShingles : 0) | (with_text ? kText : 0) |
                                   (narrow ? kNarrow : 0) | (with_expressions ? kExpressions : 0)));
  PutVarint(code_points, out);
  if (with_expressions) {
    PutVarint(expressions->size(), out);
    out->append(*expressions);
  }
  if (with_shingles) {
    thread_local std::vector<uint64_t> own, cut;
    if (shingles == nullptr) {
      narrowed = nullptr;  // of shingles not given
      verifier->shingler().Shingle(normalized, &own);
      shingles = &own;
    }
    if (narrow) {
      if (narrowed == nullptr) {
        Narrow(*shingles, &cut);
        narrowed = &cut;
      }
      RiceEncode(*narrowed, out);
      if (with_text) out->append(normalized);
      return;
    }
    PutVarint(shingles->size(), out);
    const size_t at = out->size();
    out->resize(at + shingles->size() * 8);
    char* p = out->data() + at;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(p, shingles->data(), shingles->size() * 8);  // the same bytes
    } else {
      for (uint64_t h : *shingles) {
        for (int i = 0; i < 8; ++i) *p++ = static_cast<char>(h >> (8 * i));
      }
    }
  }
  if (with_text) out->append(normalized);
}

}  // namespace

void MakeForm(const Verifier* verifier, std::string_view normalized, std::string* out,
              const std::vector<uint64_t>* shingles, std::optional<std::string_view> expressions) {
  Make(verifier, normalized, out, shingles, false, nullptr, expressions);
}

void MakeCompactForm(const Verifier* verifier, std::string_view normalized, std::string* out,
                     const std::vector<uint64_t>* shingles, const std::vector<uint64_t>* narrowed,
                     std::optional<std::string_view> expressions) {
  Make(verifier, normalized, out, shingles, true, narrowed, expressions);
}

void Narrow(std::span<const uint64_t> shingles, std::vector<uint64_t>* out) {
  // Cut to the high half, where SortUniqueHashes buckets, then back down.
  out->resize(shingles.size());
  for (size_t i = 0; i < shingles.size(); ++i) (*out)[i] = shingles[i] << 32;
  base::SortUniqueHashes(out);
  for (uint64_t& h : *out) h >>= 32;
}

Result<FormSide> ReadForm(std::string_view form, std::vector<uint64_t>* shingles) {
  const Status bad = Status::Corruption("malformed verification form");
  if (form.empty()) return bad;
  const auto flags = static_cast<uint8_t>(form.front());
  form.remove_prefix(1);
  if ((flags & ~(kShingles | kText | kNarrow | kExpressions)) != 0) return bad;
  if ((flags & kNarrow) && !(flags & kShingles)) return bad;
  if ((flags & kExpressions) && !(flags & kText)) return bad;
  uint64_t code_points = 0;
  if (!GetVarint(&form, &code_points)) return bad;
  FormSide out;
  out.side.code_points = code_points;
  if (flags & kExpressions) {
    uint64_t n = 0;
    if (!GetVarint(&form, &n) || n > form.size()) return bad;
    out.side.expressions = form.substr(0, n);
    form.remove_prefix(n);
  }
  out.narrow = (flags & kNarrow) != 0;
  if (out.narrow) {
    if (!RiceDecode(&form, shingles)) return bad;
    out.side.shingles = std::span<const uint64_t>(*shingles);
  } else if (flags & kShingles) {
    uint64_t n = 0;
    if (!GetVarint(&form, &n) || n > form.size() / 8) return bad;
    shingles->resize(n);
    const auto* p = reinterpret_cast<const unsigned char*>(form.data());
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(shingles->data(), p, n * 8);  // little-endian, as written
    } else {
      for (uint64_t i = 0; i < n; ++i, p += 8) {
        uint64_t h = 0;
        for (int b = 7; b >= 0; --b) h = (h << 8) | p[b];
        (*shingles)[i] = h;
      }
    }
    form.remove_prefix(n * 8);
    out.side.shingles = std::span<const uint64_t>(*shingles);
  }
  if (flags & kText) {
    out.side.normalized = form;
    out.has_text = true;
  } else if (!form.empty()) {
    return bad;
  }
  return out;
}

}  // namespace neardup::verify
