// SPDX-License-Identifier: Apache-2.0
//
// LEB128 varints (7 bits a byte, low first) for the verification forms
// (form.cc, rice.cc). Not a public header.
#ifndef NEARDUP_VERIFY_VARINT_H_
#define NEARDUP_VERIFY_VARINT_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace neardup::verify {

inline void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// Reads a varint from the front of *in (advanced past it); false when cut short.
inline bool GetVarint(std::string_view* in, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && !in->empty(); shift += 7) {
    const auto byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    *v |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

}  // namespace neardup::verify

#endif  // NEARDUP_VERIFY_VARINT_H_
