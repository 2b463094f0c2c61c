// SPDX-License-Identifier: Apache-2.0
//
// The encodings of the store's rows (layout in doc_store.h), shared by
// DocStore and the store check. Not a public header. Decoders return false
// on bytes that do not decode; they never read past the value.
#ifndef NEARDUP_STORE_ROWS_H_
#define NEARDUP_STORE_ROWS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "store/doc_store.h"

namespace neardup::store {

// 2: node rows carry sketches. 3: sketches may hold folded 32-bit band keys
// and verification forms cut hashes to a width (verify/form.h), which a
// format-2 reader would misread. 4: forms may cut to the high bits (flag
// 32), which a format-3 reader takes for damage. A format-2 or -3 store
// opens and becomes 4 when first opened for writing.
inline constexpr char kFormat[] = "neardup-store-4";
inline constexpr char kFormatV2[] = "neardup-store-2";
inline constexpr char kFormatV3[] = "neardup-store-3";
inline constexpr char kNodeCountKey[] = "nodes";  // default family: node rows held

std::string SeqKey(uint64_t seq);  // big-endian: keys sort by seq
uint64_t DecodeSeqKey(std::string_view k);
std::string EncodeNode(const NodeRow& r);
bool DecodeNode(std::string_view key, std::string_view value, NodeRow* r);
std::string EncodeTime(const TimeRow& r);
bool DecodeTime(std::string_view key, std::string_view value, TimeRow* r);
std::string EncodeDoc(const DocRow& r);
bool DecodeDoc(std::string_view value, DocRow* r);

}  // namespace neardup::store

#endif  // NEARDUP_STORE_ROWS_H_
