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
// Layout: a flags byte (1: shingles, 2: text, 4: narrow, 8: expressions),
// the code points as a varint, with expressions their length as a varint and
// the bytes (numbers.h Expressions() of the original text: forms with the
// text carry them when the caller gives them; forms written before they
// were kept have none), then with shingles their count as a varint and the
// hashes (8 bytes little-endian each, ascending), then with text the
// normalized text to the end.
//
// The compact form (MakeCompactForm, for the online store, where every
// document keeps one) is narrow: the shingle hashes cut to their low 32
// bits, sorted and distinct, Golomb-Rice coded (rice.h) in place of the
// 8-byte hashes: about 3 bytes a shingle. Its shingle set is compared with
// the other side's hashes cut the same way (Narrow), so a set measure counts
// two different shingles as one when their low 32 bits agree: for two sets
// of n shingles about n^2 / 2^32 such coincidences are expected (0.0001 for
// articles of 700 characters), each moving a Jaccard value by about 1 / 2n.
// form_test.cc checks the decisions against the texts'.
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

#include "neardup/status.h"
#include "verify/verifier.h"

namespace neardup::verify {

// Replaces *out with the form of a normalized text for `verifier` (null: no
// verifier, the form is the text). `shingles`, when given, must be the
// verifier's shingles of `normalized` (saves shingling it again).
// `expressions`: Expressions() of the original text, kept when the form
// keeps the text.
void MakeForm(const Verifier* verifier, std::string_view normalized, std::string* out,
              const std::vector<uint64_t>* shingles = nullptr,
              std::optional<std::string_view> expressions = std::nullopt);

// As MakeForm, narrow (see above): for a store that keeps every document's
// form. `narrowed`, when given, must be Narrow() of the verifier's shingles
// (saves cutting and sorting them again).
void MakeCompactForm(const Verifier* verifier, std::string_view normalized, std::string* out,
                     const std::vector<uint64_t>* shingles = nullptr,
                     const std::vector<uint64_t>* narrowed = nullptr,
                     std::optional<std::string_view> expressions = std::nullopt);

// A form read back: a Side for Verifier::Verify() (its shingles in
// *shingles, which must outlive it), whether it carries the text, and
// whether its shingles are narrow (compare them with Narrow() of the other
// side's).
struct FormSide {
  Side side;
  bool has_text = false;
  bool narrow = false;
};

// The low 32 bits of each hash, ascending and distinct, into *out. O(n):
// a radix pass on the cut hashes, which are uniform.
void Narrow(std::span<const uint64_t> shingles, std::vector<uint64_t>* out);
// Errors: Corruption for a form that does not parse.
Result<FormSide> ReadForm(std::string_view form, std::vector<uint64_t>* shingles);

}  // namespace neardup::verify

#endif  // NEARDUP_VERIFY_FORM_H_
