// SPDX-License-Identifier: Apache-2.0
//
// Golomb-Rice coding of a sorted set of values of up to `width` <= 32 bits
// (the compact verification form, form.h). The gaps between consecutive
// values (the first from 0) are written as a unary quotient (gap >> k ones,
// then a zero) and the k low bits, least significant bit first. For n values
// spread over 2^w the gaps are close to geometric; k is chosen to minimize
// the expected k + 1 + (2^w / n) / 2^k bits a value, about log2(2^w / n) + 1.5
// (S. W. Golomb,
// "Run-length encodings", IEEE Trans. Inf. Theory 12(3), 1966; R. F. Rice,
// JPL Publication 79-22, 1979).
//
// Layout: the count n as a varint, k as one byte, the bit stream's length
// in bytes as a varint, then the bit stream.
//
// Thread safety: free functions, no shared state.
#ifndef NEARDUP_VERIFY_RICE_H_
#define NEARDUP_VERIFY_RICE_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace neardup::verify {

// Appends the coded set to *out. `values` must be ascending and distinct,
// each < 2^width (checked; width in [1, 32]).
void RiceEncode(std::span<const uint64_t> values, std::string* out, int width = 32);

// Reads a coded set from the front of *in (advanced past it) into *values.
// False for malformed input (truncated, a value over 2^width - 1, values not
// ascending, a count the bit stream cannot hold, a width outside [1, 32]);
// *values is then unspecified.
bool RiceDecode(std::string_view* in, std::vector<uint64_t>* values, int width = 32);

}  // namespace neardup::verify

#endif  // NEARDUP_VERIFY_RICE_H_
