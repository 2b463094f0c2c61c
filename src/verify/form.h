// SPDX-License-Identifier: Apache-2.0
//
// The verification form of a document: what Verifier::Verify() reads of one
// side of a pair, computed once when the document is sketched or stored, so
// a candidate is verified without normalizing and shingling its text again.
// It holds what the verifier's decision needs and nothing else:
//
//   kind                    shingles  code points  normalized text
//   kJaccard, kContainment, kCosine    yes       yes          no
//   kSimilarity             yes       yes          when <= short_chars code points
//   kLevenshtein, kLcs, kQbank, none  no        yes          yes
//
// kSimilarity reads the texts only for pairs where both have <= short_chars
// code points, and then both forms carry them, so Verify() on two forms
// equals Verify() on the two normalized texts exactly (form_test.cc).
// The shingle hashes are kept whole (64 bits): a sorted set of n random
// 64-bit hashes has gaps of about 2^64 / n, so delta coding would not shrink
// it, and truncated hashes could change a Jaccard value.
//
// Layout: a flags byte (1: shingles, 2: text, 4: narrow, 8: expressions,
// 16: narrow with a width, 32: narrow to the high bits, 64: the sequence), the code points as a
// varint, with
// expressions their length as a varint and the bytes (numbers.h Expressions() of the original text:
// forms with the text carry them when the caller gives them; forms written before they were kept
// have none), then with shingles their count as a varint and the hashes (8 bytes little-endian
// each, ascending) or, narrow, with flag 16 the width byte and n minus the cut set's size as a
// varint, then the Rice-coded cut set; with flag 64 (wide shingles only) the number of shingles
// in text order as a varint, the width of a rank (a byte: 2 or 4), each one's rank in the set at
// that width (little-endian), the number of anchors as a varint and each anchor as its hash's low
// 32 bits (little-endian) and its position as a varint (the first from 0, the others from the one
// before); then with text the normalized text to the end.
//
// The compact form (MakeCompactForm, for the online store, where every
// document keeps one) keeps the text of a text the verifier reads (short
// texts under kSimilarity) in place of its shingles: the verifier shingles it
// again, exactly. Otherwise its shingles are narrow: each hash cut to its high
// w = NarrowWidth(n) bits (n shingles: w = bit width of n + 7, in [16, 32]; flag 32. The hashes
// being ascending, so are their high bits, and no sort is needed; forms written before flag 32
// kept the low bits, sorted again), distinct, Golomb-Rice coded (rice.h), with n itself:
// about 9.5 bits a shingle for an article (log2(2^w / n) + 1.5, 2^w / n in [128, 256)), against 64
// in the wide form. The other side's hashes are cut the same way (Narrow) and the set measures take
// both sizes from the whole sets (Side::shingle_count), so only the shared count can be off: a
// shingle of each side outside the other cut alike adds one, two shared shingles cut alike take one
// away. Near a Jaccard of 0.6 about 0.45 n^2 / 2^w such coincidences are expected (1.7 for two
// articles of 700 shingles, w = 17), each moving the value by about (1 + J)^2 / 2n (0.0018). A
// value from narrow shingles is therefore an estimate, within about 0.01 of the exact one for
// articles, up to about 0.03 (0.026 the most seen on the leaderboard's
// sets), and the caller checks the decision with NarrowVerdictIsSure(): a
// verdict closer to the threshold than the coincidences could move it is
// decided from the texts instead, so the decisions are the exact ones
// (form_test.cc, signal_set_test.cc, durable_forms_test.cc). With the
// boilerplate guard the measure is over what is left of the sets, which can be
// much smaller: values are then estimates within about 0.06 (0.033 seen), and
// the caller bounds the verdict with the rest's size. Forms written
// before the width byte (flag 16) are narrow at 32 bits, without n.
// Which bits are kept does not change the estimate: the hashes are uniform.
//
// Thread safety: free functions, no shared state.
#ifndef NEARDUP_VERIFY_FORM_H_
#define NEARDUP_VERIFY_FORM_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "features/anchors.h"
#include "neardup/status.h"
#include "verify/verifier.h"

namespace neardup::verify {

// Replaces *out with the form of a normalized text for `verifier` (null: no
// verifier, the form is the text). `shingles`, when given, must be the
// verifier's shingles of `normalized` (saves shingling it again).
// `expressions`: Expressions() of the original text, kept when the form
// keeps the text.
// The boilerplate guard's part of a form (verify/boilerplate.h): a text's
// shingles in text order as their ranks in its set (features::SequenceRanks)
// and its anchors (features/anchors.h).
struct GuardInput {
  const std::vector<uint32_t>* sequence = nullptr;
  const std::vector<features::Anchor>* anchors = nullptr;
};

// `guard`, when it has a sequence and `shingles` are given, is kept in the
// form (flag 64).
void MakeForm(const Verifier* verifier, std::string_view normalized, std::string* out,
              const std::vector<uint64_t>* shingles = nullptr,
              std::optional<std::string_view> expressions = std::nullopt, GuardInput guard = {});

// As MakeForm, compact (see above): for a store that keeps every document's
// form. `narrowed`, when given, must be Narrow() of the verifier's shingles
// at NarrowWidth() of their count, Cut::kHigh (saves cutting them again).
void MakeCompactForm(const Verifier* verifier, std::string_view normalized, std::string* out,
                     const std::vector<uint64_t>* shingles = nullptr,
                     const std::vector<uint64_t>* narrowed = nullptr,
                     std::optional<std::string_view> expressions = std::nullopt);

// A form read back: a Side for Verifier::Verify() (its shingles in
// *shingles, which must outlive it), whether it carries the text, and
// whether its shingles are narrow (compare them with Narrow() of the other
// side's).
// Which bits of each shingle hash a narrow form keeps.
enum class Cut : uint8_t {
  kLow,   // the low `width` bits (forms written before kHigh)
  kHigh,  // the high `width` bits: what MakeCompactForm writes
};

// The ranks of a form's shingles in text order, read in place: `bytes`
// holds size() little-endian ranks of `width` bytes (2, or 4 for sets of
// over 65,536 shingles).
struct FormSequence {
  std::string_view bytes;
  int width = 2;
  size_t size() const { return bytes.size() / static_cast<size_t>(width); }
  uint32_t operator[](size_t i) const {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data()) + i * width;
    return width == 2
               ? uint32_t{p[0]} | uint32_t{p[1]} << 8
               : uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
  }
};

struct FormSide {
  Side side;
  bool has_text = false;
  bool narrow = false;
  int width = 64;             // the bits of each shingle hash: < 64 when narrow
  Cut cut = Cut::kLow;        // when narrow
  bool has_sequence = false;  // the form keeps the guard's part (flag 64)
  FormSequence sequence;      // then: its ranks, in the form's bytes
};

// MakeCompactForm with the shingles cut to `width` bits whatever their
// count, so tests can make coincidences common. `width` in [1, 32]; `cut`
// kLow makes the forms stores wrote before kHigh.
void MakeCompactFormForTest(const Verifier* verifier, std::string_view normalized, int width,
                            std::string* out, Cut cut = Cut::kHigh);

// The width a compact form cuts `shingles` hashes to (see above).
int NarrowWidth(size_t shingles);

// Whether a verdict reached on shingle sets cut to `width` bits is the one
// the whole hashes give. `mine`, `theirs`: the sizes of the whole sets when
// `whole_counts` (the measure took them from Side::shingle_count), else of
// the cut ones. False when the similarity lies closer to the threshold than
// the coincidences of cut hashes could move it with probability over 1e-7
// (a Poisson bound on their count for a pair within 0.1 of the threshold,
// times the measure's largest step there), or when a pair further away
// could cross it. True for width >= 64. For the set kinds (and kSimilarity
// over texts that are not both short, where it is Jaccard).
bool NarrowVerdictIsSure(const VerifierSpec& spec, const Verdict& v, size_t mine, size_t theirs,
                         int width, bool whole_counts);

// The `cut` (low or high) `width` bits (in [1, 32]) of each hash, ascending
// and distinct, into *out. O(n): for kHigh of ascending hashes (a shingle
// set) a pass that drops repeats; else a radix pass on the cut hashes, which
// are uniform.
void Narrow(std::span<const uint64_t> shingles, std::vector<uint64_t>* out, int width, Cut cut);
// `anchors`, when not null, receives the anchors where the form keeps them
// (FormSide::has_sequence; their hashes' low 32 bits, which is all the
// guard's counts read), else is left as it was. FormSide::sequence points
// into `form`. Errors: Corruption for a form that does not parse.
Result<FormSide> ReadForm(std::string_view form, std::vector<uint64_t>* shingles,
                          std::vector<features::Anchor>* anchors = nullptr);
// Only the anchors of a form (false: it keeps none), without reading its
// shingles or checking its ranks: the guard's counting pass. O(anchors).
// Errors: Corruption for a form whose parts up to the anchors do not parse.
Result<bool> ReadFormAnchors(std::string_view form, std::vector<features::Anchor>* anchors);

}  // namespace neardup::verify

#endif  // NEARDUP_VERIFY_FORM_H_
