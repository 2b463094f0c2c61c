// SPDX-License-Identifier: Apache-2.0
// Fuzzes the weight loaders of features/tfidf.h: the idf.utf8 table, the
// stop-word list, and the binary learned document-frequency table. For the
// binary table the input is either the whole image or (first byte odd) a
// body that gets the right magic and checksum, so the fuzzer reaches the
// parser behind the checksum. A table that loads serializes back to an
// image that loads to the same table.
#include <xxhash.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "features/tfidf.h"
#include "fuzz_util.h"

namespace {

namespace features = neardup::features;

void DocumentFrequencies(std::string_view in, bool fix_checksum) {
  std::string image;
  if (fix_checksum) {
    features::DocumentFrequencyTable empty;
    empty.Serialize(&image);  // magic (8), checksum (8), body
    image.resize(16);
    const uint64_t h = XXH3_64bits(in.data(), in.size());
    for (int i = 0; i < 8; ++i) image[8 + i] = static_cast<char>(h >> (8 * i));  // little-endian
    image.append(in);
  } else {
    image.assign(in);
  }
  features::DocumentFrequencyTable t;
  if (!t.Deserialize(image).ok()) return;
  std::string again;
  t.Serialize(&again);
  features::DocumentFrequencyTable u;
  FUZZ_CHECK(u.Deserialize(again).ok());
  FUZZ_CHECK(u.num_documents() == t.num_documents() && u.num_terms() == t.num_terms());
  std::string third;
  u.Serialize(&third);
  FUZZ_CHECK(third == again);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int which = data[0] % 4;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (which >= 2) {
    DocumentFrequencies(rest, which == 3);
    return 0;
  }
  neardup::fuzz::MemFile file(rest);
  if (which == 0) {
    auto t = features::IdfTable::Load(file.path());
    if (t.ok()) FUZZ_CHECK(std::isfinite((*t)->default_idf()));
  } else {
    (void)features::StopWords::Load(file.path());
  }
  return 0;
}
