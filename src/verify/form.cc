// SPDX-License-Identifier: Apache-2.0
#include "verify/form.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "base/hash_sort.h"
#include "base/status_macros.h"
#include "base/utf8.h"
#include "verify/rice.h"
#include "verify/varint.h"

namespace neardup::verify {
namespace {

constexpr uint8_t kShingles = 1, kText = 2, kNarrow = 4, kExpressions = 8, kWidth = 16, kHigh = 32,
                  kSequence = 64;

// The guard's part (flag 64): the ranks at a fixed width, then the anchors.
void PutGuard(const std::vector<uint32_t>& sequence, const std::vector<features::Anchor>* anchors,
              size_t set_size, std::string* out) {
  const int width = set_size <= 65536 ? 2 : 4;
  PutVarint(sequence.size(), out);
  out->push_back(static_cast<char>(width));
  const size_t at = out->size();
  out->resize(at + sequence.size() * width);
  char* p = out->data() + at;
  for (uint32_t r : sequence) {
    for (int i = 0; i < width; ++i) *p++ = static_cast<char>(r >> (8 * i));
  }
  const size_t n = anchors ? anchors->size() : 0;
  PutVarint(n, out);
  uint32_t last = 0;
  for (size_t i = 0; i < n; ++i) {
    const features::Anchor& a = (*anchors)[i];
    for (int b = 0; b < 4; ++b) out->push_back(static_cast<char>(a.hash >> (8 * b)));
    PutVarint(a.pos - last, out);
    last = a.pos;
  }
}

void Make(const Verifier* verifier, std::string_view normalized, std::string* out,
          const std::vector<uint64_t>* shingles, bool narrow, const std::vector<uint64_t>* narrowed,
          std::optional<std::string_view> expressions, int width_for_test = 0, Cut cut = Cut::kHigh,
          GuardInput guard = {}) {
  const std::vector<uint32_t>* sequence = guard.sequence;
  out->clear();
  const size_t code_points = base::CodePointCount(normalized);
  const bool with_text = verifier == nullptr || verifier->reads_text(code_points);
  // A compact form with the text leaves the shingles out: the verifier
  // shingles the (short) text, exactly.
  const bool with_shingles =
      verifier != nullptr && verifier->uses_shingles() && !(narrow && with_text);
  const bool with_expressions = with_text && expressions.has_value();
  narrow = narrow && with_shingles;
  const bool with_sequence =
      with_shingles && !narrow && sequence != nullptr && !sequence->empty() && shingles != nullptr;
  out->push_back(static_cast<char>(
      (with_sequence ? kSequence : 0) | (with_shingles ? kShingles : 0) | (with_text ? kText : 0) |
      (narrow ? kNarrow | kWidth : 0) | (narrow && cut == Cut::kHigh ? kHigh : 0) |
      (with_expressions ? kExpressions : 0)));
  PutVarint(code_points, out);
  if (with_expressions) {
    PutVarint(expressions->size(), out);
    out->append(*expressions);
  }
  if (with_shingles) {
    thread_local std::vector<uint64_t> own, cut_set;
    if (shingles == nullptr) {
      narrowed = nullptr;  // of shingles not given
      verifier->shingler().Shingle(normalized, &own);
      shingles = &own;
    }
    if (narrow) {
      const int width = width_for_test > 0 ? width_for_test : NarrowWidth(shingles->size());
      if (narrowed == nullptr) {
        Narrow(*shingles, &cut_set, width, cut);
        narrowed = &cut_set;
      }
      out->push_back(static_cast<char>(width));
      PutVarint(shingles->size() - narrowed->size(), out);  // folded by the cut
      RiceEncode(*narrowed, out, width);
      return;  // no text: see with_shingles
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
    if (with_sequence) PutGuard(*sequence, guard.anchors, shingles->size(), out);
  }
  if (with_text) out->append(normalized);
}

}  // namespace

void MakeForm(const Verifier* verifier, std::string_view normalized, std::string* out,
              const std::vector<uint64_t>* shingles, std::optional<std::string_view> expressions,
              GuardInput guard) {
  Make(verifier, normalized, out, shingles, false, nullptr, expressions, 0, Cut::kHigh, guard);
}

void MakeCompactForm(const Verifier* verifier, std::string_view normalized, std::string* out,
                     const std::vector<uint64_t>* shingles, const std::vector<uint64_t>* narrowed,
                     std::optional<std::string_view> expressions) {
  Make(verifier, normalized, out, shingles, true, narrowed, expressions);
}

void MakeCompactFormForTest(const Verifier* verifier, std::string_view normalized, int width,
                            std::string* out, Cut cut) {
  NEARDUP_CHECK(width >= 1 && width <= 32);
  Make(verifier, normalized, out, nullptr, true, nullptr, std::nullopt, width, cut);
}

int NarrowWidth(size_t shingles) {
  return std::clamp(static_cast<int>(std::bit_width(shingles)) + 7, 16, 32);
}

void Narrow(std::span<const uint64_t> shingles, std::vector<uint64_t>* out, int width, Cut cut) {
  NEARDUP_CHECK(width >= 1 && width <= 32);
  const int shift = 64 - width;
  out->resize(shingles.size());
  if (cut == Cut::kHigh) {
    size_t n = 0;
    bool ascending = true;
    for (size_t i = 0; i < shingles.size(); ++i) {
      const uint64_t h = shingles[i] >> shift;
      if (n > 0 && h == (*out)[n - 1]) continue;  // a repeat
      ascending = ascending && (n == 0 || h > (*out)[n - 1]);
      (*out)[n++] = h;
    }
    out->resize(n);
    if (!ascending) base::SortUniqueHashes(out);  // not a shingle set: sort
    return;
  }
  // Cut to the top bits, where SortUniqueHashes buckets, then back down.
  for (size_t i = 0; i < shingles.size(); ++i) (*out)[i] = shingles[i] << shift;
  base::SortUniqueHashes(out);
  for (uint64_t& h : *out) h >>= shift;
}

namespace {

// The smallest k with P(X > k) < 1e-7 for X ~ Poisson(lambda).
int PoissonBound(double lambda) {
  double pmf = std::exp(-lambda), cdf = pmf;
  int k = 0;
  while (1.0 - cdf >= 1e-7 && k < 100000) {
    ++k;
    pmf *= lambda / k;
    cdf += pmf;
  }
  return k;
}

// The shared shingles of two sets of sizes a and b whose measure is m.
double SharedAt(VerifierSpec::Kind kind, double m, double a, double b) {
  switch (kind) {
    case VerifierSpec::Kind::kContainment:
      return m * std::min(a, b);
    case VerifierSpec::Kind::kCosine:
      return m * std::sqrt(a * b);
    default:  // Jaccard: m = I / (a + b - I)
      return m * (a + b) / (1.0 + m);
  }
}

}  // namespace

bool NarrowVerdictIsSure(const VerifierSpec& spec, const Verdict& v, size_t mine, size_t theirs,
                         int width, bool whole_counts) {
  if (width >= 64) return true;
  const double a = static_cast<double>(std::max<size_t>(mine, 1));
  const double b = static_cast<double>(std::max<size_t>(theirs, 1));
  const double cells = std::ldexp(1.0, width), t = spec.threshold;
  const double lo = std::max(0.0, t - 0.1), hi = std::min(1.0, t + 0.1);
  const double i_lo = std::min(SharedAt(spec.kind, lo, a, b), std::min(a, b));
  const double i_hi = std::min(SharedAt(spec.kind, hi, a, b), std::min(a, b));
  // Coincidences of cut hashes that move the shared count: a shingle of
  // each side outside the other cut alike (one false shared shingle), two
  // shared shingles cut alike (counted once); without the whole sets' sizes
  // also two shingles of one side cut alike (a side counted one short).
  const double own = whole_counts ? 0.0 : (a * a + b * b) / 2;
  const double near = ((a - i_lo) * (b - i_lo) + i_hi * i_hi / 2 + own) / cells;
  // Anywhere: false shared shingles (up to a * b / 2^w, for disjoint sets)
  // raise a value, shared ones cut alike lower it.
  const double up = (a * b + own) / cells,
               down = (std::min(a, b) * std::min(a, b) / 2 + own) / cells;
  double slope, slope_up, slope_down;  // how far one coincidence moves the measure, at most
  switch (spec.kind) {
    case VerifierSpec::Kind::kContainment:
      slope = slope_up = slope_down = 1.0 / std::min(a, b);
      break;
    case VerifierSpec::Kind::kCosine:
      slope = slope_up = slope_down = 1.0 / std::sqrt(a * b);
      break;
    default:  // d(I / (a + b - I)) / dI = (1 + J)^2 / (a + b)
      slope = (1.0 + hi) * (1.0 + hi) / (a + b);
      slope_up = (1.0 + t) * (1.0 + t) / (a + b);  // below t
      slope_down = 4.0 / (a + b);
      break;
  }
  // A pair further than 0.1 from t must not cross it either.
  if (PoissonBound(up) * slope_up > 0.1 || PoissonBound(down) * slope_down > 0.1) return false;
  return std::abs(v.similarity - t) > PoissonBound(near) * slope;
}

namespace {

// The guard's part (PutGuard), checked: every rank below the set's size n,
// every anchor's window inside the sequence.
bool ReadGuard(std::string_view* form, uint64_t n, FormSequence* seq,
               std::vector<features::Anchor>* anchors, bool check_ranks = true) {
  uint64_t len = 0;
  if (!GetVarint(form, &len) || form->empty()) return false;
  const int width = static_cast<uint8_t>(form->front());
  form->remove_prefix(1);
  if ((width != 2 && width != 4) || len > form->size() / width) return false;
  seq->bytes = form->substr(0, len * width);
  seq->width = width;
  form->remove_prefix(len * width);
  for (size_t i = 0; check_ranks && i < len; ++i) {
    if ((*seq)[i] >= n) return false;
  }
  uint64_t count = 0;
  if (!GetVarint(form, &count) || count > form->size() / 5) return false;
  if (anchors != nullptr) anchors->resize(count);
  uint64_t pos = 0;
  for (uint64_t i = 0; i < count; ++i) {
    if (form->size() < 4) return false;
    const auto* p = reinterpret_cast<const unsigned char*>(form->data());
    const uint64_t hash =
        uint64_t{p[0]} | uint64_t{p[1]} << 8 | uint64_t{p[2]} << 16 | uint64_t{p[3]} << 24;
    form->remove_prefix(4);
    uint64_t delta = 0;
    if (!GetVarint(form, &delta)) return false;
    pos += delta;
    if (pos + features::kAnchorShingles > len) return false;
    if (anchors != nullptr) (*anchors)[i] = {hash, static_cast<uint32_t>(pos)};
  }
  return true;
}

}  // namespace

Result<bool> ReadFormAnchors(std::string_view form, std::vector<features::Anchor>* anchors) {
  const Status bad = Status::Corruption("malformed verification form");
  if (form.empty()) return bad;
  const auto flags = static_cast<uint8_t>(form.front());
  form.remove_prefix(1);
  if (!(flags & kSequence)) return false;
  if ((flags & kNarrow) || !(flags & kShingles)) return bad;
  uint64_t v = 0;
  if (!GetVarint(&form, &v)) return bad;  // code points
  if (flags & kExpressions) {
    if (!GetVarint(&form, &v) || v > form.size()) return bad;
    form.remove_prefix(v);
  }
  uint64_t n = 0;
  if (!GetVarint(&form, &n) || n > form.size() / 8) return bad;
  form.remove_prefix(n * 8);
  FormSequence unused;
  if (!ReadGuard(&form, n, &unused, anchors, /*check_ranks=*/false)) return bad;
  return true;
}

Result<FormSide> ReadForm(std::string_view form, std::vector<uint64_t>* shingles,
                          std::vector<features::Anchor>* anchors) {
  const Status bad = Status::Corruption("malformed verification form");
  if (form.empty()) return bad;
  const auto flags = static_cast<uint8_t>(form.front());
  form.remove_prefix(1);
  if ((flags & ~(kShingles | kText | kNarrow | kExpressions | kWidth | kHigh | kSequence)) != 0) {
    return bad;
  }
  if ((flags & kSequence) && ((flags & kNarrow) || !(flags & kShingles))) return bad;
  if ((flags & kHigh) && !(flags & kWidth)) return bad;
  if ((flags & kNarrow) && !(flags & kShingles)) return bad;
  if ((flags & kWidth) && !(flags & kNarrow)) return bad;
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
    out.width = 32;  // forms from before kWidth
    out.cut = (flags & kHigh) ? Cut::kHigh : Cut::kLow;
    uint64_t folded = 0;
    if (flags & kWidth) {
      if (form.empty()) return bad;
      out.width = static_cast<uint8_t>(form.front());
      form.remove_prefix(1);
      if (out.width < 1 || out.width > 32 || !GetVarint(&form, &folded)) return bad;
    }
    if (!RiceDecode(&form, shingles, out.width)) return bad;
    if (flags & kWidth) {
      if (folded > (uint64_t{1} << 40)) return bad;
      out.side.shingle_count = shingles->size() + folded;
    }
    out.side.shingles = std::span<const uint64_t>(*shingles);
  } else if (flags & kShingles) {
    uint64_t n = 0;
    if (!GetVarint(&form, &n) || n > form.size() / 8) return bad;
    shingles->resize(n);
    const auto* p = reinterpret_cast<const unsigned char*>(form.data());
    if constexpr (std::endian::native == std::endian::little) {
      if (n > 0) std::memcpy(shingles->data(), p, n * 8);  // little-endian, as written
    } else {
      for (uint64_t i = 0; i < n; ++i, p += 8) {
        uint64_t h = 0;
        for (int b = 7; b >= 0; --b) h = (h << 8) | p[b];
        (*shingles)[i] = h;
      }
    }
    form.remove_prefix(n * 8);
    out.side.shingles = std::span<const uint64_t>(*shingles);
    if (flags & kSequence) {
      if (!ReadGuard(&form, n, &out.sequence, anchors)) return bad;
      out.has_sequence = true;
    }
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
